// Package testutil holds helpers shared by the project's tests.
package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// RepoRoot returns the repository root: the nearest parent of the working directory holding go.mod.
func RepoRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found above the working directory")
		}
		dir = parent
	}
}

// SharedDir returns the shared reference folder (seeds, spec, corpus): $VECTORLINT_SHARED, else
// ../shared beside the repository. When it is absent the test is skipped, unless
// VECTORLINT_REQUIRE_CORPUS=1 (set by .ci/run), where absence is a failure: CI must never pass
// by skipping the conformance tests.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("VECTORLINT_SHARED")
	if dir == "" {
		dir = filepath.Join(RepoRoot(t), "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		if os.Getenv("VECTORLINT_REQUIRE_CORPUS") == "1" {
			t.Fatalf("shared corpus not found at %s (set VECTORLINT_SHARED)", dir)
		}
		t.Skipf("shared corpus not found at %s; set VECTORLINT_SHARED to run this test", dir)
	}
	return dir
}
