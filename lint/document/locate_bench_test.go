package document

import (
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/rules"
)

// BenchmarkLocate places violations in a 500-word chunk by each method of Locate: the exact
// quote on its line, ignoring case, ignoring typography, ignoring link and emphasis markup (and
// closing what the match opens), the fuzzy match of a misspelt and of a reordered quote; and a
// quote that is not there, which goes through every step.
func BenchmarkLocate(b *testing.B) {
	text := testutil.LongText(450) + "See [the guide][g] for *all* of it.\nWe act in order to ship the “release” on time.\n"
	c := SplitChunks(text, 0, 1, 0)[0]
	line := strings.Count(text, "\n")
	cases := []struct {
		name string
		v    Quote
		want LocateMethod
	}{
		{"exact", Quote{Text: "in order to", Line: line}, LocatedOnLine},
		{"case", Quote{Text: "IN ORDER TO", Line: line}, LocatedCaseInsensitive},
		{"typography", Quote{Text: `ship the "release"`, Line: line}, LocatedNormalized},
		{"markup", Quote{Text: "see the guide for all", Line: line - 1}, LocatedNormalized},
		{"fuzzy", Quote{Text: "we act in ordr to ship", Line: line}, LocatedFuzzy},
		{"reordered", Quote{Text: "on time ship the release we act", Line: line}, LocatedFuzzy},
		{"unverified", Quote{Text: "leverage our synergies to win", Line: line}, NotLocated},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			if _, m := Locate(c, tc.v); m != tc.want {
				b.Fatalf("located by %v, want %v", m, tc.want)
			}
			b.ReportAllocs()
			for b.Loop() {
				Locate(c, tc.v)
			}
		})
	}
}

// BenchmarkLocateShown places violations, as the locate stage does, in a 500-word chunk of a
// document whose link destinations and code spans are skipped: a quote copied from the text the
// model was shown and one copied from the text as it renders, both across a link, found in the
// shown text (built for each quote) and mapped back to the file.
func BenchmarkLocateShown(b *testing.B) {
	doc, err := New("doc.md", []byte(testutil.LongText(450)+
		"Use the [Node.js-based API](https://nodejs.org/api/x.html), this is how `x` works.\n"))
	if err != nil {
		b.Fatal(err)
	}
	if err := doc.SkipScopes(DefaultScopeSettings()); err != nil {
		b.Fatal(err)
	}
	c := SplitChunks(doc.Prose(), doc.BodyOffset, 1, 0)[0]
	line := strings.Count(doc.Body, "\n")
	cases := []struct {
		name  string
		quote string
	}{
		{"shown", "[Node.js-based API], this is how `…` works."},
		{"rendered", "Node.js-based API, this is how … works."},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			v := Quote{Text: tc.quote, Line: line}
			if s, m := doc.LocateQuote(c, v); m != LocatedNormalized || !strings.HasPrefix(string(doc.Source[s.Start:s.End]), "[Node.js") {
				b.Fatalf("located %q by %v", doc.Source[s.Start:s.End], m)
			}
			b.ReportAllocs()
			for b.Loop() {
				doc.LocateQuote(c, v)
			}
		})
	}
}

// BenchmarkPosition converts byte offsets of a 20,000-word document to line and column, as every
// finding needs.
func BenchmarkPosition(b *testing.B) {
	doc, err := New("long.md", []byte(testutil.LongText(20000)))
	if err != nil {
		b.Fatal(err)
	}
	n := len(doc.Source)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		doc.Position(i * 7919 % n)
	}
}

// BenchmarkTargetFind runs a target regex (a heading and the section under it) on a
// 20,000-word document, as planning does once per target and file.
func BenchmarkTargetFind(b *testing.B) {
	text := "# Guide\n\n" + testutil.LongText(10000) + "## Troubleshooting\n\n" + testutil.LongText(10000)
	t, err := rules.NewTarget(`^## Troubleshooting\n([\s\S]*)`, "m", 1, true, "")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, found, err := t.Find(text); err != nil || !found {
			b.Fatalf("found %v, %v", found, err)
		}
	}
}
