package document

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSuppressions(t *testing.T) {
	t.Parallel()
	src := "---\ntitle: T\n---\n" + // lines 1-3
		"<!-- vectorlint-disable Acme.Headline -->\n" + // 4: covers the whole file (nothing before it)
		"line five\n" + // 5
		"<!-- vectorlint-disable-next-line -->\n" + // 6
		"line seven\n" + // 7
		"<!-- vectorlint-disable-next-line Acme.Tone, Other -->\n" + // 8
		"line nine\n" + // 9
		"<!--vectorlint-disable-->\n" + // 10
		"line eleven\n" + // 11
		"<!-- vectorlint-enable Acme.Tone -->\n" + // 12
		"line thirteen\n" + // 13
		"<!-- vectorlint-enable -->\n" + // 14
		"line fifteen\n" + // 15
		"<!-- vectorlint-disable Acme -->\n" + // 16
		"line seventeen\n" + // 17
		"<!-- vectorlint-enable Acme.Tone.Clarity -->\n" + // 18
		"line nineteen\n" + // 19
		"```md\n<!-- vectorlint-enable -->\n```\n" + // 20-22: an example, not a control
		"line twenty-three {/* vectorlint-disable-next-line Acme.Wordiness */}\n" + // 23
		"line twenty-four\n" // 24
	doc, err := New("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	s := ParseSuppressions(doc)
	at := func(line int) int { return doc.LineStart(line) }
	tests := []struct {
		rule string
		line int
		want bool
	}{
		{"Acme.Headline", 1, true}, // before the comment, but nothing precedes it
		{"Acme.Headline.Clarity", 5, true},
		{"Acme.Tone", 5, false},
		{"Acme.Tone", 7, true}, // next line: every rule
		{"Acme.Tone", 6, false},
		{"Acme.Tone", 8, false},
		{"Acme.Tone", 9, true},
		{"Acme.Tone.Warmth", 9, true},
		{"Other", 9, true},
		{"Acme.Wordiness", 9, false},
		{"Acme.Wordiness", 11, true}, // disabled everywhere
		{"Acme.Tone", 11, true},
		{"Acme.Tone", 13, false}, // re-enabled by name inside a global disable
		{"Acme.Tone.Warmth", 13, false},
		{"Acme.Wordiness", 13, true},
		{"Acme.Wordiness", 15, false}, // enable clears everything, the Headline disable included
		{"Acme.Headline", 15, false},
		{"Acme.Wordiness", 17, true}, // pack name
		{"Acme.Tone.Clarity", 19, false},
		{"Acme.Tone.Other", 19, true},
		{"Acme.Toner", 19, true},  // still Acme
		{"AcmeX.Rule", 19, false}, // not Acme
		{"Acme.Wordiness", 23, true},
		{"Acme.Wordiness", 24, true}, // the MDX next-line comment
		{"Acme.Tone", 24, true},      // still inside the Acme disable (the fenced enable is an example)
	}
	for _, tt := range tests {
		if got := s.Suppressed(tt.rule, at(tt.line), tt.line); got != tt.want {
			t.Errorf("%s on line %d: suppressed %v, want %v", tt.rule, tt.line, got, tt.want)
		}
	}
	var none *Suppressions
	if none.Suppressed("A.B", 0, 1) || (&Suppressions{}).Suppressed("A.B", 0, 1) {
		t.Error("empty suppressions suppress")
	}
}

func TestSuppressionsSameLine(t *testing.T) {
	t.Parallel()
	doc, _ := New("doc.md", []byte("Intro text.\nBad words <!-- vectorlint-disable --> more bad words.\n"))
	s := ParseSuppressions(doc)
	line2 := doc.LineStart(2)
	if s.Suppressed("A.B", line2, 2) {
		t.Error("a finding before the comment on its line is suppressed")
	}
	if off := line2 + strings.Index("Bad words <!-- vectorlint-disable --> more", "more"); !s.Suppressed("A.B", off, 2) {
		t.Error("a finding after the comment is not suppressed")
	}
	if s.Suppressed("A.B", 0, 1) {
		t.Error("a disable after text covers the start of the file")
	}
}

// FuzzParseSuppressions reads inline controls in documents of every format: never a panic,
// and Suppressed answers for every line.
func FuzzParseSuppressions(f *testing.F) {
	f.Add("<!-- vectorlint-disable A.B -->\nx\n<!-- vectorlint-enable -->\n```\n<!-- vectorlint-disable -->\n", uint8(0))
	f.Add("{/* vectorlint-disable-next-line */}\nline\n~~~~\n", uint8(1))
	f.Add("<!-- vectorlint-disable-next-line", uint8(0))
	f.Add("// vectorlint-disable-next-line A\n\nx\n----\n// vectorlint-enable\n", uint8(3))
	f.Add(".. vectorlint-disable-next-line A,\n   B\n\nx\n\n::\n\n  .. vectorlint-enable\n", uint8(4))
	f.Add("<!-- vectorlint-disable-next-line -->\n\n<pre><!-- vectorlint-enable --></pre>", uint8(5))
	f.Fuzz(func(t *testing.T, src string, syntax uint8) {
		if !utf8.ValidString(src) {
			return
		}
		path := []string{"doc.md", "doc.mdx", "doc.txt", "doc.adoc", "doc.rst", "doc.html"}[syntax%6]
		doc, err := New(path, []byte(src))
		if err != nil {
			return
		}
		s := ParseSuppressions(doc)
		for line := 1; line <= doc.Lines()+1; line++ {
			_ = s.Suppressed(fmt.Sprintf("A.R%d", line), doc.LineStart(line), line)
		}
	})
}
