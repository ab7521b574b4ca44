package scopes

import (
	"bytes"
	"strings"
)

// AsciiDoc is read by a line scanner that follows Asciidoctor's block rules, then an inline
// scanner over each run of prose lines (no Go library for AsciiDoc exists; the scanner only
// needs the scopes, not a document tree). What is not prose (spec/linter.md §14):
//
//   - listing, literal and source blocks ("----", "....", "```", a paragraph or open block
//     styled [source], [listing] or [literal]) and indented literal paragraphs: code, the
//     delimiter lines included;
//   - passthrough blocks ("++++", [pass]): html; [stem], [latexmath] and [asciimath] blocks:
//     math;
//   - comment blocks ("////", [comment]) and comment lines ("// …"): markup; a comment line
//     may hold an inline control (Comments);
//   - the document header's author, revision and attribute lines: frontmatter; attribute
//     entries elsewhere (":name: value"), block attribute and anchor lines ("[source,go]",
//     "[[id]]", "[#id.role]"), preprocessor directives ("include::", "ifdef::", "ifndef::",
//     "ifeval::", "endif::"), block macros ("toc::[]"), the delimiters of example, sidebar,
//     quote, open and table blocks, table cell separators with their specifiers ("2+a|"),
//     list continuations ("+"), breaks ("'''", "<<<"), the "." of block titles and callout
//     markers ("<1>"): markup;
//   - inline literals ("`x`", "``x``", "+x+", "++x++"): inlinecode; "+++x+++" and "pass:[x]":
//     html; "kbd:[Ctrl+C]": inlinecode; "stem:[x]" and its kin: math (each a word of its
//     sentence);
//   - image, link, mailto and xref macro targets, URLs (bare, "<https://…>", and before
//     "[text]"), "<<id>>" cross references, and attribute references used as link targets
//     ("{url-repo}/path[text]"): urls; the text in their brackets is prose (a link's named
//     attributes are markup, an image's brackets are all markup);
//   - inline anchors ("[[id]]", "anchor:id[]"), index terms ("(((…)))"), role and id lists
//     before formatted text ("[.role]#text#"), the markup around footnotes ("footnote:[",
//     "]"): markup.
//
// Section titles ("== Title", "## Title") are headings; their marker stays in the prose, as
// Markdown's "#" does. Attribute references ("{product}") and formatting marks ("*bold*")
// are prose.

// Limits of the AsciiDoc scanner.
const (
	// adocInlineDepth bounds the nesting of inline scans (link text, footnotes).
	adocInlineDepth = 3
)

// adocScanner reads one AsciiDoc document.
type adocScanner struct {
	src   []byte
	lines []line
	l     *scopeList
	stack []adocBlock // the open compound blocks, innermost last
	style string      // the style of the last block attribute line, for the next block
	// para is the run of prose lines being read (start < 0: none): its inline syntax is read
	// when it ends. table is the cell separator of the table it is in (0: none).
	paraStart, paraEnd int
	inPara             bool // the previous line was part of a paragraph
}

// adocBlock is an open compound block: its delimiter line and, for a table, its separator.
type adocBlock struct {
	delim string
	sep   byte
}

// scanAsciiDoc finds the scopes, comments and headings of an AsciiDoc document.
func scanAsciiDoc(src []byte) Result {
	s := &adocScanner{src: src, lines: splitLines(src), l: &scopeList{src: src}, paraStart: -1}
	i := s.header()
	for i < len(s.lines) {
		i = s.block(i)
	}
	s.flush()
	return s.l.result()
}

