package scopes

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// ParseError reports a document whose markup could not be read as expected (an MDX expression
// that never closes, a parser failure). The document is then linted whole.
type ParseError struct {
	// Line is the 1-based line of the problem in the text searched (0 when unknown).
	Line   int
	Reason string
	// panicked marks a failure of a parser (a bug to fix, which the fuzz target looks for),
	// as opposed to a document that is not valid MDX.
	panicked bool
}

// Error says what was found and where.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Reason)
	}
	return e.Reason
}

// findMarkdown finds the scopes and headings of a Markdown or MDX document.
func findMarkdown(src []byte, syn Syntax) (res Result, err error) {
	r := &recorder{src: src, mdx: syn == SyntaxMDX, budget: scanBudget(len(src))}
	// TOML front matter is not Markdown: goldmark reads a copy with it blanked, so a "#" or a
	// fence in it cannot open a block.
	doc := src
	if fm := tomlFrontmatter(src); fm > 0 {
		r.add(Frontmatter, 0, fm, false)
		doc = []byte(Mask(string(src), 0, []Scope{{Start: 0, End: fm}}))
	}
	defer func() {
		// goldmark is well tested, but a document must never stop a lint run: a failure of the
		// parser is a document linted whole, with a warning.
		if p := recover(); p != nil {
			res, err = Result{}, &ParseError{Reason: fmt.Sprintf("the Markdown parser failed (%v)", p), panicked: true}
		}
	}()
	root := r.parser().Parse(text.NewReader(doc))
	if r.err != nil {
		return Result{}, r.err
	}
	// Link reference definitions ("[id]: https://…") are taken out of their paragraphs by
	// goldmark's paragraph transformer; their lines are a label, a URL and a title, not prose.
	var headings []Heading
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.LinkReferenceDefinition:
			for i := range n.Lines().Len() {
				seg := n.Lines().At(i)
				r.add(URL, seg.Start, lineEnd(src, seg.Stop), false)
			}
		case *ast.Heading:
			if h, ok := markdownHeading(src, n); ok {
				headings = append(headings, h)
			}
		}
		return ast.WalkContinue, nil
	})
	r.codeElements()
	for _, s := range r.scopes {
		if s.Start < 0 || s.End > len(src) || s.Start >= s.End {
			return Result{}, &ParseError{Reason: fmt.Sprintf("the Markdown parser gave an impossible %s position %d-%d", s.Kind, s.Start, s.End)}
		}
	}
	Sort(r.scopes)
	return Result{Scopes: r.scopes, Headings: headings}, nil
}

// markdownHeading describes a heading of goldmark's tree: its text from the start of its first
// line to the end of its last (an ATX heading's closing "#"s are not in its lines).
func markdownHeading(src []byte, n *ast.Heading) (Heading, bool) {
	lines := n.Lines()
	if lines.Len() == 0 {
		return Heading{}, false
	}
	start, end := lines.At(0).Start, lines.At(lines.Len()-1).Stop
	for start < end && isSpace(src[start]) {
		start++
	}
	for end > start && isSpace(src[end-1]) {
		end--
	}
	if start >= end {
		return Heading{}, false
	}
	h := Heading{Level: n.Level, Start: start, End: end, Markup: start}
	// An ATX heading: the "#"s before the text on its line.
	i := start
	for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
		i--
	}
	if i > 0 && src[i-1] == '#' {
		for i > 0 && src[i-1] == '#' {
			i--
		}
		h.Markup, h.ATX = i, true
	}
	return h, true
}

// recorder collects the scopes of one document as its parsers meet them. One recorder per
// Find: the parsers are built for it (wrapping goldmark's), so nothing is shared between
// documents.
type recorder struct {
	src    []byte
	mdx    bool
	scopes []Scope
	// err is the first problem met; the parsers of MDX syntax stop matching after it.
	err *ParseError
	// budget bounds the bytes the JSX and expression scanners may read for the whole document,
	// so that hostile input (thousands of "<a b=" with no end) costs linear time.
	budget int
	// mathClose caches lastMathClose (0: not computed, -1: none).
	mathClose int
}

// scanBudget is the scanners' budget for a text of n bytes.
func scanBudget(n int) int { return 16*n + 1<<20 }

