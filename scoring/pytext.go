package scoring

import (
	"strings"
	"unicode"
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
