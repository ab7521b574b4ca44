package lint

import (
	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
)

// The filter stage (pipeline.go) decides, for each proposed finding of a rule on a file, whether
// it is reported. Nothing is dropped without a decision, so a run can say what became of every
// violation the model gave.

// decision is what the filter stage decided for one proposal.
type decision int

const (
	// reported: the finding is reported.
	reported decision = iota
	// unverified: the quote was not found in the text; listed as unverified, not counted.
	unverified
	// lowConfidence: the model's confidence is under the threshold; neither a finding nor
	// unverified (the model saying it is unsure).
	lowConfidence
	// duplicate: the rule (or criterion) already reports this place, or lists this quote and
	// message as unverified.
	duplicate
	// suppressed: an inline control (<!-- vectorlint-disable … -->) silences it.
	suppressed
	// superseded: a fallback (a low-rated criterion's summary) whose criterion reports
	// violations of its own.
	superseded
	// ignored: the quote lies inside a skipped scope (code, a URL, markup: spec/linter.md §9);
	// counted in the file's result, not reported.
	ignored
)

// filter decides on each of a rule's proposals, in order. Violations come first: one that repeats
// an identical violation (merged before locating) is a duplicate; under the confidence threshold
// they are dropped; a quote not located is unverified (once per quote and
// message, and not when its line is silenced); a place already reported is a duplicate; the
// rest are reported unless an inline control silences them. Then the placed findings: a
// fallback is superseded when its group has a violation that passed the checks above (a
// silenced one included: the criterion did get findings), and any is silenced as a violation
// is.
//
// A located violation whose span holds no prose (it lies inside skipped scopes: spec/linter.md
// §9) is ignored after the duplicate check, before the inline controls; it does not count for
// its group, so a low-rated criterion whose only violations are in code keeps its summary.
func (e *evaluator) filter(doc *document.Document, supp *document.Suppressions, props []proposal) {
	type place struct {
		rule string
		span document.Span
	}
	type quote struct{ rule, quote, message string }
	var (
		seen    = map[place]bool{}
		quotes  = map[quote]bool{}
		groups  = map[int]bool{} // groups with a violation past the checks
		silence = func(f finding.Finding) decision {
			if supp.Suppressed(f.Rule, f.Start.Offset, f.Start.Line) {
				return suppressed
			}
			return reported
		}
	)
	for i := range props {
		p := &props[i]
		v := p.violation
		if v == nil {
			continue
		}
		switch {
		case p.merged:
			p.decision = duplicate // an identical violation is decided on instead
		case v.Confidence < e.opts.ConfidenceThreshold:
			p.decision = lowConfidence
		case !p.located:
			k := quote{p.rule, v.QuotedText, v.Message}
			switch {
			case quotes[k]:
				p.decision = duplicate
			case v.Line > 0 && supp.Suppressed(p.rule, doc.LineStart(v.Line), v.Line):
				quotes[k], p.decision = true, suppressed
			default:
				quotes[k], p.decision = true, unverified
			}
		case seen[place{p.rule, p.span}]:
			p.decision = duplicate
		case doc.InSkipped(p.span):
			seen[place{p.rule, p.span}] = true
			p.decision = ignored
		default:
			seen[place{p.rule, p.span}] = true
			groups[p.group] = true
			p.decision = silence(p.finding)
		}
	}
	for i := range props {
		p := &props[i]
		switch {
		case p.violation != nil:
		case p.fallback && groups[p.group]:
			p.decision = superseded
		default:
			p.decision = silence(p.finding)
		}
	}
}
