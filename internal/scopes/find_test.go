package scopes

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// render lists scopes one a line: kind, then the exact text, "+" when shown as a placeholder.
func render(src string, ss []Scope) string {
	var b strings.Builder
	for _, s := range ss {
		ph := ""
		if s.Placeholder {
			ph = " +"
		}
		fmt.Fprintf(&b, "%s %q%s\n", s.Kind, src[s.Start:s.End], ph)
	}
	return b.String()
}

func TestFind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		syn  Syntax
		src  string
		want string
	}{
		{"fenced code with its fences", SyntaxMarkdown,
			"Prose.\n\n```sh\n# in order to\ncurl https://x.example | sh\n```\n\nAfter.\n",
			"code \"```sh\\n\"\ncode \"# in order to\\n\"\ncode \"curl https://x.example | sh\\n\"\ncode \"```\\n\"\n"},
		{"tilde fence, longer closing fence", SyntaxMarkdown,
			"~~~\ncode\n~~~~\nprose\n",
			"code \"~~~\\n\"\ncode \"code\\n\"\ncode \"~~~~\\n\"\n"},
		{"an unclosed fence runs to the end", SyntaxMarkdown,
			"a\n\n```\nx\ny",
			"code \"```\\n\"\ncode \"x\\n\"\ncode \"y\"\n"},
		{"indented code in Markdown", SyntaxMarkdown,
			"Prose.\n\n    code line\n    more\n\nProse again.\n",
			"code \"    code line\\n\"\ncode \"    more\\n\"\ncode \"\\n\"\n"},
		{"a tab-indented code block", SyntaxMarkdown,
			"Prose.\n\n\tcode\n",
			"code \"\\tcode\\n\"\n"},
		{"no indented code in MDX", SyntaxMDX,
			"Prose.\n\n    Indented prose.\n",
			""},
		{"code spans", SyntaxMarkdown,
			"Run `acme deploy` or ``a ` b`` now; a lone ` is text.\n",
			"inlinecode \"`acme deploy`\" +\ninlinecode \"``a ` b``\" +\n"},
		{"a code span across lines of a blockquote keeps the markers", SyntaxMarkdown,
			"> Quote with `inline\n> code` across lines\n",
			"inlinecode \"`inline\\n\" +\ninlinecode \"code`\"\n"},
		{"fenced code in a blockquote keeps the markers", SyntaxMarkdown,
			"> Before.\n> ```\n> quoted code\n> ```\n> After.\n",
			"code \"```\\n\"\ncode \"quoted code\\n\"\ncode \"```\\n\"\n"},
		{"fenced code in a nested list", SyntaxMarkdown,
			"- one\n  - nested\n    ```js\n    const x = 1; // in order to\n    ```\n- two\n",
			"code \"```js\\n\"\ncode \"const x = 1; // in order to\\n\"\ncode \"```\\n\"\n"},
		{"fenced code in a list item indented with a tab", SyntaxMarkdown,
			"-\titem\n\n\t```\n\tcode\n\t```\n",
			"code \"```\\n\"\ncode \"code\\n\"\ncode \"```\\n\"\n"},
		{"a table with inline code (escaped pipe)", SyntaxMarkdown,
			"| Flag | Use |\n|------|-----|\n| `-v` | `a \\| b` output |\n",
			"inlinecode \"`-v`\" +\ninlinecode \"`a \\\\| b`\" +\n"},
		{"a setext heading with code", SyntaxMarkdown,
			"Install `acme`\n==============\n\nText.\n",
			"inlinecode \"`acme`\" +\n"},
		{"URLs: autolink, bare, www, email, link and image destinations", SyntaxMarkdown,
			"See <https://a.example>, https://b.example/x. and www.c.example or help@d.example.\n" +
				"Read [the docs](https://e.example/docs \"Docs\") and ![logo](img/logo.png).\n",
			"urls \"<https://a.example>\" +\nurls \"https://b.example/x\" +\nurls \"www.c.example\" +\n" +
				"urls \"help@d.example\" +\nurls \"(https://e.example/docs \\\"Docs\\\")\"\nurls \"(img/logo.png)\"\n"},
		{"a reference link keeps its label, its definition is a URL", SyntaxMarkdown,
			"Read [the docs][d].\n\n[d]: https://e.example/docs\n  \"Title\"\n",
			"urls \"[d]: https://e.example/docs\"\nurls \"  \\\"Title\\\"\"\n"},
		{"inline HTML and comments", SyntaxMarkdown,
			"Press <kbd>Ctrl</kbd> now <!-- vectorlint-disable --> ok.\n",
			"html \"<kbd>\"\nhtml \"</kbd>\"\nhtml \"<!-- vectorlint-disable -->\"\n"},
		{"code and tt elements are code, as Vale's IgnoredScopes", SyntaxMarkdown,
			"Set <code>HTTPS_PROXY</code>, <TT>x</TT> and <kbd>K</kbd>; <code>a\n\nb</code>.\n",
			"html \"<code>\"\ninlinecode \"<code>HTTPS_PROXY</code>\" +\nhtml \"</code>\"\nhtml \"<TT>\"\ninlinecode \"<TT>x</TT>\" +\n" +
				"html \"</TT>\"\nhtml \"<kbd>\"\nhtml \"</kbd>\"\nhtml \"<code>\"\nhtml \"</code>\"\n"},
		{"an HTML block to the blank line", SyntaxMarkdown,
			"<div class=\"note\">\nHTML block text\n</div>\n\nProse.\n",
			"html \"<div class=\\\"note\\\">\\n\"\nhtml \"HTML block text\\n\"\nhtml \"</div>\\n\"\n"},
		{"an HTML comment block", SyntaxMarkdown,
			"<!--\nnotes\n-->\nProse.\n",
			"html \"<!--\\n\"\nhtml \"notes\\n\"\nhtml \"-->\\n\"\n"},
		{"math: blocks and inline, prices are prose", SyntaxMarkdown,
			"Let $x^2$ be; it costs $5 or $10, US$5 and $$a+b$$; \\$y$ too, $2 and $y$.\n\n$$\nE = mc^2\n$$\n\n$$ x $$\n",
			"math \"$x^2$\" +\nmath \"$$a+b$$\" +\nmath \"$y$\" +\nmath \"$$\\n\"\nmath \"E = mc^2\\n\"\nmath \"$$\\n\"\nmath \"$$ x $$\\n\"\n"},
		{"a $$ line that nothing closes is prose", SyntaxMarkdown,
			"$$$ in savings, they said.\n\nMore prose.\n", ""},
		{"TOML front matter", SyntaxMarkdown,
			"+++\ntitle = \"x\"\n# not a heading\n+++\n\n# Title\n",
			"frontmatter \"+++\\ntitle = \\\"x\\\"\\n# not a heading\\n+++\"\n"},
		{"+++ later is text", SyntaxMarkdown, "Text.\n+++\na\n+++\n", ""},
		{"admonitions", SyntaxMarkdown,
			":::note Pro tip\nAdmonition text.\n:::\n\n:::tip[Title]\nx\n:::\n\n:::warning{.red} Careful\n:::\n",
			"mdx \":::note\"\nmdx \":::\"\nmdx \":::tip\"\nmdx \":::\"\nmdx \":::warning{.red}\"\nmdx \":::\"\n"},
		{"CRLF line breaks", SyntaxMarkdown,
			"Run `a`.\r\n\r\n```\r\nx\r\n```\r\n",
			"inlinecode \"`a`\" +\ncode \"```\\r\\n\"\ncode \"x\\r\\n\"\ncode \"```\\r\\n\"\n"},
		{"plain text has its URLs only", SyntaxPlain, "```\ncode\n```\n`x` https://a.example\n", "urls \"https://a.example\" +\n"},

		// MDX.
		{"ESM", SyntaxMDX,
			"import Tabs from '@theme/Tabs';\nimport {A} from \"a\";\nexport const meta = {\n  a: 1,\n\n  b: [2],\n};\n\nimporting is prose, and so is exporting.\n",
			"mdx \"import Tabs from '@theme/Tabs';\\n\"\nmdx \"import {A} from \\\"a\\\";\\n\"\nmdx \"export const meta = {\\n\"\n" +
				"mdx \"  a: 1,\\n\"\nmdx \"\\n\"\nmdx \"  b: [2],\\n\"\nmdx \"};\\n\"\n"},
		{"ESM is not ESM in Markdown", SyntaxMarkdown, "import Tabs from '@theme/Tabs';\n", ""},
		{"JSX flow tags around prose children", SyntaxMDX,
			"<Tabs groupId=\"os\">\n<TabItem value=\"mac\" label=\"macOS\" default>\n\nInstall it in order to use it.\n\n</TabItem>\n</Tabs>\n",
			"mdx \"<Tabs groupId=\\\"os\\\">\"\nmdx \"<TabItem value=\\\"mac\\\" label=\\\"macOS\\\" default>\"\nmdx \"</TabItem>\"\nmdx \"</Tabs>\"\n"},
		{"a JSX tag over several lines with expressions", SyntaxMDX,
			"<TabItem\n  value=\"linux\"\n  label={`Linux ${v} {}`}\n  {...rest}\n>\n    Indented prose child.\n</TabItem>\n",
			"mdx \"<TabItem\\n  value=\\\"linux\\\"\\n  label={`Linux ${v} {}`}\\n  {...rest}\\n>\"\nmdx \"</TabItem>\"\n"},
		{"a component and its closing tag interrupt a paragraph", SyntaxMDX,
			"<Admonition type=\"note\">\n  Prose child.\n</Admonition>\n",
			"mdx \"<Admonition type=\\\"note\\\">\"\nmdx \"</Admonition>\"\n"},
		{"inline JSX, fragments and self-closing tags", SyntaxMDX,
			"Press <kbd>Ctrl</kbd>+<kbd>C</kbd>, use <Highlight color=\"#25c2a0\">green</Highlight>, <></> and <br />.\n",
			"mdx \"<kbd>\"\nmdx \"</kbd>\"\nmdx \"<kbd>\"\nmdx \"</kbd>\"\nmdx \"<Highlight color=\\\"#25c2a0\\\">\"\nmdx \"</Highlight>\"\nmdx \"<>\"\nmdx \"</>\"\nmdx \"<br />\"\n"},
		{"a line with text after its tag is a paragraph", SyntaxMDX,
			"<div className=\"note\">Prose inside.</div>\n",
			"mdx \"<div className=\\\"note\\\">\"\nmdx \"</div>\"\n"},
		{"not tags: comparisons, hearts, generics left open", SyntaxMDX,
			"a < b and c > d, <3 and x<y. and <https://a.example>\n",
			"urls \"<https://a.example>\" +\n"},
		{"expressions and comments", SyntaxMDX,
			"Version {props.version} ships {/* a comment */} today.\n\n{/* vectorlint-disable */}\n\n{items.map(i => ({a: \"}\"}))}\n",
			"mdx \"{props.version}\" +\nmdx \"{/* a comment */}\"\nmdx \"{/* vectorlint-disable */}\"\nmdx \"{items.map(i => ({a: \\\"}\\\"}))}\"\n"},
		{"a code element in JSX", SyntaxMDX,
			"  Behind a proxy, set <code>HTTPS_PROXY</code> first.\n",
			"mdx \"<code>\"\ninlinecode \"<code>HTTPS_PROXY</code>\" +\nmdx \"</code>\"\n"},
		{"an HTML comment in MDX stays HTML, a div is JSX", SyntaxMDX,
			"<!-- note -->\n\n<div>\n\nText.\n\n</div>\n",
			"html \"<!-- note -->\\n\"\nmdx \"<div>\"\nmdx \"</div>\"\n"},
		{"code spans and fences hide MDX syntax", SyntaxMDX,
			"Use `{x}` and `<Tag>`.\n\n```jsx\n<Tag {...p} />\n{x}\n```\n",
			"inlinecode \"`{x}`\" +\ninlinecode \"`<Tag>`\" +\ncode \"```jsx\\n\"\ncode \"<Tag {...p} />\\n\"\ncode \"{x}\\n\"\ncode \"```\\n\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := Find([]byte(tt.src), tt.syn)
			if err != nil {
				t.Fatal(err)
			}
			if got := render(tt.src, ss); got != tt.want {
				t.Errorf("scopes of %q:\n%s\nwant:\n%s", tt.src, got, tt.want)
			}
			for i := 1; i < len(ss); i++ {
				if ss[i].Start < ss[i-1].Start {
					t.Errorf("scopes not sorted: %v", ss)
				}
			}
		})
	}
}

