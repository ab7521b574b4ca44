package document

import "testing"

// FuzzSkipScopes: on any document, in each syntax, the prose keeps the body's length and line
// breaks, the text sent to the model keeps its lines, and asking whether any span lies in a
// skipped scope never fails.
func FuzzSkipScopes(f *testing.F) {
	f.Add("---\nt: x\n---\n# T\n\nRun `a` and see https://a.example.\n\n```sh\nx\n```\n", uint8(0), 3, 9)
	f.Add("import A from 'a'\n\n<A b={`${c}`}>\n\nText {d}.\n\n</A>\n", uint8(1), 0, 40)
	f.Add("{{ x }} text\nBEGIN\nsecret\nEND\n", uint8(2), 2, 5)
	f.Add("= T\n:a: b\n\nRun `a`, see link:x[y].\n\n----\nz\n----\n", uint8(3), 4, 12)
	f.Add("T\n=\n\n.. code:: sh\n\n   x\n\nA ``b`` :ref:`c <d>`.\n", uint8(4), 1, 30)
	f.Add("<h1>T</h1><p>a <code>b</code></p><script>c</script>", uint8(5), 0, 20)
	ignore, err := CompileIgnorePattern(KeyTokenIgnores, `\{\{[^}]*\}\}`, "f", 1)
	block, err2 := CompileIgnorePattern(KeyBlockIgnores, `(?sm)^BEGIN$.*?^END$`, "f", 1)
	if err != nil || err2 != nil {
		f.Fatal(err, err2)
	}
	ignores, blocks := []*IgnorePattern{ignore}, []*IgnorePattern{block}
	f.Fuzz(func(t *testing.T, src string, syntax uint8, start, end int) {
		path := []string{"a.md", "a.mdx", "a.txt", "a.adoc", "a.rst", "a.html"}[syntax%6]
		doc, err := New(path, []byte(src))
		if err != nil {
			return
		}
		if err := doc.SkipScopes(ScopeSettings{Skipped: ScopeNames(), BlockIgnores: blocks, TokenIgnores: ignores}); err != nil {
			t.Fatal(err)
		}
		prose := doc.Prose()
		if len(prose) != len(doc.Body) || countLineBreaks(prose) != countLineBreaks(doc.Body) {
			t.Fatalf("prose %q of body %q", prose, doc.Body)
		}
		shown, _ := doc.ModelText(prose, doc.BodyOffset)
		if countLineBreaks(shown) != countLineBreaks(prose) {
			t.Fatalf("model text %q of prose %q", shown, prose)
		}
		_ = doc.InSkipped(Span{Start: start, End: end})
		c := Chunk{Text: prose, Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line}
		qs, qe := min(max(start, 0), len(src)), min(max(end, 0), len(src))
		if s, m := doc.locateSkipped(c, Quote{Text: src[min(qs, qe):max(qs, qe)]}, Span{}, NotLocated); m != NotLocated &&
			(s.Start < doc.BodyOffset || s.End > len(doc.Source) || s.Start > s.End) {
			t.Fatalf("located at %+v in a document of %d bytes", s, len(doc.Source))
		}
	})
}
