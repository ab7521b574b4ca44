package safefile

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// within runs f and fails the test if it does not return in time: a regression that blocks on
// a FIFO fails instead of hanging the suite.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("blocked for 5 s (opened a FIFO?)")
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	regular := write("a.md", "hello\n")
	exact := write("exact.md", strings.Repeat("x", 10))
	over := write("over.md", strings.Repeat("x", 11))
	fifo := filepath.Join(dir, "fifo.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(regular, link); err != nil {
		t.Fatal(err)
	}
	environ := filepath.Join(dir, "environ.md")
	if err := os.Symlink("/proc/self/environ", environ); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop.md")
	if err := os.Symlink(loop, loop); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(t.TempDir(), "s.md")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()

	tests := []struct {
		name, path string
		limit      int64
		want       string // content, or the error's text after "PATH: "
		wantErr    bool
	}{
		{"a regular file", regular, 0, "hello\n", false},
		{"a symbolic link to a regular file", link, 0, "hello\n", false},
		{"exactly the limit", exact, 10, strings.Repeat("x", 10), false},
		{"over the limit", over, 10, "too large: expected at most 10 bytes, found 11 bytes", true},
		{"a FIFO", fifo, 0, "a FIFO (named pipe), not a regular file", true},
		{"a folder", dir, 0, "is a directory", true},
		{"a character device", "/dev/null", 0, "a character device, not a regular file", true},
		{"a socket", sock, 0, "a socket, not a regular file", true},
		{"/proc/self/environ", "/proc/self/environ", 0, "a file of the proc pseudo-filesystem, not a regular file", true},
		{"a link to /proc/self/environ", environ, 0, "a file of the proc pseudo-filesystem, not a regular file", true},
		{"a file of sysfs", "/sys/kernel/mm/transparent_hugepage/enabled", 0, "a file of the sysfs pseudo-filesystem, not a regular file", true},
		{"a loop of symbolic links", loop, 0, "too many levels of symbolic links", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.path); tt.name == "a file of sysfs" && err != nil {
				t.Skip("no such sysfs file here")
			}
			var (
				data []byte
				err  error
			)
			within(t, func() { data, err = ReadFile(tt.path, tt.limit) })
			if !tt.wantErr {
				if err != nil || string(data) != tt.want {
					t.Fatalf("ReadFile = %q, %v; want %q", data, err, tt.want)
				}
				return
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != tt.path || pe.Err.Error() != tt.want {
				t.Fatalf("ReadFile error = %v; want %s: %s", err, tt.path, tt.want)
			}
			if data != nil {
				t.Errorf("data %q returned with the error", data)
			}
			if err := Check(tt.path); (err == nil) != strings.HasPrefix(tt.want, "too large") {
				t.Errorf("Check = %v", err)
			}
		})
	}
}

// TestReadOpenedFIFO plays the race the stat cannot close: a FIFO swapped in after the check.
// The open must not block and the opened file must be refused.
func TestReadOpenedFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "swapped.md")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	var err error
	within(t, func() { _, err = readOpened(fifo, 0) })
	if !IsNotRegular(err) || err.Error() != "read "+fifo+": a FIFO (named pipe), not a regular file" {
		t.Fatalf("err = %v", err)
	}
}

// TestReadFileTooLargeMessage checks the message of a file over a limit in whole mebibytes.
func TestReadFileTooLargeMessage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.md")
	if err := os.WriteFile(path, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path, 2<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "read "+path+": too large: expected at most 2 MiB (2097152 bytes), found 3 MiB (3145728 bytes)" {
		t.Fatalf("err = %v", err)
	}
}
