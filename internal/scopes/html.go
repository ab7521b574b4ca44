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
	l := &scopeList{src: src}
	z := html.NewTokenizer(bytes.NewReader(src))
	var (
		off int // the offset of the current token
		// The element whose content is skipped, while in it: its name, where it starts, how
		// many of its kind are open, and its kind.
		skipName    string
		skipStart   int
		skipDepth   int
		skipKind    Kind
		skipPH      bool
		headLevel   int // the heading being read (0: none)
		headMarkup  int
		headStart   = -1
		headEnd     int
		headContent bool
	)
	endHeading := func() {
		if headLevel > 0 && headStart >= 0 {
			l.heading(headLevel, headMarkup, headStart, headEnd)
		}
		headLevel, headStart, headContent = 0, -1, false
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		n := len(z.Raw())
		start, end := off, off+n
		off = end
		if skipDepth > 0 {
			// Inside a skipped element: only its own start and end tags count.
			switch tt {
			case html.StartTagToken, html.EndTagToken:
				name, _ := z.TagName()
				if string(name) != skipName {
					continue
				}
				if tt == html.StartTagToken {
					skipDepth++
					continue
				}
				if skipDepth--; skipDepth == 0 {
					l.add(skipKind, skipStart, end, skipPH)
					z.AllowCDATA(false)
					if headLevel > 0 {
						headEnd = end
					}
				}
			}
			continue
		}
		switch tt {
		case html.TextToken:
			findURLs(src, start, end, func(s, e int) { l.add(URL, s, e, true) })
			if headLevel > 0 {
				if t := bytes.TrimSpace(src[start:end]); len(t) > 0 {
					if headStart < 0 {
						headStart = start + bytes.Index(src[start:end], t)
					}
					headEnd = start + bytes.Index(src[start:end], t) + len(t)
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			tag := string(name)
			if k, ph, ok := htmlElementKind(tag); ok && tt == html.StartTagToken {
				if tag == "math" && hasAttr && displayBlock(z) {
					ph = false
				}
				skipName, skipStart, skipDepth, skipKind, skipPH = tag, start, 1, k, ph
				if tag == "svg" || tag == "math" {
					z.AllowCDATA(true) // foreign content
				}
				if headLevel > 0 && headStart < 0 {
					headStart = start
				}
				continue
			}
			l.add(HTML, start, end, false)
			if lv := htmlHeadingLevel(tag); lv > 0 && tt == html.StartTagToken {
				endHeading()
				headLevel, headMarkup, headStart, headContent = lv, start, -1, true
			}
		case html.EndTagToken:
			l.add(HTML, start, end, false)
			if name, _ := z.TagName(); headContent && htmlHeadingLevel(string(name)) > 0 {
				endHeading()
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
	if skipDepth > 0 {
		l.add(skipKind, skipStart, len(src), skipPH)
	}
	endHeading()
	return l.result()
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
