package scopes

import (
	"sort"
	"strings"
)

// View is the text a rule's target regex runs on: a document's prose (its body with the skipped
// scopes blanked) in which every heading reads the way Markdown writes it — "#" times its level,
// a space, its text, on a line of its own — and, when the document has no title of its own
// (no heading of level 1), a front matter title as a first "# Title" line. So one target,
// such as the starter headline rule's ^#\s+(.+)$, finds a title in every format: "= Title"
// in AsciiDoc, an adorned title in reStructuredText, <h1> in HTML, "title:" in front matter.
// Source maps a match back to the document (spec/linter.md §14, docs/how-it-works.md).
type View struct {
	// Text is the text targets run on.
	Text string
	base int
	segs []viewSeg // nil: Text is the prose itself
}

// viewSeg is a run of the view's text: a copy of the document's bytes [src, srcEnd) (the same
// length), or text written in place of the markup [src, srcEnd) (empty: an insertion).
type viewSeg struct {
	view        int
	src, srcEnd int
	n           int
	copied      bool
}

// Title is a document title that is not in its text: the value of a front matter "title:".
type Title struct {
	// Start and End are its offsets in the document; Text is what is there.
	Start, End int
	Text       string
}

// NewView builds the view of prose, a document's prose at offset base, with its headings (in
// the document's offsets) and a front matter title (nil: none). When no heading needs to be
// rewritten and no title added, the view is the prose itself.
func NewView(prose string, base int, hs []Heading, title *Title) View {
	hasTitle := false
	var rewrite []Heading
	for _, h := range hs {
		if h.Level == 1 {
			hasTitle = true
		}
		if !h.ATX && h.Markup >= base && h.End <= base+len(prose) {
			rewrite = append(rewrite, h)
		}
	}
	if title != nil && (hasTitle || title.Start >= title.End || title.End > base) {
		title = nil
	}
	if len(rewrite) == 0 && title == nil {
		return View{Text: prose, base: base}
	}
	v := &viewBuilder{prose: prose, base: base}
	if title != nil {
		v.write("# ", title.Start, title.Start)
		v.copyText(title.Text, title.Start)
		v.write("\n", title.End, title.End)
	}
	// The offsets of the prose's line breaks, to find a heading's line without reading it
	// again for each heading (a minified page has them all on one line).
	var breaks []int
	for i := 0; i < len(prose); i++ {
		if prose[i] == '\n' || prose[i] == '\r' {
			breaks = append(breaks, i)
		}
	}
	at := base // the next byte of the prose to copy
	for _, h := range rewrite {
		if h.Markup < at {
			continue
		}
		v.copy(at, h.Markup)
		// The heading on a line of its own: a line break before it when anything precedes it
		// on its line (a masked tag, an indentation), and after it when anything follows.
		markup, end := h.Markup-base, h.End-base
		lineStart := 0
		if k := sort.SearchInts(breaks, markup); k > 0 { // the line of the markup
			lineStart = breaks[k-1] + 1
		}
		lineEnd := len(prose)
		if k := sort.SearchInts(breaks, end); k < len(breaks) { // the line the text ends on
			lineEnd = breaks[k]
		}
		prefix := strings.Repeat("#", h.Level) + " "
		if markup > lineStart {
			prefix = "\n" + prefix
		}
		v.write(prefix, h.Markup, h.Start)
		v.copyHeading(h.Start, h.End)
		at = h.End
		if end < lineEnd {
			v.write("\n", h.End, h.End)
		}
	}
	v.copy(at, base+len(prose))
	return View{Text: v.b.String(), base: base, segs: v.segs}
}

// Source returns the document's span that the view's span [start, end) stands for: a copied
// byte is itself, written text stands for the markup it replaced.
func (v View) Source(start, end int) (int, int) {
	if v.segs == nil {
		return v.base + start, v.base + end
	}
	s := v.at(start, false)
	if end <= start {
		return s, s
	}
	e := v.at(end-1, true)
	return s, max(s, e)
}

// at maps the view's byte i to the document: where it starts, or (after) where it ends.
func (v View) at(i int, after bool) int {
	k := sort.Search(len(v.segs), func(k int) bool { return v.segs[k].view+v.segs[k].n > i })
	if k == len(v.segs) {
		last := v.segs[len(v.segs)-1]
		return last.srcEnd
	}
	sg := v.segs[k]
	switch {
	case sg.copied && after:
		return sg.src + (i - sg.view) + 1
	case sg.copied:
		return sg.src + (i - sg.view)
	case after:
		return sg.srcEnd
	}
	return sg.src
}

// viewBuilder writes a view.
type viewBuilder struct {
	prose string
	base  int
	b     strings.Builder
	segs  []viewSeg
}

func (v *viewBuilder) add(text string, src, srcEnd int, copied bool) {
	if text == "" {
		return
	}
	v.segs = append(v.segs, viewSeg{view: v.b.Len(), src: src, srcEnd: srcEnd, n: len(text), copied: copied})
	v.b.WriteString(text)
}

// copy copies the prose of the document's bytes [start, end).
func (v *viewBuilder) copy(start, end int) {
	if start < end {
		v.add(v.prose[start-v.base:end-v.base], start, end, true)
	}
}

// copyText copies text, the document's bytes from offset src.
func (v *viewBuilder) copyText(text string, src int) { v.add(text, src, src+len(text), true) }

// copyHeading copies a heading's text with its line breaks as spaces, so that it is one line.
func (v *viewBuilder) copyHeading(start, end int) {
	text := []byte(v.prose[start-v.base : end-v.base])
	for i, c := range text {
		if c == '\n' || c == '\r' {
			text[i] = ' '
		}
	}
	v.add(string(text), start, end, true)
}

// write writes text in place of the document's bytes [src, srcEnd).
func (v *viewBuilder) write(text string, src, srcEnd int) { v.add(text, src, srcEnd, false) }
