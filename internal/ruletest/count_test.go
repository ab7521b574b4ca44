package ruletest

import (
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/rules"
)

func at(rule string, start, end int) finding.Finding {
	return finding.Finding{Rule: rule, Start: finding.Position{Line: 1, Offset: start}, End: finding.Position{Line: 1, Offset: end}}
}

// TestCount: span overlap at the edges, findings of no width, criteria of the rule, other
// rules' findings and unverified quotes.
func TestCount(t *testing.T) {
	t.Parallel()
	// "We met in order to plan." with "in order to" marked: bytes [7, 18).
	text, spans, err := rules.ParseMarkers("We met {==in order to==} plan.")
	if err != nil {
		t.Fatal(err)
	}
	ex := &rules.Example{Text: text, Spans: spans}
	none := &rules.Example{Text: "We met to plan."}
	const id = "Acme.W"
	for _, c := range []struct {
		name       string
		ex         *rules.Example
		fr         finding.FileResult
		tp, fp, fn int
	}{
		{"exact", ex, finding.FileResult{Findings: []finding.Finding{at(id, 7, 18)}}, 1, 0, 0},
		{"last byte overlaps", ex, finding.FileResult{Findings: []finding.Finding{at(id, 17, 23)}}, 1, 0, 0},
		{"ends where the span starts", ex, finding.FileResult{Findings: []finding.Finding{at(id, 3, 7)}}, 0, 1, 1},
		{"starts where the span ends", ex, finding.FileResult{Findings: []finding.Finding{at(id, 18, 23)}}, 0, 1, 1},
		{"no width inside", ex, finding.FileResult{Findings: []finding.Finding{at(id, 7, 7)}}, 1, 0, 0},
		{"a criterion of the rule", ex, finding.FileResult{Findings: []finding.Finding{at(id+".Clarity", 8, 10)}}, 1, 0, 0},
		{"two findings on one span", ex, finding.FileResult{Findings: []finding.Finding{at(id, 7, 9), at(id, 10, 12)}}, 1, 0, 0},
		{"another rule's finding", ex, finding.FileResult{Findings: []finding.Finding{at("Acme.WX", 7, 18), at("Other.W", 0, 2)}}, 0, 0, 1},
		{"unverified quote", none, finding.FileResult{Unverified: []finding.Unverified{{Rule: id, Quote: "synergy"}, {Rule: "Other.W", Quote: "x"}}}, 0, 1, 0},
		{"nothing expected, nothing found", none, finding.FileResult{}, 0, 0, 0},
	} {
		got := count(id, c.ex, c.fr)
		if got.TruePositives != c.tp || got.FalsePositives != c.fp || got.FalseNegatives != c.fn || got.Pass != (c.fp == 0 && c.fn == 0) {
			t.Errorf("%s: %+v, want TP %d FP %d FN %d", c.name, got, c.tp, c.fp, c.fn)
		}
	}
}

// TestFinish: the ratios are 1 when nothing was found or expected; a case is flaky when its
// repeats disagree, and passes all only when every repeat ran and passed.
func TestFinish(t *testing.T) {
	t.Parallel()
	pass, fail := Repeat{Pass: true}, Repeat{FalsePositives: 1}
	rr := RuleResult{Counts: Counts{Examples: 4}, Cases: []Case{
		{Runs: []Repeat{pass, pass}},
		{Runs: []Repeat{pass, fail}},
		{Runs: []Repeat{fail, fail}},
		{Runs: []Repeat{pass}}, // a repeat that could not run
	}}
	finish(&rr, 2)
	if rr.Precision != 0 || rr.Recall != 1 || rr.Flaky != 1 || rr.PassedAll != 1 || rr.FalsePositives != 3 || rr.PassRate() != 0.25 {
		t.Errorf("%+v", rr)
	}
	empty := RuleResult{}
	finish(&empty, 3)
	if empty.Precision != 1 || empty.Recall != 1 || empty.PassRate() != 1 {
		t.Errorf("%+v", empty)
	}
	det := RuleResult{Cases: []Case{{Deterministic: true, Runs: []Repeat{{TruePositives: 1, Pass: true}}}}}
	finish(&det, 3)
	if len(det.Cases[0].Runs) != 3 || det.TruePositives != 3 || det.PassedAll != 1 {
		t.Errorf("a deterministic case counts for every repeat: %+v", det)
	}
}
