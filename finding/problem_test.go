package finding

import "testing"

// TestProblemForms: the two forms a problem is written in — the configuration and rule files'
// (Error: the level named only when it is not an error) and the blueprints' and point lists'
// (Labeled: the level always named) — with and without a line, a field, a message and an
// expected/found pair.
func TestProblemForms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p              Problem
		error, labeled string
	}{
		{Problem{File: "r.md", Line: 3, Field: "severity", Expected: SeverityExpected, Found: `"fatal"`},
			`r.md:3: severity: expected "suggestion", "warning" or "error", found "fatal"`,
			`r.md:3: error: severity: expected "suggestion", "warning" or "error", found "fatal"`},
		{Problem{File: "vectorlint.ini", Field: "RulesPath", Message: "no such folder", Level: LevelWarning},
			"vectorlint.ini: warning: RulesPath: no such folder",
			"vectorlint.ini: warning: RulesPath: no such folder"},
		{Problem{File: "a", Line: 1, Message: "replaces the built-in pack", Expected: "x", Found: "y", Level: LevelNote},
			"a:1: note: replaces the built-in pack (expected x, found y)",
			"a:1: note: replaces the built-in pack (expected x, found y)"},
		{Problem{File: "b.yml", Line: 9, Field: `prompt "greeting"`, Code: "invalid", Message: "no text"},
			`b.yml:9: prompt "greeting": no text`,
			`b.yml:9: error: prompt "greeting": no text`},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.error {
			t.Errorf("Error() = %q, want %q", got, tt.error)
		}
		if got := tt.p.Labeled(); got != tt.labeled {
			t.Errorf("Labeled() = %q, want %q", got, tt.labeled)
		}
	}
}

// TestProblemsLevels: errors, warnings and notes are told apart, and sorting keeps the order
// of problems on one line.
func TestProblemsLevels(t *testing.T) {
	t.Parallel()
	ps := Problems{
		{File: "b", Line: 2, Message: "w", Level: LevelWarning},
		{File: "a", Line: 5, Message: "e1"},
		{File: "a", Line: 5, Message: "e2"},
		{File: "a", Line: 1, Message: "n", Level: LevelNote},
	}
	if !ps.HasErrors() || len(ps.Errors()) != 2 || len(ps.Warnings()) != 1 || ps[:1].HasErrors() {
		t.Errorf("levels: errors %v, warnings %v", ps.Errors(), ps.Warnings())
	}
	ps.Sort()
	if got := ps.Error(); got != "a:1: note: n\na:5: e1\na:5: e2\nb:2: warning: w" {
		t.Errorf("sorted:\n%s", got)
	}
}
