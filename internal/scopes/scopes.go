// Package scopes finds the parts of a document that are not prose — code, URLs, HTML, MDX
// syntax, math, front matter, AsciiDoc and reStructuredText markup — and hides them from prose
// checks without moving anything (spec/linter.md §9 and §14).
//
// Find reads Markdown with goldmark's own parser (CommonMark with GitHub's tables,
// strikethrough and bare-URL links) extended with parsers for what goldmark does not know: MDX
// ESM lines, JSX tags and {expressions}, math, admonition fences and TOML front matter. Every
// position comes from the parser's reader, not from a regex over the text. AsciiDoc and
// reStructuredText are read by line scanners of this package (asciidoc.go, rst.go), HTML by
// golang.org/x/net/html's tokenizer (html.go), plain text for its URLs only (urls.go). Mask
// blanks scopes in place, keeping the length and every line break, so that offsets into the
// masked text are offsets into the file; Show builds the text a model is sent, with each line
// where it was.
package scopes

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Kind is a kind of scope. The kinds that SkippedScopes names have a Name; the regex ignores
// of the configuration do not.
type Kind uint8

// Kinds of scope.
const (
	// Code is a fenced or indented code block, its fence lines included.
	Code Kind = iota + 1
	// InlineCode is a code span, backticks included.
	InlineCode
	// URL is an autolink (<https://…>), a bare URL or email address, the destination of a
	// link or image ("(https://…)", the text stays) or a link reference definition line.
	URL
	// HTML is a raw HTML block, an inline HTML tag or an HTML comment.
	HTML
	// MDX is MDX and docs-site syntax: import/export lines, JSX tags (their prose children
	// are not part of them), {expressions} and {/* comments */}, and the :::name lines of
	// admonitions.
	MDX
	// Math is a $$ block or $…$ inline math.
	Math
	// Frontmatter is a TOML front matter block (+++ … +++) at the top of the text, or the
	// author, revision and attribute lines of an AsciiDoc document header.
	Frontmatter
	// Markup is the syntax of AsciiDoc and reStructuredText that is neither code, a URL nor
	// math: comments, attribute entries, block attribute and anchor lines, preprocessor
	// directives, block delimiters and table cell separators, directive names and options,
	// substitution definitions, section adornment lines, the markers around roles and
	// references.
	Markup
	// BlockIgnore is a match of a BlockIgnores regex, widened to whole lines.
	BlockIgnore
	// TokenIgnore is a match of a TokenIgnores regex.
	TokenIgnore
)

// Names returns the names SkippedScopes accepts, in the order the documentation lists them.
func Names() []string {
	return []string{"code", "inlinecode", "urls", "html", "mdx", "math", "frontmatter", "markup"}
}

// Name is the kind's name in SkippedScopes ("" for the regex ignores).
func (k Kind) Name() string {
	if k >= Code && k <= Markup {
		return Names()[k-Code]
	}
	return ""
}

// String names the kind in messages.
func (k Kind) String() string {
	switch k {
	case BlockIgnore:
		return "BlockIgnores"
	case TokenIgnore:
		return "TokenIgnores"
	}
	if n := k.Name(); n != "" {
		return n
	}
	return "unknown"
}

// ParseName returns the kind a SkippedScopes name stands for (case-insensitive).
func ParseName(name string) (Kind, bool) {
	for i, n := range Names() {
		if strings.EqualFold(n, name) {
			return Code + Kind(i), true
		}
	}
	return 0, false
}

// Scope is one part of a document that is not prose.
type Scope struct {
	Kind Kind
	// Start and End are byte offsets into the text searched, End exclusive.
	Start, End int
	// Placeholder marks a scope that stands for a word of its sentence (a code span, a bare
	// URL, inline math, an inline expression, a TokenIgnores match): Show writes Placeholder
	// in its place. The others (blocks, tags, link destinations, comments) are left out.
	Placeholder bool
}

// PlaceholderText is what Show writes in place of a scope with Placeholder set.
const PlaceholderText = "`…`"

// Syntax is how a document's markup is read: its format (spec/linter.md §14).
type Syntax uint8

