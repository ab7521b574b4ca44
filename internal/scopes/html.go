package scopes

import (
	"bytes"

	"golang.org/x/net/html"
)

// HTML documents are read with golang.org/x/net/html's tokenizer (the HTML5 tokenization
// algorithm, which never fails: any input is a sequence of tokens whose raw bytes partition
// it). What is not prose (spec/linter.md §14):
//
//   - every tag with its attributes, doctypes, processing instructions and comments: html (a
//     comment that starts with "<!--" may hold an inline control: Comments);
//   - the elements whose content is code: script, style and pre (code); code, kbd, samp, var
//     and tt (inlinecode, each a word of its sentence); template and svg (html); math (math, a
//     word of its sentence unless display="block"); and the raw text of iframe, noembed,
//     noframes, noscript and xmp (html). The element is a scope from its start tag to its end
//     tag (to the end of the document when it has none), whatever it holds;
//   - URLs and email addresses in text (urls).
//
// The text of h1 to h6 outside those elements is a heading. The text of title and textarea,
// and every other text, is prose.

// htmlElementKind returns the kind of scope an element's content is, and whether it is a word
// of its sentence; ok is false for an element whose content is prose.
func htmlElementKind(name string) (k Kind, placeholder, ok bool) {
	switch name {
	case "script", "style", "pre":
		return Code, false, true
	case "code", "kbd", "samp", "var", "tt":
		return InlineCode, true, true
	case "template", "svg", "iframe", "noembed", "noframes", "noscript", "xmp":
		return HTML, false, true
	case "math":
		return Math, true, true
	}
	return 0, false, false
}

// htmlHeadingLevel returns 1 to 6 for h1 to h6, else 0.
func htmlHeadingLevel(name string) int {
	if len(name) == 2 && name[0] == 'h' && '1' <= name[1] && name[1] <= '6' {
		return int(name[1] - '0')
	}
	return 0
}

// scanHTML finds the scopes, comments and headings of an HTML document.
func scanHTML(src []byte) Result {
	h := &htmlScan{l: &scopeList{src: src}, z: html.NewTokenizer(bytes.NewReader(src)), src: src, headStart: -1}
	off := 0 // the offset of the current token
	for {
		tt := h.z.Next()
		if tt == html.ErrorToken {
			break
		}
		start, end := off, off+len(h.z.Raw())
		off = end
		if h.skipDepth > 0 {
			h.inSkipped(tt, end)
			continue
		}
		h.token(tt, start, end)
	}
	if h.skipDepth > 0 {
		h.l.add(h.skipKind, h.skipStart, len(src), h.skipPH)
	}
	h.endHeading()
	return h.l.result()
}

// htmlScan is the state of scanHTML between tokens.
type htmlScan struct {
	l   *scopeList
	z   *html.Tokenizer
	src []byte
	// The element whose content is skipped, while in it: its name, where it starts, how
	// many of its kind are open, and its kind.
	skipName  string
	skipStart int
	skipDepth int
	skipKind  Kind
	skipPH    bool
	// The heading being read (headLevel 0: none).
	headLevel   int
	headMarkup  int
	headStart   int
	headEnd     int
	headContent bool
}

// endHeading records the heading being read, if any, and ends it.
func (h *htmlScan) endHeading() {
	if h.headLevel > 0 && h.headStart >= 0 {
		h.l.heading(h.headLevel, h.headMarkup, h.headStart, h.headEnd)
	}
	h.headLevel, h.headStart, h.headContent = 0, -1, false
}

// inSkipped reads a token inside a skipped element: only its own start and end tags count.
func (h *htmlScan) inSkipped(tt html.TokenType, end int) {
	if tt != html.StartTagToken && tt != html.EndTagToken {
		return
	}
	name, _ := h.z.TagName()
	if string(name) != h.skipName {
		return
	}
	if tt == html.StartTagToken {
		h.skipDepth++
		return
	}
	if h.skipDepth--; h.skipDepth == 0 {
		h.l.add(h.skipKind, h.skipStart, end, h.skipPH)
		h.z.AllowCDATA(false)
		if h.headLevel > 0 {
			h.headEnd = end
		}
	}
}

// token reads a token outside skipped elements.
func (h *htmlScan) token(tt html.TokenType, start, end int) {
	l, src := h.l, h.src
	switch tt {
	case html.TextToken:
		h.text(start, end)
	case html.StartTagToken, html.SelfClosingTagToken:
		h.startTag(tt, start, end)
	case html.EndTagToken:
		l.add(HTML, start, end, false)
		if name, _ := h.z.TagName(); h.headContent && htmlHeadingLevel(string(name)) > 0 {
			h.endHeading()
		}
	case html.CommentToken:
		if bytes.HasPrefix(src[start:end], []byte("<!--")) {
			l.comment(HTML, start, end)
		} else {
			l.add(HTML, start, end, false) // "<?xml …?>", "<!x>": bogus comments
		}
	default: // doctype
		l.add(HTML, start, end, false)
	}
}

// text reads a text token: its URLs, and the heading's text when in one.
func (h *htmlScan) text(start, end int) {
	src := h.src
	findURLs(src, start, end, func(s, e int) { h.l.add(URL, s, e, true) })
	if h.headLevel > 0 {
		if t := bytes.TrimSpace(src[start:end]); len(t) > 0 {
			if h.headStart < 0 {
				h.headStart = start + bytes.Index(src[start:end], t)
			}
			h.headEnd = start + bytes.Index(src[start:end], t) + len(t)
		}
	}
}

// startTag reads a start or self-closing tag: an element whose content is skipped, a
// heading, or markup.
func (h *htmlScan) startTag(tt html.TokenType, start, end int) {
	name, hasAttr := h.z.TagName()
	tag := string(name)
	if k, ph, ok := htmlElementKind(tag); ok && tt == html.StartTagToken {
		if tag == "math" && hasAttr && displayBlock(h.z) {
			ph = false
		}
		h.skipName, h.skipStart, h.skipDepth, h.skipKind, h.skipPH = tag, start, 1, k, ph
		if tag == "svg" || tag == "math" {
			h.z.AllowCDATA(true) // foreign content
		}
		if h.headLevel > 0 && h.headStart < 0 {
			h.headStart = start
		}
		return
	}
	h.l.add(HTML, start, end, false)
	if lv := htmlHeadingLevel(tag); lv > 0 && tt == html.StartTagToken {
		h.endHeading()
		h.headLevel, h.headMarkup, h.headStart, h.headContent = lv, start, -1, true
	}
}

// displayBlock reports whether the current start tag has display="block" (MathML's block
// math).
func displayBlock(z *html.Tokenizer) bool {
	for {
		k, v, more := z.TagAttr()
		if string(k) == "display" && string(bytes.ToLower(v)) == "block" {
			return true
		}
		if !more {
			return false
		}
	}
}