// header reads the document header: comment lines and attribute entries, the document title
// ("= Title") and the author, revision and attribute lines after it, up to a blank line (or a
// third line that is neither an attribute entry nor a comment, where the body starts, as in
// Asciidoctor).
func (s *adocScanner) header() int {
	i := 0
	for i < len(s.lines) && s.lines[i].blank(s.src) {
		i++
	}
	for i < len(s.lines) {
		ln := s.lines[i]
		t := ln.text(s.src)
		switch {
		case isAdocComment(t):
			s.l.comment(Markup, ln.start, ln.start+len(t))
			i++
		case isAttributeEntry(t):
			i = s.attributeEntry(i, Frontmatter)
		default:
			if lv, at := adocSectionTitle(t); lv == 1 {
				s.l.heading(1, ln.start, ln.start+at, ln.start+len(t))
				s.inline(ln.start+at, ln.start+len(t), 0)
				i++
				free := 0 // the author and revision lines read
				for i < len(s.lines) && !s.lines[i].blank(s.src) {
					ln := s.lines[i]
					t := ln.text(s.src)
					switch {
					case isAdocComment(t):
						s.l.comment(Markup, ln.start, ln.start+len(t))
						i++
					case isPreprocessor(t):
						s.l.add(Markup, ln.start, ln.start+len(t), false)
						i++
					case isAttributeEntry(t):
						i = s.attributeEntry(i, Frontmatter)
					case free < 2: // the author line, then the revision line
						s.l.add(Frontmatter, ln.start, ln.start+len(t), false)
						free++
						i++
					default:
						return i // the header is over: the body starts here
					}
				}
			}
			return i
		}
	}
	return i
}

// attributeEntry records the attribute entry at line i (with the lines a value ending in " \"
// continues on) as kind k, and returns the next line.
func (s *adocScanner) attributeEntry(i int, k Kind) int {
	for i < len(s.lines) {
		ln := s.lines[i]
		t := ln.text(s.src)
		s.l.add(k, ln.start, ln.start+len(t), false)
		i++
		if !bytes.HasSuffix(t, []byte(" \\")) && !bytes.HasSuffix(t, []byte(" + \\")) {
			break
		}
	}
	return i
}

// table is the cell separator of the innermost open table (0: not in a table).
func (s *adocScanner) table() byte {
	if n := len(s.stack); n > 0 {
		return s.stack[n-1].sep
	}
	return 0
}

// flush reads the inline syntax of the paragraph lines read so far.
func (s *adocScanner) flush() {
	if s.paraStart >= 0 {
		s.inline(s.paraStart, s.paraEnd, 0)
		s.paraStart = -1
	}
}

// prose adds a line to the current run of prose lines (a table line is read at once).
func (s *adocScanner) prose(ln line) {
	end := ln.start + len(ln.text(s.src))
	if sep := s.table(); sep != 0 {
		s.flush()
		s.tableLine(ln.start, end, sep)
		return
	}
	if s.paraStart < 0 {
		s.paraStart = ln.start
	}
	s.paraEnd = end
}

// block reads the line i and what it opens, and returns the next line to read.
func (s *adocScanner) block(i int) int {
	ln := s.lines[i]
	t := ln.text(s.src)
	end := ln.start + len(t)
	if len(t) == 0 {
		s.flush()
		s.inPara = false
		return i + 1
	}
	// Lines that count wherever they are, inside a paragraph too.
	switch {
	case isAdocComment(t):
		s.flush()
		s.l.comment(Markup, ln.start, end)
		return i + 1
	case isPreprocessor(t):
		s.flush()
		s.l.add(Markup, ln.start, end, false)
		return i + 1
	case string(t) == "+": // a list continuation
		s.flush()
		s.l.add(Markup, ln.start, end, false)
		s.inPara = false
		return i + 1
	}
	if d, sep, ok := adocDelimiter(t); ok {
		s.flush()
		s.inPara = false
		if n := len(s.stack); n > 0 && s.stack[n-1].delim == d {
			s.stack = s.stack[:n-1]
			s.l.add(Markup, ln.start, end, false)
			return i + 1
		}
		style := s.style
		s.style = ""
		if k, ok := verbatimKind(d, style); ok {
			return s.verbatim(i, d, k)
		}
		s.l.add(Markup, ln.start, end, false)
		s.stack = append(s.stack, adocBlock{delim: d, sep: sep})
		return i + 1
	}
	if s.inPara || s.table() != 0 {
		s.prose(ln)
		s.inPara = true
		return i + 1
	}
	// The start of a block.
	switch {
	case isBlockAttributeLine(t):
		s.l.add(Markup, ln.start, end, false)
		if st := blockStyle(t); st != "" {
			s.style = st
		}
		return i + 1
	case isAttributeEntry(t):
		return s.attributeEntry(i, Markup)
	case isBlockTitle(t):
		s.l.add(Markup, ln.start, ln.start+1, false)
		s.inline(ln.start+1, end, 0)
		return i + 1
	case isBreak(t):
		s.l.add(Markup, ln.start, end, false)
		return i + 1
	}
	if m := blockMacro(t); m > 0 {
		s.blockMacro(ln.start, end, m)
		return i + 1
	}
	if lv, at := adocSectionTitle(t); lv > 0 {
		s.style = ""
		s.l.heading(lv, ln.start, ln.start+at, end)
		s.inline(ln.start+at, end, 0)
		return i + 1
	}
	style := s.style
	s.style = ""
	switch style {
	case "source", "listing", "literal":
		return s.styledParagraph(i, Code)
	case "pass":
		return s.styledParagraph(i, HTML)
	case "comment":
		return s.styledParagraph(i, Markup)
	case "stem", "latexmath", "asciimath":
		return s.styledParagraph(i, Math)
	}
	if (t[0] == ' ' || t[0] == '\t') && !isAdocListItem(bytes.TrimLeft(t, " \t")) {
		return s.styledParagraph(i, Code) // a literal paragraph
	}
	if n := calloutMarker(t); n > 0 {
		s.l.add(Markup, ln.start, ln.start+n, false)
		s.paraStart, s.paraEnd = ln.start+n, end
		s.inPara = true
		return i + 1
	}
	s.prose(ln)
	s.inPara = true
	return i + 1
}

