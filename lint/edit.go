package lint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
)

// Fixes as edits (spec/linter.md §10), in the shape of golang.org/x/tools/go/analysis: a
// finding may carry a SuggestedFix, a message and the TextEdits that make it. `vectorlint --fix`
// applies them (package fix), the editor server offers them as quick fixes, and the output
// formats carry them (JSON "edits", rdjson "suggestions", SARIF "fixes").
//
// A model's fix becomes an edit only when its quote was found exactly (Locate's LocatedOnLine
// or LocatedExact): a fix written for words the document does not contain as quoted — other
// case, other white space, a fuzzy match — would replace the wrong text.

// TextEdit replaces the bytes [Start.Offset, End.Offset) of a file with NewText. Start and End
// are positions in the file the finding was made on, so every output format can place the edit
// in its own unit; an insertion has Start == End.
type TextEdit struct {
	Start, End finding.Position
	NewText    string
}

// textEditJSON is the native JSON shape of an edit (spec/linter.md §10).
type textEditJSON struct {
	Offset    int    `json:"offset"`
	EndOffset int    `json:"endOffset"`
	NewText   string `json:"newText"`
}

// MarshalJSON writes {"offset", "endOffset", "newText"}: byte offsets in the file, end
// exclusive.
func (e TextEdit) MarshalJSON() ([]byte, error) {
	return json.Marshal(textEditJSON{Offset: e.Start.Offset, EndOffset: e.End.Offset, NewText: e.NewText})
}

// SuggestedFix is a change that fixes a finding: its edits, applied together or not at all,
// and a message that says what it does ("Replace “in order to” with “to”"), which editors show
// as the quick fix's title. The edits do not overlap and are sorted by position.
type SuggestedFix struct {
	Message   string
	TextEdits []TextEdit
}

// Edits returns the finding's edits (none when it has no fix).
func (f Finding) Edits() []TextEdit {
	if f.SuggestedFix == nil {
		return nil
	}
	return f.SuggestedFix.TextEdits
}

// exactFix gives f, located exactly at span of chunk c, the model's fix as an edit of that
// span; fix is kept in f.Fix. A fix that is empty or changes nothing is not kept; neither is
// one that is not safe to make (fixsafe.go), and then the reason is returned ("" otherwise).
// Line breaks in the fix take the document's form at that place, so a fix on a CRLF file stays
// CRLF.
func exactFix(doc *Document, c Chunk, span Span, f *Finding, fix string) (refused string) {
	if fix == "" || fix == f.Match {
		return ""
	}
	if strings.Contains(fix, "\n") && doc.crlfAt(span) {
		fix = strings.ReplaceAll(strings.ReplaceAll(fix, "\r\n", "\n"), "\n", "\r\n")
	}
	if why := doc.unsafeFix(c, span, fix); why != "" {
		return why
	}
	f.Fix = fix
	f.SuggestedFix = &SuggestedFix{
		Message:   ReplaceMessage(f.Match, fix),
		TextEdits: []TextEdit{{Start: doc.Position(span.Start), End: doc.Position(span.End), NewText: fix}},
	}
	return ""
}

// ReplaceMessage says what replacing old with new does, in a few words: `Replace “in order
// to” with “to”`, `Delete “very”`, `Insert “the”`. Long texts are shortened and line breaks
// shown as spaces, since editors show the message on one line.
func ReplaceMessage(old, new string) string {
	switch {
	case old == "":
		return fmt.Sprintf("Insert “%s”", shorten(new))
	case new == "":
		return fmt.Sprintf("Delete “%s”", shorten(old))
	}
	return fmt.Sprintf("Replace “%s” with “%s”", shorten(old), shorten(new))
}

// shorten puts a text on one line and keeps at most 40 code points of it.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const most = 40
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	return string([]rune(s)[:most-1]) + "…"
}

// FixableText reports whether s may be written into a document by a fix: valid UTF-8 without
// the characters spec/trust.md §3 names — controls other than tab and LF (a CR only in a CRLF
// line break), C1 controls, bidi overrides and isolates, invisible characters
// (safetext.Dangerous) — so no escape sequence, NUL or reordering of text can come from a
// model's reply into a file.
func FixableText(s string) bool {
	_, bad := unfixableRune(s)
	return !bad
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
