package points

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// jsToLower lower-cases s as JavaScript's String.prototype.toLowerCase does: the Unicode
// default case mapping, which differs from Go's strings.ToLower for U+0130 (İ → "i̇", two code
// points) and for the final sigma (Σ at the end of a word → ς).
func jsToLower(s string) string {
	ascii, upper := true, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if 'A' <= c && c <= 'Z' {
			upper = true
		}
	}
	if ascii {
		if !upper {
			return s
		}
		return strings.ToLower(s)
	}
	var b strings.Builder
	b.Grow(len(s))
	for i, r := range s {
		switch r {
		case 'İ':
			b.WriteString("i\u0307")
		case 'Σ':
			if isFinalSigma(s, i) {
				b.WriteRune('ς')
			} else {
				b.WriteRune('σ')
			}
		default:
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// isFinalSigma applies Unicode's Final_Sigma condition to the Σ at byte offset i: preceded by
// a cased letter (case-ignorable characters between are skipped) and not followed by one.
func isFinalSigma(s string, i int) bool {
	before := false
	for j := i; j > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:j])
		j -= size
		if isCaseIgnorable(r) {
			continue
		}
		before = isCased(r)
		break
	}
	if !before {
		return false
	}
	for j := i + len("Σ"); j < len(s); {
		r, size := utf8.DecodeRuneInString(s[j:])
		j += size
		if isCaseIgnorable(r) {
			continue
		}
		return !isCased(r)
	}
	return true
}

func isCased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// isCaseIgnorable is Unicode's Case_Ignorable property: Mn, Me, Cf, Lm, Sk and the word-break
// classes MidLetter, MidNumLet and Single_Quote.
func isCaseIgnorable(r rune) bool {
	switch r {
	case '\'', '.', ':', '\u00B7', '\u0387', '\u055F', '\u05F4', '\u2018', '\u2019', '\u2024', '\u2027',
		'\uFE13', '\uFE52', '\uFE55', '\uFF07', '\uFF0E', '\uFF1A':
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}

// jsIsSpace reports whether r is in JavaScript's whitespace set (what \s matches and trim
// removes): WhiteSpace and LineTerminator. It differs from unicode.IsSpace on U+0085 (not
// JavaScript whitespace) and U+FEFF (JavaScript whitespace).
func jsIsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00A0', '\u1680', '\u2028', '\u2029', '\u202F', '\u205F', '\u3000', '\uFEFF':
		return true
	}
	return r >= '\u2000' && r <= '\u200A'
}

// jsTrim removes JavaScript whitespace from both ends, as String.prototype.trim.
func jsTrim(s string) string { return strings.TrimFunc(s, jsIsSpace) }

// wordCount counts runs of non-whitespace, as text.match(/\S+/g).length.
func wordCount(s string) int {
	n, in := 0, false
	for _, r := range s {
		if jsIsSpace(r) {
			in = false
			continue
		}
		if !in {
			n++
			in = true
		}
	}
	return n
}

// stripJSSpace removes every JavaScript whitespace character, as s.replace(/\s+/g, "").
func stripJSSpace(s string) string {
	return strings.Map(func(r rune) rune {
		if jsIsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// isWordRune reports whether r counts as part of a word for contains_word: a letter, a digit
// (any number), a combining mark or "_".
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// containsWord reports whether word occurs in text with no word character directly before or
// after it.
func containsWord(text, word string) bool {
	if word == "" {
		return true
	}
	for i := 0; i <= len(text); {
		j := strings.Index(text[i:], word)
		if j < 0 {
			return false
		}
		start, end := i+j, i+j+len(word)
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[end:])
		if (start == 0 || !isWordRune(before)) && (end == len(text) || !isWordRune(after)) {
			return true
		}
		_, size := utf8.DecodeRuneInString(text[start:])
		i = start + size
	}
	return false
}
