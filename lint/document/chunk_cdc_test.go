package document

import (
	"fmt"
	"strings"
	"testing"
)

// longDoc is a document of about words words: a heading every few paragraphs, paragraphs of
// three to seven sentences, each sentence on its own line (as Markdown is often written).
func longDoc(words int) []string {
	subjects := []string{"The build", "Each request", "The cache", "A reviewer", "The parser", "Every rule", "The server", "A chunk"}
	verbs := []string{"reads", "writes", "checks", "skips", "counts", "sends", "keeps", "drops"}
	objects := []string{"the configuration file", "every line of the text", "the reply from the model", "a list of findings",
		"the headings in order", "the style guide once", "the words of each paragraph", "nothing it does not need"}
	var paras []string
	n, s := 0, 0
	for i := 0; n < words; i++ {
		if i%6 == 0 {
			paras = append(paras, fmt.Sprintf("## Section %d on %s\n", i/6+1, objects[(i/6)%len(objects)]))
			n += CountWords(paras[len(paras)-1])
			continue
		}
		var b strings.Builder
		for k := 0; k < 3+i%5; k++ {
			line := fmt.Sprintf("%s %s %s in step %d of part %d.\n", subjects[s%len(subjects)], verbs[(s/3)%len(verbs)], objects[(s/7)%len(objects)], s%13, i)
			b.WriteString(line)
			n += CountWords(line)
			s++
		}
		paras = append(paras, b.String())
	}
	return paras
}

// changedChunks is the number of chunks of after whose text no chunk of before has: the calls
// a warm reply cache cannot answer, since a chunk's request depends on its text alone.
func changedChunks(before, after string, maxWords int) int {
	seen := map[string]bool{}
	for _, c := range SplitChunks(before, 0, 1, maxWords) {
		seen[c.Text] = true
	}
	n := 0
	for _, c := range SplitChunks(after, 0, 1, maxWords) {
		if !seen[c.Text] {
			n++
		}
	}
	return n
}

// TestSplitChunksEditsStayLocal checks the content-defined boundaries (spec/linter.md §13): in a
// 20,000-word document, a paragraph inserted or deleted anywhere in the first twenty paragraphs
// changes at most 2 chunks, and a line edited in place 1; the other chunks are byte-identical.
func TestSplitChunksEditsStayLocal(t *testing.T) {
	t.Parallel()
	paras := longDoc(20000)
	join := func(ps []string) string { return strings.Join(ps, "\n") }
	doc := join(paras)
	if w := CountWords(doc); w < 20000 || w > 20100 {
		t.Fatalf("the document has %d words", w)
	}
	chunks := SplitChunks(doc, 0, 1, DefaultChunkWords)
	if len(chunks) < 14 || len(chunks) > 27 {
		t.Fatalf("%d chunks of at most %d words, want 14 to 27", len(chunks), DefaultChunkWords)
	}
	headed := 0
	for _, c := range chunks {
		if c.Words > DefaultChunkWords {
			t.Errorf("a chunk of %d words", c.Words)
		}
		if strings.HasPrefix(c.Text, "## ") {
			headed++
		}
	}
	if headed*2 < len(chunks) {
		t.Errorf("%d of %d chunks start at a heading, want most", headed, len(chunks))
	}
	inserted := "This paragraph was added in the pull request.\nIt says why the flag exists.\n"
	for i := 1; i <= 20; i++ {
		ins := join(append(append(append([]string{}, paras[:i]...), inserted), paras[i:]...))
		if n := changedChunks(doc, ins, DefaultChunkWords); n < 1 || n > 2 {
			t.Errorf("a paragraph inserted before paragraph %d: %d chunks changed, want 1 or 2", i, n)
		}
		del := join(append(append([]string{}, paras[:i]...), paras[i+1:]...))
		if n := changedChunks(doc, del, DefaultChunkWords); n < 1 || n > 2 {
			t.Errorf("paragraph %d deleted: %d chunks changed, want 1 or 2", i, n)
		}
		edited := append([]string{}, paras...)
		lines := strings.SplitAfter(edited[i], "\n")
		lines[len(lines)/2] = "This line was rewritten in place to explain the new flag.\n"
		edited[i] = strings.Join(lines, "")
		if n := changedChunks(doc, join(edited), DefaultChunkWords); n != 1 {
			t.Errorf("a line of paragraph %d edited: %d chunks changed, want 1", i, n)
		}
	}
}
