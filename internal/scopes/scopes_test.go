package scopes

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMask(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		base int
		ss   []Scope
		want string
	}{
		{"no scope", "abc\n", 0, nil, "abc\n"},
		{"blanks keep line breaks", "a`b`c\n```\nx\r\ny\n```\nz", 0,
			[]Scope{{Start: 1, End: 4}, {Start: 6, End: 19}}, "a   c\n   \n \r\n \n   \nz"},
		{"offsets in the scopes' coordinates, parts outside ignored", "0123456789", 100,
			[]Scope{{Start: 90, End: 102}, {Start: 105, End: 107}, {Start: 109, End: 200}}, "  234  78 "},
		{"a scope inside a character blanks all of it", "aé👋b", 0,
			[]Scope{{Start: 2, End: 4}}, "a      b"},
		{"overlapping scopes", "abcdef", 0, []Scope{{Start: 1, End: 4}, {Start: 2, End: 5}}, "a    f"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Mask(tt.text, tt.base, tt.ss)
			if got != tt.want {
				t.Errorf("Mask = %q, want %q", got, tt.want)
			}
			if len(got) != len(tt.text) || !utf8.ValidString(got) {
				t.Errorf("length %d (want %d), valid %v", len(got), len(tt.text), utf8.ValidString(got))
			}
		})
	}
}

func TestShow(t *testing.T) {
	t.Parallel()
	src := "Run `acme deploy` now.\n\n```sh\n# in order to\n```\n> ```\n> x\n> ```\nSee [docs](https://a.example) or https://b.example.\n"
	ss, err := Find([]byte(src), SyntaxMarkdown)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		from    int // text is src[from:]
		want    string
		changed bool
	}{
		{"the whole text", 0,
			"Run `…` now.\n\n\n\n\n> \n> \n> \nSee [docs] or `…`.\n", true},
		{"a text starting inside a code span: no placeholder for it", 6,
			" now.\n\n\n\n\n> \n> \n> \nSee [docs] or `…`.\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, changed := Show(src[tt.from:], tt.from, ss)
			if got != tt.want || changed != tt.changed {
				t.Errorf("Show = %q, %v; want %q, %v", got, changed, tt.want, tt.changed)
			}
			if strings.Count(got, "\n") != strings.Count(src[tt.from:], "\n") {
				t.Error("a line break was lost")
			}
		})
	}
	// A line emptied between a lone "\r" and a "\n" keeps a space: "\r\n" would be one break.
	if got, _ := Show("a\rb\nc\r\nd", 0, []Scope{{Start: 2, End: 3}, {Start: 4, End: 5}}); got != "a\r \n\r\nd" {
		t.Errorf("Show kept %q", got)
	}
	// A code element: its tags and content are one placeholder.
	el := "Set <code>HTTPS_PROXY</code> first.\n"
	es, _ := Find([]byte(el), SyntaxMarkdown)
	if got, _ := Show(el, 0, es); got != "Set `…` first.\n" {
		t.Errorf("Show(%q) = %q", el, got)
	}
	if got, changed := Show("no scopes here\n", 0, ss[:0]); got != "no scopes here\n" || changed {
		t.Errorf("Show without scopes = %q, %v", got, changed)
	}
	// A line that keeps text keeps its white space; a line left with nothing but white space
	// after a scope is sent empty; a placeholder is written once for a scope over two lines.
	got, _ := Show("  a `b\nc`  \n  `d`  \n", 0, []Scope{{Start: 4, End: 10, Placeholder: true}, {Start: 14, End: 17, Placeholder: true}})
	if want := "  a `…`\n\n  `…`  \n"; got != want {
		t.Errorf("Show = %q, want %q", got, want)
	}
}

func TestUnionContains(t *testing.T) {
	t.Parallel()
	u := Union([]Scope{{Start: 10, End: 20}, {Start: 0, End: 5}, {Start: 15, End: 25}, {Start: 25, End: 30}})
	if len(u) != 3 || u[0] != (Scope{Start: 0, End: 5}) || u[1] != (Scope{Start: 10, End: 25}) || u[2].Start != 25 {
		t.Fatalf("Union = %v", u)
	}
	for off, want := range map[int]bool{-1: false, 0: true, 4: true, 5: false, 9: false, 10: true, 24: true, 25: true, 29: true, 30: false} {
		if Contains(u, off) != want {
			t.Errorf("Contains(%d) = %v", off, !want)
		}
	}
	if Contains(nil, 0) || Union(nil) != nil {
		t.Error("empty")
	}
}
