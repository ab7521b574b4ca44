package scopes

import (
	"bytes"
	"strings"
)

// reStructuredText is read by a line scanner that follows docutils' block rules (indentation,
// explicit markup, adornments), then an inline scanner over each run of prose lines (no Go
// library for reStructuredText exists; the scanner only needs the scopes). What is not prose
// (spec/linter.md §14):
//
//   - literal blocks (after a paragraph ending in "::", indented or quoted), doctest blocks
//     (">>> "), and the whole of the directives whose body is code (code-block, code,
//     sourcecode, literalinclude, highlight, doctest, testcode, parsed-literal, graphviz,
//     mermaid, plantuml and their kin): code; math directives: math; raw directives: html;
//   - comments (".. text" and the lines indented under it), which may hold an inline control
//     (Comments); substitution definitions (".. |name| image:: x.png"); the name and
//     options of every other directive (".. note::", ":class: tip"), and its arguments
//     unless they are a title (".. admonition:: Title", ".. note:: Text"); the whole of
//     directives whose body is not prose (toctree, index, image, include, autodoc's auto*);
//     section adornment lines, transitions, table borders and grid table cell separators;
//     field markers (":param x:"); footnote and citation labels and references ("[1]_");
//     the markers of roles and references around their text; the ":" of a "::" that ends a
//     paragraph: markup;
//   - inline literals ("``x``"), interpreted text in the default role ("`x`") and the
//     roles whose text is code (":code:", ":file:", ":envvar:", ":py:func:", ":class:" and
//     any domain role "a:b"): inlinecode; ":math:": math (each a word of its sentence);
//   - explicit hyperlink targets (".. _name: https://…", "__ https://…"), embedded targets
//     ("`text <https://…>`_", ":ref:`text <label>`"), cross-reference roles without text
//     (":ref:`label`", ":doc:`path`"), and URLs: urls.
//
// The text of roles such as :abbr:, :term:, :guilabel: and :menuselection:, of references
// ("`text`_"), of footnotes, admonitions and other directive bodies is prose. Section titles
// are headings, their level by the order in which adornment styles first appear.

// rstScanner reads one reStructuredText document.
type rstScanner struct {
	src    []byte
	lines  []line
	l      *scopeList
	styles []string // adornment styles in order of first appearance ("=", "o=" with an overline)
}

// scanRST finds the scopes, comments and headings of a reStructuredText document.
func scanRST(src []byte) Result {
	s := &rstScanner{src: src, lines: splitLines(src), l: &scopeList{src: src}}
	s.body()
	return s.l.result()
}

// lineText returns the text of line i without its indentation and trailing white space, its
// indentation in columns and the offset of its text.
func (s *rstScanner) lineText(i int) (t []byte, cols, at int) {
	ln := s.lines[i]
	cols, at = ln.indent(s.src)
	end := ln.start + len(ln.text(s.src))
	if at > end {
		at = end
	}
	return s.src[at:end], cols, at
}

func (s *rstScanner) blank(i int) bool { return s.lines[i].blank(s.src) }

// lineEnd is the end of line i's text (without trailing white space).
func (s *rstScanner) lineEnd(i int) int { return s.lines[i].start + len(s.lines[i].text(s.src)) }

// blockEnd returns the line after the block of lines from i on that are blank or indented by
// more than cols, without its trailing blank lines.
func (s *rstScanner) blockEnd(i, cols int) int {
	last := i - 1
	for ; i < len(s.lines); i++ {
		if s.blank(i) {
			continue
		}
		if c, _ := s.lines[i].indent(s.src); c <= cols {
			break
		}
		last = i
	}
	return last + 1
}

// level returns the heading level of an adornment style.
func (s *rstScanner) level(style string) int {
	for i, st := range s.styles {
		if st == style {
			return i + 1
		}
	}
	s.styles = append(s.styles, style)
	return len(s.styles)
}