// styledParagraph records the paragraph at line i, up to a blank line or the delimiter of the
// block it is in, as one scope of kind k.
func (s *adocScanner) styledParagraph(i int, k Kind) int {
	start, end := s.lines[i].start, s.lines[i].end
	for ; i < len(s.lines); i++ {
		ln := s.lines[i]
		t := ln.text(s.src)
		if len(t) == 0 {
			break
		}
		if n := len(s.stack); n > 0 {
			if d, _, ok := adocDelimiter(t); ok && d == s.stack[n-1].delim {
				break
			}
		}
		end = ln.start + len(t)
	}
	s.l.add(k, start, end, false)
	return i
}

// verbatim records the block that line i opens with delimiter d, up to the same delimiter
// line (or the end of the document), as one scope of kind k.
func (s *adocScanner) verbatim(i int, d string, k Kind) int {
	start := s.lines[i].start
	for j := i + 1; j < len(s.lines); j++ {
		ln := s.lines[j]
		if t := ln.text(s.src); string(t) == d {
			s.l.add(k, start, ln.start+len(t), false)
			return j + 1
		}
	}
	s.l.add(k, start, len(s.src), false)
	return len(s.lines)
}

// blockMacro records a block macro line ("image::a.png[Alt]"); name is the length of its name
// and "::".
func (s *adocScanner) blockMacro(start, end, name int) {
	macro := string(s.src[start : start+name-2])
	bracket := start + bytes.IndexByte(s.src[start+name:end], '[') + name
	switch macro {
	case "image", "video", "audio":
		s.l.add(Markup, start, start+name, false)
		s.l.add(URL, start+name, bracket, false)
		s.l.add(Markup, bracket, end, false)
	default:
		s.l.add(Markup, start, end, false)
	}
}

// tableLine records the cell separators of one line of a table (separator sep) and reads the
// inline syntax of each cell.
func (s *adocScanner) tableLine(start, end int, sep byte) {
	cell := start
	for i := start; i < end; i++ {
		if s.src[i] != sep || (i > start && s.src[i-1] == '\\') {
			continue
		}
		// The cell specifier before the separator ("2+", "a", ".3+^.^h"), at the start of the
		// line or after white space.
		k := i
		for k > cell && isCellSpecByte(s.src[k-1]) {
			k--
		}
		if k > start && !isSpace(s.src[k-1]) || !isCellSpec(s.src[k:i]) {
			k = i
		}
		s.inline(cell, k, 0)
		s.l.add(Markup, k, i+1, false)
		cell = i + 1
	}
	s.inline(cell, end, 0)
}

func isCellSpecByte(c byte) bool {
	return ('0' <= c && c <= '9') || strings.IndexByte(".+*<^>adehlmsv", c) >= 0
}

