package scopes

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// lines counts the line breaks of s as a document does: "\n", "\r\n" and a lone "\r".
func lines(s string) int {
	return strings.Count(s, "\n") + strings.Count(s, "\r") - strings.Count(s, "\r\n")
}

// lineBreaks keeps only the line breaks of s, in order.
func lineBreaks(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\r' {
			return r
		}
		return -1
	}, s)
}

// FuzzScopes runs the scope finder and the maskers on any text, in each syntax. They never
// panic (a recovered parser panic counts as one); every scope lies in the text, in order; Mask
// never changes the length, a line break or the validity of UTF-8; Show keeps every line break,
// in order, without joining two into one ("\r" and "\n"), and returns a text without scopes
// unchanged.
func FuzzScopes(f *testing.F) {
	seeds := []string{
		"# T\n\nRun `a` and see https://a.example.\n\n```sh\nx\n```\n",
		"import A from 'a'\n\n<Tabs>\n<TabItem value=\"a\" label={`x ${y}`}>\n\nProse {p.v} {/* c */}.\n\n</TabItem>\n</Tabs>\n",
		"+++\na = 1\n+++\n$$\nx\n$$\nLet $x$ be.\n:::note T\nx\n:::\n",
		"> ```\n> q\n> ```\n- a\n  ```\n  b\n  ```\n\n| a | `b` |\n|---|---|\n| [c](d) | <e> |\n",
		"<!-- vectorlint-disable -->\n<div>\nx\n</div>\n\tcode\r\n\r\n[id]: https://x \"t\"\n",
		"{a\n\n<a b=\"\n", "\ufeff`\u00e9`é", "",
	}
	for _, sf := range testutil.SharedFiles(f, "corpus/vectorlint-rules/head/tests/fixtures", 16<<10, ".md") {
		seeds = append(seeds, string(sf.Data))
	}
	for i, s := range seeds {
		f.Add(s, uint8(i%3))
	}
	f.Fuzz(func(t *testing.T, src string, syntax uint8) {
		syn := Syntax(syntax % 3)
		ss, err := Find([]byte(src), syn)
		var pe *ParseError
		if err != nil && (!errors.As(err, &pe) || pe.panicked || ss != nil) {
			t.Fatalf("Find(%v): %v", syn, err)
		}
		for i, s := range ss {
			if s.Start < 0 || s.End > len(src) || s.Start >= s.End || s.Kind < Code || s.Kind > Frontmatter ||
				(i > 0 && s.Start < ss[i-1].Start) {
				t.Fatalf("scope %d = %+v in a text of %d bytes", i, s, len(src))
			}
		}
		for _, base := range []int{0, len(src) / 3} {
			text := src[base:]
			m := Mask(text, base, ss)
			if len(m) != len(text) || lineBreaks(m) != lineBreaks(text) || (utf8.ValidString(text) && !utf8.ValidString(m)) {
				t.Fatalf("Mask changed the length, a line break or UTF-8 validity: %q → %q", text, m)
			}
			for i := range len(m) {
				if (m[i] == '\n' || m[i] == '\r') != (text[i] == '\n' || text[i] == '\r') {
					t.Fatalf("Mask moved a line break at %d: %q → %q", i, text, m)
				}
			}
			shown, changed := Show(text, base, ss)
			if lineBreaks(shown) != lineBreaks(text) || lines(shown) != lines(text) || (!changed && shown != text) {
				t.Fatalf("Show changed the line breaks: %q → %q", text, shown)
			}
		}
	})
}