// body reads the document.
func (s *rstScanner) body() {
	var (
		expectLiteral bool // the last paragraph ended in "::"
		literalBase   int  // and its text's column
	)
	n := len(s.lines)
	for i := 0; i < n; {
		if s.blank(i) {
			i++
			continue
		}
		t, cols, at := s.lineText(i)
		ln := s.lines[i]
		end := at + len(t)
		if expectLiteral {
			expectLiteral = false
			if cols > literalBase {
				j := s.blockEnd(i+1, literalBase)
				s.l.add(Code, ln.start, s.lineEnd(j-1), false)
				i = j
				continue
			}
			if cols == literalBase && isRSTPunct(t[0]) { // a quoted literal block
				j := i
				for j < n && !s.blank(j) {
					tj, cj, _ := s.lineText(j)
					if cj != cols || tj[0] != t[0] {
						break
					}
					j++
				}
				s.l.add(Code, ln.start, s.lineEnd(j-1), false)
				i = j
				continue
			}
		}
		switch {
		case isExplicitMarkup(t):
			i = s.explicit(i, cols, at, t)
			continue
		case bytes.HasPrefix(t, []byte("__ ")): // an anonymous target
			j := s.blockEnd(i+1, cols)
			s.l.add(URL, at, s.lineEnd(j-1), false)
			i = j
			continue
		case isGridBorder(t):
			i = s.gridTable(i, cols)
			continue
		case isTableBorder(t):
			s.l.add(Markup, at, end, false)
			i++
			continue
		case bytes.HasPrefix(t, []byte(">>>")) && (len(t) == 3 || t[3] == ' '):
			j := i
			for j < n && !s.blank(j) {
				j++
			}
			s.l.add(Code, at, s.lineEnd(j-1), false)
			i = j
			continue
		}
		if isAdornment(t) {
			// An overline, a title and an underline of the same style.
			if i+2 < n && !s.blank(i+1) && bytes.Equal(s.lines[i+2].text(s.src), s.lines[i].text(s.src)) {
				tt, _, tat := s.lineText(i + 1)
				s.l.add(Markup, ln.start, s.lineEnd(i), false)
				s.l.heading(s.level("o"+string(t[0])), tat, tat, tat+len(tt))
				s.inline(tat, tat+len(tt))
				s.l.add(Markup, s.lines[i+2].start, s.lineEnd(i+2), false)
				i += 3
				continue
			}
			if len(t) >= 4 { // a transition, or a border of a one-column table
				s.l.add(Markup, at, end, false)
				i++
				continue
			}
		}
		// A section title: one line, then an adornment at least as long (or of four or more).
		if i+1 < n && cols == 0 && !s.blank(i+1) {
			if u, ucols, uat := s.lineText(i + 1); ucols == 0 && isAdornment(u) && (len(u) >= 4 || len(u) >= runeCount(t)) {
				s.l.heading(s.level(string(u[0])), at, at, end)
				s.inline(at, end)
				s.l.add(Markup, uat, uat+len(u), false)
				i += 2
				continue
			}
		}
		i, expectLiteral, literalBase = s.paragraph(i, cols, t)
	}
}

// paragraph reads the paragraph at line i (to a blank line, or a line that a table border or
// an adornment ends it at): its field markers and inline syntax, and a final "::". It returns
// the next line, whether a literal block may follow and the column it must be indented past.
func (s *rstScanner) paragraph(i, cols int, first []byte) (next int, literal bool, base int) {
	n := len(s.lines)
	j := i + 1
	for j < n && !s.blank(j) {
		tj, _, _ := s.lineText(j)
		if isTableBorder(tj) || isGridBorder(tj) || (isAdornment(tj) && len(tj) >= 4) {
			break
		}
		j++
	}
	base = cols + listMarkerWidth(first)
	// The end of the text, and a final "::".
	last := s.lineEnd(j - 1)
	lastText, _, lastAt := s.lineText(j - 1)
	textEnd := last
	if bytes.HasSuffix(lastText, []byte("::")) {
		literal = true
		switch {
		case len(lastText) == 2:
			textEnd = lastAt
		case lastText[len(lastText)-3] == ' ' || lastText[len(lastText)-3] == '\t':
			textEnd = lastAt + len(bytes.TrimRight(lastText[:len(lastText)-2], " \t"))
		default:
			textEnd = last - 1
		}
	}
	// Field markers at the start of lines cut the inline runs.
	from := s.lines[i].start
	for k := i; k < j; k++ {
		t, _, at := s.lineText(k)
		if m := fieldMarker(t); m > 0 && at+m <= textEnd {
			s.inline(from, at)
			s.l.add(Markup, at, at+m, false)
			from = at + m
		}
	}
	s.inline(from, textEnd)
	if textEnd < last {
		s.l.add(Markup, textEnd, last, false)
	}
	return j, literal, base
}

