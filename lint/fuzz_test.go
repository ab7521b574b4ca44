package lint

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
)

// FuzzTarget runs a rule target (regex, flags, group) on a document the way a lint run does:
// frontmatter stripped, the regex run on the body. A target that compiles either finds text
// whose byte span lies inside the body, on character boundaries, at a position inside the
// document, or finds nothing; a time-out is an error naming the target, never a hang or a panic.
// The seeds are the real targets of the rule packs on the corpus's test documents.
func FuzzTarget(f *testing.F) {
	targets := []struct {
		regex, flags string
		group        int
	}{
		{`^#\s+(.+)$`, "mu", 1}, {`[\s\S]+`, "", 0}, {`^## Prerequisites\n([\s\S]*?)(?=^## |\z)`, "m", 1},
		{`(?<title>^# .*)`, "gmi", 1}, {`(a+)+$`, "u", 0}, {`\p{Lu}\w+`, "u", 0}, {`^---$`, "m", 0},
	}
	docs := []string{
		"---\ntitle: T\n---\n# Getting started\n\nBody text.\n",
		"\ufeff# Café 👋🏽\r\n\r\n## Prerequisites\r\nGo 1.26\r\n",
		"no heading at all\n", "---\nunclosed: frontmatter\n# H\n", "",
	}
	for _, sf := range testutil.SharedFiles(f, "corpus/vectorlint-rules/head/tests/fixtures", 16<<10, ".md") {
		docs = append(docs, string(sf.Data))
	}
	for i, d := range docs {
		tg := targets[i%len(targets)]
		f.Add(tg.regex, tg.flags, tg.group, d)
	}
	f.Fuzz(func(t *testing.T, regex, flags string, group int, src string) {
		doc, err := document.New("doc.md", []byte(src))
		if err != nil {
			var ue *document.InvalidUTF8Error
			if !errors.As(err, &ue) || !strings.HasPrefix(err.Error(), "doc.md:") || ue.Pos.Offset < 0 || ue.Pos.Offset >= len(src) {
				t.Fatalf("invalid UTF-8 reported as %v", err)
			}
			return
		}
		tg, err := rules.NewTarget(regex, flags, group, true, "")
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty compile error")
			}
			return
		}
		m, found, err := tg.Find(doc.Body)
		if err != nil {
			if !strings.Contains(err.Error(), tg.String()) {
				t.Fatalf("error %q does not name the target %s", err, tg)
			}
			return
		}
		if !found {
			return
		}
		if m.Start < 0 || m.End > len(doc.Body) || m.Start >= m.End || doc.Body[m.Start:m.End] != m.Text {
			t.Fatalf("match %+v is not a span of the %d-byte body", m, len(doc.Body))
		}
		if !utf8.ValidString(m.Text) {
			t.Fatalf("match %q cuts a character", m.Text)
		}
		if p := doc.Position(doc.BodyOffset + m.Start); p.Line < 1 || p.Line > doc.Lines()+1 {
			t.Fatalf("match at line %d of %d", p.Line, doc.Lines())
		}
		// In every format, the target runs on the view (headings as Markdown writes them, a
		// front matter title): its match is a span of the file, its text the prose there or
		// the title's own bytes.
		for _, path := range []string{"doc.md", "doc.adoc", "doc.rst", "doc.html"} {
			doc, err := document.New(path, []byte(src))
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.SkipScopes(document.DefaultScopeSettings()); err != nil {
				t.Fatal(err)
			}
			m, found, err := doc.FindTarget(tg)
			if err != nil || !found {
				continue
			}
			start, end := doc.BodyOffset+m.Start, doc.BodyOffset+m.End
			if start < 0 || end > len(src) || start >= end {
				t.Fatalf("%s: match %+v is not a span of the %d-byte file", path, m, len(src))
			}
			want := src[start:end]
			if start >= doc.BodyOffset {
				want = doc.Prose()[m.Start:m.End]
			}
			if m.Text != want {
				t.Fatalf("%s: match text %q, the file has %q there", path, m.Text, want)
			}
		}
	})
}
