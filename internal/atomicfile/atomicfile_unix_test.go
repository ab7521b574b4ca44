//go:build unix

package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestWriteMode checks the written file's mode under the umasks CI runners and careful users
// set: 0666 less the umask, as a file created by any other tool. The umask is process-wide, so
// this test sets it and puts it back before any other test runs (tests in this package are not
// parallel).
func TestWriteMode(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		umask int
		want  os.FileMode
	}{{0o022, 0o644}, {0o077, 0o600}, {0o002, 0o664}} {
		old := syscall.Umask(tt.umask)
		path := filepath.Join(dir, "result.json")
		err := Write(path, []byte(`{"ok":true}`))
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != tt.want {
			t.Errorf("umask %03o: mode %v, want %v", tt.umask, fi.Mode().Perm(), tt.want)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, "result.json"))
	if err != nil || string(data) != `{"ok":true}` {
		t.Errorf("content %q, %v", data, err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left: %v", entries)
	}
}

func TestWriteFailure(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "missing", "x.json"), []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "no such file or directory") {
		t.Errorf("err = %v", err)
	}
	// A name longer than a file name may be is still written through a short temporary name.
	long := strings.Repeat("a", 200) + ".json"
	if err := Write(filepath.Join(dir, long), []byte("x")); err != nil {
		t.Errorf("long name: %v", err)
	}
}

// TestReplaceKeepsMode: a file rewritten in place keeps its permission bits whatever the umask,
// and a refusal just before the rename leaves the file as it was, with no temporary file.
func TestReplaceKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "doc.md")
	old := syscall.Umask(0o077)
	defer syscall.Umask(old)
	for _, mode := range []os.FileMode{0o755, 0o640, 0o604} {
		if err := os.WriteFile(path, []byte("before"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		calls := 0
		if err := Replace(path, []byte("after"), mode, func() error { calls++; return nil }); err != nil {
			t.Fatal(err)
		}
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := os.ReadFile(path)
		if fi.Mode().Perm() != mode || string(data) != "after" || calls != 1 {
			t.Errorf("mode %v: got %v, content %q, check called %d times", mode, fi.Mode().Perm(), data, calls)
		}
	}
	refused := errors.New("changed meanwhile")
	if err := Replace(path, []byte("never"), 0o644, func() error { return refused }); err != refused {
		t.Fatalf("err = %v, want the check's", err)
	}
	data, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if string(data) != "after" || len(entries) != 1 {
		t.Errorf("after a refusal: content %q, entries %v", data, entries)
	}
}
