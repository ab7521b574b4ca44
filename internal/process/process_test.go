package process

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/fix"
	"github.com/vectorlint/vectorlint/internal/baseline"
	"github.com/vectorlint/vectorlint/internal/gitdiff"
)

// at is a finding of rule at severity sev on lines first to last (End.Column 1 on a later line:
// the finding ends with a line break).
func at(rule string, sev finding.Severity, first, last, endColumn int) finding.Finding {
	return finding.Finding{Rule: rule, Severity: sev, Message: rule,
		Start: finding.Position{Line: first, Column: 1}, End: finding.Position{Line: last, Column: endColumn}}
}

// render shows a result's findings, unverified quotes and scores compactly.
func render(fr finding.FileResult) string {
	var parts []string
	for _, f := range fr.Findings {
		parts = append(parts, fmt.Sprintf("%s@%d-%d", f.Rule, f.Start.Line, f.End.Line))
	}
	for _, u := range fr.Unverified {
		parts = append(parts, fmt.Sprintf("unverified %s@%d", u.Rule, u.Line))
	}
	for _, s := range fr.Scores {
		parts = append(parts, fmt.Sprintf("score %s partial=%v", s.Rule, s.Partial))
	}
	return strings.Join(parts, " ")
}

func TestChangedLines(t *testing.T) {
	t.Parallel()
	changed := &Changed{Lines: gitdiff.Lines{{First: 3, Last: 4}}, Partial: map[string]bool{"A.Sub": true}}
	fr := finding.FileResult{Path: "a.md",
		Findings: []finding.Finding{
			at("A.Before", finding.SeverityError, 1, 2, 5),   // lines 1-2: not changed
			at("A.Break", finding.SeverityError, 2, 3, 1),    // ends with line 2's break: line 2 only
			at("A.Inside", finding.SeverityWarning, 3, 3, 9), // on a changed line
			at("A.Across", finding.SeverityError, 2, 5, 4),   // overlaps the changed lines
			at("A.After", finding.SeverityError, 5, 5, 2),
		},
		Unverified: []finding.Unverified{{Rule: "A.Q", Line: 4}, {Rule: "A.Q", Line: 7}, {Rule: "A.NoLine"}},
		Scores:     []finding.Score{{Rule: "A.Sub"}, {Rule: "A.Whole"}},
	}
	for _, tt := range []struct {
		name string
		of   func(string) *Changed
		want string
	}{
		{"no selection", nil, render(fr)},
		{"another file changed", func(p string) *Changed {
			if p == "b.md" {
				return changed
			}
			return nil
		}, render(fr)},
		{"changed lines", func(string) *Changed { return changed },
			"A.Inside@3-3 A.Across@2-5 unverified A.Q@4 unverified A.NoLine@0 score A.Sub partial=true score A.Whole partial=false"},
	} {
		got, err := ChangedLines{Of: tt.of}.Process(fr)
		if err != nil || render(got) != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, render(got), err, tt.want)
		}
	}
	if fr.Scores[0].Partial {
		t.Error("the input's scores were changed in place")
	}
}

func TestMinSeverity(t *testing.T) {
	t.Parallel()
	fr := finding.FileResult{Findings: []finding.Finding{
		at("S", finding.SeveritySuggestion, 1, 1, 2), at("W", finding.SeverityWarning, 2, 2, 2), at("E", finding.SeverityError, 3, 3, 2),
	}}
	for _, tt := range []struct {
		level finding.Severity
		want  string
	}{
		{finding.SeverityUnset, "S@1-1 W@2-2 E@3-3"},
		{finding.SeveritySuggestion, "S@1-1 W@2-2 E@3-3"},
		{finding.SeverityWarning, "W@2-2 E@3-3"},
		{finding.SeverityError, "E@3-3"},
	} {
		got, err := MinSeverity{Level: tt.level}.Process(fr)
		if err != nil || render(got) != tt.want {
			t.Errorf("level %v: %q, %v; want %q", tt.level, render(got), err, tt.want)
		}
	}
}

