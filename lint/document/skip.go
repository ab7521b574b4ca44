package document

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/jsregex"
	"github.com/vectorlint/vectorlint/internal/scopes"
)

// Skipped scopes (spec/linter.md §9): the parts of a document that are not prose — code, URLs,
// HTML, MDX syntax, math, front matter, and what BlockIgnores and TokenIgnores match — are
// found once per document (internal/scopes, with goldmark's parser) and skipped by every check:
//
//   - Document.prose is the body with them blanked (same length, same line breaks): targets
//     and checklist points run on it, units and chunks are cut from it, so no deterministic
//     check can match inside them and every offset is still an offset into the file;
//   - the model is sent each chunk as scopes.Show makes it (ModelText): skipped bytes left
//     out, every line where it was, "`…`" where a code span or a URL stood in a sentence;
//   - a quote the model copied from a skipped scope is located in the file's own text and
//     dropped by the filter as ignored (counted, in JSON, under "ignored").

// ScopeNames are the names SkippedScopes accepts, in order; a section that does not set
// SkippedScopes skips all of them.
func ScopeNames() []string { return scopes.Names() }

// ScopeSettings are what a file's lint skips: the scope names of the most specific matching
// section that sets SkippedScopes (all of them when none does), and the BlockIgnores and
// TokenIgnores patterns of every matching section.
type ScopeSettings struct {
	// Skipped are the names of the skipped scope kinds (ScopeNames); empty: none.
	Skipped []string
	// BlockIgnores match whole blocks (a match is widened to whole lines); TokenIgnores match
	// inline spans.
	BlockIgnores []*IgnorePattern
	TokenIgnores []*IgnorePattern
	// Format is the format named by the most specific matching section that sets Format
	// ("" when none does: the extension decides; see Syntax).
	Format string
}

// DefaultScopeSettings skip every scope kind and have no ignore patterns.
func DefaultScopeSettings() ScopeSettings { return ScopeSettings{Skipped: ScopeNames()} }

// IgnorePattern is one regex of BlockIgnores or TokenIgnores, in JavaScript syntax. A leading
// inline-flag group as Vale's examples write ("(?s)", "(?i)", "(?m)") sets the flags.
type IgnorePattern struct {
	// Key is BlockIgnores or TokenIgnores; Source the pattern as written; File and Line where.
	Key    string
	Source string
	File   string
	Line   int
	// Regexp is the compiled pattern.
	Regexp *jsregex.Regexp
}

// CompileIgnorePattern compiles source, a JavaScript regular expression (with its inline flags,
// "(?s)"), written as the value of key at file:line. Its error is jsregex's (a
// *jsregex.SyntaxError says why).
func CompileIgnorePattern(key, source, file string, line int) (*IgnorePattern, error) {
	pattern, flags := jsregex.SplitInlineFlags(source)
	re, err := jsregex.Compile(pattern, flags)
	if err != nil {
		return nil, err
	}
	return &IgnorePattern{Key: key, Source: source, File: file, Line: line, Regexp: re}, nil
}

// The section keys of vectorlint.ini that set a document's skipped scopes (an IgnorePattern's
// Key is one of the last two).
const (
	KeySkippedScopes = "SkippedScopes"
	KeyBlockIgnores  = "BlockIgnores"
	KeyTokenIgnores  = "TokenIgnores"
)

// String is the pattern as written.
func (p *IgnorePattern) String() string { return p.Source }

// findScopes finds the scopes of a new document's body (every kind; SkipScopes picks what is
// skipped). A document whose markup cannot be read as expected keeps none and gets ScopeError.
func (d *Document) findScopes() {
	res, err := scopes.Scan([]byte(d.Body), d.syntax)
	if err != nil {
		var pe *scopes.ParseError
		line := 0
		if errors.As(err, &pe) && pe.Line > 0 {
			line = d.Position(d.BodyOffset).Line + pe.Line - 1
		}
		where := d.Path
		if line > 0 {
			where += ":" + strconv.Itoa(line)
		}
		reason := err.Error()
		if pe != nil {
			reason = pe.Reason
		}
		d.ScopeError = fmt.Errorf("%s: %s: the %s markup could not be read as expected, so its code, URLs and markup are linted as prose",
			where, reason, d.syntax)
		return
	}
	d.scopes, d.comments, d.headings = res.Scopes, res.Comments, res.Headings
	for _, list := range [][]scopes.Scope{d.scopes, d.comments} {
		for i := range list {
			list[i].Start += d.BodyOffset
			list[i].End += d.BodyOffset
		}
	}
	for i := range d.headings {
		d.headings[i].Markup += d.BodyOffset
		d.headings[i].Start += d.BodyOffset
		d.headings[i].End += d.BodyOffset
	}
}

