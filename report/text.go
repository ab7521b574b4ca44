package report

import (
	"strings"
	"unicode"

	"github.com/vectorlint/vectorlint/internal/safetext"
)

// terminalSafe makes text safe to print on a terminal (safetext.Terminal: ESC above all, a
// model's reply must not be able to move the cursor or change colours, and bidi overrides,
// invisible characters and invalid UTF-8 are shown as escapes such as \x1b and \u202e), with CR
// LF as LF and a tab as a space, so columns stay aligned.
func terminalSafe(s string) string {
	return strings.ReplaceAll(safetext.Terminal(s), "\t", " ")
}

// oneLine joins the lines of s with single spaces, for places that must stay on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(terminalSafe(s)), " ")
}

// displayWidth is the number of terminal cells s takes: East Asian wide and fullwidth characters
// and emoji take two, combining marks, zero-width joiners and variation selectors none,
// everything else one. It is an approximation of wcwidth good enough to align columns.
func displayWidth(s string) int {
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

func runeWidth(r rune) int {
	switch {
	case r == 0x200d || (r >= 0xfe00 && r <= 0xfe0f) || r == 0x200b:
		return 0
	case unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Me, r):
		return 0
	case r >= 0x1100 && r <= 0x115f, // Hangul Jamo
		r >= 0x2e80 && r <= 0x303e, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33ff, // kana, CJK symbols
		r >= 0x3400 && r <= 0x4dbf, // CJK extension A
		r >= 0x4e00 && r <= 0x9fff, // CJK unified ideographs
		r >= 0xa000 && r <= 0xa4cf, // Yi
		r >= 0xac00 && r <= 0xd7a3, // Hangul syllables
		r >= 0xf900 && r <= 0xfaff, // CJK compatibility ideographs
		r >= 0xfe30 && r <= 0xfe4f, // CJK compatibility forms
		r >= 0xff00 && r <= 0xff60, // fullwidth forms
		r >= 0xffe0 && r <= 0xffe6,
		r >= 0x1f300 && r <= 0x1f64f, // pictographs, emoticons
		r >= 0x1f900 && r <= 0x1f9ff, // supplemental symbols and pictographs
		r >= 0x1fa70 && r <= 0x1faff,
		r >= 0x1f680 && r <= 0x1f6ff, // transport and map symbols
		r >= 0x20000 && r <= 0x3fffd: // CJK extensions B and later
		return 2
	}
	return 1
}

// padRight pads s with spaces to width cells; plain is the text whose width counts (s may hold
// colour escapes around it).
func padRight(s, plain string, width int) string {
	if n := width - displayWidth(plain); n > 0 {
		return s + strings.Repeat(" ", n)
	}
	return s
}

// wrap splits text into lines of at most width cells, breaking at spaces; a word longer than
// width stays whole on its own line. Line breaks in text are kept.
func wrap(text string, width int) []string {
	var lines []string
	for _, para := range strings.Split(text, "\n") {
		words := strings.Fields(para)
		if len(words) == 0 {
			lines = append(lines, "")
			continue
		}
		cur, curW := words[0], displayWidth(words[0])
		for _, word := range words[1:] {
			ww := displayWidth(word)
			if curW+1+ww > width {
				lines = append(lines, cur)
				cur, curW = word, ww
				continue
			}
			cur += " " + word
			curW += 1 + ww
		}
		lines = append(lines, cur)
	}
	return lines
}
