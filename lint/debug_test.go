package lint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/tree"
)

// TestDebugFileName: names made from a repository's paths and rule ids are one plain file name
// each: no separator, no leading dot, no control character, bounded length (spec/trust.md §2).
func TestDebugFileName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 300)
	tests := []struct{ in, want string }{
		{"docs/guide.md", "docs_guide.md"},
		{"Acme.Wordiness", "Acme.Wordiness"},
		{"../../etc/passwd", "_._.._etc_passwd"},
		{".hidden", "_hidden"},
		{"..", "_."},
		{"", "_"},
		{"a\\b:c*d?\x1b[31m\u202e.md", "a_b_c_d___31m___.md"},
		{"::error::x.md", "__error__x.md"},
		{"café.md", "caf__.md"},
	}
	for _, tt := range tests {
		if got := debugFileName(tt.in); got != tt.want {
			t.Errorf("debugFileName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	a, b := debugFileName(long+"x"), debugFileName(long+"y")
	if len(a) != 180 || a == b || !strings.HasPrefix(a, strings.Repeat("a", 171)+"-") {
		t.Errorf("long names: %q (%d), %q", a, len(a), b)
	}
}

// TestDebugWriterNames: two records whose names sanitise alike get two files, in the run's
// folder only.
func TestDebugWriterNames(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	tr, err := tree.Open(tmp)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	root := filepath.Join(tmp, "runs")
	w, err := NewDebugWriter(tr, root, time.Date(2025, 1, 2, 3, 4, 5, 6e6, time.UTC), DebugModel{})
	if err != nil {
		t.Fatal(err)
	}
	if w.Dir != filepath.Join(root, "20250102T030405.006Z") {
		t.Errorf("run folder %s", w.Dir)
	}
	var paths []string
	for _, file := range []string{"docs/a.md", "docs_a.md", "docs:a.md"} {
		p, err := w.Write(DebugRecord{File: file, Prompt: DebugPrompt{Pack: "P", ID: "R"}})
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Base(p))
		if filepath.Dir(p) != w.Dir {
			t.Errorf("%s written outside the run folder", p)
		}
	}
	if got := strings.Join(paths, " "); got != "docs_a.md.P.R.json docs_a.md.P.R-2.json docs_a.md.P.R-3.json" {
		t.Errorf("names: %s", got)
	}
	data, _ := os.ReadFile(filepath.Join(w.Dir, "docs_a.md.P.R-3.json"))
	if !strings.Contains(string(data), `"file": "docs:a.md"`) || strings.Contains(string(data), `"model"`) {
		t.Errorf("record:\n%s", data)
	}
	// A root that is a file is an error before anything is written.
	file := filepath.Join(tmp, "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewDebugWriter(tr, filepath.Join(file, "runs"), time.Now(), DebugModel{}); err == nil {
		t.Error("a folder under a file: no error")
	}
}
