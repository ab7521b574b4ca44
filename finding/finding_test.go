package finding

import (
	"encoding/json"
	"testing"
)

// at is the position of offset in text.
func at(text string, offset int) Position { return NewLineIndex(text).Position(offset) }

// TestFixShapes: the one fix field, its edits, gives the JSON's "fix" (only for one edit of the
// whole match), Vale's replacement and the quick fix's title, for each shape of fix.
func TestFixShapes(t *testing.T) {
	t.Parallel()
	const text = "We act in order to win, say \"tools\". It ends here"
	base := func(match string) Finding {
		i := len(text) - len(match)
		for j := range text {
			if len(text[j:]) >= len(match) && text[j:j+len(match)] == match {
				i = j
				break
			}
		}
		return Finding{Rule: "A.B", Severity: SeverityWarning, Message: "m", Match: match, Start: at(text, i), End: at(text, i+len(match))}
	}
	whole := base("in order to")
	whole.Edits = []TextEdit{{Start: whole.Start, End: whole.End, NewText: "to"}}
	quotes := base(`"tools"`)
	quotes.Edits = []TextEdit{{Start: quotes.Start, End: at(text, quotes.Start.Offset+1), NewText: "“"},
		{Start: at(text, quotes.End.Offset-1), End: quotes.End, NewText: "”"}}
	period := base("It ends here")
	period.Edits = []TextEdit{{Start: period.End, End: period.End, NewText: "."}}
	deletion := base("say ")
	deletion.Edits = []TextEdit{{Start: deletion.Start, End: deletion.End}}
	outside := base("win")
	outside.Edits = []TextEdit{{Start: at(text, 0), End: at(text, 2), NewText: "They"}}
	tests := []struct {
		name        string
		f           Finding
		replacement string
		ok          bool
		message     string
		json        string
	}{
		{"no fix", base("win"), "", false, "", ``},
		{"one edit of the match", whole, "to", true, "Replace “in order to” with “to”",
			`"fix":"to","match":"in order to","line":1,"column":8,"endLine":1,"endColumn":19,"offset":7,"endOffset":18,"edits":[{"offset":7,"endOffset":18,"newText":"to"}]}`},
		{"two edits inside the match", quotes, "", false, "Replace “\"tools\"” with ““tools””",
			`"match":"\"tools\"","line":1,"column":29,"endLine":1,"endColumn":36,"offset":28,"endOffset":35,"edits":[{"offset":28,"endOffset":29,"newText":"“"},{"offset":34,"endOffset":35,"newText":"”"}]}`},
		{"an insertion at the end", period, "", false, "Insert “.”", ``},
		{"a deletion of the match", deletion, "", true, "Delete “say”", ``},
		{"an edit outside the match", outside, "", false, "Apply the fix", ``},
	}
	for _, tt := range tests {
		if got, ok := tt.f.Replacement(); got != tt.replacement || ok != tt.ok {
			t.Errorf("%s: Replacement() = %q, %v; want %q, %v", tt.name, got, ok, tt.replacement, tt.ok)
		}
		if got := tt.f.FixMessage(); got != tt.message {
			t.Errorf("%s: FixMessage() = %q, want %q", tt.name, got, tt.message)
		}
		b, err := json.Marshal(tt.f)
		if err != nil {
			t.Fatal(err)
		}
		if tt.json != "" && string(b) != `{"rule":"A.B","severity":"warning","message":"m",`+tt.json {
			t.Errorf("%s: JSON %s", tt.name, b)
		}
	}
}

// TestFindingWithoutSeverity: a finding whose severity was forgotten cannot be written.
func TestFindingWithoutSeverity(t *testing.T) {
	t.Parallel()
	if _, err := json.Marshal(Finding{Rule: "A.B", Message: "m"}); err == nil {
		t.Error("a finding without a severity was marshalled")
	}
}

// TestSummaryAdd: a file counts once, its findings by severity, its unverified quotes, rule
// errors, rule runs not done, ignored violations and findings hidden by a baseline; atOrAbove counts from a severity up.
func TestSummaryAdd(t *testing.T) {
	t.Parallel()
	var s Summary
	s.Add(FileResult{Path: "a.md", Findings: []Finding{{Severity: SeverityError}, {Severity: SeverityWarning},
		{Severity: SeveritySuggestion}, {Severity: SeverityError}}, Unverified: []Unverified{{}}, Errors: []RuleError{{}, {}},
		NotRun: 3, Ignored: 4, Baselined: 5})
	s.Add(FileResult{Path: "b.md"})
	want := Summary{Files: 2, Errors: 2, Warnings: 1, Suggestions: 1, Unverified: 1, OperationalErrors: 2, NotRun: 3, Ignored: 4, Baselined: 5}
	if s != want {
		t.Errorf("Summary = %+v, want %+v", s, want)
	}
	for sev, n := range map[Severity]int{SeverityError: 2, SeverityWarning: 3, SeveritySuggestion: 4} {
		if got := s.atOrAbove(sev); got != n {
			t.Errorf("atOrAbove(%s) = %d, want %d", sev, got, n)
		}
	}
}

// TestRounded1: scores are written with one decimal, ties away from zero as JavaScript's
// toFixed(1) writes them.
func TestRounded1(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{9.25: "9.3", 10: "10.0", 8.387: "8.4", 0: "0.0", 0.05: "0.1"} {
		if b, _ := json.Marshal(Rounded1(in)); string(b) != want {
			t.Errorf("Rounded1(%v) = %s, want %s", in, b, want)
		}
	}
}

// TestOutcome: a run that could not do all its work failed whatever it found; otherwise
// findings at or above --fail-on make the outcome, and --fail-on none (SeverityUnset) lets
// none.
func TestOutcome(t *testing.T) {
	t.Parallel()
	warnings := Summary{Files: 1, Warnings: 2}
	tests := []struct {
		name   string
		totals Totals
		failOn Severity
		want   Outcome
	}{
		{"clean", Totals{Summary: Summary{Files: 1}}, SeveritySuggestion, OutcomeOK},
		{"warnings under --fail-on error", Totals{Summary: warnings}, SeverityError, OutcomeOK},
		{"warnings under --fail-on warning", Totals{Summary: warnings}, SeverityWarning, OutcomeFindings},
		{"warnings under --fail-on none", Totals{Summary: warnings}, SeverityUnset, OutcomeOK},
		{"a rule that failed on a file", Totals{Summary: Summary{Files: 1, OperationalErrors: 1}}, SeverityError, OutcomeFailed},
		{"rule runs not done", Totals{Summary: Summary{Files: 1, Warnings: 1, NotRun: 3}}, SeverityWarning, OutcomeFailed},
		{"a failure of the whole run", Totals{Summary: Summary{Files: 1}, RunErrors: []RunError{{Cause: "down"}}}, SeverityUnset, OutcomeFailed},
		{"interrupted", Totals{Summary: Summary{Files: 1}, Interrupted: []string{"b.md"}}, SeverityError, OutcomeFailed},
	}
	for _, tt := range tests {
		if got := tt.totals.Outcome(tt.failOn); got != tt.want {
			t.Errorf("%s: Outcome(%s) = %s, want %s", tt.name, tt.failOn, got, tt.want)
		}
	}
}