// explicit reads the explicit markup block at line i (a ".." line): a target, a footnote or
// citation, a substitution definition, a directive or a comment. It returns the next line.
func (s *rstScanner) explicit(i, cols, at int, t []byte) int {
	end := at + len(t)
	rest := bytes.TrimLeft(t[2:], " \t")
	restAt := end - len(rest)
	// block returns the line after the lines indented under the marker, and where they end.
	block := func() (int, int) {
		j := s.blockEnd(i+1, cols)
		return j, s.lineEnd(j - 1)
	}
	switch {
	case len(rest) == 0:
		if i+1 < len(s.lines) && s.blank(i+1) { // an empty comment
			s.l.comment(Markup, at, end)
			return i + 1
		}
		j, last := block()
		s.l.comment(Markup, at, last)
		return j
	case rest[0] == '_':
		j, last := block()
		s.l.add(URL, at, last, false)
		return j
	case rest[0] == '[':
		if e := bytes.IndexByte(rest, ']'); e > 1 && isFootnoteLabel(rest[1:e]) {
			s.l.add(Markup, at, restAt+e+1, false)
			s.inline(restAt+e+1, end)
			return i + 1 // its body is read as any indented text
		}
	case rest[0] == '|':
		if e := bytes.IndexByte(rest[1:], '|'); e > 0 {
			j, last := block()
			s.l.add(Markup, at, last, false)
			return j
		}
	}
	name, argsAt := directiveName(rest)
	if name == "" {
		j, last := block()
		s.l.comment(Markup, at, last)
		return j
	}
	argsAt += restAt
	class := directiveClass(name)
	if k, ok := directiveKind(class); ok {
		j, last := block()
		s.l.add(k, at, last, false)
		return j
	}
	switch class {
	case dirTitle:
		s.l.add(Markup, at, argsAt, false)
		s.inline(argsAt, end)
	default:
		s.l.add(Markup, at, end, false)
	}
	// The options: field lines right under the directive.
	k := i + 1
	for ; k < len(s.lines) && !s.blank(k); k++ {
		tk, ck, ak := s.lineText(k)
		if ck <= cols || fieldMarker(tk) == 0 {
			break
		}
		s.l.add(Markup, ak, ak+len(tk), false)
	}
	return k
}

// Directive classes: what a directive's name, arguments, options and body are.
const (
	dirProse  = iota // the body is prose; the name, arguments and options markup
	dirTitle         // the arguments are prose too (a title, an admonition's first words)
	dirCode          // all of it is code
	dirMath          // all of it is math
	dirRaw           // all of it is raw output (html)
	dirMarkup        // all of it is markup (a table of contents, an image, an include)
)

// directiveKind returns the kind of scope a whole directive of a class is, if it is one.
func directiveKind(class int) (Kind, bool) {
	switch class {
	case dirCode:
		return Code, true
	case dirMath:
		return Math, true
	case dirRaw:
		return HTML, true
	case dirMarkup:
		return Markup, true
	}
	return 0, false
}