// Syntaxes.
const (
	// SyntaxPlain is plain text: its URLs are its only scopes.
	SyntaxPlain Syntax = iota
	// SyntaxMarkdown is CommonMark with GitHub's extensions.
	SyntaxMarkdown
	// SyntaxMDX is Markdown with MDX's ESM, JSX and expressions, and without indented code
	// (MDX has none: indentation is how JSX children are laid out).
	SyntaxMDX
	// SyntaxAsciiDoc is AsciiDoc as Asciidoctor reads it.
	SyntaxAsciiDoc
	// SyntaxRST is reStructuredText as docutils and Sphinx read it.
	SyntaxRST
	// SyntaxHTML is HTML (and XHTML) as the HTML5 tokenizer reads it.
	SyntaxHTML
)

// FormatNames returns the names the Format key accepts, in the order the documentation lists
// them.
func FormatNames() []string {
	return []string{"markdown", "mdx", "asciidoc", "rst", "html", "text"}
}

// ParseFormat returns the syntax a Format name stands for (case-insensitive).
func ParseFormat(name string) (Syntax, bool) {
	for s := SyntaxPlain; s <= SyntaxHTML; s++ {
		if strings.EqualFold(s.FormatName(), name) {
			return s, true
		}
	}
	return 0, false
}

// FormatName is the syntax's name in the Format key ("text" for plain text).
func (s Syntax) FormatName() string {
	switch s {
	case SyntaxPlain:
		return "text"
	case SyntaxMarkdown:
		return "markdown"
	case SyntaxMDX:
		return "mdx"
	case SyntaxAsciiDoc:
		return "asciidoc"
	case SyntaxRST:
		return "rst"
	case SyntaxHTML:
		return "html"
	}
	return ""
}