// isCellSpec reports whether b is a cell specifier: [span][align][style], such as "2+",
// "3*", ".2+^.^", "a", "h", "2.3+<.>m".
func isCellSpec(b []byte) bool {
	i := 0
	for i < len(b) && ('0' <= b[i] && b[i] <= '9' || b[i] == '.') {
		i++
	}
	if i < len(b) && (b[i] == '+' || b[i] == '*') {
		i++
	}
	for i < len(b) && strings.IndexByte("<^>.", b[i]) >= 0 {
		i++
	}
	if i < len(b) && strings.IndexByte("adehlmsv", b[i]) >= 0 {
		i++
	}
	return i == len(b)
}

// --- Line kinds ----------------------------------------------------------------------------

// isAdocComment reports whether a line is a comment line: "//" not followed by a third "/"
// (a line of four or more is a comment block delimiter; "///" starts a comment too).
func isAdocComment(t []byte) bool {
	if !bytes.HasPrefix(t, []byte("//")) {
		return false
	}
	if len(t) >= 4 && len(bytes.Trim(t, "/")) == 0 {
		return false
	}
	return true
}

// isPreprocessor reports whether a line is a preprocessor directive.
func isPreprocessor(t []byte) bool {
	for _, p := range []string{"include::", "ifdef::", "ifndef::", "ifeval::", "endif::"} {
		if bytes.HasPrefix(t, []byte(p)) && bytes.HasSuffix(t, []byte("]")) {
			return true
		}
	}
	return false
}