// directiveClass returns the class of a directive by its name (case-insensitive).
func directiveClass(name string) int {
	name = strings.ToLower(name)
	switch name {
	case "code-block", "code", "sourcecode", "literalinclude", "highlight", "doctest", "testcode",
		"testoutput", "testsetup", "testcleanup", "ipython", "jupyter-execute", "jupyter-input",
		"jupyter-output", "code-cell", "parsed-literal", "productionlist", "prompt", "program-output",
		"command-output", "runblock", "graphviz", "graph", "digraph", "mermaid", "uml", "plantuml",
		"ditaa", "tikz", "blockdiag", "seqdiag", "code-tab":
		return dirCode
	case "math":
		return dirMath
	case "raw":
		return dirRaw
	case "toctree", "index", "autosummary", "include", "image", "tabularcolumns", "meta", "contents",
		"sectnum", "section-numbering", "header", "footer", "default-role", "role", "title",
		"currentmodule", "module", "py:module", "py:currentmodule", "target-notes", "rst-class",
		"cssclass", "default-domain", "kernel", "bibliography", "thumbnail":
		return dirMarkup
	case "admonition", "note", "warning", "tip", "important", "caution", "danger", "error", "hint",
		"attention", "seealso", "todo", "topic", "sidebar", "rubric", "table", "csv-table",
		"list-table", "versionadded", "versionchanged", "versionremoved", "deprecated", "tab",
		"tab-item", "card", "dropdown", "grid-item-card", "tab-set-code", "epigraph", "highlights",
		"pull-quote", "glossary":
		return dirTitle
	}
	if strings.HasPrefix(name, "auto") {
		return dirMarkup // autodoc: automodule, autoclass, autofunction…
	}
	return dirProse
}

// directiveName returns the name of a directive ("code-block" in "code-block:: python") and
// the offset in rest of its arguments, or "".
func directiveName(rest []byte) (string, int) {
	i := 0
	for i < len(rest) && (isIdentByte(rest[i]) || strings.IndexByte("-_.:+", rest[i]) >= 0) {
		if rest[i] == ':' && i+1 < len(rest) && rest[i+1] == ':' {
			break
		}
		i++
	}
	if i == 0 || !bytes.HasPrefix(rest[i:], []byte("::")) {
		return "", 0
	}
	j := i + 2
	if j < len(rest) && rest[j] != ' ' && rest[j] != '\t' {
		return "", 0
	}
	for j < len(rest) && (rest[j] == ' ' || rest[j] == '\t') {
		j++
	}
	return string(rest[:i]), j
}

// isExplicitMarkup reports whether a line starts explicit markup: ".." alone or followed by
// white space.
func isExplicitMarkup(t []byte) bool {
	return bytes.HasPrefix(t, []byte("..")) && (len(t) == 2 || t[2] == ' ' || t[2] == '\t')
}

// isFootnoteLabel reports whether b labels a footnote or citation: a number, "#", "#name",
// "*" or a simple reference name.
func isFootnoteLabel(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, c := range b {
		if !isIdentByte(c) && strings.IndexByte("#*-_.", c) < 0 {
			return false
		}
	}
	return true
}

// fieldMarker returns the length of a field marker and the white space after it at the start
// of a line (":param x: ", ":returns:"), or 0. A role (":ref:`x`") is not one.
func fieldMarker(t []byte) int {
	if len(t) < 3 || t[0] != ':' || t[1] == ' ' || t[1] == ':' {
		return 0
	}
	for i := 1; i < len(t); i++ {
		switch t[i] {
		case '\\':
			i++
		case '`':
			return 0
		case ':':
			if i+1 < len(t) && t[i+1] != ' ' && t[i+1] != '\t' {
				continue // a colon inside the name (":py:func:" is a role when a backtick follows)
			}
			j := i + 1
			for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
				j++
			}
			if t[i-1] == ' ' {
				return 0
			}
			return j
		}
	}
	return 0
}

// listMarkerWidth returns the width of a list marker and the white space after it at the
// start of a paragraph ("- ", "* ", "1. ", "#. ", "(a) ", "iv) "), or 0.
func listMarkerWidth(t []byte) int {
	i := 0
	switch {
	case len(t) >= 2 && strings.IndexByte("-*+•‣⁃", t[0]) >= 0 && (t[1] == ' ' || t[1] == '\t'):
		i = 1
	default:
		if len(t) > 0 && t[0] == '(' {
			i = 1
		}
		k := i
		for i < len(t) && (isIdentByte(t[i]) || t[i] == '#') && i-k < 8 {
			i++
		}
		if i == k || i >= len(t) || (t[i] != '.' && t[i] != ')') {
			return 0
		}
		i++
	}
	if i >= len(t) || (t[i] != ' ' && t[i] != '\t') {
		return 0
	}
	for i < len(t) && (t[i] == ' ' || t[i] == '\t') {
		i++
	}
	return i
}

