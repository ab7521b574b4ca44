package tree

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/safefile"
)

// within fails the test when f does not return in 5 s: a regression that opens a FIFO fails
// instead of hanging the suite.
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

// TestSpecialFiles: the checks of internal/safefile hold through a Root: a FIFO, a socket, a
// device and a /proc file are refused without being read (the FIFO never opened), inside the
// root or named outside it.
func TestSpecialFiles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := syscall.Mkfifo(filepath.Join(f.dir, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(f.dir, "s.md")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	check := func(r *Root, path, want string) {
		t.Helper()
		var err error
		within(t, func() { _, err = r.ReadFile(path, 0) })
		if !safefile.IsNotRegular(err) || err.Error() != "read "+path+": "+want {
			t.Errorf("ReadFile %s: %v\nwant read %s: %s", path, err, path, want)
		}
		within(t, func() { err = r.CheckDocument(path) })
		if !safefile.IsNotRegular(err) {
			t.Errorf("CheckDocument %s: %v", path, err)
		}
	}
	check(f.root, "pipe.md", "a FIFO (named pipe), not a regular file")
	check(f.root, "s.md", "a socket, not a regular file")
	for _, tt := range []struct{ path, want string }{
		{"/dev/null", "a character device, not a regular file"},
		{"/proc/self/environ", "a file of the proc pseudo-filesystem, not a regular file"},
	} {
		n, err := f.root.Named(tt.path)
		if err != nil || !n.Outside {
			t.Fatalf("Named %s: %+v, %v", tt.path, n, err)
		}
		check(n.Root, n.Path, tt.want)
		n.Close()
	}
	// A link to /proc/self/environ committed in the tree leaves the root.
	if err := os.Symlink("/proc/self/environ", filepath.Join(f.dir, "environ.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.root.ReadFile("environ.md", 0); !errors.As(err, new(*LeavesRootError)) {
		t.Errorf("environ.md: %v", err)
	}
	if what := f.root.PseudoFS("docs"); what != "" {
		t.Errorf("PseudoFS(docs) = %q", what)
	}
}

// TestWriteMode: files written through a Root get 0666 less the umask, as a file created by
// any other tool. The umask is process-wide: this test is not parallel and puts it back.
func TestWriteMode(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}, {0o002, 0o664}} {
		old := syscall.Umask(tt.umask)
		err := f.root.WriteFile("result.json", []byte(`{"ok":true}`))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(filepath.Join(f.dir, "result.json"))
		if err != nil || fi.Mode().Perm() != tt.want {
			t.Errorf("umask %03o: mode %v, %v; want %v", tt.umask, fi.Mode().Perm(), err, tt.want)
		}
	}
	// Replace keeps the file's own mode whatever the umask.
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	path := filepath.Join(f.dir, "docs", "a.md")
	if err := os.Chmod(path, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.root.Replace(path, []byte("B"), 0o755, nil); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o755 {
		t.Errorf("replaced file mode %v", fi.Mode())
	}
}
