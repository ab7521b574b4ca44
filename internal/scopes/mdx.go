package scopes

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// The parsers of this file read what goldmark does not know, as goldmark extensions: MDX's
// ESM (import/export lines), JSX tags and {expressions} in flow (on lines of their own) and in
// text (inside a paragraph), and the :::name lines of admonitions. JSX and expressions are read
// by a small scanner (tagEnd, expressionEnd) from the position goldmark's reader is at; the
// reader is then moved past them, so positions still come from the parser.
//
// MDX itself rejects some input this reads leniently: a "<" that does not start a valid tag is
// text here, not an error. An expression whose "{" never closes is the one MDX error reported
// (a ParseError): nothing after it could be read as MDX reads it.

// Limits of the scanners.
const (
	// maxInlineTag is the longest JSX tag read inside a paragraph.
	maxInlineTag = 4 << 10
	// maxFlowTag is the longest JSX tag or expression read on lines of its own.
	maxFlowTag = 256 << 10
)

// inlineScope is the node the inline parsers of this package put in goldmark's tree: it
// stands for what they read and holds nothing.
type inlineScope struct{ ast.BaseInline }

// blockScope is the node the block parsers of this package put in goldmark's tree.
type blockScope struct {
	ast.BaseBlock
	// end is where the block's syntax ends (a JSX tag over several lines); closed is set when
	// its last line has been read.
	end    int
	closed bool
}

// Node kinds of this package's nodes. goldmark's kinds are registered values, made once.
var (
	kindInlineScope = ast.NewNodeKind("SkippedScopeInline")
	kindBlockScope  = ast.NewNodeKind("SkippedScopeBlock")
)

func (n *inlineScope) Kind() ast.NodeKind { return kindInlineScope }

func (n *inlineScope) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

func (n *blockScope) Kind() ast.NodeKind { return kindBlockScope }

func (n *blockScope) IsRaw() bool { return true }

func (n *blockScope) Dump(src []byte, level int) { ast.DumpHelper(n, src, level, nil, nil) }

// advanceTo moves an inline parser's reader to offset end (which must be in its lines).
func advanceTo(block text.Reader, end int) {
	for {
		line, seg := block.PeekLine()
		if line == nil {
			return
		}
		if end <= seg.Stop {
			block.Advance(end - seg.Start)
			return
		}
		block.AdvanceLine()
	}
}

// firstNonSpace returns the offset of the first byte of seg that is not a space or tab.
func firstNonSpace(src []byte, seg text.Segment) int {
	i := seg.Start
	for i < seg.Stop && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// --- ESM ---------------------------------------------------------------------------------

// esmParser reads MDX's import and export statements: a line at the top level of the document,
// not indented, starting with "import" or "export", up to the next blank line outside braces.
type esmParser struct{ r *recorder }

func (p *esmParser) Trigger() []byte { return []byte{'i', 'e'} }

func (p *esmParser) Open(parent ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	if _, ok := parent.(*ast.Document); !ok || p.r.err != nil || seg.Padding != 0 || !isESM(line) {
		return nil, parser.NoChildren
	}
	n := &blockScope{}
	n.end = braceDepth(line) // the depth of braces, brackets and parentheses still open
	p.r.add(MDX, seg.Start, seg.Stop, false)
	reader.AdvanceToEOL()
	return n, parser.NoChildren
}

func (p *esmParser) Continue(node ast.Node, reader text.Reader, _ parser.Context) parser.State {
	n := node.(*blockScope)
	line, seg := reader.PeekLine()
	if line == nil || (n.end <= 0 && len(bytes.TrimSpace(line)) == 0) {
		return parser.Close
	}
	n.end += braceDepth(line)
	p.r.add(MDX, seg.Start, seg.Stop, false)
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

func (p *esmParser) Close(ast.Node, text.Reader, parser.Context) {}
func (p *esmParser) CanInterruptParagraph() bool                 { return false }
func (p *esmParser) CanAcceptIndentedLine() bool                 { return false }

// isESM reports whether a line starts an import or export statement.
func isESM(line []byte) bool {
	for _, kw := range []string{"import", "export"} {
		if rest, ok := bytes.CutPrefix(line, []byte(kw)); ok {
			return len(rest) > 0 && bytes.IndexByte([]byte(" \t{*\"'"), rest[0]) >= 0
		}
	}
	return false
}

// braceDepth is the number of (, [ and { a line opens minus those it closes, outside strings.
func braceDepth(line []byte) int {
	depth, quote := 0, byte(0)
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'' || c == '`':
			quote = c
		case c == '/' && i+1 < len(line) && line[i+1] == '/':
			return depth
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			depth--
		}
	}
	return depth
}

