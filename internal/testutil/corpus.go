package testutil

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// SharedFile is one file of the shared reference folder, read for use as a test input.
type SharedFile struct {
	// Path is the file's path relative to the shared folder, with forward slashes.
	Path string
	// Data is the file's content.
	Data []byte
}

// SharedFiles returns the files under dir (a path relative to the shared folder, such as
// "corpus/weval-configs/blueprints") whose names end with one of exts and whose size is at most
// maxBytes, in path order. It is meant for fuzz seed corpora: when the shared folder is absent it
// returns nil, so the fuzz target still runs on its inline seeds, unless VECTORLINT_REQUIRE_CORPUS=1,
// where absence is a failure.
func SharedFiles(t testing.TB, dir string, maxBytes int64, exts ...string) []SharedFile {
	t.Helper()
	shared := os.Getenv("VECTORLINT_SHARED")
	if shared == "" {
		shared = filepath.Join(RepoRoot(t), "..", "shared")
	}
	root := filepath.Join(shared, filepath.FromSlash(dir))
	if _, err := os.Stat(root); err != nil {
		if os.Getenv("VECTORLINT_REQUIRE_CORPUS") == "1" {
			t.Fatalf("shared folder %s not found (set VECTORLINT_SHARED)", root)
		}
		return nil
	}
	out, err := ReadFiles(root, shared, maxBytes, exts...)
	if err != nil {
		t.Fatalf("reading %s: %v", root, err)
	}
	return out
}

// ReadFiles returns the files under root whose names end with one of exts (any file when none
// is given) and whose size is at most maxBytes (no bound when maxBytes <= 0), in path order,
// each with its path relative to base. The benchmark program reads the corpus with it too.
func ReadFiles(root, base string, maxBytes int64, exts ...string) ([]SharedFile, error) {
	var out []SharedFile
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		match := len(exts) == 0
		for _, e := range exts {
			match = match || strings.HasSuffix(d.Name(), e)
		}
		if !match {
			return nil
		}
		info, err := d.Info()
		if err != nil || (maxBytes > 0 && info.Size() > maxBytes) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(base, path)
		if err != nil {
			return err
		}
		out = append(out, SharedFile{Path: filepath.ToSlash(rel), Data: data})
		return nil
	})
	return out, err
}