// isAttributeEntry reports whether a line is an attribute entry: ":name: value", ":name!:",
// ":!name:".
func isAttributeEntry(t []byte) bool {
	if len(t) < 3 || t[0] != ':' {
		return false
	}
	i := 1
	if t[i] == '!' {
		i++
	}
	n := i
	for i < len(t) && (isIdentByte(t[i]) || t[i] == '-') {
		i++
	}
	if i == n {
		return false
	}
	if i < len(t) && t[i] == '!' {
		i++
	}
	return i < len(t) && t[i] == ':' && (i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t')
}

// adocDelimiter reports whether a line delimits a block and returns the delimiter (the line)
// and, for a table in AsciiDoc's own syntax ("|===", "!==="), its cell separator.
func adocDelimiter(t []byte) (d string, sep byte, ok bool) {
	switch {
	case string(t) == "--":
		return "--", 0, true
	case bytes.HasPrefix(t, []byte("```")):
		if len(bytes.Trim(t, "`")) == 0 || isLanguage(t[3:]) {
			return "```", 0, true
		}
	case len(t) >= 4 && (t[0] == '|' || t[0] == '!') && len(bytes.Trim(t[1:], "=")) == 0:
		return string(t), t[0], true
	case len(t) >= 4 && (t[0] == ',' || t[0] == ':') && len(bytes.Trim(t[1:], "=")) == 0:
		return string(t), 0, true // CSV and DSV tables: their separators are punctuation of prose
	case len(t) >= 4 && strings.IndexByte("-.+/=*_", t[0]) >= 0 && len(bytes.Trim(t, string(t[0:1]))) == 0:
		return string(t), 0, true
	}
	return "", 0, false
}

// isLanguage reports whether b names a language after a "```" fence ("go", "c++", "shell").
func isLanguage(b []byte) bool {
	for _, c := range b {
		if !isIdentByte(c) && c != '-' && c != '+' && c != '#' && c != '.' && c != ',' {
			return false
		}
	}
	return true
}

// verbatimKind returns the kind of a block opened by delimiter d with the given style, and
// whether its content is verbatim (no AsciiDoc inside).
func verbatimKind(d, style string) (Kind, bool) {
	switch d[0] {
	case '-':
		if d == "--" { // an open block takes the style it is given
			switch style {
			case "source", "listing", "literal":
				return Code, true
			case "pass":
				return HTML, true
			case "comment":
				return Markup, true
			case "stem", "latexmath", "asciimath":
				return Math, true
			}
			return 0, false
		}
		return Code, true
	case '.', '`':
		return Code, true
	case '+':
		switch style {
		case "stem", "latexmath", "asciimath":
			return Math, true
		}
		return HTML, true
	case '/':
		return Markup, true
	}
	return 0, false
}

// isBlockAttributeLine reports whether a line is a block attribute list or a block anchor:
// "[source,go]", "[NOTE]", "[[id]]", "[#id.role]".
func isBlockAttributeLine(t []byte) bool {
	return len(t) >= 2 && t[0] == '[' && t[len(t)-1] == ']' && t[1] != ' ' && t[1] != '\t'
}

// blockStyle returns the lower-case style of a block attribute line (its first positional
// attribute without shorthands): "[source,go]" → "source"; "" when it has none.
func blockStyle(t []byte) string {
	if bytes.HasPrefix(t, []byte("[[")) {
		return ""
	}
	first := t[1 : len(t)-1]
	if i := bytes.IndexByte(first, ','); i >= 0 {
		first = first[:i]
	}
	if i := bytes.IndexAny(first, "#.%"); i >= 0 {
		first = first[:i]
	}
	if bytes.ContainsAny(first, "=\" '") {
		return ""
	}
	return strings.ToLower(string(first))
}

// isBlockTitle reports whether a line is a block title (".Title").
func isBlockTitle(t []byte) bool {
	return len(t) >= 2 && t[0] == '.' && t[1] != '.' && t[1] != ' ' && t[1] != '\t'
}

// isBreak reports whether a line is a thematic break ("”'", "---", "***", "- - -", "* * *")
// or a page break ("<<<").
func isBreak(t []byte) bool {
	switch string(t) {
	case "'''", "---", "***", "- - -", "* * *", "<<<":
		return true
	}
	return false
}

// blockMacro returns the length of the name and "::" of a block macro line
// ("image::a.png[Alt]", "toc::[]"), or 0.
func blockMacro(t []byte) int {
	i := 0
	for i < len(t) && (isIdentByte(t[i]) || t[i] == '-') {
		i++
	}
	if i == 0 || !bytes.HasPrefix(t[i:], []byte("::")) || t[len(t)-1] != ']' {
		return 0
	}
	rest := t[i+2:]
	b := bytes.IndexByte(rest, '[')
	if b < 0 || bytes.ContainsAny(rest[:b], " \t") {
		return 0
	}
	return i + 2
}

// adocSectionTitle returns the level of a section title line ("= Title" is 1, "== Title" 2;
// Markdown's "#" too) and the offset of its text, or 0.
func adocSectionTitle(t []byte) (level, at int) {
	if len(t) == 0 || (t[0] != '=' && t[0] != '#') {
		return 0, 0
	}
	i := 0
	for i < len(t) && t[i] == t[0] {
		i++
	}
	if i > 6 || i >= len(t) || (t[i] != ' ' && t[i] != '\t') {
		return 0, 0
	}
	j := i
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	if j == len(t) {
		return 0, 0
	}
	return i, j
}

// isAdocListItem reports whether a line (without its indentation) starts a list item: "* ",
// "- ", ". ", "1. ", "a. ", "<1> ", or a description list term ("CPU:: …").
func isAdocListItem(t []byte) bool {
	if len(t) == 0 {
		return false
	}
	i := 0
	switch c := t[0]; {
	case c == '*' || c == '.' || c == '-':
		for i < len(t) && t[i] == c {
			i++
		}
	case '0' <= c && c <= '9':
		for i < len(t) && '0' <= t[i] && t[i] <= '9' {
			i++
		}
		if i < len(t) && t[i] == '.' {
			i++
		} else {
			i = 0
		}
	case ('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') && len(t) > 1 && t[1] == '.':
		i = 2
	}
	if i > 0 && (i == len(t) || t[i] == ' ' || t[i] == '\t') {
		return true
	}
	if calloutMarker(t) > 0 {
		return true
	}
	for _, sep := range []string{"::", ";;", ":::", "::::"} {
		if k := bytes.Index(t, []byte(sep)); k > 0 && (k+len(sep) == len(t) || t[k+len(sep)] == ' ' || t[k+len(sep)] == '\t') {
			return true
		}
	}
	return false
}

// calloutMarker returns the length of a callout list marker and the space after it ("<1> ",
// "<.> ") at the start of a line, or 0.
func calloutMarker(t []byte) int {
	if len(t) < 4 || t[0] != '<' {
		return 0
	}
	i := 1
	if t[i] == '.' {
		i++
	} else {
		for i < len(t) && '0' <= t[i] && t[i] <= '9' {
			i++
		}
	}
	if i == 1 || i >= len(t) || t[i] != '>' || i+1 >= len(t) || (t[i+1] != ' ' && t[i+1] != '\t') {
		return 0
	}
	return i + 2
}

// --- Inline syntax -------------------------------------------------------------------------

// adocInline reads the inline syntax of one run of text.
type adocInline struct {
	s       *adocScanner
	end     int
	depth   int
	closers map[string]*closer
	bracket *closer
}

// inline reads the inline syntax of src[start:end].
func (s *adocScanner) inline(start, end, depth int) {
	if start >= end || depth > adocInlineDepth {
		return
	}
	in := &adocInline{s: s, end: end, depth: depth}
	in.run(start)
}

// close returns the first valid close of delim at or after from in the run, or -1.
func (in *adocInline) close(delim string, constrained bool, from int) int {
	key := delim
	if constrained {
		key += "c"
	}
	c := in.closers[key]
	if c == nil {
		if in.closers == nil {
			in.closers = map[string]*closer{}
		}
		src, end := in.s.src, in.end
		c = newCloser(delim, func(i int) bool {
			if i > 0 && isSpace(src[i-1]) {
				return false
			}
			if constrained {
				j := i + len(delim)
				return j >= end || !isWordByte(src[j]) && src[j] != delim[0]
			}
			return true
		})
		in.closers[key] = c
	}
	return c.next(in.s.src, from, in.end)
}

// closeBracket returns the "]" that closes a "[" at open (not escaped), or -1.
func (in *adocInline) closeBracket(open int) int {
	if in.bracket == nil {
		src := in.s.src
		in.bracket = newCloser("]", func(i int) bool { return src[i-1] != '\\' })
	}
	return in.bracket.next(in.s.src, open+1, in.end)
}

// find returns the first delim at or after from in the run, or -1.
func (in *adocInline) find(delim string, from int) int {
	key := "=" + delim
	c := in.closers[key]
	if c == nil {
		if in.closers == nil {
			in.closers = map[string]*closer{}
		}
		c = newCloser(delim, nil)
		in.closers[key] = c
	}
	return c.next(in.s.src, from, in.end)
}

// lineEnd returns the end of the line of the run that p is on.
func (in *adocInline) lineEnd(p int) int {
	end := in.end
	if e := in.find("\n", p); e >= 0 {
		end = e
	}
	if e := in.find("\r", p); e >= 0 && e < end {
		end = e
	}
	return end
}

func (in *adocInline) add(k Kind, start, end int, placeholder bool) {
	in.s.l.add(k, start, end, placeholder)
}

// run scans from start to the end of the run.
func (in *adocInline) run(start int) {
	src, end := in.s.src, in.end
	for p := start; p < end; {
		c := src[p]
		boundary := p == 0 || !isWordByte(src[p-1])
		switch {
		case c == '\\':
			p += 2
			continue
		case c == '`':
			if n := in.backtick(p, boundary); n > p {
				p = n
				continue
			}
		case c == '+':
			if n := in.plus(p, boundary); n > p {
				p = n
				continue
			}
		case c == '<':
			if n := in.angle(p); n > p {
				p = n
				continue
			}
		case c == '[':
			if n := in.bracketSyntax(p); n > p {
				p = n
				continue
			}
		case c == '(' && bytes.HasPrefix(src[p:end], []byte("(((")):
			if e := in.find(")))", p+3); e >= 0 {
				in.add(Markup, p, e+3, false)
				p = e + 3
				continue
			}
		case c == '{' && boundary:
			if n := in.attributeLink(p); n > p {
				p = n
				continue
			}
		case isIdentByte(c) && boundary:
			if n := in.word(p); n > p {
				p = n
				continue
			}
			// Skip the rest of the word: nothing starts inside it.
			q := p + 1
			for q < end && isWordByte(src[q]) {
				q++
			}
			p = q
			continue
		}
		p++
	}
}

// backtick reads a literal at p ("“x“" anywhere, "`x`" at a word boundary) or curved quotes
// ("\"`x`\""), and returns where scanning goes on (p when there is none).
func (in *adocInline) backtick(p int, boundary bool) int {
	src, end := in.s.src, in.end
	if p > 0 && (src[p-1] == '"' || src[p-1] == '\'') {
		// Curved quotes: "`text`" and '`text`' are quotation marks, not code.
		if e := in.close("`"+string(src[p-1]), false, p+1); e >= 0 {
			in.add(Markup, p-1, p+1, false)
			in.s.inline(p+1, e, in.depth+1)
			in.add(Markup, e, e+2, false)
			return e + 2
		}
	}
	if p+1 < end && src[p+1] == '`' {
		if e := in.close("``", false, p+3); e >= 0 {
			in.add(InlineCode, p, e+2, true)
			return e + 2
		}
		return p + 2
	}
	if boundary && p+1 < end && !isSpace(src[p+1]) {
		if e := in.close("`", true, p+1); e >= 0 {
			in.add(InlineCode, p, e+1, true)
			return e + 1
		}
	}
	return p
}

// plus reads a passthrough at p: "+++x+++" (html), "++x++" and "+x+" (inlinecode).
func (in *adocInline) plus(p int, boundary bool) int {
	src, end := in.s.src, in.end
	switch {
	case bytes.HasPrefix(src[p:end], []byte("+++")):
		if e := in.close("+++", false, p+4); e >= 0 {
			in.add(HTML, p, e+3, true)
			return e + 3
		}
		return p + 3
	case bytes.HasPrefix(src[p:end], []byte("++")):
		if e := in.close("++", false, p+3); e >= 0 {
			in.add(InlineCode, p, e+2, true)
			return e + 2
		}
		return p + 2
	case boundary && p+1 < end && !isSpace(src[p+1]):
		if e := in.close("+", true, p+2); e >= 0 {
			in.add(InlineCode, p, e+1, true)
			return e + 1
		}
	}
	return p
}

// angle reads "<<id>>" or "<<id,text>>", "<https://…>" and a callout "<1>".
func (in *adocInline) angle(p int) int {
	src, end := in.s.src, in.end
	if bytes.HasPrefix(src[p:end], []byte("<<")) && p+2 < end && !isSpace(src[p+2]) {
		e := in.close(">>", false, p+3)
		if e < 0 {
			return p + 2
		}
		id := src[p+2 : e]
		comma := bytes.IndexByte(id, ',')
		if comma >= 0 {
			id = id[:comma]
		}
		if bytes.ContainsAny(id, " \t\r\n") {
			return p + 2
		}
		if comma >= 0 {
			in.add(URL, p, p+2+comma+1, false)
			in.s.inline(p+2+comma+1, e, in.depth+1)
			in.add(Markup, e, e+2, false)
		} else {
			in.add(URL, p, e+2, true)
		}
		return e + 2
	}
	if p+1 < end && urlBoundary(src, p+1) {
		if e := urlAt(src, p+1, end, ">"); e > 0 && e < end && src[e] == '>' {
			in.add(URL, p, e+1, true)
			return e + 1
		}
	}
	i := p + 1
	for i < end && ('0' <= src[i] && src[i] <= '9') {
		i++
	}
	if i == p+1 && i < end && src[i] == '.' {
		i++
	}
	if i > p+1 && i < end && src[i] == '>' && (p == 0 || src[p-1] == ' ' || src[p-1] == '\t' || src[p-1] == '\n') {
		in.add(Markup, p, i+1, false)
		return i + 1
	}
	return p
}

// bracketSyntax reads an inline anchor ("[[id]]", "[[[ref]]]") or an attribute list before
// formatted text ("[.role]#text#").
func (in *adocInline) bracketSyntax(p int) int {
	src, end := in.s.src, in.end
	lineEnd := in.lineEnd(p)
	if bytes.HasPrefix(src[p:end], []byte("[[")) {
		if e := in.find("]]", p+2); e > p+2 && e < lineEnd {
			e += 2
			for e < lineEnd && src[e] == ']' {
				e++
			}
			in.add(Markup, p, e, false)
			return e
		}
		return p + 2
	}
	e := in.find("]", p+1)
	if e <= p+1 || e >= lineEnd {
		return p
	}
	if e+1 < end && strings.IndexByte("#*_`", src[e+1]) >= 0 && !bytes.ContainsAny(src[p+1:e], " \t[") {
		in.add(Markup, p, e+1, false)
		return e + 1
	}
	return p
}

// attributeLink reads an attribute reference used as a link target: "{url-repo}/path[text]".
func (in *adocInline) attributeLink(p int) int {
	src, end := in.s.src, in.end
	i := p + 1
	for i < end && (isIdentByte(src[i]) || src[i] == '-') {
		i++
	}
	if i == p+1 || i >= end || src[i] != '}' {
		return p
	}
	j := i + 1
	for j < end && !isSpace(src[j]) && src[j] != '[' {
		j++
	}
	if j < end && src[j] == '[' {
		if n := in.linkBrackets(p, j); n > p {
			return n
		}
	}
	return i + 1
}

// word reads what may start at a word: an inline macro ("link:x[y]", "kbd:[Ctrl]"), a URL
// (bare or before "[text]") or an email address. It returns where scanning goes on (p when
// there is nothing).
func (in *adocInline) word(p int) int {
	src, end := in.s.src, in.end
	if e, _ := linkAt(src, p, end, "["); e > 0 {
		if e < end && src[e] == '[' {
			if n := in.linkBrackets(p, e); n > p {
				return n
			}
		}
		in.add(URL, p, e, true)
		return e
	}
	i := p
	for i < end && (isIdentByte(src[i]) || src[i] == '-') {
		i++
	}
	if i >= end || src[i] != ':' || i+1 >= end || src[i+1] == ':' {
		return p
	}
	name := string(src[p:i])
	// The target runs to "[" (no white space).
	t := i + 1
	for t < end && !isSpace(src[t]) && src[t] != '[' {
		t++
	}
	if t >= end || src[t] != '[' {
		return p
	}
	target := t > i+1
	switch name {
	case "pass":
		if e := in.closeBracket(t); e >= 0 {
			in.add(HTML, p, e+1, true)
			return e + 1
		}
	case "stem", "latexmath", "asciimath":
		if e := in.closeBracket(t); e >= 0 && !target {
			in.add(Math, p, e+1, true)
			return e + 1
		}
	case "kbd":
		if e := in.closeBracket(t); e >= 0 && !target {
			in.add(InlineCode, p, e+1, true)
			return e + 1
		}
	case "btn", "footnote", "footnoteref", "indexterm2":
		if e := in.closeBracket(t); e >= 0 {
			in.add(Markup, p, t+1, false)
			in.s.inline(t+1, e, in.depth+1)
			in.add(Markup, e, e+1, false)
			return e + 1
		}
	case "anchor", "indexterm":
		if e := in.closeBracket(t); e >= 0 {
			in.add(Markup, p, e+1, false)
			return e + 1
		}
	case "image", "icon":
		if e := in.closeBracket(t); e >= 0 && target {
			in.add(Markup, p, i+1, false)
			in.add(URL, i+1, t, false)
			in.add(Markup, t, e+1, false)
			return e + 1
		}
	case "link", "xref", "mailto":
		if target {
			if n := in.linkBrackets(p, t); n > p {
				return n
			}
		}
	}
	return p
}

// linkBrackets records a link whose target is src[p:open] and whose text is in the brackets at
// open: the target is a URL, the text prose, its named attributes and a trailing "^" markup.
// It returns where scanning goes on (p when the brackets do not close).
func (in *adocInline) linkBrackets(p, open int) int {
	src := in.s.src
	e := in.closeBracket(open)
	if e < 0 {
		return p
	}
	in.add(URL, p, open, false)
	text, textEnd := open+1, e
	content := src[text:e]
	switch {
	case bytes.HasPrefix(content, []byte{'"'}):
		if q := bytes.IndexByte(content[1:], '"'); q >= 0 {
			in.add(Markup, open, text+1, false)
			text, textEnd = text+1, text+1+q
		}
	case bytes.IndexByte(content, '=') >= 0:
		if c := bytes.IndexByte(content, ','); c >= 0 && bytes.IndexByte(content[:c], '=') < 0 {
			textEnd = text + c
		} else {
			textEnd = text // only attributes
		}
	}
	if textEnd > text && src[textEnd-1] == '^' {
		textEnd--
	}
	if text == open+1 {
		in.add(Markup, open, open+1, false)
	}
	in.s.inline(text, textEnd, in.depth+1)
	in.add(Markup, textEnd, e+1, false)
	return e + 1
}