// --- JSX and expressions on lines of their own ---------------------------------------------

// jsxFlowParser reads lines that hold nothing but JSX tags and expressions ("<Tabs>",
// "</TabItem>", "<TabItem value=\"mac\" label=\"macOS\">", "<Foo {...props} />"), a tag
// possibly spanning several lines. The Markdown between such lines is parsed as usual, so the
// prose children of a component are linted. A line with text after its tags is a paragraph
// (its tags are read by jsxInlineParser).
type jsxFlowParser struct{ r *recorder }

func (p *jsxFlowParser) Trigger() []byte { return []byte{'<'} }

func (p *jsxFlowParser) Open(_ ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	return openFlow(p.r, reader)
}

func (p *jsxFlowParser) Continue(node ast.Node, reader text.Reader, _ parser.Context) parser.State {
	return continueFlow(node, reader)
}

func (p *jsxFlowParser) Close(ast.Node, text.Reader, parser.Context) {}
func (p *jsxFlowParser) CanInterruptParagraph() bool                 { return true }
func (p *jsxFlowParser) CanAcceptIndentedLine() bool                 { return true }

// expressionFlowParser reads an expression on lines of its own: "{/* a comment */}",
// "{props.children}".
type expressionFlowParser struct{ r *recorder }

func (p *expressionFlowParser) Trigger() []byte { return []byte{'{'} }

func (p *expressionFlowParser) Open(_ ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	return openFlow(p.r, reader)
}

func (p *expressionFlowParser) Continue(node ast.Node, reader text.Reader, _ parser.Context) parser.State {
	return continueFlow(node, reader)
}

func (p *expressionFlowParser) Close(ast.Node, text.Reader, parser.Context) {}
func (p *expressionFlowParser) CanInterruptParagraph() bool                 { return true }
func (p *expressionFlowParser) CanAcceptIndentedLine() bool                 { return true }

// openFlow opens a flow block when the line holds only tags and expressions.
func openFlow(r *recorder, reader text.Reader) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	if line == nil || r.err != nil {
		return nil, parser.NoChildren
	}
	start := firstNonSpace(r.src, seg)
	end := r.flowEnd(start)
	if end < 0 {
		return nil, parser.NoChildren
	}
	r.add(MDX, start, end, false)
	reader.AdvanceToEOL()
	return &blockScope{end: end}, parser.NoChildren
}

// continueFlow reads the further lines of a tag or expression over several lines.
func continueFlow(node ast.Node, reader text.Reader) parser.State {
	n := node.(*blockScope)
	line, seg := reader.PeekLine()
	if line == nil || seg.Start >= n.end {
		return parser.Close
	}
	reader.AdvanceToEOL()
	return parser.Continue | parser.NoChildren
}

// flowEnd returns the end of a run of JSX tags and expressions starting at i that fills the
// rest of its last line (only spaces and tabs between and after them), or -1.
func (r *recorder) flowEnd(i int) int {
	end := -1
	for i < len(r.src) {
		var e int
		switch r.src[i] {
		case '<':
			e = r.tagEnd(i, maxFlowTag)
		case '{':
			e = r.expressionEnd(i, maxFlowTag)
			if e < 0 {
				r.fail(i, "an MDX expression whose { does not close")
				return -1
			}
		default:
			e = -1
		}
		if e < 0 {
			return -1
		}
		end = e
		for i = e; i < len(r.src) && (r.src[i] == ' ' || r.src[i] == '\t'); i++ {
		}
		if i >= len(r.src) || r.src[i] == '\n' || r.src[i] == '\r' {
			return end
		}
	}
	return end
}

// --- JSX and expressions inside a paragraph ------------------------------------------------

// jsxInlineParser reads a JSX tag inside a paragraph ("Press <kbd>Ctrl</kbd>"): the tag is a
// scope, the text between tags is prose.
type jsxInlineParser struct{ r *recorder }

func (p *jsxInlineParser) Trigger() []byte { return []byte{'<'} }

func (p *jsxInlineParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if p.r.err != nil {
		return nil
	}
	_, seg := block.Position()
	start := seg.Start
	end := p.r.tagEnd(start, maxInlineTag)
	if end < 0 || end > blockEnd(parent, start) {
		return nil
	}
	p.r.addInline(parent, MDX, start, end, false)
	advanceTo(block, end)
	return &inlineScope{}
}

