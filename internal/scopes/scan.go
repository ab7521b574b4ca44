package scopes

import (
	"fmt"
)

// Heading is a section title of a document, as its format writes it: Markdown's "# Title" and
// "Title\n=====", AsciiDoc's "= Title", a reStructuredText title with its adornment, HTML's
// <h1>. Targets see every heading the way Markdown writes it (View).
type Heading struct {
	// Level is 1 for a document title ("#", "=", <h1>, the first adornment style of a
	// reStructuredText document), 2 for the next level, and so on.
	Level int
	// Start and End are the heading's text (what is not markup), End exclusive.
	Start, End int
	// Markup is where the heading's markup before its text starts on the text's line ("== ",
	// "<h2 id=x>"); Start when there is none there (an underlined title).
	Markup int
	// ATX is set for a Markdown "#" heading, which targets see as it is.
	ATX bool
}

// Result is what Scan finds in a document.
type Result struct {
	// Scopes are the parts that are not prose, sorted by start.
	Scopes []Scope
	// Comments are the comments in the format's own comment syntax that may hold inline
	// controls ("// vectorlint-disable" in AsciiDoc, ".. vectorlint-disable" in
	// reStructuredText, "<!-- vectorlint-disable -->" in HTML), sorted; each lies in a scope.
	// Markdown and MDX find their controls themselves (their comments are HTML); plain text
	// has none.
	Comments []Scope
	// Headings are the document's section titles, in order.
	Headings []Heading
}

// Scan returns what src, a document's text (without YAML front matter), holds that is not
// prose, and its headings. A document whose markup cannot be read as expected gives a
// *ParseError and an empty Result.
func Scan(src []byte, syn Syntax) (res Result, err error) {
	if len(src) == 0 {
		return Result{}, nil
	}
	switch syn {
	case SyntaxMarkdown, SyntaxMDX:
		return findMarkdown(src, syn)
	case SyntaxPlain:
		return Result{Scopes: plainScopes(src)}, nil
	}
	defer func() {
		// A scanner of this package that fails is a bug (the fuzz targets look for them), but a
		// document must never stop a lint run: it is linted whole, with a warning.
		if p := recover(); p != nil {
			res, err = Result{}, &ParseError{Reason: fmt.Sprintf("the %s scanner failed (%v)", syn, p), panicked: true}
		}
	}()
	switch syn {
	case SyntaxAsciiDoc:
		res = scanAsciiDoc(src)
	case SyntaxRST:
		res = scanRST(src)
	case SyntaxHTML:
		res = scanHTML(src)
	default:
		return Result{}, &ParseError{Reason: fmt.Sprintf("unknown syntax %d", syn)}
	}
	if err := check(src, res); err != nil {
		return Result{}, err
	}
	return res, nil
}

// Find returns the scopes of src, a document's text (without YAML front matter, which is not
// part of the text linted), sorted by start: every kind, whatever a configuration skips.
// Plain text has its URLs. A document whose markup cannot be read as expected gives a
// *ParseError and no scopes.
func Find(src []byte, syn Syntax) ([]Scope, error) {
	res, err := Scan(src, syn)
	return res.Scopes, err
}

// check verifies what a scanner of this package found: scopes in the text, sorted and
// disjoint; comments inside scopes; headings in the text and in order. A failure is a bug.
func check(src []byte, res Result) error {
	bad := func(what string, args ...any) error {
		return &ParseError{Reason: "the scanner gave " + fmt.Sprintf(what, args...), panicked: true}
	}
	for i, s := range res.Scopes {
		if s.Start < 0 || s.End > len(src) || s.Start >= s.End || s.Kind < Code || s.Kind > Markup {
			return bad("an impossible %s scope %d-%d", s.Kind, s.Start, s.End)
		}
		if i > 0 && s.Start < res.Scopes[i-1].End {
			return bad("overlapping scopes %d-%d and %d-%d", res.Scopes[i-1].Start, res.Scopes[i-1].End, s.Start, s.End)
		}
	}
	u := res.Scopes
	for i, c := range res.Comments {
		if c.Start >= c.End || (i > 0 && c.Start < res.Comments[i-1].End) || !Contains(u, c.Start) || !Contains(u, c.End-1) {
			return bad("a comment %d-%d outside the scopes", c.Start, c.End)
		}
	}
	for i, h := range res.Headings {
		if h.Markup < 0 || h.Markup > h.Start || h.Start >= h.End || h.End > len(src) || h.Level < 1 ||
			(i > 0 && h.Markup < res.Headings[i-1].End) {
			return bad("an impossible heading %+v", h)
		}
	}
	return nil
}

// scopeList collects the scopes of a scanner of this package, which meets them in order of
// their start: a scope that would overlap the previous one is cut to what follows it.
type scopeList struct {
	src      []byte
	scopes   []Scope
	comments []Scope
	headings []Heading
}

// add records [start, end) as a scope of kind k.
func (l *scopeList) add(k Kind, start, end int, placeholder bool) {
	start, end = max(start, 0), min(end, len(l.src))
	if n := len(l.scopes); n > 0 {
		last := &l.scopes[n-1]
		if start < last.End {
			if last.Kind == k && end > last.End {
				last.End = end // the same kind runs on
				return
			}
			start = last.End
			placeholder = false
		}
	}
	if start >= end {
		return
	}
	if n := len(l.scopes); n > 0 && l.scopes[n-1].End == start && l.scopes[n-1].Kind == k && !placeholder && !l.scopes[n-1].Placeholder {
		l.scopes[n-1].End = end // adjacent scopes of a kind are one
		return
	}
	l.scopes = append(l.scopes, Scope{Kind: k, Start: start, End: end, Placeholder: placeholder})
}

// comment records [start, end) as a comment of kind k (a scope, and a place for controls).
func (l *scopeList) comment(k Kind, start, end int) {
	l.add(k, start, end, false)
	if start < end {
		l.comments = append(l.comments, Scope{Kind: k, Start: start, End: end})
	}
}

// heading records a heading whose text is [start, end) (trimmed of white space), its markup
// on the line starting at markup.
func (l *scopeList) heading(level, markup, start, end int) {
	for start < end && isSpace(l.src[start]) {
		start++
	}
	for end > start && isSpace(l.src[end-1]) {
		end--
	}
	if start >= end || level < 1 {
		return
	}
	if n := len(l.headings); n > 0 && markup < l.headings[n-1].End {
		return
	}
	l.headings = append(l.headings, Heading{Level: min(level, 6), Markup: min(markup, start), Start: start, End: end})
}

func (l *scopeList) result() Result {
	return Result{Scopes: l.scopes, Comments: l.comments, Headings: l.headings}
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}
