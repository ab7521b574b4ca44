package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/scopes"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
)

// TestFormatConfig: a section's Format names the format its files are read in, the most
// specific section that sets one winning; without one, the extension decides.
func TestFormatConfig(t *testing.T) {
	t.Parallel()
	cfg, problems := config.Parse("vectorlint.ini", []byte(`[**/*]
RunRules = A
[docs/**/*.md]
Format = mdx
[docs/legacy/**]
Format = Markdown
[site/**/*.txt]
Format = html
`))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	for path, want := range map[string]scopes.Syntax{
		"README.md":             scopes.SyntaxMarkdown,
		"docs/intro.md":         scopes.SyntaxMDX,
		"docs/legacy/old.md":    scopes.SyntaxMarkdown,
		"docs/guide.adoc":       scopes.SyntaxAsciiDoc,
		"docs/api.rst":          scopes.SyntaxRST,
		"site/page.txt":         scopes.SyntaxHTML,
		"notes.txt":             scopes.SyntaxPlain,
		"docs/legacy/notes.htm": scopes.SyntaxMarkdown,
	} {
		if got := cfg.Settings(path).Scopes().Syntax(path); got != want {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}

// TestFormatConfigProblems: an unknown format is an error naming the file, line, key, what was
// expected and what was found.
func TestFormatConfigProblems(t *testing.T) {
	t.Parallel()
	_, problems := config.Parse("vectorlint.ini", []byte("[**/*.md]\nFormat = asciidoctor\n[b/**]\nFormat = restructuredtext\n[c/**]\nFormat =\n[d/**]\nFormt = mdx\n"))
	var got []string
	for _, p := range problems {
		got = append(got, strings.TrimPrefix(p.Error(), filepath.Dir(p.File)+string(filepath.Separator)))
		if p.Level != finding.LevelError || p.Line == 0 {
			t.Errorf("%+v: want an error with a line", p)
		}
	}
	want := []string{
		`vectorlint.ini:2: Format: expected one of markdown, mdx, asciidoc, rst, html, text, found "asciidoctor" (did you mean "asciidoc"?)`,
		`vectorlint.ini:4: Format: expected one of markdown, mdx, asciidoc, rst, html, text, found "restructuredtext"`,
		`vectorlint.ini:6: Format: expected one of markdown, mdx, asciidoc, rst, html, text, found ""`,
		`vectorlint.ini:8: Formt: unknown key (did you mean "Format"?)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRSTFrontmatter: in reStructuredText a "---" line is also a title's overline: a block is
// front matter only when it holds a YAML mapping.
func TestRSTFrontmatter(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		path, src string
		body      int
	}{
		{"a.rst", "---\nAPI\n---\n\nText.\n", 0},
		{"a.rst", "---\ntitle: API\n---\n\nText.\n", 19},
		{"a.md", "---\nAPI\n---\n\nText.\n", 12},
		{"a.rst", "\ufeff---\nAPI\n---\n", 3},
	} {
		doc, err := document.New(tt.path, []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if doc.BodyOffset != tt.body {
			t.Errorf("%s %q: body at %d, want %d", tt.path, tt.src, doc.BodyOffset, tt.body)
		}
	}
}

// TestFormatTargets: the starter headline rule's target finds the title of a document in
// every format, and a front matter title when the document has none of its own; the match is
// the title's own bytes (so a fix to it is an edit of the file).
func TestFormatTargets(t *testing.T) {
	t.Parallel()
	target, err := rules.NewTarget(`^#\s+(.+)$`, "mu", 1, true, "")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, src, want string
	}{
		{"a.md", "# Install the CLI\n\nText.\n", "Install the CLI"},
		{"a.md", "---\ntitle: Install the CLI\nsidebar_position: 2\n---\n\nText.\n", "Install the CLI"},
		{"a.mdx", "---\ntitle: \"Install: the CLI\"\n---\nimport X from 'x';\n\nText.\n", "Install: the CLI"},
		{"a.md", "---\ntitle: Front\n---\n\n# Body title\n", "Body title"},
		{"a.md", "---\ntitle: 'It''s escaped'\n---\n\nText.\n", ""},
		{"a.md", "---\ntitle: Plain # comment\n---\n\nText.\n", "Plain"},
		{"a.md", "Install the CLI\n===============\n\nText.\n", "Install the CLI"},
		{"a.adoc", "= Install the CLI\n:toc:\n\nText.\n", "Install the CLI"},
		{"a.rst", "===============\nInstall the CLI\n===============\n\nText.\n", "Install the CLI"},
		{"a.rst", ":orphan:\n\nInstall the CLI\n###############\n", "Install the CLI"},
		{"a.html", "<html><head><title>T</title></head><body><h1 class=\"x\">Install the CLI</h1><p>Text.</p></body></html>\n", "Install the CLI"},
		{"a.html", "---\ntitle: Jekyll page\n---\n<p>Text.</p>\n", "Jekyll page"},
		{"a.txt", "Install the CLI\n\nText.\n", ""},
		{"a.adoc", "----\n# not a title\n----\n", ""},
	}
	for _, tt := range tests {
		doc, err := document.New(tt.path, []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.SkipScopes(document.DefaultScopeSettings()); err != nil {
			t.Fatal(err)
		}
		m, found, err := doc.FindTarget(target)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if found {
			got = strings.TrimSpace(m.Text)
			start := doc.BodyOffset + m.Start
			if src := string(doc.Source[start : doc.BodyOffset+m.End]); strings.TrimSpace(src) != got {
				t.Errorf("%s %q: the match %q is not the file's bytes %q", tt.path, tt.src, m.Text, src)
			}
		}
		if got != tt.want {
			t.Errorf("%s %q: headline %q, want %q", tt.path, tt.src, got, tt.want)
		}
	}
}

// TestFormatSuppressions: inline controls in each format's own comments, and not the same
// words in a listing, a literal block, a script or code.
func TestFormatSuppressions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path, src string
		// suppressed lists, per line from 1, whether Acme.Tone is silenced there.
		want string
	}{
		{"a.adoc",
			"Intro.\n// vectorlint-disable-next-line\nTwo.\n----\n// vectorlint-disable\n----\nSix.\n" +
				"// vectorlint-disable Acme.Tone\nEight.\n// vectorlint-enable\n....\n// vectorlint-disable\n....\nFourteen.\n" +
				"////\nvectorlint-disable\n////\nEighteen `// vectorlint-disable` nineteen.\nTwenty.\n",
			"..S....SS......................."},
		{"a.rst",
			"Intro.\n\n.. vectorlint-disable-next-line Acme\n\nFive.\nSix.\n\n.. code-block:: text\n\n   .. vectorlint-disable\n\nTwelve::\n\n   .. vectorlint-disable\n\n" +
				"Sixteen ``.. vectorlint-disable`` and\n.. vectorlint-disable\n\nNineteen.\n\n.. vectorlint-disable\n\nTwenty-three.\n",
			// The next line after a comment is the next line with text (a comment needs a blank
			// line after it); a ".." line inside a paragraph is its text.
			"....S...............SSS"},
		{"a.html",
			"<p>Intro.</p>\n<!-- vectorlint-disable-next-line Acme.Tone -->\n<p>Three.</p>\n<script>x = \"<!-- vectorlint-disable -->\";</script>\n" +
				"<p>Five.</p>\n<pre><!-- vectorlint-disable --></pre>\n<p>Seven <code>&lt;!-- vectorlint-disable --&gt;</code></p>\n" +
				"<p title=\"<!-- vectorlint-disable -->\">Eight.</p>\n<!-- vectorlint-disable -->\n<p>Ten.</p>\n",
			"..S.....SS"},
		{"b.html", "<!-- vectorlint-disable -->\n<h1>Title</h1>\n", "SS"},
	}
	for _, tt := range tests {
		doc, err := document.New(tt.path, []byte(tt.src))
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.SkipScopes(document.DefaultScopeSettings()); err != nil {
			t.Fatal(err)
		}
		s := document.ParseSuppressions(doc)
		var got strings.Builder
		for line := 1; line <= doc.Lines(); line++ {
			if s.Suppressed("Acme.Tone", doc.LineStart(line), line) {
				got.WriteByte('S')
			} else {
				got.WriteByte('.')
			}
		}
		if want := tt.want[:min(len(tt.want), doc.Lines())]; got.String() != want {
			t.Errorf("%s: suppressed %s, want %s", tt.path, got.String(), want)
		}
	}
}
