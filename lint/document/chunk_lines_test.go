package document

import (
	"fmt"
	"strings"
	"testing"
)

// TestSplitChunksLineNumbersFarDown checks the first line of every chunk of a long text with
// mixed line endings ("\n", "\r\n", a lone "\r") against a count from the top, with a start
// line other than 1 (a unit that begins inside a document).
func TestSplitChunksLineNumbersFarDown(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	endings := []string{"\n", "\r\n", "\r", "\n\n", "\r\n\r\n"}
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&b, "Line %d has a few words in it%s", i, endings[i%len(endings)])
	}
	text := b.String()
	const offset, line = 17, 5
	chunks := SplitChunks(text, offset, line, 500)
	if len(chunks) < 20 {
		t.Fatalf("%d chunks, want many", len(chunks))
	}
	var joined strings.Builder
	for i, c := range chunks {
		start := c.Offset - offset
		if want := line + countLineBreaks(text[:start]); c.Line != want {
			t.Errorf("chunk %d at byte %d: line %d, want %d", i, start, c.Line, want)
		}
		if strings.HasPrefix(c.Text, "\n") && strings.HasSuffix(text[:start], "\r") {
			t.Errorf("chunk %d starts between \\r and \\n", i)
		}
		joined.WriteString(c.Text)
	}
	if joined.String() != text {
		t.Error("the chunks do not concatenate to the text")
	}
}