// TestFindProblems: MDX whose expression never closes is reported with its line, and gives no
// scope (the document is linted whole).
func TestFindProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, want string
	}{
		{"flow", "# T\n\n```\n{\n```\n\n{props.a\n\nmore\n", "line 7: an MDX expression whose { does not close"},
		{"inline", "Text {a + (b\n\nc}\n", "line 1: an MDX expression whose { does not close in its paragraph"},
		{"template", "x {`${a`} y\n", "line 1: an MDX expression whose { does not close in its paragraph"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ss, err := Find([]byte(tt.src), SyntaxMDX)
			var pe *ParseError
			if !errors.As(err, &pe) || err.Error() != tt.want || ss != nil {
				t.Fatalf("Find = %v, %v; want no scopes and %q", ss, err, tt.want)
			}
		})
	}
	// The same text in Markdown has no MDX to get wrong.
	if _, err := Find([]byte("Text {a + (b\n"), SyntaxMarkdown); err != nil {
		t.Errorf("Markdown: %v", err)
	}
}

// TestFindBudget: hostile MDX (tags and expressions that never end) takes linear time: the
// scanners stop at their budget and the document is linted whole.
func TestFindBudget(t *testing.T) {
	t.Parallel()
	src := strings.Repeat("<a b={`${"+strings.Repeat("x", 200), 20000)
	_, err := Find([]byte(src), SyntaxMDX)
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("err = %v, want a ParseError", err)
	}
}

