package fix

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// linted is the result lint.Run gives with KeepSource for a file at path with text, whose
// findings fix each old with its new (in pairs), found exactly.
func linted(t *testing.T, path, text string, pairs ...string) finding.FileResult {
	t.Helper()
	fr := finding.FileResult{Path: filepath.Base(path), Source: []byte(text), SourceFile: path}
	from := 0
	for i := 0; i+1 < len(pairs); i += 2 {
		e := edit(t, text, pairs[i], pairs[i+1], from)
		fr.Findings = append(fr.Findings, finding.Finding{Rule: "Acme.R" + string(rune('A'+i/2)), Severity: finding.SeverityWarning,
			Message: "m", Match: pairs[i], Start: e.Start, End: e.End, Edits: []finding.TextEdit{e}})
	}
	// No findings without fix in between, but one at the end, which stays.
	fr.Findings = append(fr.Findings, finding.Finding{Rule: "Acme.NoFix", Severity: finding.SeverityError, Message: "no fix",
		Start: pos(text, 0), End: pos(text, 0)})
	return fr
}

func write(t *testing.T, path, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFileRewrites applies fixes to real files and checks their bytes and mode: LF, CRLF and
// multi-byte text, overlapping fixes (the first by position wins), and the findings left.
func TestFileRewrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		mode       os.FileMode
		pairs      []string
		want       string
		applied    int
		skipped    []string
	}{
		{"LF", "We act in order to win.\nUtilize it.\n", 0o644,
			[]string{"in order to", "to", "Utilize", "Use"}, "We act to win.\nUse it.\n", 2, nil},
		{"CRLF", "Title\r\nWe act in order to win.\r\nUtilize it.\r\n", 0o600,
			[]string{"in order to", "to", "Utilize", "Use"}, "Title\r\nWe act to win.\r\nUse it.\r\n", 2, nil},
		{"multi-byte", "Le café 👋 naïve façade — in order to go.\n", 0o755,
			[]string{"naïve façade", "façade naïve", "in order to", "pour"}, "Le café 👋 façade naïve — pour go.\n", 2, nil},
		{"overlapping fixes", "We act in order to win.\n", 0o640,
			[]string{"in order", "so as", "order to win", "to succeed"}, "We act so as to win.\n", 1,
			[]string{"Acme.RB at 1:11: overlaps the fix of Acme.RA at 1:8"}},
		{"no final line break", "in order to", 0o644, []string{"in order to", "to"}, "to", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "doc.md")
			write(t, path, tt.text, tt.mode)
			fr := linted(t, path, tt.text, tt.pairs...)
			o := File(rootOf(t, fr.SourceFile), fr, true)
			if o.Err != nil {
				t.Fatal(o.Err)
			}
			if got := read(t, path); got != tt.want || !o.Written {
				t.Errorf("file %q (written %v), want %q", got, o.Written, tt.want)
			}
			fi, _ := os.Stat(path)
			if fi.Mode().Perm() != tt.mode {
				t.Errorf("mode %v, want %v", fi.Mode().Perm(), tt.mode)
			}
			var skipped []string
			for _, s := range o.Skipped {
				skipped = append(skipped, s.Where()+": "+s.Reason)
			}
			if len(o.Applied) != tt.applied || strings.Join(skipped, "\n") != strings.Join(tt.skipped, "\n") {
				t.Errorf("applied %d, skipped %q; want %d, %q", len(o.Applied), skipped, tt.applied, tt.skipped)
			}
			rest := o.Remaining(fr.Findings)
			if len(rest) != len(fr.Findings)-tt.applied || rest[len(rest)-1].Rule != "Acme.NoFix" {
				t.Errorf("remaining %+v", rest)
			}
			entries, _ := os.ReadDir(filepath.Dir(path))
			if len(entries) != 1 {
				t.Errorf("files left beside it: %v", entries)
			}
		})
	}
}

