package lint

import (
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
)

// locate is the locate stage (pipeline.go): it finds each proposed violation's quote in the
// chunk the model evaluated (Locate) and makes the finding there, with the document's own text
// as its match. The model's fix is kept, as an edit, only when the quote was found exactly
// (edit.go) and the fix is safe to make (fixsafe.go: why not is kept in fixRefused); a fix
// identical to the match is dropped (it would change nothing). A placed
// proposal is already where it goes.
func locate(doc *document.Document, props []proposal) {
	mergeIdentical(props)
	for i := range props {
		p := &props[i]
		v := p.violation
		if v == nil || p.merged {
			continue
		}
		span, method := doc.LocateQuote(p.chunk, v.Quote()) // skipped scopes: skip.go
		if method == document.NotLocated {
			continue
		}
		match := string(doc.Source[span.Start:span.End])
		f := finding.Finding{Rule: p.rule, Severity: p.severity, Message: v.Message, Suggestion: v.Suggestion,
			Match: match, Analysis: v.Analysis, Start: doc.Position(span.Start), End: doc.Position(span.End)}
		if method == document.LocatedOnLine || method == document.LocatedExact {
			p.fixRefused = document.ExactFix(doc, p.chunk, span, &f, v.Fix)
		}
		p.located, p.span, p.finding = true, span, f
	}
}

// mergeIdentical marks, before anything is located, the violations that repeat another of the
// same rule (or criterion) given on the same or an overlapping chunk: the same quote, line and
// context (so they would be located at the same place), and the same message, description and
// analysis, compared as the original VectorLint's mergeViolations compares them (trimmed,
// ignoring case). Of identical violations the most confident stays (the first on a tie); the
// filter reports the others as duplicates. Violations from chunks that do not overlap are
// never merged: the original merges on the quote and explanation alone over the whole text,
// which folds two occurrences of a phrase into one.
func mergeIdentical(props []proposal) {
	type key struct {
		rule                                       string
		group, sample                              int
		quote, before, after                       string
		line                                       int
		message, description, analysis, suggestion string
	}
	fold := func(s string) string { return strings.ToLower(strings.TrimSpace(s)) }
	kept := map[key][]int{}
	for i := range props {
		p := &props[i]
		v := p.violation
		if v == nil {
			continue
		}
		k := key{p.rule, p.group, p.sample, strings.TrimSpace(v.QuotedText), v.ContextBefore, v.ContextAfter, v.Line,
			fold(v.Message), fold(v.Description), fold(v.Analysis), fold(v.Suggestion)}
		merged := false
		for n, j := range kept[k] {
			q := &props[j]
			if !chunksOverlap(p.chunk, q.chunk) {
				continue
			}
			if v.Confidence > q.violation.Confidence {
				q.merged, kept[k][n] = true, i
			} else {
				p.merged = true
			}
			merged = true
			break
		}
		if !merged {
			kept[k] = append(kept[k], i)
		}
	}
}

// chunksOverlap reports whether two chunks share text (the same chunk does).
func chunksOverlap(a, b document.Chunk) bool {
	return a.Offset < b.Offset+len(b.Text) && b.Offset < a.Offset+len(a.Text) || a == b
}
