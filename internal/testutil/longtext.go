package testutil

import "strings"

// LongText is a document of about words words: paragraphs of five lines of twelve words (the
// long document of the benchmarks, spec/quality.md).
func LongText(words int) string {
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
