package finding

import (
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Position is a place in a file's original bytes (front matter included). Offset, the 0-based
// byte offset, is the truth; the rest is what a LineIndex of the file computes from it: Line
// and Column are 1-based and Column counts Unicode code points; ByteColumn is the 1-based
// column in UTF-8 bytes (what reviewdog expects). Output formats that count other units (the
// editor server's UTF-16) ask the index.
type Position struct {
	Line       int
	Column     int
	ByteColumn int
	Offset     int
}

// bom is the UTF-8 byte order mark some editors write at the start of a file.
const bom = "\ufeff"

// LineIndex finds lines and columns in a text from byte offsets: the one line index of every
// package that places findings (the lint documents, quote locating, the json reader, the editor
// server). Lines end at "\n", "\r\n" or a lone "\r", as in editors and in the Language Server
// Protocol. A byte order mark at the start is not part of line 1: line 1 starts after it, and
// an offset inside it is line 1, column 1. Building the index costs one pass over the text;
// each position then costs a binary search and a count along its line.
type LineIndex struct {
	text string
	// starts[i] is the offset where line i+1 starts. A final line break starts one more line,
	// empty, where the end of the text is.
	starts []int
}

// NewLineIndex indexes text.
func NewLineIndex(text string) LineIndex {
	first := 0
	if strings.HasPrefix(text, bom) {
		first = len(bom)
	}
	starts := []int{first}
	for i := first; i < len(text); i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return LineIndex{text: text, starts: starts}
}

// Lines returns the number of lines of the text: a final line break does not start a line that
// counts, unless text follows it. An empty text has one line.
func (x LineIndex) Lines() int {
	n := len(x.starts)
	if n > 1 && x.starts[n-1] == len(x.text) {
		n--
	}
	return n
}

// LineStart returns the offset where a 1-based line starts. Lines before the first are the
// first; lines after the last are the empty line after a final line break, or the last line.
func (x LineIndex) LineStart(line int) int {
	return x.starts[max(1, min(line, len(x.starts)))-1]
}

// LineEnd returns the offset where a 1-based line ends, its line break included: where the next
// line starts, or the end of the text (clamped as LineStart).
func (x LineIndex) LineEnd(line int) int {
	line = max(1, min(line, len(x.starts)))
	if line < len(x.starts) {
		return x.starts[line]
	}
	return len(x.text)
}

// Line returns the 1-based line that holds a byte offset (clamped to the text).
func (x LineIndex) Line(offset int) int {
	offset = max(0, min(offset, len(x.text)))
	return max(1, sort.SearchInts(x.starts, offset+1))
}

// Position returns the position of a byte offset, clamped to the text. An offset inside a
// multi-byte character counts the characters that start before it.
func (x LineIndex) Position(offset int) Position {
	offset = max(0, min(offset, len(x.text)))
	line := x.Line(offset)
	start := x.starts[line-1]
	if offset < start { // inside a byte order mark
		return Position{Line: 1, Column: 1, ByteColumn: 1, Offset: offset}
	}
	return Position{
		Line:       line,
		Column:     utf8.RuneCountInString(x.text[start:offset]) + 1,
		ByteColumn: offset - start + 1,
		Offset:     offset,
	}
}

// UTF16Column returns the 1-based column of a byte offset in UTF-16 code units (the Language
// Server Protocol's default unit, the one every client supports), clamped to the text. An
// invalid byte counts as U+FFFD, one unit.
func (x LineIndex) UTF16Column(offset int) int {
	offset = max(0, min(offset, len(x.text)))
	start := x.starts[x.Line(offset)-1]
	if offset < start {
		return 1
	}
	return utf16Len(x.text[start:offset]) + 1
}

// UTF16Offset returns the byte offset of a 1-based line and a 1-based column in UTF-16 code
// units, as the Language Server Protocol places them: a line past the end is the end of the
// text, a column past the line's end is the line's end (before its break), and a column inside
// a surrogate pair counts the whole code point.
func (x LineIndex) UTF16Offset(line, column int) int {
	if line > len(x.starts) {
		return len(x.text)
	}
	line = max(1, line)
	start, end := x.LineStart(line), x.LineEnd(line)
	content := strings.TrimRight(x.text[start:end], "\r\n") // the line without its break
	units, i := column-1, 0
	for i < len(content) && units > 0 {
		r, size := utf8.DecodeRuneInString(content[i:])
		units -= utf16.RuneLen(r) // an invalid byte decodes as U+FFFD: one unit
		i += size
	}
	return start + i
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // an invalid byte ranges as U+FFFD: one unit
	}
	return n
}