// expressionInlineParser reads an expression inside a paragraph ("version {props.version}"),
// shown to the model as a placeholder, or an MDX comment ({/* … */}), left out.
type expressionInlineParser struct{ r *recorder }

func (p *expressionInlineParser) Trigger() []byte { return []byte{'{'} }

func (p *expressionInlineParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	if p.r.err != nil {
		return nil
	}
	_, seg := block.Position()
	start := seg.Start
	end := p.r.expressionEnd(start, maxFlowTag)
	if end < 0 || end > blockEnd(parent, start) {
		p.r.fail(start, "an MDX expression whose { does not close in its paragraph")
		return nil
	}
	inner := bytes.TrimSpace(p.r.src[start+1 : end-1])
	comment := bytes.HasPrefix(inner, []byte("/*")) && bytes.HasSuffix(inner, []byte("*/"))
	p.r.addInline(parent, MDX, start, end, !comment)
	advanceTo(block, end)
	return &inlineScope{}
}

// --- Admonitions -------------------------------------------------------------------------

// directiveParser reads the fence lines of admonitions and other container directives
// (Docusaurus ":::note", ":::tip[Title]", ":::warning{.red}", and the closing ":::"): the
// colons, the name and a {…} attribute list are a scope; a title after them is prose.
type directiveParser struct{ r *recorder }

func (p *directiveParser) Trigger() []byte { return []byte{':'} }

func (p *directiveParser) Open(_ ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	if line == nil {
		return nil, parser.NoChildren
	}
	src := p.r.src
	start := firstNonSpace(src, seg)
	i := start
	for i < seg.Stop && src[i] == ':' {
		i++
	}
	if i-start < 3 {
		return nil, parser.NoChildren
	}
	for i < seg.Stop && (isIdentByte(src[i]) || src[i] == '-') {
		i++
	}
	if i < seg.Stop && src[i] == '{' {
		if j := bytes.IndexByte(src[i:seg.Stop], '}'); j >= 0 {
			i += j + 1
		}
	}
	if i < seg.Stop && src[i] != ' ' && src[i] != '\t' && src[i] != '[' && src[i] != '\n' && src[i] != '\r' {
		return nil, parser.NoChildren // ":::x!" is text
	}
	p.r.add(MDX, start, i, false)
	reader.AdvanceToEOL()
	return &blockScope{}, parser.NoChildren
}

func (p *directiveParser) Continue(ast.Node, text.Reader, parser.Context) parser.State {
	return parser.Close
}

func (p *directiveParser) Close(ast.Node, text.Reader, parser.Context) {}
func (p *directiveParser) CanInterruptParagraph() bool                 { return true }
func (p *directiveParser) CanAcceptIndentedLine() bool                 { return false }

// --- The scanner ---------------------------------------------------------------------------

// spend takes n bytes from the scanners' budget and reports whether there were enough.
func (r *recorder) spend(n int) bool {
	r.budget -= n
	if r.budget < 0 {
		r.fail(0, "the MDX syntax of this document is too long to read (JSX tags or expressions that do not end)")
		return false
	}
	return true
}

// tagEnd returns the offset just past the JSX tag that starts at src[i] == '<' ("<Foo>",
// "</Foo>", "<Foo a=\"b\" c={d} {...e} />", "<>", "</>", "<a.b>", "<svg:rect>"), or -1 when
// there is none within limit bytes. The tag may span lines. A "<" followed by a space, a digit,
// "!" or "?" is not a tag.
func (r *recorder) tagEnd(i, limit int) int {
	src := r.src
	stop := min(len(src), i+limit)
	j := i + 1
	closing := j < stop && src[j] == '/'
	if closing {
		j++
	}
	if j < stop && src[j] == '>' {
		return j + 1 // a fragment
	}
	j = r.nameEnd(j, stop, true)
	if j < 0 {
		return -1
	}
	for {
		ws := j
		j = skipSpace(src, j, stop)
		if j >= stop || !r.spend(j-ws+1) {
			return -1
		}
		switch c := src[j]; {
		case c == '>':
			return j + 1
		case c == '/' && !closing:
			if k := skipSpace(src, j+1, stop); k < stop && src[k] == '>' {
				return k + 1
			}
			return -1
		case closing:
			return -1
		case c == '{': // {...spread}
			e := r.expressionEnd(j, stop-j)
			if e < 0 {
				return -1
			}
			j = e
		case j > ws || src[j-1] == '"' || src[j-1] == '\'' || src[j-1] == '}':
			j = r.nameEnd(j, stop, false)
			if j < 0 {
				return -1
			}
			k := skipSpace(src, j, stop)
			if k >= stop || src[k] != '=' {
				continue // a boolean attribute
			}
			k = skipSpace(src, k+1, stop)
			if k >= stop {
				return -1
			}
			switch src[k] {
			case '"', '\'':
				e := bytes.IndexByte(src[k+1:stop], src[k])
				if e < 0 || !r.spend(e) {
					return -1
				}
				j = k + 1 + e + 1
			case '{':
				if j = r.expressionEnd(k, stop-k); j < 0 {
					return -1
				}
			default:
				return -1
			}
		default:
			return -1
		}
	}
}

