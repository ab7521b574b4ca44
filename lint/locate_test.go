package lint

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
)

// chunkOf returns the chunk of a whole document (its body from the first line).
func chunkOf(t testing.TB, src string) (*Document, Chunk) {
	t.Helper()
	doc, err := NewDocument("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc, Chunk{Text: doc.Body, Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line, Words: CountWords(doc.Body)}
}

func TestLocate(t *testing.T) {
	const repeats = "We act in order to win.\nThey act in order to lose.\nIn order to rest, we stop.\n"
	tests := []struct {
		name string
		src  string
		v    Violation
		want string // "LINE:COL-LINE:COL [START,END) method \"match\"" or "not located"
	}{
		{"exact on the hinted line", repeats, Violation{QuotedText: "in order to", Line: 2},
			`2:10-2:21 [33,44) exact on the line "in order to"`},
		{"exact, first of repeats without hints", repeats, Violation{QuotedText: "in order to"},
			`1:8-1:19 [7,18) exact "in order to"`},
		{"context picks the repeat", repeats, Violation{QuotedText: "in order to", ContextBefore: "They act", ContextAfter: "lose"},
			`2:10-2:21 [33,44) exact "in order to"`},
		{"context after only", repeats, Violation{QuotedText: "in order to", ContextAfter: " lose."},
			`2:10-2:21 [33,44) exact "in order to"`},
		{"context beats a wrong line hint", repeats, Violation{QuotedText: "in order to", Line: 3, ContextBefore: "They act "},
			`2:10-2:21 [33,44) exact "in order to"`},
		{"nearest the hint when context ties", "a x b\nc\nd x e\nf x g\n", Violation{QuotedText: "x", Line: 3, ContextBefore: "zz"},
			`3:3-3:4 [10,11) exact on the line "x"`},
		{"hint outside the text", repeats, Violation{QuotedText: "order to rest", Line: 40},
			`3:4-3:17 [54,67) exact "order to rest"`},
		{"case-insensitive", repeats, Violation{QuotedText: "IN ORDER TO REST", Line: 3},
			`3:1-3:17 [51,67) case-insensitive "In order to rest"`},
		{"accents and emoji: columns in code points", "Le café 👋 naïve façade — in order to succeed.\n",
			Violation{QuotedText: "in order to", Line: 1}, `1:26-1:37 [33,44) exact on the line "in order to"`},
		{"case-insensitive accents", "Le CAFÉ est ouvert.\n", Violation{QuotedText: "café"}, `1:4-1:8 [3,8) case-insensitive "CAFÉ"`},
		{"CRLF line endings", "first line\r\nsecond in order to go\r\nthird\r\n", Violation{QuotedText: "in order to", Line: 2},
			`2:8-2:19 [19,30) exact on the line "in order to"`},
		{"quote across a CRLF break", "one two\r\nthree four\r\n", Violation{QuotedText: "two\nthree", Line: 1},
			`1:5-2:6 [4,14) normalised "two\r\nthree"`},
		{"white space differs", "Due  to\tthe fact\nthat it rains.\n", Violation{QuotedText: "due to the fact that", Line: 1},
			`1:1-2:5 [0,21) normalised "Due  to\tthe fact\nthat"`},
		{"typographic quotes and dashes", "It’s “fast” — really.\n", Violation{QuotedText: `It's "fast" - really`},
			`1:1-1:21 [0,28) normalised "It’s “fast” — really"`},
		// The emphasis the match opens is closed with it (TestLocateAcrossMarkup).
		{"markup dropped", "Run `acme deploy` **now**.\n", Violation{QuotedText: "run acme deploy now"},
			"1:1-1:26 [0,25) normalised \"Run `acme deploy` **now**\""},
		{"reference links' markup dropped", "See [the guide][g] and [the API][].\n", Violation{QuotedText: "the guide and the API."},
			`1:5-1:36 [4,35) normalised "[the guide][g] and [the API][]."`},
		{"copied line number prefix", "alpha\nbeta gamma\n", Violation{QuotedText: "2\tbeta gamma", Line: 2},
			`2:1-2:11 [6,16) exact on the line "beta gamma"`},
		{"surrounding quotation marks", "Say hello world now.\n", Violation{QuotedText: `"hello world"`},
			`1:5-1:16 [4,15) exact "hello world"`},
		{"fuzzy within two lines", "one\ntwo\nThe quick brown fox jumps over the lazy dog.\nfour\n",
			Violation{QuotedText: "the quick brown fox jumped over the lazy dog", Line: 2},
			`3:1-3:44 [8,51) fuzzy "The quick brown fox jumps over the lazy dog"`},
		{"a replaced word: the whole phrase", "Here the cat sat on the rug today.\n",
			Violation{QuotedText: "the cat sat on the mat", Line: 1}, `1:6-1:28 [5,27) fuzzy "the cat sat on the rug"`},
		{"reordered words", "We ship the release on time.\n", Violation{QuotedText: "on time we ship the release", Line: 1},
			`1:1-1:28 [0,27) fuzzy "We ship the release on time"`},
		{"one shared word is not a match", "The dog barks.\n", Violation{QuotedText: "the cat sat on the mat", Line: 1}, "not located"},
		{"words scattered too far apart", "quick one two three four five six seven eight brown nine ten fox\n",
			Violation{QuotedText: "quick brown fox", Line: 1}, "not located"},
		{"fuzzy needs the hint", "The quick brown fox jumps over the lazy dog.\n",
			Violation{QuotedText: "the quick brown fox jumped over the lazy dog"}, "not located"},
		{"fuzzy too far from the hint", "The quick brown fox jumps over the lazy dog.\na\nb\nc\n",
			Violation{QuotedText: "the quick brown fox jumped over the lazy dog", Line: 4}, "not located"},
		{"too different", "The quick brown fox jumps over the lazy dog.\n", Violation{QuotedText: "a slow red cat sleeps under it", Line: 1}, "not located"},
		{"not in the text", repeats, Violation{QuotedText: "leverage synergies", Line: 1}, "not located"},
		{"empty quote", repeats, Violation{QuotedText: "  ", Line: 1}, "not located"},
		{"frontmatter offsets", "---\ntitle: T\n---\nBody in order to win.\n", Violation{QuotedText: "in order to", Line: 4},
			`4:6-4:17 [22,33) exact on the line "in order to"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, c := chunkOf(t, tt.src)
			span, m := Locate(c, tt.v)
			got := "not located"
			if m != NotLocated {
				s, e := doc.Position(span.Start), doc.Position(span.End)
				got = fmt.Sprintf("%d:%d-%d:%d [%d,%d) %s %q", s.Line, s.Column, e.Line, e.Column, span.Start, span.End, m, doc.Source[span.Start:span.End])
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// markupDoc has links of every form, emphasis and a code span: with the default skipped scopes
// the model is shown it without link destinations and with "`…`" for the code span
// ("Use the [Node.js-based API], this is how it works.").
const markupDoc = "# Links\n\n" +
	"Use the [Node.js-based API](https://nodejs.org/api/x.html), this is how it works.\n" +
	"See [the reference][ref] for *all* the `flags` here.\n" +
	"[Start here](https://a.example) to learn more.\n" +
	"Read the [guide](https://g.example).\n" +
	"Call **[the API](https://api.example)** now.\n" +
	"\n[ref]: https://r.example\n"

// TestLocateAcrossMarkup: a quote that crosses link or emphasis markup, copied as the model saw
// it ("[Node.js-based API], this") or as the text reads rendered ("Node.js-based API, this"),
// is located from its first character to its last in the file, with the markup it opens or
// closes: not a column after the "[", not without the final "." (issue 32). Such a match holds
// text the model was not shown (a link destination, a code span), so its fix is no edit; a quote
// inside the link text is exact and keeps it.
func TestLocateAcrossMarkup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, quote string
		line        int
		want        string // "LINE:COL-LINE:COL \"match\"", then " fix" when the fix is an edit
	}{
		{"the issue's quote, as shown", "[Node.js-based API], this is how", 3,
			`3:9-3:72 "[Node.js-based API](https://nodejs.org/api/x.html), this is how"`},
		{"the issue's quote, rendered", "Node.js-based API, this is how", 3,
			`3:9-3:72 "[Node.js-based API](https://nodejs.org/api/x.html), this is how"`},
		// Exact in the file, so the fix is an edit that keeps the link's destination.
		{"link at the end, as shown", "Use the [Node.js-based API]", 3, `3:1-3:28 "Use the [Node.js-based API]" fix`},
		{"link at the end, rendered", "Use the Node.js-based API", 3, `3:1-3:28 "Use the [Node.js-based API]"`},
		{"inside the link text: exact", "Node.js-based API", 3, `3:10-3:27 "Node.js-based API" fix`},
		{"reference link and emphasis, rendered", "the reference for all", 4,
			`4:5-4:35 "[the reference][ref] for *all*"`},
		{"reference link, as shown", "See [the reference][ref] for *all* the", 4,
			`4:1-4:39 "See [the reference][ref] for *all* the" fix`},
		{"a code span shown as a placeholder, ending in a period", "for *all* the `…` here.", 4,
			"4:26-4:53 \"for *all* the `flags` here.\""},
		{"emphasis and placeholder rendered", "for all the … here.", 4,
			"4:26-4:53 \"for *all* the `flags` here.\""},
		{"link at the start of the line, rendered", "Start here to learn", 5,
			`5:1-5:41 "[Start here](https://a.example) to learn"`},
		{"link at the start of the line, as shown", "[Start here] to learn", 5,
			`5:1-5:41 "[Start here](https://a.example) to learn"`},
		{"a period right after the link, rendered", "Read the guide.", 6,
			`6:1-6:37 "Read the [guide](https://g.example)."`},
		{"a period right after the link, as shown", "Read the [guide].", 6,
			`6:1-6:37 "Read the [guide](https://g.example)."`},
		{"only the link and the period", "guide.", 6, `6:10-6:37 "[guide](https://g.example)."`},
		{"a link in strong emphasis, rendered", "Call the API now.", 7,
			`7:1-7:45 "Call **[the API](https://api.example)** now."`},
		{"ending at a link in strong emphasis", "Call the API", 7,
			`7:1-7:40 "Call **[the API](https://api.example)**"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := locateStageIn(t, markupDoc, Violation{QuotedText: tt.quote, Line: tt.line, Fix: "X"}, DefaultScopeSettings()); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	// Nothing skipped: the model saw the markup, and a quote that drops some of it is placed
	// with the markup it opens or closes.
	raw := ScopeSettings{}
	for _, tt := range []struct{ quote, want string }{
		{"run acme deploy now", "1:1-1:26 \"Run `acme deploy` **now**\""},
		{"Use the [Node.js-based API](https://nodejs.org/api/x.html), this", `1:1-1:65 "Use the [Node.js-based API](https://nodejs.org/api/x.html), this" fix`},
	} {
		src := "Run `acme deploy` **now**.\n"
		if strings.HasPrefix(tt.quote, "Use") {
			src = "Use the [Node.js-based API](https://nodejs.org/api/x.html), this is how it works.\n"
		}
		if got := locateStageIn(t, src, Violation{QuotedText: tt.quote, Line: 1, Fix: "X"}, raw); got != tt.want {
			t.Errorf("nothing skipped, %q: got  %s\nwant %s", tt.quote, got, tt.want)
		}
	}
}

// locateStageIn runs the locate stage on one violation of a document whose skipped scopes are s,
// reported on the whole document's prose as the pipeline's chunks are, and describes the
// finding.
func locateStageIn(t *testing.T, src string, v Violation, s ScopeSettings) string {
	t.Helper()
	doc, err := NewDocument("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.SkipScopes(s); err != nil {
		t.Fatal(err)
	}
	c := Chunk{Text: doc.Prose(), Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line}
	props := []proposal{violationProposal("Acme.Rule", 0, finding.SeverityWarning, c, &v)}
	locate(doc, props)
	p := props[0]
	if !p.located {
		return "not located"
	}
	f := p.finding
	got := fmt.Sprintf("%d:%d-%d:%d %q", f.Start.Line, f.Start.Column, f.End.Line, f.End.Column, f.Match)
	if f.Edits != nil {
		got += " fix"
	}
	return got
}

// TestLocateOriginalFuzzyMatching reproduces the original VectorLint's tests of locating
// (tests/fuzzy-matching.test.ts, on its ORIGINAL_TEXT): exact, with context, case-insensitive,
// a typo, missing words, reordered words, unrelated text and an empty quote. The original
// searches the whole text fuzzily when the model gives no line; here the fuzzy step keeps to
// the hinted line ±2 (the model is always shown line numbers), so the fuzzy cases give the line
// the original finds as the hint. Where the original reports a line and a column only, the want
// is the exact span: the tokens of the passage from its first word to its last.
func TestLocateOriginalFuzzyMatching(t *testing.T) {
	const original = "This is the first line.\n" +
		"The quick brown fox jumps over the lazy dog.\n" +
		"This is the third line with some content.\n" +
		"Another line here with different text.\n" +
		"Some more content to test multi-line matching\n" +
		"across different paragraphs and sections."
	const duplicates = "First line with some content here.\nSecond line with some content there.\nThird line without the phrase."
	tests := []struct {
		name string
		src  string
		v    Violation
		want string
	}{
		{"finds exact match", original, Violation{QuotedText: "quick brown fox"},
			`2:5-2:20 [28,43) exact "quick brown fox"`},
		{"without context, the first of duplicates", duplicates, Violation{QuotedText: "some content"},
			`1:17-1:29 [16,28) exact "some content"`},
		{"uses context to disambiguate multiple matches", duplicates,
			Violation{QuotedText: "some content", ContextBefore: "with ", ContextAfter: " there"},
			`2:18-2:30 [52,64) exact "some content"`},
		{"finds case-insensitive match", original, Violation{QuotedText: "QUICK BROWN FOX"},
			`2:5-2:20 [28,43) case-insensitive "quick brown fox"`},
		// The original finds "brown fox jumps", the longest run of the quote's words that is in
		// the text exactly; the token-set match covers the misspelt word too.
		{"finds a quote with a typo", original, Violation{QuotedText: "quik brown fox jumps", Line: 2},
			`2:5-2:26 [28,49) fuzzy "quick brown fox jumps"`},
		{"finds fuzzy match with missing words", original, Violation{QuotedText: "brown fox over lazy", Line: 2},
			`2:11-2:40 [34,63) fuzzy "brown fox jumps over the lazy"`},
		{"finds fuzzy match with word order changed", original, Violation{QuotedText: "fox brown quick", Line: 2},
			`2:5-2:20 [28,43) fuzzy "quick brown fox"`},
		{"reworded across two lines", original,
			Violation{QuotedText: "more content to test multiline matching across different paragraphs", Line: 5},
			`5:6-6:28 [155,223) fuzzy "more content to test multi-line matching\nacross different paragraphs"`},
		{"returns null for completely unrelated text", original, Violation{QuotedText: "the cat sat on the mat", Line: 2},
			"not located"},
		{"returns null for empty quoted_text", original, Violation{QuotedText: "", Line: 2}, "not located"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, c := chunkOf(t, tt.src)
			span, m := Locate(c, tt.v)
			got := "not located"
			if m != NotLocated {
				s, e := doc.Position(span.Start), doc.Position(span.End)
				got = fmt.Sprintf("%d:%d-%d:%d [%d,%d) %s %q", s.Line, s.Column, e.Line, e.Column, span.Start, span.End, m, doc.Source[span.Start:span.End])
			}
			if got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestLocateInChunk checks that a chunk that starts mid-document (and mid-line, as a target's
// capture group does) is searched with its own line numbers and offsets.
func TestLocateInChunk(t *testing.T) {
	doc, err := NewDocument("doc.md", []byte("# Title\n\nintro\n## Héllo wörld in order to\nmore in order to\n"))
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(doc.Source), "Héllo")
	text := "Héllo wörld in order to\nmore in order to"
	c := Chunk{Text: text, Offset: start, Line: 4}
	span, m := Locate(c, Violation{QuotedText: "in order to", Line: 5})
	if p := doc.Position(span.Start); m != LocatedOnLine || p.Line != 5 || p.Column != 6 {
		t.Errorf("%v at %+v", m, p)
	}
	span, m = Locate(c, Violation{QuotedText: "in order to", Line: 4})
	if p := doc.Position(span.Start); m != LocatedOnLine || p.Line != 4 || p.Column != 16 || p.ByteColumn != 18 {
		t.Errorf("%v at %+v", m, p)
	}
}

// FuzzLocate checks that Locate never panics and that what it finds lies inside the chunk, on
// UTF-8 boundaries.
func FuzzLocate(f *testing.F) {
	f.Add("We act in order to win.\r\nThey act in order to lose.\n", "in order to", 2, "act ", " lose")
	f.Add("Le café 👋 naïve — in order…", "CAFE 👋", 1, "", "")
	f.Add("a\n\nb", "2\tb", 3, "", "")
	f.Add("The quick brown fox jumps.\n", "the quick brown fax jumps", 1, "", "")
	f.Add("Use the [Node.js-based API][api], this.\n", "Node.js-based API, this.", 1, "", "")
	f.Add("Call **[the *API*]** `now`]*[.\n", "the api now", 1, "", "")
	f.Fuzz(func(t *testing.T, text, quote string, line int, before, after string) {
		if !utf8.ValidString(text) {
			return
		}
		doc, c := chunkOf(t, text)
		span, m := Locate(c, Violation{QuotedText: quote, Line: line, ContextBefore: before, ContextAfter: after})
		if m == NotLocated {
			return
		}
		if span.Start < c.Offset || span.End > c.Offset+len(c.Text) || span.Start > span.End {
			t.Fatalf("span %+v outside the chunk [%d,%d)", span, c.Offset, c.Offset+len(c.Text))
		}
		if !utf8.Valid(doc.Source[span.Start:span.End]) {
			t.Fatalf("span %+v cuts a character: %q", span, doc.Source[span.Start:span.End])
		}
	})
}

// FuzzLocateQuote locates a quote in a Markdown document with the default skipped scopes, as the
// locate stage does: the text it searches first is the one the model was shown (line for line
// what scopes.Show sends), what it finds lies in the document on UTF-8 boundaries, and a quote
// it reports as exact is the file's text byte for byte (its fix becomes an edit of that text).
func FuzzLocateQuote(f *testing.F) {
	f.Add(markupDoc, "Node.js-based API, this is how", 3)
	f.Add(markupDoc, "for *all* the `…` here.", 4)
	f.Add("Run `a` [b](https://c) <b>d</b> {e}\n\n```\nf\n```\n", "run `…` b d.", 1)
	f.Add("x <https://a> \r\n*y*", "x `…`\r\ny", 1)
	f.Fuzz(func(t *testing.T, src, quote string, line int) {
		doc, err := NewDocument("doc.md", []byte(src))
		if err != nil {
			return
		}
		if err := doc.SkipScopes(DefaultScopeSettings()); err != nil {
			t.Fatal(err)
		}
		c := Chunk{Text: doc.Prose(), Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line}
		if sc, ok := doc.shownChunk(c); ok {
			shown, _ := doc.modelText(c.Text, c.Offset)
			got, want := strings.Split(sc.chunk.Text, "\n"), strings.Split(shown, "\n")
			if len(got) != len(want) || len(sc.from) != len(sc.chunk.Text) || len(sc.to) != len(sc.chunk.Text) {
				t.Fatalf("shown text %q, the model was sent %q", sc.chunk.Text, shown)
			}
			for i := range got {
				if strings.TrimSpace(got[i]) != strings.TrimSpace(want[i]) {
					t.Fatalf("line %d: shown %q, the model was sent %q", i+1, got[i], want[i])
				}
			}
		}
		span, m := doc.locateQuote(c, Violation{QuotedText: quote, Line: line})
		if m == NotLocated {
			return
		}
		if span.Start < doc.BodyOffset || span.End > len(doc.Source) || span.Start > span.End {
			t.Fatalf("span %+v outside the body [%d,%d)", span, doc.BodyOffset, len(doc.Source))
		}
		match := doc.Source[span.Start:span.End]
		if !utf8.Valid(match) {
			t.Fatalf("span %+v cuts a character: %q", span, match)
		}
		if (m == LocatedOnLine || m == LocatedExact) && !slices.Contains(quoteCandidates(quote), string(match)) {
			t.Fatalf("%v match %q is not the quote %q", m, match, quote)
		}
	})
}
