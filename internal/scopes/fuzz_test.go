package scopes

import (
	"errors"
	"os"
	"path/filepath"
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
// panic (a recovered parser panic counts as one); every scope lies in the text, in order (and
// disjoint, from the scanners of this package); every heading lies in the text, in order, and
// the view for targets maps back into the text; Mask
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
	// The other formats: the fixtures, and the constructs their scanners read.
	for _, name := range []string{"antora.adoc", "sphinx.rst", "page.html"} {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(data), uint8(SyntaxOf(name)))
	}
	for _, c := range formatCases {
		f.Add(c.src, uint8(c.syn))
	}
	f.Add("a `b\n\n+c+ <<d,e>> link:f[g[h]] {i}/j[k] \"`l`\" ----\n|===\n2+|m\n", uint8(SyntaxAsciiDoc))
	f.Add("..\n  .. code:: x\n\n:a:`b <c>` ``d`` [1]_ e::\n\n  f\n+--+\n|g |\n+--+\n", uint8(SyntaxRST))
	f.Add("<pre><code><pre></code><h1><svg><math>x<!--", uint8(SyntaxHTML))
	f.Fuzz(func(t *testing.T, src string, syntax uint8) {
		syn := Syntax(syntax % uint8(SyntaxHTML+1))
		res, err := Scan([]byte(src), syn)
		ss := res.Scopes
		var pe *ParseError
		if err != nil && (!errors.As(err, &pe) || pe.panicked || ss != nil) {
			t.Fatalf("Scan(%v): %v", syn, err)
		}
		// The scanners of this package give disjoint scopes (Scan checks them, with the
		// comments and headings, and reports a failure as a panic); goldmark's may overlap.
		disjoint := syn != SyntaxMarkdown && syn != SyntaxMDX
		for i, s := range ss {
			if s.Start < 0 || s.End > len(src) || s.Start >= s.End || s.Kind < Code || s.Kind > Markup ||
				(i > 0 && s.Start < ss[i-1].Start) || (disjoint && i > 0 && s.Start < ss[i-1].End) {
				t.Fatalf("scope %d = %+v in a text of %d bytes", i, s, len(src))
			}
		}
		for i, h := range res.Headings {
			if h.Level < 1 || h.Level > 6 || h.Markup > h.Start || h.Start >= h.End || h.End > len(src) ||
				(i > 0 && h.Start < res.Headings[i-1].End) {
				t.Fatalf("heading %d = %+v in a text of %d bytes", i, h, len(src))
			}
		}
		// The view for targets maps every span back into the text, in order.
		v := NewView(Mask(src, 0, ss), 0, res.Headings, nil)
		step := max(1, len(v.Text)/64)
		prev := 0
		for i := 0; i <= len(v.Text); i += step {
			s, e := v.Source(i, min(i+step, len(v.Text)))
			if s < prev || s > e || e > len(src) {
				t.Fatalf("View.Source(%d, %d) = %d, %d in a text of %d bytes (view %q)", i, i+step, s, e, len(src), v.Text)
			}
			prev = s
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