// TestBaseline: the processor records every finding for a new baseline, and a baseline hides
// the findings it recorded (counted in Baselined, which the summary adds up); without either
// it passes results through.
func TestBaseline(t *testing.T) {
	t.Parallel()
	fr := finding.FileResult{Path: "a.md", Findings: []finding.Finding{at("E", finding.SeverityError, 1, 1, 2), at("W", finding.SeverityWarning, 2, 2, 2)}}
	if got, err := (Baseline{}).Process(fr); err != nil || render(got) != "E@1-1 W@2-2" || got.Baselined != 0 {
		t.Errorf("without a baseline: %q, %d, %v", render(got), got.Baselined, err)
	}
	var rec baseline.Recorder
	first := fr
	first.Findings = fr.Findings[:1]
	if _, err := (Baseline{Record: &rec}).Process(first); err != nil || rec.Len() != 1 {
		t.Fatalf("recorded %d, %v", rec.Len(), err)
	}
	set, err := baseline.Parse("b.json", rec.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	var sum finding.Summary
	l := List{Baseline{Set: set}, Summary{Into: &sum}}
	got, err := l.Process(fr)
	if err != nil || render(got) != "W@2-2" || got.Baselined != 1 || sum.Baselined != 1 || sum.Errors != 0 || sum.Warnings != 1 {
		t.Errorf("with the baseline: %q, baselined %d, summary %+v, %v", render(got), got.Baselined, sum, err)
	}
}

func TestSummary(t *testing.T) {
	t.Parallel()
	var sum finding.Summary
	s := Summary{Into: &sum}
	for _, fr := range []finding.FileResult{
		{Findings: []finding.Finding{at("E", finding.SeverityError, 1, 1, 2), at("W", finding.SeverityWarning, 1, 1, 2)}},
		{Unverified: []finding.Unverified{{Rule: "Q"}}, Errors: []finding.RuleError{{Rule: "R", Message: "failed"}}},
	} {
		if got, err := s.Process(fr); err != nil || render(got) != render(fr) {
			t.Fatalf("%q, %v: the summary changes nothing", render(got), err)
		}
	}
	if want := (finding.Summary{Files: 2, Errors: 1, Warnings: 1, Unverified: 1, OperationalErrors: 1}); sum != want {
		t.Errorf("summary %+v, want %+v", sum, want)
	}
	if _, err := (Summary{}).Process(finding.FileResult{}); err != nil {
		t.Errorf("a summary into nothing: %v", err)
	}
}

// fixable is a.md's result with one finding whose fix replaces "in order to" by "to".
func fixable() finding.FileResult {
	text := "We act in order to win.\n"
	start, end := strings.Index(text, "in order to"), strings.Index(text, " win")
	f := finding.Finding{Rule: "Acme.Wordy", Severity: finding.SeverityError, Message: "wordy",
		Start: finding.Position{Line: 1, Column: start + 1, Offset: start}, End: finding.Position{Line: 1, Column: end + 1, Offset: end}}
	f.Edits = []finding.TextEdit{{Start: f.Start, End: f.End, NewText: "to"}}
	keep := at("Acme.Tone", finding.SeverityWarning, 1, 1, 3)
	return finding.FileResult{Path: "a.md", Source: []byte(text), Findings: []finding.Finding{f, keep}}
}

func TestFixer(t *testing.T) {
	t.Parallel()
	got, err := Fixer{}.Process(fixable())
	if err != nil || len(got.Findings) != 2 || got.Source == nil {
		t.Fatalf("without a session: %q, %v; want the result as it was", render(got), err)
	}
	var out, log strings.Builder
	got, err = Fixer{Session: &fix.Session{Mode: fix.ModeDiff, Out: &out, Log: &log}}.Process(fixable())
	if err != nil {
		t.Fatal(err)
	}
	if render(got) != "Acme.Tone@1-1" || got.Source != nil {
		t.Errorf("left %q (source %q); want the finding without a fix, no source", render(got), got.Source)
	}
	if want := "--- a/a.md\n+++ b/a.md\n@@ -1 +1 @@\n-We act in order to win.\n+We act to win.\n"; out.String() != want {
		t.Errorf("diff %q, want %q", out.String(), want)
	}
	if want := "vectorlint: a.md: 1 fix to apply\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	_, err = Fixer{Session: &fix.Session{Mode: fix.ModeDiff, Out: failingWriter{}}}.Process(fixable())
	if !errors.Is(err, errWrite) {
		t.Errorf("a diff that cannot be written: %v, want %v", err, errWrite)
	}
}

var errWrite = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errWrite }

// TestList runs the whole list: the order is the documented one, and each processor sees what
// the ones before it left (the summary counts what changed lines, the severity floor and the
// fixer kept).
func TestList(t *testing.T) {
	t.Parallel()
	var sum finding.Summary
	var out strings.Builder
	l := New(Options{
		Changed:     func(string) *Changed { return &Changed{Lines: gitdiff.Lines{{First: 1, Last: 1}}} },
		MinSeverity: finding.SeverityWarning,
		Fix:         &fix.Session{Mode: fix.ModeDiff, Out: &out},
		Summary:     &sum,
	})
	if got, want := l.Names(), []string{"changed-lines", "min-severity", "baseline", "fixer", "summary"}; !slices.Equal(got, want) {
		t.Fatalf("names %v, want %v", got, want)
	}
	fr := fixable()
	fr.Findings = append(fr.Findings, at("Acme.Later", finding.SeverityError, 2, 2, 3), at("Acme.Hint", finding.SeveritySuggestion, 1, 1, 2))
	got, err := l.Process(fr)
	if err != nil {
		t.Fatal(err)
	}
	if render(got) != "Acme.Tone@1-1" {
		t.Errorf("left %q, want Acme.Tone only (Later is off the changed lines, Hint below warning, Wordy fixed)", render(got))
	}
	if want := (finding.Summary{Files: 1, Warnings: 1}); sum != want {
		t.Errorf("summary %+v, want %+v: counted once, after the fixer", sum, want)
	}
	if !strings.Contains(out.String(), "+We act to win.") {
		t.Errorf("diff %q: the fixer ran", out.String())
	}
	// A processor's error stops the list: nothing after it runs.
	sum = finding.Summary{}
	l = New(Options{Fix: &fix.Session{Mode: fix.ModeDiff, Out: failingWriter{}}, Summary: &sum})
	if _, err := l.Process(fixable()); !errors.Is(err, errWrite) || sum.Files != 0 {
		t.Errorf("error %v, summary %+v: want the write error and nothing counted", err, sum)
	}
}
