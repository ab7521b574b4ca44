package lint

import (
	"fmt"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
)

// TestFilterDecisions runs proposals through the locate and filter stages and checks the
// decision on each, in the order the filter makes them.
func TestFilterDecisions(t *testing.T) {
	t.Parallel()
	src := "# Title\n\nIn order to win, in order to try.\n<!-- vectorlint-disable-next-line Acme.R -->\nIn order to hide.\nLast line.\n"
	doc, err := document.New("a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	chunk := document.Chunk{Text: doc.Body, Offset: doc.BodyOffset, Line: 1, Words: document.CountWords(doc.Body)}
	v := func(quote string, line int, conf float64) Violation {
		return Violation{QuotedText: quote, Line: line, Message: "Say 'to'.", Confidence: conf}
	}
	viol := func(rule string, group int, vi Violation) proposal {
		return violationProposal(rule, group, finding.SeverityWarning, chunk, &vi)
	}
	summary := func(group int) proposal {
		p := placedProposal(finding.Finding{Rule: "Acme.S.C", Severity: finding.SeverityWarning, Message: "Flat.",
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
		placedProposal(finding.Finding{Rule: "Acme.R", Message: "target not found"}), // deterministic
	}
	want := []decision{reported, duplicate, lowConfidence, suppressed, unverified, duplicate, suppressed,
		reported, reported, superseded, reported, reported}
	locate(doc, props)
	e := &evaluator{opts: EvalOptions{ConfidenceThreshold: 0.75}}
	e.filter(doc, document.ParseSuppressions(doc), props)
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

// TestMergeIdenticalViolations: identical violations of a rule given on the same or overlapping
// chunks are merged before locating, compared as the original VectorLint's mergeViolations
// compares them (src/chunking/merger.ts: trimmed, ignoring case; that function has no test of
// its own in the original): the most confident stays and is located, the others are
// duplicates. Unlike the original, identical violations from chunks that do not overlap are two
// places, each located in its chunk; and a different line, context or criterion is a different
// violation.
func TestMergeIdenticalViolations(t *testing.T) {
	t.Parallel()
	src := "We act in order to win.\n\nThey act in order to try.\n"
	doc, err := document.New("a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	whole := document.Chunk{Text: doc.Body, Offset: 0, Line: 1}
	first := document.Chunk{Text: "We act in order to win.\n\n", Offset: 0, Line: 1}
	second := document.Chunk{Text: "They act in order to try.\n", Offset: 25, Line: 3}
	viol := func(c document.Chunk, rule, quote string, line int, msg string, conf float64) proposal {
		return violationProposal(rule, 0, finding.SeverityWarning, c, &Violation{QuotedText: quote, Line: line,
			Message: msg, Analysis: "Wordy.", Confidence: conf})
	}
	props := []proposal{
		viol(first, "Acme.R", "in order to ", 1, "Say 'to'.", 0.8),  // 0: merged into 1, more confident
		viol(whole, "Acme.R", "in order to", 1, "say 'to'. ", 0.95), // 1: its chunk overlaps the first: kept
		viol(first, "Acme.R", "in order to", 1, "Say 'to'.", 0.95),  // 2: as confident as 1: merged
		viol(second, "Acme.R", "in order to", 3, "Say 'to'.", 0.9),  // 3: another line: located on it
		viol(second, "Acme.R", "in order to", 3, "Say 'to'.", 0.9),  // 4: identical to 3: merged
		viol(whole, "Acme.R.C", "in order to", 1, "Say 'to'.", 0.9), // 5: another criterion
		viol(first, "Acme.R", "in order to", 1, "Say 'so'.", 0.9),   // 6: another message: located, then the same place
	}
	// Without the merge, 0 would be dropped for its confidence and 2 and 4 as repeated places:
	// the merge decides before locating, and locates each repeated violation once.
	locate(doc, props)
	e := &evaluator{opts: EvalOptions{ConfidenceThreshold: 0.85}}
	e.filter(doc, document.ParseSuppressions(doc), props)
	want := []struct {
		d     decision
		where string // "" when not located
	}{
		{duplicate, ""}, {reported, "1:8"}, {duplicate, ""}, {reported, "3:10"}, {duplicate, ""}, {reported, "1:8"},
		{duplicate, "1:8"},
	}
	for i, p := range props {
		where := ""
		if p.located {
			where = fmt.Sprintf("%d:%d", p.finding.Start.Line, p.finding.Start.Column)
		}
		if p.decision != want[i].d || where != want[i].where || p.merged != (want[i].where == "") {
			t.Errorf("proposal %d: decision %d at %q (merged %v), want %d at %q", i, p.decision, where, p.merged, want[i].d, want[i].where)
		}
	}
	// Identical violations on chunks that do not overlap are two places (the original merges them).
	props = []proposal{
		viol(first, "Acme.R", "in order to", 0, "Say 'to'.", 0.9),
		viol(second, "Acme.R", "in order to", 0, "Say 'to'.", 0.9),
	}
	locate(doc, props)
	e.filter(doc, document.ParseSuppressions(doc), props)
	for i, want := range []string{"1:8", "3:10"} {
		p := props[i]
		if p.merged || p.decision != reported || fmt.Sprintf("%d:%d", p.finding.Start.Line, p.finding.Start.Column) != want {
			t.Errorf("non-overlapping chunk %d: merged %v, decision %d at %+v, want reported at %s", i, p.merged, p.decision, p.finding.Start, want)
		}
	}
}