// SkipScopes sets what the lint of the document skips: the scopes of the kinds s names, and
// the matches of its ignore patterns (run on the body). Targets, units and checklist points
// then see the body with them blanked, and the model does not see them. A pattern that takes
// too long is an error naming it and where it is set.
func (d *Document) SkipScopes(s ScopeSettings) error {
	kinds := map[scopes.Kind]bool{}
	for _, n := range s.Skipped {
		if k, ok := scopes.ParseName(n); ok {
			kinds[k] = true
		}
	}
	var skip []scopes.Scope
	for _, sc := range d.scopes {
		if kinds[sc.Kind] {
			skip = append(skip, sc)
		}
	}
	for _, list := range [][]*IgnorePattern{s.BlockIgnores, s.TokenIgnores} {
		for _, p := range list {
			ms, err := p.Regexp.FindAllStringMatch(d.Body, -1)
			if err != nil {
				return fmt.Errorf("%s: %s %s (%s:%d): %w", d.Path, p.Key, strconv.Quote(p.Source), p.File, p.Line, err)
			}
			for _, m := range ms {
				g := m.Groups[0]
				start, end := g.ByteStart, g.ByteEnd
				if start == end {
					continue
				}
				sc := scopes.Scope{Kind: scopes.TokenIgnore, Start: d.BodyOffset + start, End: d.BodyOffset + end, Placeholder: true}
				if p.Key == KeyBlockIgnores {
					sc = scopes.Scope{Kind: scopes.BlockIgnore, Start: d.LineStart(d.Position(sc.Start).Line), End: d.lineEnd(sc.End - 1)}
				}
				skip = append(skip, sc)
			}
		}
	}
	scopes.Sort(skip)
	d.skipped = skip
	d.skippedEnd = make([]int, len(skip))
	for i, sc := range skip {
		d.skippedEnd[i] = sc.End
		if i > 0 {
			d.skippedEnd[i] = max(sc.End, d.skippedEnd[i-1])
		}
	}
	d.prose = scopes.Mask(d.Body, d.BodyOffset, skip)
	return nil
}

// skippedIn returns the skipped scopes that touch [start, end) of Source (and maybe a few
// more), found by binary search: a long document's chunks each look at their own.
func (d *Document) skippedIn(start, end int) []scopes.Scope {
	i := sort.SearchInts(d.skippedEnd, start+1) // the first scope that may end after start
	j := sort.Search(len(d.skipped), func(k int) bool { return d.skipped[k].Start >= end })
	if i >= j {
		return nil
	}
	return d.skipped[i:j]
}

// lineEnd is the offset of the end of the line offset is on, before its line break.
func (d *Document) lineEnd(offset int) int {
	for offset < len(d.Source) && d.Source[offset] != '\n' && d.Source[offset] != '\r' {
		offset++
	}
	return offset
}

// Prose is the body with the skipped scopes blanked (SkipScopes): the same length and line
// breaks as Body, so its offsets are Body's. It is Body when nothing is skipped.
func (d *Document) Prose() string {
	if d.skipped == nil {
		return d.Body
	}
	return d.prose
}

// masked reports whether the lint of the document skips anything.
func (d *Document) masked() bool { return len(d.skipped) > 0 }

// InSkipped reports whether a span of Source holds no prose: every byte of it that is not
// white space lies in a skipped scope.
func (d *Document) InSkipped(s Span) bool {
	if !d.masked() || s.Start < d.BodyOffset || s.End > len(d.Source) || s.Start >= s.End {
		return false
	}
	return strings.TrimSpace(d.prose[s.Start-d.BodyOffset:s.End-d.BodyOffset]) == "" &&
		strings.TrimSpace(string(d.Source[s.Start:s.End])) != ""
}