// isRSTPunct reports whether c may adorn a title or quote a literal block.
func isRSTPunct(c byte) bool { return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0 }

// isAdornment reports whether a line is two or more of one punctuation character (no
// indentation, no white space) — a title's overline or underline, or a transition.
func isAdornment(t []byte) bool {
	if len(t) < 2 || !isRSTPunct(t[0]) {
		return false
	}
	for _, c := range t {
		if c != t[0] {
			return false
		}
	}
	return string(t) != "::" && string(t) != ".."
}

// isTableBorder reports whether a line is a simple table border ("=====  =====") or column
// span line ("-----  -----"): runs of "=" (or "-") separated by spaces, at least two.
func isTableBorder(t []byte) bool {
	if len(t) < 5 || (t[0] != '=' && t[0] != '-') {
		return false
	}
	runs := 0
	for i := 0; i < len(t); {
		if t[i] == ' ' {
			i++
			continue
		}
		if t[i] != t[0] {
			return false
		}
		runs++
		for i < len(t) && t[i] == t[0] {
			i++
		}
	}
	return runs >= 2
}

// isGridBorder reports whether a line is a grid table border: "+---+---+" or "+===+===+".
func isGridBorder(t []byte) bool {
	if len(t) < 3 || t[0] != '+' || t[len(t)-1] != '+' {
		return false
	}
	for _, c := range t {
		if c != '+' && c != '-' && c != '=' {
			return false
		}
	}
	return bytes.ContainsAny(t, "-=")
}

// gridTable reads a grid table from its top border at line i: borders are markup, and so are
// the "|" (and "+") at the columns of the top border's "+" in its rows; the cells are prose.
func (s *rstScanner) gridTable(i, cols int) int {
	top, _, _ := s.lineText(i)
	var columns []int // offsets of the "+"s from the start of the line's text
	for k, c := range top {
		if c == '+' {
			columns = append(columns, k)
		}
	}
	n := len(s.lines)
	for ; i < n && !s.blank(i); i++ {
		t, c, at := s.lineText(i)
		if c != cols || (t[0] != '+' && t[0] != '|') {
			break
		}
		if isGridBorder(t) {
			s.l.add(Markup, at, at+len(t), false)
			continue
		}
		cell := at
		for ci, col := range columns {
			if col >= len(t) || (t[col] != '|' && t[col] != '+') {
				continue
			}
			// A cell boundary; a run of "-" or "=" up to the next boundary is a partial
			// border (a row of a spanning cell).
			s.inline(cell, at+col)
			next := len(t)
			if ci+1 < len(columns) {
				next = min(columns[ci+1], len(t))
			}
			if seg := t[col+1 : next]; len(seg) > 0 && len(bytes.Trim(seg, "-=")) == 0 && next < len(t) {
				s.l.add(Markup, at+col, at+next, false)
				cell = at + next
				continue
			}
			s.l.add(Markup, at+col, at+col+1, false)
			cell = at + col + 1
		}
		s.inline(cell, at+len(t))
	}
	return i
}

// runeCount is the number of characters of a title (what its underline must cover).
func runeCount(b []byte) int {
	n := 0
	for _, c := range b {
		if c < 0x80 || c >= 0xC0 {
			n++
		}
	}
	return n
}

// --- Inline syntax -------------------------------------------------------------------------

// rstInline reads the inline syntax of one run of text.
type rstInline struct {
	s          *rstScanner
	start, end int
	closers    map[string]*closer
}

// inline reads the inline syntax of src[start:end].
func (s *rstScanner) inline(start, end int) {
	if start >= end {
		return
	}
	in := &rstInline{s: s, start: start, end: end}
	in.run()
}

// startOK reports whether inline markup may start at p: at the start of the run, or after
// white space or an opening punctuation character.
func (in *rstInline) startOK(p int) bool {
	if p <= in.start {
		return true
	}
	c := in.s.src[p-1]
	return isSpace(c) || strings.IndexByte("'\"([{<-/:", c) >= 0
}

