package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
)

// words returns n words "w1 w2 ... wn" numbered from start.
func words(start, n int) string {
	ws := make([]string, n)
	for i := range ws {
		ws[i] = fmt.Sprintf("w%d", start+i)
	}
	return strings.Join(ws, " ")
}

func TestSplitChunks(t *testing.T) {
	t.Parallel()
	type want struct {
		words, line, offsetInText int
		startsWith                string
	}
	para := func(start, n int) string { return words(start, n) + "\n\n" }
	tests := []struct {
		name string
		text string
		want []want
	}{
		{"500 words: one chunk", words(1, 500), []want{{500, 10, 0, "w1 "}}},
		{"empty", "", []want{{0, 10, 0, ""}}},
		{"paragraphs packed up to 500 words",
			para(1, 200) + para(201, 200) + para(401, 200) + words(601, 50),
			[]want{{400, 10, 0, "w1 "}, {250, 14, len(para(1, 200) + para(201, 200)), "w401 "}}},
		{"a paragraph over 500 words is cut at lines",
			words(1, 300) + "\n" + words(301, 300) + "\n" + words(601, 100) + "\n\n" + words(701, 10),
			// The next paragraph still fits in the second chunk (410 words).
			[]want{{300, 10, 0, "w1 "}, {410, 11, len(words(1, 300)) + 1, "w301 "}}},
		{"a paragraph over 500 words is cut at lines, then packing continues",
			words(1, 300) + "\n" + words(301, 300) + "\n" + words(601, 150) + "\n\n" + words(751, 100),
			[]want{{300, 10, 0, "w1 "}, {450, 11, len(words(1, 300)) + 1, "w301 "}, {100, 14, len(words(1, 300)+"\n"+words(301, 300)+"\n"+words(601, 150)) + 2, "w751 "}}},
		{"a line over 500 words is cut between words",
			words(1, 1200),
			[]want{{500, 10, 0, "w1 "}, {500, 10, len(words(1, 500)) + 1, "w501 "}, {200, 10, len(words(1, 1000)) + 1, "w1001 "}}},
		{"blank lines at the start and CRLF line ends",
			"\r\n\r\n" + strings.ReplaceAll(para(1, 400)+para(401, 400), "\n", "\r\n"),
			[]want{{400, 10, 0, "\r\n\r\nw1 "}, {400, 14, 4 + len(strings.ReplaceAll(para(1, 400), "\n", "\r\n")), "w401 "}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const base = 1000
			chunks := document.SplitChunks(tt.text, base, 10, 500)
			var joined strings.Builder
			for _, c := range chunks {
				joined.WriteString(c.Text)
			}
			if joined.String() != tt.text {
				t.Fatal("chunks do not concatenate to the text: text was dropped or duplicated")
			}
			if len(chunks) != len(tt.want) {
				t.Fatalf("%d chunks, want %d: %+v", len(chunks), len(tt.want), chunks)
			}
			for i, c := range chunks {
				w := tt.want[i]
				if c.Words != w.words || c.Line != w.line || c.Offset != base+w.offsetInText || !strings.HasPrefix(c.Text, w.startsWith) {
					t.Errorf("chunk %d: words %d line %d offset %d starts %q; want %d %d %d %q",
						i, c.Words, c.Line, c.Offset, c.Text[:min(len(c.Text), 8)], w.words, w.line, base+w.offsetInText, w.startsWith)
				}
				if len(chunks) > 1 && c.Words > 500 {
					t.Errorf("chunk %d has %d words", i, c.Words)
				}
			}
		})
	}
}

func TestUnitChunks(t *testing.T) {
	t.Parallel()
	long := words(1, 1700) // over DefaultChunkWords when the unit sets no limit
	u := &Unit{Text: long, Offset: 5, Line: 2}
	if n := len(u.Chunks()); n != 2 {
		t.Errorf("chunked unit: %d chunks, want 2", n)
	}
	u.chunkWords = 1000
	if c := u.Chunks(); len(c) != 2 || c[0].Words != 1000 || c[1].Words != 700 {
		t.Errorf("ChunkWords 1000: %d chunks, want 1000 and 700 words", len(c))
	}
	u.NoSplit = true
	if c := u.Chunks(); len(c) != 1 || c[0].Words != 1700 || c[0].Offset != 5 || c[0].Line != 2 {
		t.Errorf("evaluateAs document: %+v", c)
	}
	u.Missing = &finding.Finding{}
	if c := u.Chunks(); c != nil {
		t.Errorf("missing target: %d chunks, want none", len(c))
	}
}

