package scopes

import (
	"regexp"
	"strings"
	"testing"
)

// viewOf builds the view of a whole document, as the linter does for targets: its prose (the
// scopes blanked) with the headings rewritten.
func viewOf(t *testing.T, src string, syn Syntax, title *Title) View {
	t.Helper()
	res, err := Scan([]byte(src), syn)
	if err != nil {
		t.Fatal(err)
	}
	return NewView(Mask(src, 0, res.Scopes), 0, res.Headings, title)
}

// TestView: the starter headline rule's target, ^#\s+(.+)$, finds the title of a document in
// every format, and its match maps back to the title's bytes.
func TestView(t *testing.T) {
	t.Parallel()
	headline := regexp.MustCompile(`(?m)^#\s+(.+)$`)
	tests := []struct {
		name  string
		syn   Syntax
		src   string
		title *Title
		view  string
		want  string // the text of the headline's group 1 in the document
	}{
		{"markdown ATX: the prose as it is", SyntaxMarkdown,
			"# Install `acme`\n\nText.\n", nil,
			"# Install       \n\nText.\n", "Install `acme`"},
		{"markdown setext", SyntaxMarkdown,
			"Install acme\n============\n\n## Next\n", nil,
			"# Install acme\n============\n\n## Next\n", "Install acme"},
		{"asciidoc", SyntaxAsciiDoc,
			"= Install acme\n:toc:\n\n== Next\n", nil,
			"# Install acme\n     \n\n## Next\n", "Install acme"},
		{"rst overline and underline", SyntaxRST,
			"=======\nInstall\n=======\n\nNext\n----\n", nil,
			"       \n# Install\n       \n\n## Next\n    \n", "Install"},
		{"html, a heading inside a line of markup", SyntaxHTML,
			"<div><h1 class=\"t\">Install <code>acme</code></h1><p>Intro</p></div>\n", nil,
			"     \n# Install                  \n        Intro          \n", "Install <code>acme</code>"},
		{"html, minified: headings on one line", SyntaxHTML,
			"<h1>A</h1><h2>B</h2>C<h2>D</h2>", nil,
			"# A\n     \n## B\n     C\n## D\n     ", "A"},
		{"a front matter title when there is no title", SyntaxMarkdown,
			"Intro text.\n\n## Next\n", &Title{Start: -20, End: -13, Text: "Install"},
			"# Install\nIntro text.\n\n## Next\n", "Install"},
		{"no front matter title when there is one", SyntaxRST,
			"Title\n=====\n", &Title{Start: -20, End: -13, Text: "Install"},
			"# Title\n     \n", "Title"},
		{"plain text: nothing to rewrite", SyntaxPlain,
			"Title\n=====\n", nil, "Title\n=====\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := tt.src
			base := 0
			if tt.title != nil {
				// The title is in front matter before the text: offsets below 0 here stand for
				// the bytes before the body.
				base = 20
				pre := strings.Repeat("-", 20)
				pre = pre[:20+tt.title.Start] + tt.title.Text + pre[20+tt.title.End:]
				src = pre + src
				tt.title.Start += base
				tt.title.End += base
			}
			res, err := Scan([]byte(src[base:]), tt.syn)
			if err != nil {
				t.Fatal(err)
			}
			hs := res.Headings
			for i := range hs {
				hs[i].Markup += base
				hs[i].Start += base
				hs[i].End += base
			}
			v := NewView(Mask(src[base:], base, shift(res.Scopes, base)), base, hs, tt.title)
			if v.Text != tt.view {
				t.Errorf("view %q, want %q", v.Text, tt.view)
			}
			m := headline.FindStringSubmatchIndex(v.Text)
			got := ""
			if m != nil {
				s, e := v.Source(m[2], m[3])
				got = strings.TrimRight(src[s:e], " ")
			}
			if got != tt.want {
				t.Errorf("headline %q, want %q", got, tt.want)
			}
		})
	}
}

func shift(ss []Scope, by int) []Scope {
	out := make([]Scope, len(ss))
	for i, s := range ss {
		s.Start += by
		s.End += by
		out[i] = s
	}
	return out
}

// TestViewSource: every span of the view maps to a span of the document, in order; written
// text stands for the markup it replaced.
func TestViewSource(t *testing.T) {
	t.Parallel()
	src := "<p>a</p><h2 id=x>Title</h2>b\n"
	v := viewOf(t, src, SyntaxHTML, nil)
	if v.Text != "   a    \n## Title\n     b\n" {
		t.Fatalf("view %q", v.Text)
	}
	for _, c := range []struct {
		s, e   int
		source string
	}{
		{0, 4, "<p>a"}, {9, 12, "<h2 id=x>"}, {9, 17, "<h2 id=x>Title"}, {13, 17, "itle"},
		{17, 18, ""}, {8, 9, "<h2 id=x>"}, {18, 25, "</h2>b\n"}, {5, 5, ""}, {0, 25, src},
	} {
		s, e := v.Source(c.s, c.e)
		if got := src[s:e]; got != c.source || s > e {
			t.Errorf("Source(%d, %d) = %d, %d (%q), want %q", c.s, c.e, s, e, got, c.source)
		}
	}
	prev := 0
	for i := 0; i <= len(v.Text); i++ {
		s, _ := v.Source(i, i)
		if s < prev {
			t.Errorf("Source(%d) = %d, before %d", i, s, prev)
		}
		prev = s
	}
}

// TestViewHostile: a page of many headings on one line is rewritten in linear time.
func TestViewHostile(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("<h1>a</h1>x", 40000)
	v := viewOf(t, src, SyntaxHTML, nil)
	if n := strings.Count(v.Text, "# a\n"); n != 40000 {
		t.Errorf("%d headings in the view", n)
	}
}