// endOK reports whether inline markup may end just before i: at the end of the run, or before
// white space or a closing punctuation character.
func (in *rstInline) endOK(i int) bool {
	if i >= in.end {
		return true
	}
	c := in.s.src[i]
	return isSpace(c) || strings.IndexByte("'\")]}>-/:.,;!?\\", c) >= 0
}

// close returns the first end-string delim at or after from that closes inline markup (not
// after white space; for "`", one that may be followed by a reference or role suffix).
func (in *rstInline) close(delim string, from int) int {
	c := in.closers[delim]
	if c == nil {
		src := in.s.src
		c = newCloser(delim, func(i int) bool {
			if isSpace(src[i-1]) || src[i-1] == '\\' {
				return false
			}
			j := i + len(delim)
			if delim == "`" {
				if j < in.end && src[j] == '`' {
					return false
				}
				switch {
				case bytes.HasPrefix(src[j:in.end], []byte("__")):
					j += 2
				case j < in.end && src[j] == '_':
					j++
				case j < in.end && src[j] == ':':
					if n := roleAt(src, j, in.end); n > 0 {
						j = n
					}
				}
			}
			return in.endOK(j)
		})
		if in.closers == nil {
			in.closers = map[string]*closer{}
		}
		in.closers[delim] = c
	}
	return c.next(in.s.src, from, in.end)
}

func (in *rstInline) add(k Kind, start, end int, placeholder bool) {
	in.s.l.add(k, start, end, placeholder)
}

// roleAt returns the end of a role name with its colons at src[i] (":py:func:"), or 0.
func roleAt(src []byte, i, end int) int {
	if i >= end || src[i] != ':' {
		return 0
	}
	j := i + 1
	for j < end && (isIdentByte(src[j]) || strings.IndexByte("-_.+:", src[j]) >= 0) {
		if src[j] == ':' && (j+1 >= end || !isIdentByte(src[j+1])) {
			break
		}
		j++
	}
	if j == i+1 || j >= end || src[j] != ':' {
		return 0
	}
	return j + 1
}

// run scans the run.
func (in *rstInline) run() {
	src, end := in.s.src, in.end
	for p := in.start; p < end; {
		c := src[p]
		switch {
		case c == '\\':
			p += 2
			continue
		case c == '`' && in.startOK(p):
			if n := in.backquote(p, p); n > p {
				p = n
				continue
			}
		case c == ':' && in.startOK(p):
			if r := roleAt(src, p, end); r > 0 && r < end && src[r] == '`' {
				if n := in.backquote(r, p); n > p {
					p = n
					continue
				}
			}
		case c == '_' && p+1 < end && src[p+1] == '`' && in.startOK(p):
			if e := in.close("`", p+2); e > p+2 {
				in.add(Markup, p, p+2, false)
				in.add(Markup, e, e+1, false)
				p = e + 1
				continue
			}
		case c == '[' && in.startOK(p):
			if e := bytes.IndexByte(src[p:min(end, p+64)], ']'); e > 1 && p+e+1 < end && src[p+e+1] == '_' &&
				isFootnoteLabel(src[p+1:p+e]) && in.endOK(p+e+2) {
				in.add(Markup, p, p+e+2, false)
				p += e + 2
				continue
			}
		case isLocalByte(c) && urlBoundary(src, p):
			e, skip := linkAt(src, p, end, "")
			if e > 0 {
				in.add(URL, p, e, true)
			}
			p = skip
			continue
		}
		p++
	}
}

// backquote reads interpreted text or a literal whose backquote is at q (after a role
// ":name:" starting at rs, or rs == q): "“x“", "`x`", "`x`_", "`x <url>`__", "`x`:role:",
// ":role:`x`". It returns where scanning goes on (rs when there is nothing).
func (in *rstInline) backquote(q, rs int) int {
	src, end := in.s.src, in.end
	if rs == q && q+1 < end && src[q+1] == '`' {
		if q+2 >= end || isSpace(src[q+2]) {
			return q + 2
		}
		e := in.closeLiteral(q + 3)
		if e < 0 {
			return q + 2
		}
		in.add(InlineCode, q, e+2, true)
		return e + 2
	}
	if q+1 >= end || isSpace(src[q+1]) {
		return rs
	}
	e := in.close("`", q+1)
	if e < 0 {
		return rs
	}
	cs, ce := q+1, e // the content
	after := e + 1
	role := ""
	if rs < q {
		role = string(src[rs+1 : q-1])
	}
	switch {
	case rs == q && bytes.HasPrefix(src[after:end], []byte("__")):
		in.reference(q, cs, ce, after+2)
		return after + 2
	case rs == q && after < end && src[after] == '_':
		in.reference(q, cs, ce, after+1)
		return after + 1
	case rs == q && after < end && src[after] == ':':
		if r := roleAt(src, after, end); r > 0 {
			in.role(string(src[after+1:r-1]), q, cs, ce, r)
			return r
		}
	}
	if role == "" {
		in.add(InlineCode, q, after, true) // the default role: code, in practice
		return after
	}
	in.role(role, rs, cs, ce, after)
	return after
}

