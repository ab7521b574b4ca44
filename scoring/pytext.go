package scoring

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"
)

// The reference implementations of the text metrics (BLEU, ROUGE-L, SQuAD's exact match and F1)
// are Python programs; these helpers give Go the Python string semantics they depend on.

// isPySpace reports whether Python's str.isspace() is true for r: Unicode white space plus the
// information separators U+001C–U+001F, which str.split() also splits on.
func isPySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pyFields splits s like Python's str.split() with no arguments.
func pyFields(s string) []string {
	return strings.FieldsFunc(s, isPySpace)
}

// pyRStrip removes trailing white space like Python's str.rstrip().
func pyRStrip(s string) string {
	return strings.TrimRightFunc(s, isPySpace)
}

// isPyWordChar reports whether r is a word character for Python's re module on str patterns
// (\w, and so \b): letters, numbers and the underscore.
func isPyWordChar(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || r == '_'
}

// pyLower lower-cases s like Python's str.lower(), which the SQuAD script and rouge-score call:
// Unicode's full case mapping ("İ" becomes "i" and U+0307, where Go's strings.ToLower gives "i")
// and the Final_Sigma rule ("ΟΔΟΣ" becomes "οδος", not "οδοσ"). golang.org/x/text/cases does the
// mapping; the sigma is decided here, as CPython decides it: x/text counts a character that is
// both cased and case-ignorable (U+02B0 "ʰ", U+0345) as the cased letter before the sigma, where
// CPython skips it. Invalid UTF-8 becomes U+FFFD byte by byte, as Python decoding with
// errors="replace" does.
func pyLower(s string) string {
	if !utf8.ValidString(s) {
		s = string([]rune(s)) // one U+FFFD per invalid byte
	}
	lower := cases.Lower(language.Und, cases.HandleFinalSigma(false))
	if !strings.ContainsRune(s, capitalSigma) {
		return lower.String(s)
	}
	var sb strings.Builder
	sb.Grow(len(s))
	start := 0 // of the text not yet written
	for i, r := range s {
		if r != capitalSigma {
			continue
		}
		sb.WriteString(lower.String(s[start:i]))
		if pyFinalSigma(s[:i], s[i+len(string(capitalSigma)):]) {
			sb.WriteRune('ς')
		} else {
			sb.WriteRune('σ')
		}
		start = i + len(string(capitalSigma))
	}
	sb.WriteString(lower.String(s[start:]))
	return sb.String()
}

// capitalSigma is U+03A3, whose lower case depends on its context.
const capitalSigma = 'Σ'

// pyFinalSigma reports whether a capital sigma between before and after is in Unicode's
// Final_Sigma context as CPython tests it (handle_capital_sigma): skipping case-ignorable
// characters, the nearest character before is cased, and the nearest after is not (or there is
// none).
func pyFinalSigma(before, after string) bool {
	r := rune(-1)
	for i := len(before); i > 0; {
		c, size := utf8.DecodeLastRuneInString(before[:i])
		if !isCaseIgnorable(c) {
			r = c
			break
		}
		i -= size
	}
	if r < 0 || !isCased(r) {
		return false
	}
	for _, c := range after {
		if !isCaseIgnorable(c) {
			return !isCased(c)
		}
	}
	return true
}

// isCased is Unicode's Cased property: upper, lower and title case letters and the
// Other_Lowercase and Other_Uppercase characters.
func isCased(r rune) bool {
	return unicode.In(r, unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase)
}

// isCaseIgnorable is Unicode's Case_Ignorable property: nonspacing and enclosing marks, format
// characters, modifier letters and symbols, and the characters whose Word_Break is MidLetter,
// MidNumLet or Single_Quote (listed here: the unicode package has no Word_Break table).
func isCaseIgnorable(r rune) bool {
	switch r {
	case ':', '\u00b7', '\u0387', '\u055f', '\u05f4', '\u2027', '\ufe13', '\ufe55', '\uff1a', // MidLetter
		'.', '\u2018', '\u2019', '\u2024', '\ufe52', '\uff07', '\uff0e', // MidNumLet
		'\'': // Single_Quote
		return true
	}
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk)
}
