package lint

import (
	"strings"
	"testing"
)

// longText is a document of about words words: paragraphs of five lines of twelve words.
func longText(words int) string {
	var b strings.Builder
	line := "The linter reads the rules, plans the calls and streams each result.\n"
	for n, i := 0, 0; n < words; i++ {
		b.WriteString(line)
		n += len(strings.Fields(line))
		if i%5 == 4 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// BenchmarkSplitChunks splits a 20,000-word document into chunks (spec/quality.md: the long
// document scenario).
func BenchmarkSplitChunks(b *testing.B) {
	text := longText(20000)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		SplitChunks(text, 0, 1)
	}
}

// BenchmarkNumberLines numbers the lines of one 500-word chunk, as every call does.
func BenchmarkNumberLines(b *testing.B) {
	text := longText(500)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		NumberLines(text, 1)
	}
}
