package safefile

import (
	"errors"
	"io/fs"
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

// readPath opens path as internal/tree does (OpenFlags) and reads it with ReadOpened.
func readPath(path string, limit int64) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|OpenFlags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadOpened(f, path, limit)
}

// TestReadOpened: what an opened file must be before a byte is read. internal/tree's tests
// check the same through a root, with the stat before the open (sockets, links, loops).
func TestReadOpened(t *testing.T) {
	t.Parallel()
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
	tests := []struct {
		name, path string
		limit      int64
		want       string // content, or the error's text after "read PATH: "
		wantErr    bool
	}{
		{"a regular file", regular, 0, "hello\n", false},
		{"exactly the limit", exact, 10, strings.Repeat("x", 10), false},
		{"over the limit", over, 10, "too large: expected at most 10 bytes, found 11 bytes", true},
		// A FIFO swapped in after the stat: the non-blocking open succeeds, the fstat refuses.
		{"a FIFO", fifo, 0, "a FIFO (named pipe), not a regular file", true},
		{"a folder", dir, 0, "is a directory", true},
		{"a character device", "/dev/null", 0, "a character device, not a regular file", true},
		{"/proc/self/environ", "/proc/self/environ", 0, "a file of the proc pseudo-filesystem, not a regular file", true},
		{"a file of sysfs", "/sys/kernel/mm/transparent_hugepage/enabled", 0, "a file of the sysfs pseudo-filesystem, not a regular file", true},
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
			within(t, func() { data, err = readPath(tt.path, tt.limit) })
			if !tt.wantErr {
				if err != nil || string(data) != tt.want {
					t.Fatalf("ReadOpened = %q, %v; want %q", data, err, tt.want)
				}
				return
			}
			var pe *fs.PathError
			if !errors.As(err, &pe) || pe.Path != tt.path || pe.Op != "read" || pe.Err.Error() != tt.want {
				t.Fatalf("ReadOpened error = %v; want read %s: %s", err, tt.path, tt.want)
			}
			if data != nil {
				t.Errorf("data %q returned with the error", data)
			}
		})
	}
}

// TestReadOpenedTooLargeMessage checks the message of a file over a limit in whole mebibytes.
func TestReadOpenedTooLargeMessage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "big.md")
	if err := os.WriteFile(path, make([]byte, 3<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := readPath(path, 2<<20)
	var tl *TooLargeError
	if !errors.As(err, &tl) || err.Error() != "read "+path+": too large: expected at most 2 MiB (2097152 bytes), found 3 MiB (3145728 bytes)" {
		t.Fatalf("err = %v", err)
	}
}

// TestPseudoFSOf names the filesystem of an open folder.
func TestPseudoFSOf(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ path, want string }{{t.TempDir(), ""}, {"/proc/self", "a file of the proc pseudo-filesystem"}} {
		f, err := os.Open(tt.path)
		if err != nil {
			t.Fatal(err)
		}
		if got := PseudoFSOf(f); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.path, got, tt.want)
		}
		f.Close()
	}
}