func (r *recorder) add(k Kind, start, end int, placeholder bool) {
	start, end = max(start, 0), min(end, len(r.src))
	if start < end {
		r.scopes = append(r.scopes, Scope{Kind: k, Start: start, End: end, Placeholder: placeholder})
	}
}

// fail records the first problem, at the line of offset.
func (r *recorder) fail(offset int, reason string) {
	if r.err == nil {
		r.err = &ParseError{Line: bytes.Count(r.src[:min(max(offset, 0), len(r.src))], []byte{'\n'}) + 1, Reason: reason}
	}
}

// parser builds goldmark's parser with GitHub's extensions, the recording wrappers and the
// parsers of the syntax goldmark does not know.
func (r *recorder) parser() parser.Parser {
	blocks := []util.PrioritizedValue{
		util.Prioritized(parser.NewSetextHeadingParser(), 100),
		util.Prioritized(parser.NewThematicBreakParser(), 200),
		util.Prioritized(parser.NewListParser(), 300),
		util.Prioritized(parser.NewListItemParser(), 400),
		util.Prioritized(parser.NewATXHeadingParser(), 600),
		util.Prioritized(&mathBlockParser{r: r}, 650),
		util.Prioritized(&blockRecorder{BlockParser: parser.NewFencedCodeBlockParser(), r: r, kind: Code}, 700),
		util.Prioritized(&directiveParser{r: r}, 750),
		util.Prioritized(parser.NewBlockquoteParser(), 800),
		util.Prioritized(&blockRecorder{BlockParser: parser.NewHTMLBlockParser(), r: r, kind: HTML}, 900),
		util.Prioritized(parser.NewParagraphParser(), 1000),
	}
	inlines := []util.PrioritizedValue{
		util.Prioritized(r.inline(parser.NewCodeSpanParser(), recordCodeSpan), 100),
		util.Prioritized(r.inline(parser.NewLinkParser(), recordLinkDestination), 200),
		util.Prioritized(r.inline(parser.NewAutoLinkParser(), recordAutoLink), 300),
		util.Prioritized(r.inline(parser.NewRawHTMLParser(), recordRawHTML), 400),
		util.Prioritized(parser.NewEmphasisParser(), 500),
		util.Prioritized(extension.NewStrikethroughParser(), 500),
		util.Prioritized(&mathInlineParser{r: r}, 600),
		util.Prioritized(r.inline(extension.NewLinkifyParser(), recordBareURL), 999),
	}
	if r.mdx {
		// MDX has no indented code, and its HTML is JSX: of goldmark's HTML blocks only
		// comments are kept (MDX itself rejects them, but documents converted from Markdown
		// have them).
		blocks = append(blocks,
			util.Prioritized(&esmParser{r: r}, 50),
			util.Prioritized(&jsxFlowParser{r: r}, 850),
			util.Prioritized(&expressionFlowParser{r: r}, 860))
		inlines = append(inlines,
			util.Prioritized(&jsxInlineParser{r: r}, 290),
			util.Prioritized(&expressionInlineParser{r: r}, 290))
	} else {
		blocks = append(blocks, util.Prioritized(&blockRecorder{BlockParser: parser.NewCodeBlockParser(), r: r, kind: Code}, 500))
	}
	return parser.NewParser(
		parser.WithBlockParsers(blocks...),
		parser.WithInlineParsers(inlines...),
		parser.WithParagraphTransformers(
			util.Prioritized(parser.LinkReferenceParagraphTransformer, 100),
			util.Prioritized(extension.NewTableParagraphTransformer(), 200)),
		parser.WithASTTransformers(util.Prioritized(extension.NewTableASTTransformer(), 0)),
	)
}

// lineEnd returns the end of the line that offset is on or ends (just before its line break).
func lineEnd(src []byte, offset int) int {
	offset = min(max(offset, 0), len(src))
	for offset > 0 && (src[offset-1] == '\n' || src[offset-1] == '\r') {
		offset--
	}
	if i := bytes.IndexAny(src[offset:], "\r\n"); i >= 0 {
		return offset + i
	}
	return len(src)
}

// blockRecorder wraps one of goldmark's block parsers and records every line its blocks take,
// from where the parser starts reading it (after the markers of the containers it is in:
// "> ", a list item's indentation) to its end, as scopes of kind.
type blockRecorder struct {
	parser.BlockParser
	r    *recorder
	kind Kind
}