// TestFileRefuses: a file that changed since it was linted, a symbolic link, a FIFO and a
// missing file are not rewritten, and nothing else is written; a file not asked to be written,
// or read from standard input, is left alone.
func TestFileRefuses(t *testing.T) {
	t.Parallel()
	const text = "We act in order to win.\n"
	t.Run("changed on disk", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "doc.md")
		write(t, path, text, 0o644)
		fr := linted(t, path, text, "in order to", "to")
		write(t, path, "We act in order to win!\n", 0o644)
		o := File(rootOf(t, fr.SourceFile), fr, true)
		var ce *ChangedError
		if !errors.As(o.Err, &ce) || o.Written {
			t.Fatalf("err %v, written %v", o.Err, o.Written)
		}
		if got := read(t, path); got != "We act in order to win!\n" {
			t.Errorf("file %q", got)
		}
		if o.Err.Error() != "doc.md: changed since it was linted; not rewritten (run vectorlint --fix again)" {
			t.Errorf("message %q", o.Err)
		}
		if len(o.Remaining(fr.Findings)) != len(fr.Findings) {
			t.Error("a file not rewritten still counts its fixes as applied")
		}
	})
	t.Run("grew on disk", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "doc.md")
		write(t, path, text, 0o644)
		fr := linted(t, path, text, "in order to", "to")
		write(t, path, text+"More.\n", 0o644)
		var ce *ChangedError
		if o := File(rootOf(t, fr.SourceFile), fr, true); !errors.As(o.Err, &ce) {
			t.Fatalf("err %v", o.Err)
		}
	})
	t.Run("changed just before the rename", func(t *testing.T) {
		// WriteFile checks again after writing the temporary file: a change between the first
		// check and the rename is caught too.
		path := filepath.Join(t.TempDir(), "doc.md")
		write(t, path, text, 0o644)
		err := writeFile(rootOf(t, path), path, []byte(text), []byte("x"), func() { write(t, path, "other\n", 0o644) })
		var ce *ChangedError
		if !errors.As(err, &ce) || read(t, path) != "other\n" {
			t.Fatalf("err %v, file %q", err, read(t, path))
		}
	})
	t.Run("symbolic link", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "real.md")
		write(t, target, text, 0o644)
		link := filepath.Join(dir, "doc.md")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		o := File(rootOf(t, link), linted(t, link, text, "in order to", "to"), true)
		var nr *NotRewritableError
		if !errors.As(o.Err, &nr) || o.Err.Error() != "doc.md: a symbolic link, not rewritten" {
			t.Fatalf("err %v", o.Err)
		}
		if fi, _ := os.Lstat(link); fi.Mode()&os.ModeSymlink == 0 || read(t, target) != text {
			t.Error("the link or its target changed")
		}
	})
	t.Run("FIFO", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "doc.md")
		if err := syscall.Mkfifo(path, 0o644); err != nil {
			t.Skip(err)
		}
		o := File(rootOf(t, path), linted(t, path, text, "in order to", "to"), true)
		var nr *NotRewritableError
		if !errors.As(o.Err, &nr) || !strings.Contains(o.Err.Error(), "FIFO") {
			t.Fatalf("err %v", o.Err)
		}
	})
	t.Run("missing", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "doc.md")
		if o := File(rootOf(t, path), linted(t, path, text, "in order to", "to"), true); !errors.Is(o.Err, os.ErrNotExist) {
			t.Fatalf("err %v", o.Err)
		}
	})
	t.Run("not asked to write", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "doc.md")
		write(t, path, text, 0o644)
		o := File(rootOf(t, path), linted(t, path, text, "in order to", "to"), false)
		if o.Err != nil || o.Written || string(o.Text) != "We act to win.\n" || read(t, path) != text {
			t.Fatalf("outcome %+v, file %q", o, read(t, path))
		}
	})
	t.Run("outside the project root", func(t *testing.T) {
		// A file the user named outside the project root is read, never rewritten.
		path := filepath.Join(t.TempDir(), "doc.md")
		write(t, path, text, 0o644)
		root := rootOf(t, filepath.Join(t.TempDir(), "x"))
		o := File(root, linted(t, path, text, "in order to", "to"), true)
		var nr *NotRewritableError
		if !errors.As(o.Err, &nr) || o.Err.Error() != "doc.md: outside the project root "+root.Dir()+", not rewritten" || read(t, path) != text {
			t.Fatalf("err %v", o.Err)
		}
	})
	t.Run("a folder on the way leads out", func(t *testing.T) {
		outside := t.TempDir()
		write(t, filepath.Join(outside, "doc.md"), text, 0o644)
		dir := t.TempDir()
		if err := os.Symlink(outside, filepath.Join(dir, "docs")); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "docs", "doc.md")
		o := File(rootOf(t, filepath.Join(dir, "x")), linted(t, path, text, "in order to", "to"), true)
		if !errors.As(o.Err, new(*tree.LeavesRootError)) || o.Written || read(t, filepath.Join(outside, "doc.md")) != text {
			t.Fatalf("err %v", o.Err)
		}
		if entries, _ := os.ReadDir(outside); len(entries) != 1 {
			t.Errorf("written outside: %v", entries)
		}
	})
	t.Run("standard input", func(t *testing.T) {
		fr := linted(t, "", text, "in order to", "to")
		o := File(rootOf(t, fr.SourceFile), fr, true)
		if o.Err != nil || o.Written || string(o.Text) != "We act to win.\n" {
			t.Fatalf("outcome %+v", o)
		}
	})
}

// TestDiff: the diff of the applied fixes, with git's prefixes, a multi-byte line and a file
// without a final line break; nothing when nothing applies.
func TestDiff(t *testing.T) {
	t.Parallel()
	const text = "# Title\n\nLe café 👋: in order to win.\nKeep.\nKeep.\nKeep.\nKeep.\nKeep.\nKeep.\nKeep.\nLast utilize"
	fr := linted(t, "", text, "in order to", "to", "utilize", "use")
	r := Apply(fr.Source, Fixes(fr.Findings))
	testutil.Golden(t, filepath.Join("testdata", "diff.golden"), []byte(Diff("docs/café.md", fr.Source, r)))
	if d := Diff("x.md", []byte(text), Apply([]byte(text), nil)); d != "" {
		t.Errorf("diff without fixes: %q", d)
	}
}

// rootOf opens the folder of path as the project root, closed with the test.
func rootOf(t *testing.T, path string) *tree.Root {
	t.Helper()
	dir := filepath.Dir(path)
	if path == "" {
		dir = t.TempDir()
	}
	r, err := tree.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