// codeScopes returns the code blocks and code spans of the document, disjoint and sorted,
// whatever is skipped: a control comment in them is an example, not a control.
func (d *Document) codeScopes() []scopes.Scope { return codeOf(d.scopes) }

// codeOf returns the code blocks and code spans of found, disjoint and sorted.
func codeOf(found []scopes.Scope) []scopes.Scope {
	var code []scopes.Scope
	for _, s := range found {
		if s.Kind == scopes.Code || s.Kind == scopes.InlineCode {
			code = append(code, s)
		}
	}
	return scopes.Union(code)
}

// ProseWords is the number of words of the body as the model would be sent it (Prose with the
// skipped scopes left out, ModelText): 0 for an empty document, front matter only, or a
// document whose every line is code or markup.
func (d *Document) ProseWords() int {
	shown, _ := d.ModelText(d.Prose(), d.BodyOffset)
	return CountWords(shown)
}

// ModelText is the text the model is sent for the text of a unit or chunk (a piece of the
// document's prose at offset): skipped scopes left out, lines kept. placeholders reports
// whether it holds placeholders for them (text is returned as it is when nothing is skipped).
func (d *Document) ModelText(text string, offset int) (shown string, placeholders bool) {
	if d == nil || !d.masked() {
		return text, false
	}
	shown, changed := scopes.Show(text, offset, d.skippedIn(offset, offset+len(text)))
	return shown, changed && strings.Contains(shown, scopes.PlaceholderText)
}