// SyntaxOf returns the syntax of a file by its extension (case-insensitive): .mdx is MDX;
// .md, .markdown, .mdown, .mkd, .mkdn and .mdwn are Markdown; .adoc, .asciidoc and .asc are
// AsciiDoc; .rst and .rest are reStructuredText; .html, .htm and .xhtml are HTML; anything
// else (.txt, no extension) is plain text.
func SyntaxOf(path string) Syntax {
	ext := ""
	if i := strings.LastIndexByte(path, '.'); i >= 0 && !strings.ContainsAny(path[i:], `/\`) {
		ext = strings.ToLower(path[i+1:])
	}
	switch ext {
	case "mdx":
		return SyntaxMDX
	case "md", "markdown", "mdown", "mkd", "mkdn", "mdwn":
		return SyntaxMarkdown
	case "adoc", "asciidoc", "asc":
		return SyntaxAsciiDoc
	case "rst", "rest":
		return SyntaxRST
	case "html", "htm", "xhtml":
		return SyntaxHTML
	}
	return SyntaxPlain
}

// String names the syntax in messages.
func (s Syntax) String() string {
	switch s {
	case SyntaxMarkdown:
		return "Markdown"
	case SyntaxMDX:
		return "MDX"
	case SyntaxAsciiDoc:
		return "AsciiDoc"
	case SyntaxRST:
		return "reStructuredText"
	case SyntaxHTML:
		return "HTML"
	}
	return "plain text"
}

// Sort orders scopes by start, then end.
func Sort(ss []Scope) {
	slices.SortFunc(ss, func(a, b Scope) int {
		if a.Start != b.Start {
			return a.Start - b.Start
		}
		return a.End - b.End
	})
}

// Mask returns text with every byte of the scopes blanked: a space, except line breaks ("\n"
// and "\r"), which stay. The result has text's length and line breaks, so an offset into it is
// an offset into text, and it is valid UTF-8 when text is: a scope that starts or ends inside
// a character blanks the whole character. base is the offset of text in the coordinates of the
// scopes; parts of scopes outside text are ignored. text is returned as it is when no scope
// touches it.
func Mask(text string, base int, ss []Scope) string {
	var b []byte
	for _, s := range ss {
		start, end := max(s.Start-base, 0), min(s.End-base, len(text))
		if start >= end {
			continue
		}
		if b == nil {
			b = []byte(text)
		}
		for start > 0 && !utf8.RuneStart(b[start]) {
			start--
		}
		for end < len(b) && !utf8.RuneStart(b[end]) {
			end++
		}
		for i := start; i < end; i++ {
			if b[i] != '\n' && b[i] != '\r' {
				b[i] = ' '
			}
		}
	}
	if b == nil {
		return text
	}
	return string(b)
}

// Show returns the text a model is sent for text (at offset base in the scopes' coordinates):
// each scope's bytes are left out, and a scope with Placeholder set that starts inside text is
// written as PlaceholderText where it starts. Line breaks are kept as they are, so every line
// keeps its number and every prose character its line; a line that lost bytes to a scope and
// holds nothing but white space otherwise is sent empty (a code block's lines are empty
// lines; one that would join a lone "\r" and a "\n" into "\r\n" keeps a space). changed
// reports whether anything was left out; when it is false, text is returned as it is.
func Show(text string, base int, ss []Scope) (shown string, changed bool) {
	// The scopes that touch text, clipped to it, in order.
	var parts []Scope
	for _, s := range ss {
		start, end := max(s.Start-base, 0), min(s.End-base, len(text))
		if start >= end {
			continue
		}
		parts = append(parts, Scope{Kind: s.Kind, Start: start, End: end, Placeholder: s.Placeholder && s.Start-base >= 0})
	}
	if len(parts) == 0 {
		return text, false
	}
	Sort(parts)
	var (
		out     strings.Builder
		line    strings.Builder // the current line's shown bytes
		touched bool            // the current line lost bytes to a scope
		next    int             // the first part not yet passed
		end     = -1            // end of the union of the parts covering the current byte
	)
	out.Grow(len(text))
	// flush ends the current line before the line break next (0 at the end of the text).
	flush := func(next byte) {
		l := line.String()
		switch {
		case !touched || strings.TrimSpace(l) != "":
			out.WriteString(l)
		case next == '\n' && strings.HasSuffix(out.String(), "\r"):
			// An empty line between a lone "\r" and a "\n" would join them into one line
			// break ("\r\n"): it keeps a space.
			out.WriteByte(' ')
		}
		line.Reset()
		touched = false
	}
	for i := 0; i < len(text); {
		// The parts that start here: one placeholder, when one of them has it and no earlier
		// part covers this byte.
		covered, wrote := i < end, false
		for next < len(parts) && parts[next].Start <= i {
			p := parts[next]
			if p.Placeholder && p.Start == i && !covered && !wrote {
				line.WriteString(PlaceholderText)
				wrote = true
			}
			end = max(end, p.End)
			next++
		}
		c := text[i]
		if c == '\n' || c == '\r' {
			flush(c)
			out.WriteByte(c)
			i++
			continue
		}
		if i < end {
			touched = true
			i++
			continue
		}
		// A whole character, so a part that starts inside it (which Mask would widen) does not
		// cut it.
		_, size := utf8.DecodeRuneInString(text[i:])
		line.WriteString(text[i : i+size])
		i += size
	}
	flush(0)
	return out.String(), true
}

// Union merges overlapping scopes into one list of disjoint ranges, sorted (kinds and
// placeholders are those of the first scope of each range).
func Union(ss []Scope) []Scope {
	if len(ss) == 0 {
		return nil
	}
	sorted := slices.Clone(ss)
	Sort(sorted)
	out := sorted[:1]
	for _, s := range sorted[1:] {
		last := &out[len(out)-1]
		if s.Start < last.End {
			last.End = max(last.End, s.End)
			continue
		}
		out = append(out, s)
	}
	return out
}

// Contains reports whether offset lies in one of the scopes (which Union made disjoint and
// sorted).
func Contains(union []Scope, offset int) bool {
	i, _ := slices.BinarySearchFunc(union, offset, func(s Scope, off int) int {
		switch {
		case s.End <= off:
			return -1
		case s.Start > off:
			return 1
		}
		return 0
	})
	return i < len(union) && union[i].Start <= offset && offset < union[i].End
}
