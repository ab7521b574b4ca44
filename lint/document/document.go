package document

import (
	"fmt"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/scopes"
	"github.com/vectorlint/vectorlint/rules"
)

// Document is one file to lint: its original bytes, the body without its own YAML frontmatter,
// and the line index (finding.LineIndex) that converts byte offsets into positions.
//
// Every offset the linter hands out (targets, units, chunks, findings) is an offset into Source,
// so positions are in the original file's coordinates, frontmatter included.
type Document struct {
	// Path is the path reported in output (relative to the working directory when possible).
	Path string
	// Source is the file's content as read.
	Source []byte
	// Body is the text after the document's frontmatter (all of it when there is none).
	Body string
	// BodyOffset is the byte offset of Body in Source.
	BodyOffset int
	// ScopeError is set when the document's markup could not be read as expected (an MDX
	// expression whose "{" never closes, a parser failure): nothing in it is skipped, and the
	// run warns (EvalOptions.DocumentWarn). It names the file and line.
	ScopeError error

	// lines indexes Source's lines.
	lines finding.LineIndex

	// syntax is how the body is read (its format: by extension or the Format key, format.go).
	syntax scopes.Syntax
	// scopes are every scope of Body (skip.go), in Source's offsets, whatever is skipped;
	// skipped are those SkipScopes chose, sorted by start (skippedEnd[i] is the largest end of
	// skipped[:i+1]), and prose is Body with them blanked. comments are the comments that may
	// hold inline controls, headings the section titles (format.go).
	scopes     []scopes.Scope
	skipped    []scopes.Scope
	skippedEnd []int
	prose      string
	comments   []scopes.Scope
	headings   []scopes.Heading
	// view is what targets run on (format.go), made when a target first needs it; fmTitle is
	// the front matter's title, which it starts with when the body has no title.
	view    *scopes.View
	fmTitle *scopes.Title
}

// InvalidUTF8Error reports a document that is not UTF-8 text.
type InvalidUTF8Error struct {
	Path string
	Pos  finding.Position
}

// Error names the file, line and column of the first byte that is not UTF-8.
func (e *InvalidUTF8Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: expected UTF-8 text, found a byte that is not UTF-8 (offset %d)", e.Path, e.Pos.Line, e.Pos.Column, e.Pos.Offset)
}

// New indexes a document and finds the parts of it that are not prose (code, URLs,
// markup), reading it in the format its extension says (scopes.SyntaxOf). Nothing is skipped
// until SkipScopes says what. It fails only when src is not valid UTF-8: the model and every
// position in the output assume text.
func New(path string, src []byte) (*Document, error) {
	return NewAs(path, src, scopes.SyntaxOf(path))
}

// NewAs is New for a document read in the given format (a section's Format
// key: ScopeSettings.Syntax).
func NewAs(path string, src []byte, syn scopes.Syntax) (*Document, error) {
	text := string(src)
	d := &Document{Path: path, Source: src, lines: finding.NewLineIndex(text), syntax: syn}
	if !utf8.Valid(src) {
		return nil, &InvalidUTF8Error{Path: path, Pos: d.Position(rules.FirstInvalidUTF8(src))}
	}
	fm := splitFrontmatter(src, syn)
	d.BodyOffset = fm.BodyOffset
	d.Body = text[fm.BodyOffset:]
	if fm.Found {
		d.fmTitle = frontmatterTitle(d, fm)
	}
	d.findScopes()
	return d, nil
}

// Lines returns the number of lines of the document (a final line break does not start a new
// line that counts, unless text follows it).
func (d *Document) Lines() int { return d.lines.Lines() }

// Position converts a byte offset in Source into a position. Offsets are clamped to the
// document; an offset inside a multi-byte character counts the characters that start before it.
func (d *Document) Position(offset int) finding.Position { return d.lines.Position(offset) }

// LineStart returns the byte offset where a 1-based line starts (clamped to the document).
func (d *Document) LineStart(line int) int { return d.lines.LineStart(line) }
