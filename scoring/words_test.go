package scoring_test

import (
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/scoring"
)

func TestCountWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want int
	}{
		{"", 0},
		{" \t\n\r ", 0},
		{"one", 1},
		{"  one   two  ", 2},
		{"one,two three.", 2},
		{"a\tb\nc\r\nd\fe\vf", 6},
		{"no\u00a0break", 2},          // no-break space
		{"ideographic\u3000space", 2}, // U+3000
		{"line\u2028separator", 2},
		{"next\u0085line", 2},  // NEL is White_Space
		{"zero\u200bwidth", 1}, // U+200B is not White_Space
		{"byte\ufefforder", 1}, // U+FEFF is not White_Space (JavaScript's \s disagrees)
		{"héllo wörld 日本語", 3},
		{"\xff\xfe bad utf8", 3},
		{"# Heading\n\nA paragraph with `code` and a [link](https://example.com).", 9},
	}
	for _, tt := range tests {
		if got := scoring.CountWords(tt.text); got != tt.want {
			t.Errorf("CountWords(%q) = %d; want %d", tt.text, got, tt.want)
		}
	}
}

// FuzzCountWords checks the counter against strings.Fields, which splits on the same
// unicode.IsSpace and treats invalid UTF-8 as word characters.
func FuzzCountWords(f *testing.F) {
	for _, s := range []string{"", "one two", " a\u00a0b\u3000c ", "\xff\xfe", "x\u200by"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := scoring.CountWords(s), len(strings.Fields(s)); got != want {
			t.Fatalf("CountWords(%q) = %d; strings.Fields gives %d", s, got, want)
		}
	})
}