// HiddenLines tells, for each line of the text of a unit or chunk at offset (lines as
// Document counts them: "\n", "\r\n", a lone "\r"; a final line break starts no line), whether
// it lies wholly inside skipped scopes: a fenced block's lines, fences and blank lines
// included. Such a line is left out of what the model is sent, the others keeping their
// numbers (spec/linter.md §13). It is nil when nothing is skipped in the text.
func (d *Document) HiddenLines(text string, offset int) []bool {
	if d == nil || !d.masked() {
		return nil
	}
	parts := d.skippedIn(offset, offset+len(text))
	if len(parts) == 0 {
		return nil
	}
	var hidden []bool
	some := false
	start := 0
	line := func(end int) {
		h := covered(parts, offset+start, offset+end)
		some = some || h
		hidden = append(hidden, h)
	}
	for i := 0; i < len(text); i++ {
		if c := text[i]; c == '\n' || c == '\r' {
			line(i)
			if c == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(text) {
		line(len(text))
	}
	if !some {
		return nil
	}
	return hidden
}

// covered reports whether [a, b) of Source lies wholly inside the union of parts (sorted by
// start); an empty line (a == b) is covered when a scope runs past it.
func covered(parts []scopes.Scope, a, b int) bool {
	if a == b {
		for _, p := range parts {
			if p.Start <= a && a < p.End {
				return true
			}
		}
		return false
	}
	at := a
	for _, p := range parts {
		if p.Start > at {
			break
		}
		if p.End > at {
			at = p.End
		}
		if at >= b {
			return true
		}
	}
	return false
}

// LocateQuote finds a violation's quote for the locate stage. In a document with skipped
// scopes it looks first in the text the model was shown (shownChunk): a quote copied from it
// ("[Node.js-based API], this", "run `…` first"), or from the text it renders to, is found there
// and mapped back to the file, the skipped scopes inside included. Such a match holds text the
// model was not shown, so it is at best a normalised match (no fix as an edit, edit.go). A quote
// not found there, or only fuzzily, is looked for in the chunk's prose and then the file
// (locateSkipped).
func (d *Document) LocateQuote(c Chunk, v Quote) (Span, LocateMethod) {
	if d.masked() {
		if sc, ok := d.shownChunk(c); ok {
			if s, m := Locate(sc.chunk, v); m != NotLocated && m != LocatedFuzzy {
				span := sc.source(s)
				if d.skipsWithin(span) {
					m = max(m, LocatedNormalized)
				}
				return span, m
			}
		}
	}
	span, m := Locate(c, v)
	return d.locateSkipped(c, v, span, m)
}

// shownText is a chunk as the model was shown it (Document.modelText, scopes.Show: skipped
// scopes left out, a placeholder where a code span or a URL stood, every line break kept), with
// the span of Source each of its bytes stands for.
type shownText struct {
	chunk    Chunk // Text is the shown text, Offset 0
	from, to []int // per byte of chunk.Text
}

// shownChunk returns the chunk as the model was shown it; ok is false when no skipped scope
// touches it (the model was shown the chunk as it is).
func (d *Document) shownChunk(c Chunk) (shownText, bool) {
	parts := d.skippedIn(c.Offset, c.Offset+len(c.Text))
	if len(parts) == 0 {
		return shownText{}, false
	}
	var (
		b        strings.Builder
		from, to []int
		next     int // the first part not yet passed
		end      = -1
	)
	b.Grow(len(c.Text))
	for i := 0; i < len(c.Text); {
		at := c.Offset + i
		covered, wrote := at < end, false
		for next < len(parts) && parts[next].Start <= at {
			p := parts[next]
			if p.Placeholder && p.Start == at && !covered && !wrote {
				// Every byte of the placeholder stands for the whole scope.
				b.WriteString(scopes.PlaceholderText)
				for range len(scopes.PlaceholderText) {
					from, to = append(from, p.Start), append(to, p.End)
				}
				wrote = true
			}
			end = max(end, p.End)
			next++
		}
		size := 1
		if ch := c.Text[i]; ch != '\n' && ch != '\r' {
			if at < end {
				i++
				continue
			}
			// A whole character, as scopes.Show writes it.
			_, size = utf8.DecodeRuneInString(c.Text[i:])
		}
		b.WriteString(c.Text[i : i+size])
		for k := range size {
			from, to = append(from, at+k), append(to, at+k+1)
		}
		i += size
	}
	return shownText{chunk: Chunk{Text: b.String(), Line: c.Line}, from: from, to: to}, true
}

// source maps a span of the shown text to the file: from where its first byte comes from to
// where its last byte's ends.
func (s shownText) source(sp Span) Span {
	if sp.Start >= sp.End {
		at := s.from[min(sp.Start, len(s.from)-1)]
		return Span{Start: at, End: at}
	}
	return Span{Start: s.from[sp.Start], End: s.to[sp.End-1]}
}

// skipsWithin reports whether a skipped scope overlaps the span of Source.
func (d *Document) skipsWithin(s Span) bool {
	for _, sc := range d.skippedIn(s.Start, s.End) {
		if sc.Start < s.End && s.Start < sc.End {
			return true
		}
	}
	return false
}

// locateSkipped is the locate stage's second look at a quote in a document with skipped
// scopes, given where Locate found it in the chunk's prose (m, span). The prose comes first: a
// quote found there exactly, ignoring case or normalised is reported there. A quote that was
// not found is tried without the placeholders the model was shown ("Run `…` to install").
// Then, for a quote not found or only found fuzzily, the file's own text: a quote found there
// (more exactly) was copied from a skipped scope, or guessed from around one. It is located
// there, and the filter drops it as ignored when that place holds no prose.
func (d *Document) locateSkipped(c Chunk, v Quote, span Span, m LocateMethod) (Span, LocateMethod) {
	if !d.masked() || (m != NotLocated && m != LocatedFuzzy) {
		return span, m
	}
	if m == NotLocated && strings.Contains(v.Text, scopes.PlaceholderText) {
		w := v
		w.Text = strings.ReplaceAll(v.Text, scopes.PlaceholderText, " ")
		if s, wm := Locate(c, w); wm != NotLocated {
			// Found only once the placeholders were taken out: the match spans text the model
			// was not shown (the code behind a placeholder), so it is not the quote as written
			// and its fix must not become an edit (edit.go): at best a normalised match.
			return s, max(wm, LocatedNormalized)
		}
	}
	orig := c
	orig.Text = string(d.Source[c.Offset : c.Offset+len(c.Text)])
	os, om := Locate(orig, v)
	if om != NotLocated && (m == NotLocated || (om < m && d.InSkipped(os))) {
		return os, om
	}
	return span, m
}