func TestCountWords(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int{"": 0, "  ": 0, "one": 1, "café au\tlait\n🎉": 4} {
		if got := document.CountWords(in); got != want {
			t.Errorf("CountWords(%q) = %d, want %d", in, got, want)
		}
	}
}

// FuzzDocument checks the document and chunk invariants on any input: positions are within the
// document and consistent with the source, and chunks never drop or duplicate text.
func FuzzDocument(f *testing.F) {
	for _, s := range []string{"", "---\na: 1\n---\n# T\n", "a\r\nb\rc\n", "\ufeff# Café 👋🏽\n", words(1, 700), "x\n\n\n" + words(1, 1300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		doc, err := document.New("f.md", []byte(s))
		if err != nil {
			return // not UTF-8: reported as an error, tested elsewhere
		}
		if doc.BodyOffset < 0 || doc.BodyOffset > len(s) || s[doc.BodyOffset:] != doc.Body {
			t.Fatalf("body %q at %d is not the tail of the source", doc.Body, doc.BodyOffset)
		}
		prev := finding.Position{Line: 1, Column: 1, ByteColumn: 1}
		for off := 0; off <= len(s); off++ {
			p := doc.Position(off)
			if p.Offset != off || p.Line < prev.Line || p.Line > doc.Lines()+1 || p.Column < 1 || p.ByteColumn < p.Column {
				t.Fatalf("Position(%d) = %+v after %+v", off, p, prev)
			}
			prev = p
		}
		chunks := document.SplitChunks(doc.Body, doc.BodyOffset, doc.Position(doc.BodyOffset).Line, 500)
		var joined strings.Builder
		for _, c := range chunks {
			if c.Line != doc.Position(c.Offset).Line {
				t.Fatalf("chunk at %d says line %d, the document says %d", c.Offset, c.Line, doc.Position(c.Offset).Line)
			}
			if len(chunks) > 1 && c.Words > 500 {
				t.Fatalf("chunk of %d words", c.Words)
			}
			joined.WriteString(c.Text)
		}
		if joined.String() != doc.Body {
			t.Fatal("chunks do not concatenate to the body")
		}
		// Each chunk as sent: numbered from 1, the hidden lines (here every third) left out,
		// the others keeping their numbers in order.
		for _, c := range chunks {
			first, last := document.ChunkLines(c)
			hidden := make([]bool, last-first+1)
			for i := range hidden {
				hidden[i] = i%3 == 2
			}
			sent := NumberShownLines(c.Text, 1, hidden)
			prev := 0
			for _, l := range strings.Split(sent, "\n") {
				if sent == "" {
					break
				}
				var n int
				if _, err := fmt.Sscan(strings.SplitN(l, "\t", 2)[0], &n); err != nil || n <= prev || n > len(hidden) || hidden[n-1] {
					t.Fatalf("chunk at line %d sent line %q after %d (%d lines)", first, l, prev, len(hidden))
				}
				prev = n
			}
		}
	})
}

// TestCountWordsMatchesFields checks the counting loop against strings.Fields, whose count it
// replaces, on ASCII and Unicode spaces and invalid UTF-8.
func TestCountWordsMatchesFields(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", " ", "one", " one  two\tthree\n", "a\u00a0b\u2003c\u3000", "\x85x\xffy \xc2", "über straße\r\nnaïve", "\v\fword\r"} {
		if got, want := document.CountWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("CountWords(%q) = %d, want %d", s, got, want)
		}
	}
}

func FuzzCountWords(f *testing.F) {
	for _, s := range []string{"", "a b", "a\u00a0b", "\xff \x85"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := document.CountWords(s), len(strings.Fields(s)); got != want {
			t.Errorf("CountWords(%q) = %d, want %d", s, got, want)
		}
	})
}
