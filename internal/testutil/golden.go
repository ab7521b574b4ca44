package testutil

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

// updateFlag is the name of the flag that rewrites golden files: go test ./report -update.
const updateFlag = "update"

// The -update flag is defined here, once for every test binary that uses Golden: a flag may be
// defined only once per binary, and the packages that each defined their own had to guard
// against one another. It is defined only in test binaries, so the programs that use this
// package's other helpers (internal/bench) get no stray flag.
func init() {
	if testing.Testing() && flag.Lookup(updateFlag) == nil {
		flag.Bool(updateFlag, false, "rewrite the golden files with the current output (check the change first)")
	}
}

// Updating reports whether the test binary runs with -update, when golden files are rewritten
// instead of compared.
func Updating() bool {
	f := flag.Lookup(updateFlag)
	return f != nil && f.Value.String() == "true"
}

// Golden compares got with the golden file at path (relative to the test's package folder):
// a difference fails the test, showing both and the command that rewrites the file. With
// -update it writes got to path instead, creating its folder.
func Golden[T ~string | ~[]byte](t testing.TB, path string, got T) {
	t.Helper()
	if Updating() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal([]byte(got), want) {
		t.Errorf("output differs from %s (go test -update rewrites it, after you check the change):\n--- got\n%s\n--- want\n%s",
			path, got, want)
	}
}