func (b *blockRecorder) Open(parent ast.Node, reader text.Reader, pc parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	if b.r.mdx && b.kind == HTML && !bytes.HasPrefix(bytes.TrimLeft(line, " \t"), []byte("<!--")) {
		return nil, parser.NoChildren
	}
	n, st := b.BlockParser.Open(parent, reader, pc)
	if n != nil && line != nil {
		b.r.add(b.kind, seg.Start, seg.Stop, false)
	}
	return n, st
}

func (b *blockRecorder) Continue(node ast.Node, reader text.Reader, pc parser.Context) parser.State {
	line, seg := reader.PeekLine()
	l0, p0 := reader.Position()
	st := b.BlockParser.Continue(node, reader, pc)
	l1, p1 := reader.Position()
	// A block that closes without reading the line (an indented block before a line that is
	// not indented, an HTML block before a blank line) does not take it.
	if line != nil && (st&parser.Continue != 0 || l1 != l0 || p1.Start != p0.Start) {
		b.r.add(b.kind, seg.Start, seg.Stop, false)
	}
	return st
}

// inlineRecord decides what a parsed inline node's bytes [start, end) hold that is not prose.
type inlineRecord func(r *recorder, n ast.Node, start, end int) (k Kind, s, e int, placeholder, ok bool)

// inline wraps one of goldmark's inline parsers so that what it parses is recorded (a parser
// that is also a CloseBlocker stays one).
func (r *recorder) inline(p parser.InlineParser, rec inlineRecord) parser.InlineParser {
	w := &inlineRecorder{InlineParser: p, r: r, rec: rec}
	if cb, ok := p.(parser.CloseBlocker); ok {
		return &closingInlineRecorder{inlineRecorder: w, cb: cb}
	}
	return w
}

type inlineRecorder struct {
	parser.InlineParser
	r   *recorder
	rec inlineRecord
}

func (p *inlineRecorder) Parse(parent ast.Node, block text.Reader, pc parser.Context) ast.Node {
	_, before := block.Position()
	n := p.InlineParser.Parse(parent, block, pc)
	if n == nil {
		return nil
	}
	_, after := block.Position()
	end := after.Start
	if end < before.Start {
		end = blockEnd(parent, before.Start)
	}
	if k, s, e, ph, ok := p.rec(p.r, n, before.Start, end); ok {
		p.r.addInline(parent, k, s, e, ph)
	}
	return n
}

type closingInlineRecorder struct {
	*inlineRecorder
	cb parser.CloseBlocker
}

func (p *closingInlineRecorder) CloseBlock(parent ast.Node, block text.Reader, pc parser.Context) {
	p.cb.CloseBlock(parent, block, pc)
}

// blockEnd is the end of the last line of the block an inline node is parsed in (a reader
// that went past its last line reports no usable position).
func blockEnd(parent ast.Node, fallback int) int {
	for n := parent; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock && n.Lines().Len() > 0 {
			return n.Lines().At(n.Lines().Len() - 1).Stop
		}
	}
	return fallback
}

// addInline records [start, end) of an inline node, clipped to the lines of the block it is
// in: an inline node over several lines (a code span across a line break in a blockquote)
// does not take the container markers at the start of the next line.
func (r *recorder) addInline(parent ast.Node, k Kind, start, end int, placeholder bool) {
	var lines *text.Segments
	for n := parent; n != nil; n = n.Parent() {
		if n.Type() == ast.TypeBlock {
			lines = n.Lines()
			break
		}
	}
	if lines == nil || lines.Len() == 0 {
		r.add(k, start, end, placeholder)
		return
	}
	first := true
	for i := range lines.Len() {
		seg := lines.At(i)
		s, e := max(start, seg.Start), min(end, seg.Stop)
		if s < e {
			r.add(k, s, e, placeholder && first)
			first = false
		}
	}
	if first { // outside the block's lines: keep what the parser read
		r.add(k, start, end, placeholder)
	}
}

func recordCodeSpan(_ *recorder, n ast.Node, start, end int) (Kind, int, int, bool, bool) {
	_, ok := n.(*ast.CodeSpan)
	return InlineCode, start, end, true, ok
}