func TestSyntaxOf(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]Syntax{
		"a.md": SyntaxMarkdown, "docs/A.MD": SyntaxMarkdown, "a.markdown": SyntaxMarkdown, "a.mdown": SyntaxMarkdown,
		"a.mdx": SyntaxMDX, "x/Y.MDX": SyntaxMDX, "a.txt": SyntaxPlain, "README": SyntaxPlain,
		"a.adoc": SyntaxAsciiDoc, "a.ASCIIDOC": SyntaxAsciiDoc, "k.asc": SyntaxAsciiDoc, "a.rst": SyntaxRST,
		"a.rest": SyntaxRST, "a.html": SyntaxHTML, "a.HTM": SyntaxHTML, "a.xhtml": SyntaxHTML, "a.xml": SyntaxPlain,
		"dir.md/file": SyntaxPlain, `dir.md\file`: SyntaxPlain, "-": SyntaxPlain,
	} {
		if got := SyntaxOf(path); got != want {
			t.Errorf("SyntaxOf(%q) = %v, want %v", path, got, want)
		}
	}
}

func TestFormatNames(t *testing.T) {
	t.Parallel()
	for _, n := range FormatNames() {
		s, ok := ParseFormat(strings.ToUpper(n))
		if !ok || s.FormatName() != n {
			t.Errorf("ParseFormat(%q) = %v, %v", n, s, ok)
		}
	}
	for _, bad := range []string{"", "md", "adoc", "asciidoctor", "restructuredtext", "plain"} {
		if s, ok := ParseFormat(bad); ok {
			t.Errorf("ParseFormat(%q) = %v, want no format", bad, s)
		}
	}
	if got := strings.Join(FormatNames(), ","); got != "markdown,mdx,asciidoc,rst,html,text" {
		t.Errorf("FormatNames() = %s", got)
	}
}

func TestNames(t *testing.T) {
	t.Parallel()
	for i, n := range Names() {
		k, ok := ParseName(strings.ToUpper(n))
		if !ok || k.Name() != n || k != Code+Kind(i) || k.String() != n {
			t.Errorf("ParseName(%q) = %v, %v", n, k, ok)
		}
	}
	if _, ok := ParseName("pre"); ok {
		t.Error("pre is not a scope name")
	}
	if BlockIgnore.Name() != "" || TokenIgnore.String() != "TokenIgnores" {
		t.Error("the regex ignores have no SkippedScopes name")
	}
}
