package scopes

import (
	"bytes"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// What counts as math (the dollar syntax of remark-math, KaTeX and MathJax, with pandoc's rule
// for inline math so that prices are not math):
//
//   - a block: a line starting (after at most three spaces) with "$$", up to the next line
//     that ends with "$$", or that line alone when it also ends with "$$" ("$$ x^2 $$"). A
//     "$$" line that no later line closes is prose ("$$$ in savings"); one that a later line
//     closes, but not in its container, runs to the end of the container, as a code fence
//     does;
//   - inline, on one line and at most 2 KiB: "$$…$$", or "$…$" where the opening "$" is
//     followed by a character that is neither white space nor a digit, and the closing "$"
//     follows a character that is not white space and is not followed by a digit (nor is it
//     part of "$$"). "$5 and $10", "US$5 … $y$" and "costs $5, or $7" are prose;
//     "$x^2$" and "$E = mc^2$" are math. An escaped "\$" is a dollar sign.

// maxInlineMath is the longest inline math read.
const maxInlineMath = 2 << 10

// lastMathClose returns the offset just past the last line of the text that ends with "$$"
// (0 when none), found once: a "$$" line after it opens no block.
func (r *recorder) lastMathClose() int {
	if r.mathClose == 0 {
		r.mathClose = -1
		for end := len(r.src); end > 0; {
			start := bytes.LastIndexAny(r.src[:end], "\r\n") + 1
			if bytes.HasSuffix(bytes.TrimSpace(r.src[start:end]), []byte("$$")) {
				r.mathClose = end
				break
			}
			end = max(start-1, 0)
		}
	}
	return max(r.mathClose, 0)
}

// mathBlockParser reads $$ blocks.
type mathBlockParser struct{ r *recorder }

func (p *mathBlockParser) Trigger() []byte { return []byte{'$'} }

func (p *mathBlockParser) Open(_ ast.Node, reader text.Reader, _ parser.Context) (ast.Node, parser.State) {
	line, seg := reader.PeekLine()
	if line == nil {
		return nil, parser.NoChildren
	}
	rest := bytes.TrimLeft(line, " ")
	if len(line)-len(rest) > 3 || !bytes.HasPrefix(rest, []byte("$$")) {
		return nil, parser.NoChildren
	}
	n := &blockScope{}
	body := bytes.TrimSpace(rest[2:])
	n.closed = len(body) >= 2 && bytes.HasSuffix(body, []byte("$$"))
	if !n.closed && p.r.lastMathClose() <= seg.Stop {
		return nil, parser.NoChildren // no line closes it: prose that starts with "$$"
	}
	p.r.add(Math, seg.Start, seg.Stop, false)
	reader.AdvanceToEOL()
	return n, parser.NoChildren
}

func (p *mathBlockParser) Continue(node ast.Node, reader text.Reader, _ parser.Context) parser.State {
	n := node.(*blockScope)
	line, seg := reader.PeekLine()
	if n.closed || line == nil {
		return parser.Close
	}
	p.r.add(Math, seg.Start, seg.Stop, false)
	reader.AdvanceToEOL()
	if bytes.HasSuffix(bytes.TrimSpace(line), []byte("$$")) {
		n.closed = true
		return parser.Close
	}
	return parser.Continue | parser.NoChildren
}

func (p *mathBlockParser) Close(ast.Node, text.Reader, parser.Context) {}
func (p *mathBlockParser) CanInterruptParagraph() bool                 { return true }
func (p *mathBlockParser) CanAcceptIndentedLine() bool                 { return false }

// mathInlineParser reads inline math.
type mathInlineParser struct{ r *recorder }

func (p *mathInlineParser) Trigger() []byte { return []byte{'$'} }

func (p *mathInlineParser) Parse(parent ast.Node, block text.Reader, _ parser.Context) ast.Node {
	line, seg := block.PeekLine()
	n := inlineMathEnd(line)
	if n < 0 {
		return nil
	}
	p.r.addInline(parent, Math, seg.Start, seg.Start+n, true)
	block.Advance(n)
	return &inlineScope{}
}

// inlineMathEnd returns the length of the inline math at the start of line ("$…$" or
// "$$…$$"), or -1.
func inlineMathEnd(line []byte) int {
	line = line[:min(len(line), maxInlineMath)]
	end := bytes.IndexAny(line, "\r\n")
	if end < 0 {
		end = len(line)
	}
	line = line[:end]
	if bytes.HasPrefix(line, []byte("$$")) {
		if i := bytes.Index(line[2:], []byte("$$")); i > 0 {
			return 2 + i + 2
		}
		return -1
	}
	if len(line) < 3 || line[1] == ' ' || line[1] == '\t' || line[1] == '$' || ('0' <= line[1] && line[1] <= '9') {
		return -1
	}
	for i := 2; i < len(line); i++ {
		switch line[i] {
		case '\\':
			i++
		case '$':
			prev := line[i-1]
			var next byte
			if i+1 < len(line) {
				next = line[i+1]
			}
			if prev == ' ' || prev == '\t' || prev == '$' || next == '$' || ('0' <= next && next <= '9') {
				continue
			}
			return i + 1
		}
	}
	return -1
}
