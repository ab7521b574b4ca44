package testutil

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records failures instead of failing the test, so Golden's own
// failures can be asserted.
type recorder struct {
	testing.TB
	errors, fatals []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Fatalf records the message and stops the calling goroutine's work as testing.T does: Golden
// returns right after each Fatalf, so a panic is not needed here.
func (r *recorder) Fatalf(format string, args ...any) {
	r.fatals = append(r.fatals, fmt.Sprintf(format, args...))
}

func TestGolden(t *testing.T) {
	if Updating() {
		t.Skip("-update rewrites golden files instead of comparing them")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "out.golden")
	if err := os.WriteFile(path, []byte("line 1\nline 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	var same recorder
	Golden(&same, path, "line 1\nline 2\n")
	Golden(&same, path, []byte("line 1\nline 2\n"))
	if len(same.errors)+len(same.fatals) != 0 {
		t.Errorf("equal output failed: %q %q", same.errors, same.fatals)
	}

	var differs recorder
	Golden(&differs, path, "line 1\nline two\n")
	want := "output differs from " + path + " (go test -update rewrites it, after you check the change):\n" +
		"--- got\nline 1\nline two\n\n--- want\nline 1\nline 2\n"
	if len(differs.errors) != 1 || differs.errors[0] != want || len(differs.fatals) != 0 {
		t.Errorf("differing output: errors %q, fatals %q; want one error %q", differs.errors, differs.fatals, want)
	}

	var missing recorder
	Golden(&missing, filepath.Join(dir, "none.golden"), "x")
	if len(missing.fatals) != 1 || !strings.HasSuffix(missing.fatals[0], "no such file or directory (go test -update creates it)") {
		t.Errorf("missing file: fatals %q", missing.fatals)
	}
}
