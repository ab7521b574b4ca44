package lint

import (
	"testing"

	"github.com/vectorlint/vectorlint/rules"
)

// TestFilterDecisions runs proposals through the locate and filter stages and checks the
// decision on each, in the order the filter makes them.
func TestFilterDecisions(t *testing.T) {
	src := "# Title\n\nIn order to win, in order to try.\n<!-- vectorlint-disable-next-line Acme.R -->\nIn order to hide.\nLast line.\n"
	doc, err := NewDocument("a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	chunk := Chunk{Text: doc.Body, Offset: doc.BodyOffset, Line: 1, Words: CountWords(doc.Body)}
	v := func(quote string, line int, conf float64) Violation {
		return Violation{QuotedText: quote, Line: line, Message: "Say 'to'.", Confidence: conf}
	}
	viol := func(rule string, group int, vi Violation) proposal {
		return violationProposal(rule, group, rules.SeverityWarning, chunk, &vi)
	}
	summary := func(group int) proposal {
		p := placedProposal(Finding{Rule: "Acme.S.C", Severity: rules.SeverityWarning, Message: "Flat.",
			Start: doc.Position(0), End: doc.Position(7)})
		p.group, p.fallback = group, true
		return p
	}
	props := []proposal{
		viol("Acme.R", 0, v("In order to", 3, 1)),     // reported
		viol("Acme.R", 0, v("In order to", 3, 0.9)),   // the same place again
		viol("Acme.R", 0, v("in order to", 3, 0.5)),   // under the threshold
		viol("Acme.R", 0, v("In order to", 5, 1)),     // on the silenced line
		viol("Acme.R", 0, v("not in the text", 6, 1)), // unverified
		viol("Acme.R", 0, v("not in the text", 6, 1)), // the same quote and message again
		viol("Acme.R", 0, v("also not there", 5, 1)),  // unverified, but its line is silenced
		viol("Acme.Other", 1, v("In order to", 3, 1)), // another rule: not a duplicate
		viol("Acme.Other", 1, v("In order to", 5, 1)), // silenced only for Acme.R
		summary(0), // group 0 has findings: superseded
		summary(2), // group 2 has none: reported
		placedProposal(Finding{Rule: "Acme.R", Message: "target not found"}), // deterministic
	}
	want := []decision{reported, duplicate, lowConfidence, suppressed, unverified, duplicate, suppressed,
		reported, reported, superseded, reported, reported}
	locate(doc, props)
	e := &evaluator{opts: EvalOptions{ConfidenceThreshold: 0.75}}
	e.filter(doc, ParseSuppressions(doc), props)
	for i, p := range props {
		if p.decision != want[i] {
			t.Errorf("proposal %d (%s %+v): decision %d, want %d", i, p.rule, p.violation, p.decision, want[i])
		}
	}
	if f := props[0].finding; f.Start.Line != 3 || f.Start.Column != 1 || f.Match != "In order to" {
		t.Errorf("located finding %+v", f)
	}
	if f := props[8].finding; f.Start.Line != 5 || f.Match != "In order to" {
		t.Errorf("the other rule's finding on line 5: %+v", f)
	}
}