// recordLinkDestination records "(destination "title")" after a link's or image's text: the
// link parser returns the node when it reads the closing "]" and what follows it.
func recordLinkDestination(r *recorder, n ast.Node, start, end int) (Kind, int, int, bool, bool) {
	switch n.(type) {
	case *ast.Link, *ast.Image:
	default:
		return 0, 0, 0, false, false
	}
	if start < 0 || start+1 >= len(r.src) || r.src[start] != ']' || r.src[start+1] != '(' {
		return 0, 0, 0, false, false // a reference link: "[text][id]" holds no URL
	}
	return URL, start + 1, end, false, true
}

func recordAutoLink(_ *recorder, n ast.Node, start, end int) (Kind, int, int, bool, bool) {
	_, ok := n.(*ast.AutoLink)
	return URL, start, end, true, ok
}

func recordRawHTML(_ *recorder, n ast.Node, start, end int) (Kind, int, int, bool, bool) {
	_, ok := n.(*ast.RawHTML)
	return HTML, start, end, false, ok
}

// recordBareURL records a URL or email address found by the linkify parser, which may have
// read the character before it (a space, "(", "*"…) as text: the URL is what ends where the
// parser stopped.
func recordBareURL(r *recorder, n ast.Node, start, end int) (Kind, int, int, bool, bool) {
	link, ok := n.(*ast.AutoLink)
	if !ok {
		return 0, 0, 0, false, false
	}
	return URL, max(start, end-len(link.Label(r.src))), end, true, true
}

// tomlFrontmatter returns the end of a TOML front matter block ("+++" lines) at the very top
// of src (after its closing line), or 0.
func tomlFrontmatter(src []byte) int {
	first, rest, ok := cutLine(src)
	if !ok || string(bytes.TrimRight(first, " \t")) != "+++" {
		return 0
	}
	off := len(src) - len(rest)
	for len(rest) > 0 {
		line, after, _ := cutLine(rest)
		if string(bytes.TrimRight(line, " \t")) == "+++" {
			return off + len(line)
		}
		off += len(rest) - len(after)
		rest = after
	}
	return 0
}

// cutLine splits b after its first line: the line without its break, the rest, and whether
// the line had a break.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexAny(b, "\r\n")
	if i < 0 {
		return b, nil, false
	}
	j := i + 1
	if b[i] == '\r' && j < len(b) && b[j] == '\n' {
		j++
	}
	return b[:i], b[j:], true
}

// codeElements adds, as inline code, the content of the HTML or JSX elements that Vale ignores
// by default (IgnoredScopes = code, tt): "<code>HTTPS_PROXY</code>" is code written as markup.
// Their tags were recorded as HTML or MDX; an element is its opening tag up to the next
// closing tag of the same name in the same paragraph (no blank line between).
func (r *recorder) codeElements() {
	tags := slices.Clone(r.scopes)
	Sort(tags)
	for i, open := range tags {
		name := elementName(r.src[open.Start:open.End], false)
		if open.Kind != HTML && open.Kind != MDX || (name != "code" && name != "tt") {
			continue
		}
		for _, cl := range tags[i+1:] {
			if bytes.Contains(r.src[open.End:cl.Start], []byte("\n\n")) || bytes.Contains(r.src[open.End:cl.Start], []byte("\r\n\r\n")) {
				break
			}
			if (cl.Kind == HTML || cl.Kind == MDX) && elementName(r.src[cl.Start:cl.End], true) == name {
				r.add(InlineCode, open.Start, cl.End, true)
				break
			}
		}
	}
}

// elementName returns the lower-case name of a tag ("<code class=x>" → "code"), of a closing
// tag when closing is set ("</code>"), or "".
func elementName(tag []byte, closing bool) string {
	prefix := "<"
	if closing {
		prefix = "</"
	}
	rest, ok := bytes.CutPrefix(tag, []byte(prefix))
	if !ok {
		return ""
	}
	end := bytes.IndexFunc(rest, func(c rune) bool { return c == '>' || c == '/' || c == ' ' || c == '\t' || c == '\n' || c == '\r' })
	if end <= 0 {
		return ""
	}
	return strings.ToLower(string(rest[:end]))
}
