package rules

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// The CriticMarkup highlight that marks, in a rule example, the span where a finding must land
// (docs/rules.md, "Examples").
const (
	MarkOpen  = "{=="
	MarkClose = "==}"
)

// Span is a half-open range of byte offsets [Start, End) in an example's stripped text.
type Span struct {
	Start, End int
}

// MarkerProblem says what is wrong with an example's markers.
type MarkerProblem int

// The problems ParseMarkers reports.
const (
	// MarkerUnclosed: a "{==" with no "==}" after it.
	MarkerUnclosed MarkerProblem = iota + 1
	// MarkerUnopened: a "==}" outside any span.
	MarkerUnopened
	// MarkerNested: a "{==" inside a span; spans do not nest.
	MarkerNested
	// MarkerEmpty: a span with nothing but white space between its markers.
	MarkerEmpty
)

// MarkerError is the first problem ParseMarkers finds in a marked text.
type MarkerError struct {
	Problem MarkerProblem
	// Offset is the byte offset, in the marked text, of the marker at fault (the "{==" of an
	// unclosed or empty span, the "==}" that closes nothing, the nested "{==").
	Offset int
	// Line and Column are Offset's 1-based line and column (in code points) in the marked text.
	Line, Column int
}

// Error describes the problem and where it is: "line 2, column 5: "{==" is never closed by "==}"".
func (e *MarkerError) Error() string {
	var what string
	switch e.Problem {
	case MarkerUnclosed:
		what = `"{==" is never closed by "==}"`
	case MarkerUnopened:
		what = `"==}" closes no "{=="`
	case MarkerNested:
		what = `"{==" inside a marked span (spans cannot nest)`
	case MarkerEmpty:
		what = `an empty span: mark at least one word between "{==" and "==}"`
	default:
		what = "invalid markers"
	}
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Column, what)
}

// ParseMarkers removes the CriticMarkup highlights "{==…==}" from marked and returns the text
// without them and the spans they marked, as byte offsets in that text, in order. The spans do
// not overlap (two may touch) and none is empty or only white space. The text between the
// markers is kept exactly, so MarkSpans(text, spans) gives marked back.
//
// Markers are read from left to right: inside a span the first "==}" closes it. There is no
// escape: an example whose text must contain "{==" or "==}" itself cannot be written. A marker
// out of place is a *MarkerError (and no text or span is returned).
func ParseMarkers(marked string) (string, []Span, error) {
	if !strings.Contains(marked, MarkOpen) && !strings.Contains(marked, MarkClose) {
		return marked, nil, nil
	}
	var (
		b     strings.Builder
		spans []Span
		open  = -1 // offset in marked of the current span's "{==", -1 outside a span
		start int  // offset in the stripped text where the current span starts
	)
	b.Grow(len(marked))
	fail := func(p MarkerProblem, at int) (string, []Span, error) {
		line, col := lineColumn(marked, at)
		return "", nil, &MarkerError{Problem: p, Offset: at, Line: line, Column: col}
	}
	for i := 0; i < len(marked); {
		switch {
		case strings.HasPrefix(marked[i:], MarkOpen):
			if open >= 0 {
				return fail(MarkerNested, i)
			}
			open, start = i, b.Len()
			i += len(MarkOpen)
		case strings.HasPrefix(marked[i:], MarkClose):
			if open < 0 {
				return fail(MarkerUnopened, i)
			}
			if strings.TrimSpace(b.String()[start:]) == "" {
				return fail(MarkerEmpty, open)
			}
			spans = append(spans, Span{Start: start, End: b.Len()})
			open = -1
			i += len(MarkClose)
		default:
			b.WriteByte(marked[i])
			i++
		}
	}
	if open >= 0 {
		return fail(MarkerUnclosed, open)
	}
	return b.String(), spans, nil
}

// MarkSpans inserts the markers "{==" and "==}" around each span of text: the inverse of
// ParseMarkers. The spans must be in order, not overlapping, and within text.
func MarkSpans(text string, spans []Span) string {
	var b strings.Builder
	b.Grow(len(text) + len(spans)*(len(MarkOpen)+len(MarkClose)))
	at := 0
	for _, s := range spans {
		b.WriteString(text[at:s.Start])
		b.WriteString(MarkOpen)
		b.WriteString(text[s.Start:s.End])
		b.WriteString(MarkClose)
		at = s.End
	}
	b.WriteString(text[at:])
	return b.String()
}

// lineColumn returns the 1-based line and column (in code points) of a byte offset of s.
func lineColumn(s string, offset int) (line, column int) {
	before := s[:offset]
	line = strings.Count(before, "\n") + 1
	if i := strings.LastIndexByte(before, '\n'); i >= 0 {
		before = before[i+1:]
	}
	return line, utf8.RuneCountInString(before) + 1
}
