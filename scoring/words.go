package scoring

import (
	"unicode"
	"unicode/utf8"
)

// CountWords returns the number of whitespace-separated words in text: maximal runs of
// characters that are not Unicode white space (unicode.IsSpace: the Unicode White_Space
// property, which includes tabs, line breaks, no-break spaces and ideographic spaces). It is
// the word count behind every density score, chunk size and chunk weight, so every part of
// vectorlint counts words the same way.
//
// It returns 0 for text without words; [ScoreDensity] applies the minimum of 1. Invalid UTF-8
// bytes count as word characters, like any other non-space character.
//
// The original VectorLint splits on JavaScript's \s, which differs from Unicode White_Space
// only in U+FEFF (a zero-width no-break space: a separator in JavaScript, not here) and U+0085
// (a separator here, not in JavaScript); neither occurs between words in ordinary prose.
func CountWords(text string) int {
	words := 0
	inWord := false
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		if unicode.IsSpace(r) {
			inWord = false
			continue
		}
		if !inWord {
			words++
			inWord = true
		}
	}
	return words
}
