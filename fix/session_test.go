package fix

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

// TestSession: what a session prints and counts in each mode, for a file with an applied and a
// skipped fix, a file without fixes, and a file changed on disk.
func TestSession(t *testing.T) {
	t.Parallel()
	const text = "We act in order to win.\n"
	dir := t.TempDir()
	fixed, clean, changed := filepath.Join(dir, "a.md"), filepath.Join(dir, "b.md"), filepath.Join(dir, "c.md")
	results := func() []finding.FileResult {
		for _, p := range []string{fixed, clean, changed} {
			write(t, p, text, 0o644)
		}
		a := linted(t, fixed, text, "in order", "so as", "order to win", "to succeed")
		b := finding.FileResult{Path: "b.md", Source: []byte(text), SourceFile: clean}
		c := linted(t, changed, text, "in order to", "to")
		c.Path = "c.md"
		write(t, changed, "edited\n", 0o644)
		return []finding.FileResult{a, b, c}
	}
	for _, tt := range []struct {
		mode    Mode
		out     string
		log     string
		summary string
		left    finding.Summary
	}{
		{ModeWrite, "", "vectorlint: a.md: 1 fix applied, 1 skipped\n" +
			"vectorlint: a.md:1:11: Acme.RB: fix skipped: overlaps the fix of Acme.RA at 1:8\n" +
			"vectorlint: c.md: changed since it was linted; not rewritten (run vectorlint --fix again)\n",
			"1 fix applied in 1 file, 1 skipped; 1 file not rewritten",
			finding.Summary{Files: 3, Errors: 2, Warnings: 2}},
		// A diff writes nothing, so a file changed on disk is diffed against what was linted.
		{ModeDiff, "--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-We act in order to win.\n+We act so as to win.\n" +
			"--- a/c.md\n+++ b/c.md\n@@ -1 +1 @@\n-We act in order to win.\n+We act to win.\n",
			"vectorlint: a.md: 1 fix to apply, 1 skipped\n" +
				"vectorlint: a.md:1:11: Acme.RB: fix skipped: overlaps the fix of Acme.RA at 1:8\n" +
				"vectorlint: c.md: 1 fix to apply\n",
			"2 fixes to apply in 2 files (nothing written), 1 skipped",
			finding.Summary{Files: 3, Errors: 2, Warnings: 1}},
	} {
		var out, log strings.Builder
		var reported []int
		s := &Session{Mode: tt.mode, Out: &out, Log: &log, Root: rootOf(t, fixed), Report: func(fr finding.FileResult) error {
			reported = append(reported, len(fr.Findings))
			return nil
		}}
		for _, fr := range results() {
			if err := s.File(fr); err != nil {
				t.Fatal(err)
			}
		}
		if out.String() != tt.out || log.String() != tt.log || s.Summary() != tt.summary {
			t.Errorf("mode %d: out %q\nlog %q\nsummary %q", tt.mode, out.String(), log.String(), s.Summary())
		}
		if tt.mode == ModeWrite && fmt.Sprint(reported) != "[2 0 2]" { // c.md was not rewritten: all left
			t.Errorf("findings left per file: %v", reported)
		}
		if s.Left != tt.left {
			t.Errorf("mode %d: left %+v, want %+v", tt.mode, s.Left, tt.left)
		}
		if got, _ := os.ReadFile(fixed); tt.mode == ModeWrite && string(got) != "We act so as to win.\n" {
			t.Errorf("a.md: %q", got)
		}
	}
	if s := (&Session{}); s.Summary() != "no fix to apply" {
		t.Errorf("empty: %q", s.Summary())
	}
}

// TestSessionDuplicates: a finding whose fix is the same change as an applied fix is fixed by
// it (not reported, not counted, issue 32); a finding whose different fix overlapped is skipped
// and left, as is one without a fix.
func TestSessionDuplicates(t *testing.T) {
	t.Parallel()
	const text = "We act in order to win.\n"
	for _, tt := range []struct {
		mode         Mode
		log, summary string
	}{
		{ModeWrite, "vectorlint: a.md: 1 fix applied, 1 more finding had the same fix, 1 skipped\n" +
			"vectorlint: a.md:1:11: Acme.RC: fix skipped: overlaps the fix of Acme.RA at 1:8\n",
			"1 fix applied in 1 file, 1 more finding had the same fix, 1 skipped"},
		{ModeDiff, "vectorlint: a.md: 1 fix to apply, 1 more finding has the same fix, 1 skipped\n" +
			"vectorlint: a.md:1:11: Acme.RC: fix skipped: overlaps the fix of Acme.RA at 1:8\n",
			"1 fix to apply in 1 file, 1 more finding has the same fix (nothing written), 1 skipped"},
	} {
		path := filepath.Join(t.TempDir(), "a.md")
		write(t, path, text, 0o644)
		fr := linted(t, path, text, "in order", "so as", "in order", "so as", "order to win", "to succeed")
		var left []string
		var out, log strings.Builder
		s := &Session{Mode: tt.mode, Out: &out, Log: &log, Root: rootOf(t, path), Report: func(fr finding.FileResult) error {
			for _, f := range fr.Findings {
				left = append(left, f.Rule)
			}
			return nil
		}}
		if err := s.File(fr); err != nil {
			t.Fatal(err)
		}
		if log.String() != tt.log || s.Summary() != tt.summary {
			t.Errorf("mode %d: log %q, summary %q", tt.mode, log.String(), s.Summary())
		}
		if s.Left != (finding.Summary{Files: 1, Errors: 1, Warnings: 1}) {
			t.Errorf("mode %d: left %+v, want RC's warning and the error without a fix", tt.mode, s.Left)
		}
		if tt.mode == ModeWrite {
			if fmt.Sprint(left) != "[Acme.RC Acme.NoFix]" {
				t.Errorf("reported %v", left)
			}
			if got := read(t, path); got != "We act so as to win.\n" {
				t.Errorf("file %q", got)
			}
		}
	}
}