// closeLiteral returns the "“" that closes an inline literal, searching from from, or -1.
func (in *rstInline) closeLiteral(from int) int {
	c := in.closers["``"]
	if c == nil {
		src := in.s.src
		c = newCloser("``", func(i int) bool { return !isSpace(src[i-1]) && in.endOK(i+2) })
		if in.closers == nil {
			in.closers = map[string]*closer{}
		}
		in.closers["``"] = c
	}
	return c.next(in.s.src, from, in.end)
}

// reference records a hyperlink reference "`text`_" (from q to end): its text is prose, an
// embedded target ("<https://…>") a URL, the rest markup.
func (in *rstInline) reference(q, cs, ce, end int) {
	in.add(Markup, q, cs, false)
	if lt := embeddedTarget(in.s.src, cs, ce); lt >= 0 {
		in.add(URL, lt, ce, false)
	}
	in.add(Markup, ce, end, false)
}

// embeddedTarget returns where an embedded target ("text <target>") starts in src[cs:ce]
// (at its white space), or -1.
func embeddedTarget(src []byte, cs, ce int) int {
	if ce-cs < 3 || src[ce-1] != '>' {
		return -1
	}
	lt := bytes.LastIndexByte(src[cs:ce], '<')
	if lt < 0 {
		return -1
	}
	lt += cs
	if lt == cs {
		return cs // only a target
	}
	if !isSpace(src[lt-1]) {
		return -1
	}
	for lt > cs && isSpace(src[lt-1]) {
		lt--
	}
	return lt
}

// role records a role from rs to re with its content [cs, ce).
func (in *rstInline) role(name string, rs, cs, ce, re int) {
	switch roleClass(name) {
	case roleCode:
		in.add(InlineCode, rs, re, true)
		return
	case roleMath:
		in.add(Math, rs, re, true)
		return
	}
	lt := embeddedTarget(in.s.src, cs, ce)
	switch {
	case lt > cs:
		in.add(Markup, rs, cs, false)
		in.add(URL, lt, ce, false)
		in.add(Markup, ce, re, false)
	case roleClass(name) == roleRef:
		in.add(URL, rs, re, true)
	default:
		in.add(Markup, rs, cs, false)
		in.add(Markup, ce, re, false)
	}
}

// Role classes.
const (
	roleProse = iota // the text is prose (:abbr:, :term:, :guilabel:, unknown roles)
	roleCode         // the text is code
	roleMath         // the text is math
	roleRef          // the text is a target unless it is "text <target>"
)

// roleClass returns the class of a role by its name (case-insensitive).
func roleClass(name string) int {
	name = strings.ToLower(name)
	switch name {
	case "math":
		return roleMath
	case "ref", "doc", "numref", "download", "any", "pep", "rfc", "manpage", "numref-ref":
		return roleRef
	case "code", "literal", "samp", "kbd", "file", "command", "program", "option", "envvar", "makevar",
		"regexp", "token", "keyword", "mimetype", "func", "meth", "class", "mod", "attr", "data",
		"const", "exc", "obj", "type", "member", "var", "macro", "struct", "union", "enum",
		"enumerator", "expr", "texpr", "sup-code":
		return roleCode
	}
	if strings.Contains(name, ":") {
		return roleCode // a domain role: :py:func:, :c:macro:, :rst:dir:
	}
	return roleProse
}
