package document

import (
	"errors"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

func TestDocumentPosition(t *testing.T) {
	t.Parallel()
	// Line 1 "---", 2 "title: Café", 3 "---", 4 "# Héllo 👋🏽 wörld", 5 "", 6 "x". "é" is 2 bytes,
	// "👋🏽" 2 code points and 8 bytes.
	src := "---\ntitle: Café\n---\n# Héllo 👋🏽 wörld\n\nx"
	doc, err := New("a.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if doc.BodyOffset != 21 || doc.Body != "# Héllo 👋🏽 wörld\n\nx" {
		t.Fatalf("body at %d: %q", doc.BodyOffset, doc.Body)
	}
	tests := []struct {
		name   string
		offset int
		want   finding.Position
	}{
		{"start", 0, finding.Position{Line: 1, Column: 1, ByteColumn: 1, Offset: 0}},
		{"after an accent in the frontmatter", strings.Index(src, "\n---\n#"), finding.Position{Line: 2, Column: 12, ByteColumn: 13, Offset: 16}},
		{"body start", 21, finding.Position{Line: 4, Column: 1, ByteColumn: 1, Offset: 21}},
		{"after é", strings.Index(src, "llo"), finding.Position{Line: 4, Column: 5, ByteColumn: 6, Offset: 26}},
		{"after an emoji with a skin tone (2 code points, 8 bytes)", strings.Index(src, " wörld"), finding.Position{Line: 4, Column: 11, ByteColumn: 18, Offset: 38}},
		{"end of line 4", strings.Index(src, "\n\nx"), finding.Position{Line: 4, Column: 17, ByteColumn: 25, Offset: 45}},
		{"empty line", strings.Index(src, "\nx"), finding.Position{Line: 5, Column: 1, ByteColumn: 1, Offset: 46}},
		{"last character", len(src) - 1, finding.Position{Line: 6, Column: 1, ByteColumn: 1, Offset: 47}},
		{"end of file", len(src), finding.Position{Line: 6, Column: 2, ByteColumn: 2, Offset: 48}},
		{"past the end is clamped", len(src) + 10, finding.Position{Line: 6, Column: 2, ByteColumn: 2, Offset: 48}},
		{"negative is clamped", -5, finding.Position{Line: 1, Column: 1, ByteColumn: 1, Offset: 0}},
	}
	for _, tt := range tests {
		if got := doc.Position(tt.offset); got != tt.want {
			t.Errorf("%s: Position(%d) = %+v, want %+v", tt.name, tt.offset, got, tt.want)
		}
	}
	if doc.Lines() != 6 || doc.LineStart(4) != 21 || doc.LineStart(99) != 47 {
		t.Errorf("Lines = %d, LineStart(4) = %d, LineStart(99) = %d", doc.Lines(), doc.LineStart(4), doc.LineStart(99))
	}
}

func TestDocumentLineEndings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		src    string
		offset int
		want   finding.Position
		lines  int
	}{
		{"CRLF", "a\r\nbé\r\nc", 8, finding.Position{Line: 3, Column: 1, ByteColumn: 1, Offset: 8}, 3},
		{"CRLF: the CR is the end of its line", "a\r\nb", 1, finding.Position{Line: 1, Column: 2, ByteColumn: 2, Offset: 1}, 2},
		{"lone CR", "a\rb\rc", 4, finding.Position{Line: 3, Column: 1, ByteColumn: 1, Offset: 4}, 3},
		{"final newline adds no line", "a\nb\n", 2, finding.Position{Line: 2, Column: 1, ByteColumn: 1, Offset: 2}, 2},
		{"byte order mark is not a column", "\ufeffab", 4, finding.Position{Line: 1, Column: 2, ByteColumn: 2, Offset: 4}, 1},
		{"inside the byte order mark", "\ufeffab", 1, finding.Position{Line: 1, Column: 1, ByteColumn: 1, Offset: 1}, 1},
		{"empty", "", 0, finding.Position{Line: 1, Column: 1, ByteColumn: 1, Offset: 0}, 1},
	}
	for _, tt := range tests {
		doc, err := New("a.md", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if got := doc.Position(tt.offset); got != tt.want {
			t.Errorf("%s: Position(%d) = %+v, want %+v", tt.name, tt.offset, got, tt.want)
		}
		if doc.Lines() != tt.lines {
			t.Errorf("%s: Lines() = %d, want %d", tt.name, doc.Lines(), tt.lines)
		}
	}
}

func TestDocumentFrontmatter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, body string
		offset          int
	}{
		{"none", "# T\n", "# T\n", 0},
		{"yaml", "---\na: 1\n---\n# T\n", "# T\n", 13},
		{"invalid yaml is still stripped", "---\na: [\n---\nbody", "body", 13},
		{"unclosed: whole file is the body", "---\na: 1\n", "---\na: 1\n", 0},
		{"thematic break later is not frontmatter", "# T\n---\nx\n---\n", "# T\n---\nx\n---\n", 0},
		{"byte order mark", "\ufeff# T", "# T", 3},
	}
	for _, tt := range tests {
		doc, err := New("a.md", []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if doc.Body != tt.body || doc.BodyOffset != tt.offset {
			t.Errorf("%s: body %q at %d, want %q at %d", tt.name, doc.Body, doc.BodyOffset, tt.body, tt.offset)
		}
	}
}

func TestDocumentInvalidUTF8(t *testing.T) {
	t.Parallel()
	_, err := New("bad.txt", []byte("ok\nné\xe9\n"))
	var ue *InvalidUTF8Error
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want *InvalidUTF8Error", err)
	}
	want := "bad.txt:2:3: expected UTF-8 text, found a byte that is not UTF-8 (offset 6)"
	if err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
}
