package scopes

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkFind finds the scopes of documents as NewDocument does for every file: a
// code-heavy guide, a Docusaurus page, and 20,000 words of prose (the long-document scenario).
func BenchmarkFind(b *testing.B) {
	prose := strings.Repeat(strings.Repeat("The linter reads the rules, plans the calls and streams each result.\n", 5)+"\n", 20000/60)
	docs := []struct {
		name string
		syn  Syntax
		src  []byte
	}{{"prose-20000-words", SyntaxMarkdown, []byte(prose)}}
	for _, f := range []struct{ name, file string }{{"code-heavy", "code-heavy.md"}, {"docusaurus", "docusaurus.mdx"}} {
		src, err := os.ReadFile(filepath.Join("..", "..", "lint", "testdata", "scopes", f.file))
		if err != nil {
			b.Fatal(err)
		}
		docs = append(docs, struct {
			name string
			syn  Syntax
			src  []byte
		}{f.name, SyntaxOf(f.file), src})
	}
	for _, d := range docs {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(d.src)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Find(d.src, d.syn); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
