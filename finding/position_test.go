package finding

import (
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// TestLineIndex: lines end at LF, CRLF and a lone CR; columns count code points, bytes and
// UTF-16 units (👋 is 4 bytes and 2 units, ç 2 bytes and 1 unit); offsets are clamped.
func TestLineIndex(t *testing.T) {
	t.Parallel()
	const text = "a👋b\r\nçx\rlast"
	x := NewLineIndex(text)
	if x.Lines() != 3 {
		t.Errorf("Lines() = %d, want 3", x.Lines())
	}
	for _, tt := range []struct {
		offset int
		want   Position
		utf16  int
	}{
		{0, Position{1, 1, 1, 0}, 1},
		{1, Position{1, 2, 2, 1}, 2},
		{5, Position{1, 3, 6, 5}, 4},
		{6, Position{1, 4, 7, 6}, 5}, // the CR of CRLF: still line 1
		{7, Position{1, 5, 8, 7}, 6}, // the LF
		{8, Position{2, 1, 1, 8}, 1},
		{10, Position{2, 2, 3, 10}, 2},
		{12, Position{3, 1, 1, 12}, 1},
		{16, Position{3, 5, 5, 16}, 5},
		{99, Position{3, 5, 5, 16}, 5},
		{-3, Position{1, 1, 1, 0}, 1},
	} {
		if got := x.Position(tt.offset); got != tt.want {
			t.Errorf("Position(%d) = %+v, want %+v", tt.offset, got, tt.want)
		}
		if got := x.UTF16Column(tt.offset); got != tt.utf16 {
			t.Errorf("UTF16Column(%d) = %d, want %d", tt.offset, got, tt.utf16)
		}
	}
	for _, tt := range []struct{ line, start, end int }{{0, 0, 8}, {1, 0, 8}, {2, 8, 12}, {3, 12, 16}, {9, 12, 16}} {
		if s, e := x.LineStart(tt.line), x.LineEnd(tt.line); s != tt.start || e != tt.end {
			t.Errorf("line %d: [%d, %d), want [%d, %d)", tt.line, s, e, tt.start, tt.end)
		}
	}
	for _, tt := range []struct{ line, column, want int }{
		{1, 1, 0}, {1, 2, 1}, {1, 3, 5}, // inside the surrogate pair of 👋: the whole code point
		{1, 4, 5}, {1, 40, 6}, // past the line's end: before its break
		{2, 2, 10}, {3, 5, 16}, {4, 1, 16}, // past the last line: the end
	} {
		if got := x.UTF16Offset(tt.line, tt.column); got != tt.want {
			t.Errorf("UTF16Offset(%d, %d) = %d, want %d", tt.line, tt.column, got, tt.want)
		}
	}
}

// TestLineIndexEnds: a final line break starts an empty line that positions reach but Lines
// does not count; an empty text has one line; a byte order mark is not part of line 1.
func TestLineIndexEnds(t *testing.T) {
	t.Parallel()
	x := NewLineIndex("one\ntwo\n")
	if x.Lines() != 2 || x.Position(8) != (Position{3, 1, 1, 8}) || x.LineStart(3) != 8 || x.LineEnd(3) != 8 {
		t.Errorf("final break: %d lines, end at %+v, line 3 [%d, %d)", x.Lines(), x.Position(8), x.LineStart(3), x.LineEnd(3))
	}
	if e := NewLineIndex(""); e.Lines() != 1 || e.Position(0) != (Position{1, 1, 1, 0}) {
		t.Errorf("empty text: %d lines, %+v", e.Lines(), e.Position(0))
	}
	b := NewLineIndex("\ufeffHé\nx")
	for offset, want := range map[int]Position{0: {1, 1, 1, 0}, 2: {1, 1, 1, 2}, 3: {1, 1, 1, 3}, 4: {1, 2, 2, 4}, 6: {1, 3, 4, 6}, 7: {2, 1, 1, 7}} {
		if got := b.Position(offset); got != want {
			t.Errorf("with a byte order mark, Position(%d) = %+v, want %+v", offset, got, want)
		}
	}
	if b.LineStart(1) != 3 || b.UTF16Column(4) != 2 || b.UTF16Offset(1, 1) != 3 {
		t.Errorf("with a byte order mark: line 1 starts at %d, offset 4 is UTF-16 column %d, column 1 is offset %d",
			b.LineStart(1), b.UTF16Column(4), b.UTF16Offset(1, 1))
	}
}

// FuzzLineIndex checks every position against a count from the text's start, and that the
// UTF-16 column of a character's start leads back to it.
func FuzzLineIndex(f *testing.F) {
	for _, s := range []string{"", "a\nb", "a👋b\r\nçx\rlast", "\ufeff\r\r\n\n", "\xff\xfe\n\xe2\x82"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		x := NewLineIndex(text)
		start := 0
		if strings.HasPrefix(text, bom) {
			start = len(bom)
		}
		line, lineStart := 1, start
		for offset := 0; offset <= len(text); offset++ {
			if offset > start && (text[offset-1] == '\n' || (text[offset-1] == '\r' && (offset == len(text) || text[offset] != '\n'))) {
				line, lineStart = line+1, offset
			}
			want := Position{Line: line, Column: 1, ByteColumn: 1, Offset: offset}
			if offset >= lineStart {
				want.Column = utf8.RuneCountInString(text[lineStart:offset]) + 1
				want.ByteColumn = offset - lineStart + 1
			}
			if got := x.Position(offset); got != want {
				t.Fatalf("Position(%d) = %+v, want %+v", offset, got, want)
			}
			if offset >= lineStart && (offset == len(text) || utf8.RuneStart(text[offset])) && text[lineStart:offset] == strings.TrimRight(text[lineStart:offset], "\r\n") {
				units := 0
				for _, r := range text[lineStart:offset] {
					units += utf16.RuneLen(r)
				}
				if got := x.UTF16Column(offset); got != units+1 {
					t.Fatalf("UTF16Column(%d) = %d, want %d", offset, got, units+1)
				}
				if back := x.UTF16Offset(line, units+1); back != offset {
					t.Fatalf("UTF16Offset(%d, %d) = %d, want %d", line, units+1, back, offset)
				}
			}
		}
	})
}
