package document

import (
	"bytes"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
)

// Fixes as edits (spec/linter.md §10), in the shape of golang.org/x/tools/go/analysis: a
// finding may carry the TextEdits that fix it (finding.Finding's Edits). `vectorlint --fix`
// applies them (package fix), the editor server offers them as quick fixes, and the output
// formats carry them (JSON "edits", rdjson "suggestions", SARIF "fixes").
//
// A model's fix becomes an edit only when its quote was found exactly (Locate's LocatedOnLine
// or LocatedExact): a fix written for words the document does not contain as quoted — other
// case, other white space, a fuzzy match — would replace the wrong text.

// ExactFix gives f, located exactly at span of chunk c, the model's fix as an edit of that
// span. A fix that is empty or changes nothing is not kept; neither is
// one that is not safe to make (fixsafe.go), and then the reason is returned ("" otherwise).
// Line breaks in the fix take the document's form at that place, so a fix on a CRLF file stays
// CRLF.
func ExactFix(doc *Document, c Chunk, span Span, f *finding.Finding, fix string) (refused string) {
	if fix == "" || fix == f.Match {
		return ""
	}
	if strings.Contains(fix, "\n") && doc.crlfAt(span) {
		fix = strings.ReplaceAll(strings.ReplaceAll(fix, "\r\n", "\n"), "\n", "\r\n")
	}
	if why := doc.unsafeFix(c, span, fix); why != "" {
		return why
	}
	f.Edits = []finding.TextEdit{{Start: doc.Position(span.Start), End: doc.Position(span.End), NewText: fix}}
	return ""
}

// crlfAt reports whether the line break that ends the line holding span (else, on a last line
// without one, the break before it) is CRLF.
func (d *Document) crlfAt(span Span) bool {
	if i := bytes.IndexByte(d.Source[span.End:], '\n'); i >= 0 {
		at := span.End + i
		return at > 0 && d.Source[at-1] == '\r'
	}
	if i := bytes.LastIndexByte(d.Source[:span.Start], '\n'); i > 0 {
		return d.Source[i-1] == '\r'
	}
	return false
}