// skipSpace returns the first offset from j (before stop) that is not white space.
func skipSpace(src []byte, j, stop int) int {
	for j < stop && (src[j] == ' ' || src[j] == '\t' || src[j] == '\n' || src[j] == '\r') {
		j++
	}
	return j
}

// nameEnd returns the end of a JSX element name (element: "a", "a.b.c", "svg:rect") or
// attribute name ("class", "aria-label", "xlink:href") at j, or -1.
func (r *recorder) nameEnd(j, stop int, element bool) int {
	start := j
	for {
		k := identEnd(r.src, j, stop)
		if k == j {
			return -1
		}
		j = k
		if j < stop && (r.src[j] == ':' || (element && r.src[j] == '.')) {
			j++
			continue
		}
		if !r.spend(j - start) {
			return -1
		}
		return j
	}
}

// identEnd returns the end of a JSX identifier at j: a letter, "_" or "$", then letters,
// digits, "_", "$" and "-".
func identEnd(src []byte, j, stop int) int {
	start := j
	for j < stop {
		c, size := rune(src[j]), 1
		if c >= utf8.RuneSelf {
			c, size = utf8.DecodeRune(src[j:stop])
		}
		ok := c == '_' || c == '$' || unicode.IsLetter(c) || (j > start && (c == '-' || unicode.IsDigit(c)))
		if !ok {
			break
		}
		j += size
	}
	return j
}

func isIdentByte(c byte) bool {
	return c == '_' || c == '$' || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z') || ('0' <= c && c <= '9')
}

// expressionEnd returns the offset just past the "}" that closes the JavaScript expression
// opened by src[i] == '{', or -1 when it does not close within limit bytes. Strings, template
// literals (with ${…}) and comments are skipped, so a brace inside them does not count.
func (r *recorder) expressionEnd(i, limit int) int {
	src := r.src
	stop := min(len(src), i+limit)
	depth := 0
	for j := i; j < stop; j++ {
		if !r.spend(1) {
			return -1
		}
		switch src[j] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '"', '\'':
			if j = stringEnd(src, j, stop); j < 0 {
				return -1
			}
			j--
		case '`':
			if j = r.templateEnd(j, stop); j < 0 {
				return -1
			}
			j--
		case '/':
			switch {
			case j+1 < stop && src[j+1] == '/':
				e := bytes.IndexAny(src[j:stop], "\r\n")
				if e < 0 {
					return -1
				}
				j += e - 1
			case j+1 < stop && src[j+1] == '*':
				e := bytes.Index(src[j+2:stop], []byte("*/"))
				if e < 0 {
					return -1
				}
				j += 2 + e + 1
			}
		}
	}
	return -1
}

// stringEnd returns the offset just past the JavaScript string literal at src[j] (' or "), or
// -1 when it does not end before a line break or stop.
func stringEnd(src []byte, j, stop int) int {
	q := src[j]
	for j++; j < stop; j++ {
		switch src[j] {
		case '\\':
			j++
		case q:
			return j + 1
		case '\n', '\r':
			return -1
		}
	}
	return -1
}

// templateEnd returns the offset just past the template literal at src[j] == '`', or -1.
func (r *recorder) templateEnd(j, stop int) int {
	src := r.src
	for j++; j < stop; j++ {
		if !r.spend(1) {
			return -1
		}
		switch src[j] {
		case '\\':
			j++
		case '`':
			return j + 1
		case '$':
			if j+1 < stop && src[j+1] == '{' {
				e := r.expressionEnd(j+1, stop-j-1)
				if e < 0 {
					return -1
				}
				j = e - 1
			}
		}
	}
	return -1
}
