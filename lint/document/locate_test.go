package document

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// chunkOf returns the chunk of a whole document (its body from the first line).
func chunkOf(t testing.TB, src string) (*Document, Chunk) {
	t.Helper()
	doc, err := New("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc, Chunk{Text: doc.Body, Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line, Words: CountWords(doc.Body)}
}

func TestLocate(t *testing.T) {
	t.Parallel()
	const repeats = "We act in order to win.\nThey act in order to lose.\nIn order to rest, we stop.\n"
	tests := []struct {
		name string
		src  string
		v    Quote
		want string // "LINE:COL-LINE:COL [START,END) method \"match\"" or "not located"
	}{
		{"exact on the hinted line", repeats, Quote{Text: "in order to", Line: 2},
			`2:10-2:21 [33,44) exact on the line "in order to"`},
		{"exact, first of repeats without hints", repeats, Quote{Text: "in order to"},
			`1:8-1:19 [7,18) exact "in order to"`},
		{"context picks the repeat", repeats, Quote{Text: "in order to", Before: "They act", After: "lose"},
			`2:10-2:21 [33,44) exact "in order to"`},
		{"context after only", repeats, Quote{Text: "in order to", After: " lose."},
			`2:10-2:21 [33,44) exact "in order to"`},
		{"context beats a wrong line hint", repeats, Quote{Text: "in order to", Line: 3, Before: "They act "},
			`2:10-2:21 [33,44) exact "in order to"`},
		{"nearest the hint when context ties", "a x b\nc\nd x e\nf x g\n", Quote{Text: "x", Line: 3, Before: "zz"},
			`3:3-3:4 [10,11) exact on the line "x"`},
		{"hint outside the text", repeats, Quote{Text: "order to rest", Line: 40},
			`3:4-3:17 [54,67) exact "order to rest"`},
		{"case-insensitive", repeats, Quote{Text: "IN ORDER TO REST", Line: 3},
			`3:1-3:17 [51,67) case-insensitive "In order to rest"`},
		{"accents and emoji: columns in code points", "Le café 👋 naïve façade — in order to succeed.\n",
			Quote{Text: "in order to", Line: 1}, `1:26-1:37 [33,44) exact on the line "in order to"`},
		{"case-insensitive accents", "Le CAFÉ est ouvert.\n", Quote{Text: "café"}, `1:4-1:8 [3,8) case-insensitive "CAFÉ"`},
		{"CRLF line endings", "first line\r\nsecond in order to go\r\nthird\r\n", Quote{Text: "in order to", Line: 2},
			`2:8-2:19 [19,30) exact on the line "in order to"`},
		{"quote across a CRLF break", "one two\r\nthree four\r\n", Quote{Text: "two\nthree", Line: 1},
			`1:5-2:6 [4,14) normalised "two\r\nthree"`},
		{"white space differs", "Due  to\tthe fact\nthat it rains.\n", Quote{Text: "due to the fact that", Line: 1},
			`1:1-2:5 [0,21) normalised "Due  to\tthe fact\nthat"`},
		{"typographic quotes and dashes", "It’s “fast” — really.\n", Quote{Text: `It's "fast" - really`},
			`1:1-1:21 [0,28) normalised "It’s “fast” — really"`},
		// The emphasis the match opens is closed with it (TestLocateAcrossMarkup).
		{"markup dropped", "Run `acme deploy` **now**.\n", Quote{Text: "run acme deploy now"},
			"1:1-1:26 [0,25) normalised \"Run `acme deploy` **now**\""},
		{"reference links' markup dropped", "See [the guide][g] and [the API][].\n", Quote{Text: "the guide and the API."},
			`1:5-1:36 [4,35) normalised "[the guide][g] and [the API][]."`},
		{"copied line number prefix", "alpha\nbeta gamma\n", Quote{Text: "2\tbeta gamma", Line: 2},
			`2:1-2:11 [6,16) exact on the line "beta gamma"`},
		{"surrounding quotation marks", "Say hello world now.\n", Quote{Text: `"hello world"`},
			`1:5-1:16 [4,15) exact "hello world"`},
		{"fuzzy within two lines", "one\ntwo\nThe quick brown fox jumps over the lazy dog.\nfour\n",
			Quote{Text: "the quick brown fox jumped over the lazy dog", Line: 2},
			`3:1-3:44 [8,51) fuzzy "The quick brown fox jumps over the lazy dog"`},
		{"a replaced word: the whole phrase", "Here the cat sat on the rug today.\n",
			Quote{Text: "the cat sat on the mat", Line: 1}, `1:6-1:28 [5,27) fuzzy "the cat sat on the rug"`},
		{"reordered words", "We ship the release on time.\n", Quote{Text: "on time we ship the release", Line: 1},
			`1:1-1:28 [0,27) fuzzy "We ship the release on time"`},
		{"one shared word is not a match", "The dog barks.\n", Quote{Text: "the cat sat on the mat", Line: 1}, "not located"},
		{"words scattered too far apart", "quick one two three four five six seven eight brown nine ten fox\n",
			Quote{Text: "quick brown fox", Line: 1}, "not located"},
		{"fuzzy needs the hint", "The quick brown fox jumps over the lazy dog.\n",
			Quote{Text: "the quick brown fox jumped over the lazy dog"}, "not located"},
		{"fuzzy too far from the hint", "The quick brown fox jumps over the lazy dog.\na\nb\nc\n",
			Quote{Text: "the quick brown fox jumped over the lazy dog", Line: 4}, "not located"},
		{"too different", "The quick brown fox jumps over the lazy dog.\n", Quote{Text: "a slow red cat sleeps under it", Line: 1}, "not located"},
		{"not in the text", repeats, Quote{Text: "leverage synergies", Line: 1}, "not located"},
		{"empty quote", repeats, Quote{Text: "  ", Line: 1}, "not located"},
		{"frontmatter offsets", "---\ntitle: T\n---\nBody in order to win.\n", Quote{Text: "in order to", Line: 4},
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

// TestLocateOriginalFuzzyMatching reproduces the original VectorLint's tests of locating
// (tests/fuzzy-matching.test.ts, on its ORIGINAL_TEXT): exact, with context, case-insensitive,
// a typo, missing words, reordered words, unrelated text and an empty quote. The original
// searches the whole text fuzzily when the model gives no line; here the fuzzy step keeps to
// the hinted line ±2 (the model is always shown line numbers), so the fuzzy cases give the line
// the original finds as the hint. Where the original reports a line and a column only, the want
// is the exact span: the tokens of the passage from its first word to its last.
func TestLocateOriginalFuzzyMatching(t *testing.T) {
	t.Parallel()
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
		v    Quote
		want string
	}{
		{"finds exact match", original, Quote{Text: "quick brown fox"},
			`2:5-2:20 [28,43) exact "quick brown fox"`},
		{"without context, the first of duplicates", duplicates, Quote{Text: "some content"},
			`1:17-1:29 [16,28) exact "some content"`},
		{"uses context to disambiguate multiple matches", duplicates,
			Quote{Text: "some content", Before: "with ", After: " there"},
			`2:18-2:30 [52,64) exact "some content"`},
		{"finds case-insensitive match", original, Quote{Text: "QUICK BROWN FOX"},
			`2:5-2:20 [28,43) case-insensitive "quick brown fox"`},
		// The original finds "brown fox jumps", the longest run of the quote's words that is in
		// the text exactly; the token-set match covers the misspelt word too.
		{"finds a quote with a typo", original, Quote{Text: "quik brown fox jumps", Line: 2},
			`2:5-2:26 [28,49) fuzzy "quick brown fox jumps"`},
		{"finds fuzzy match with missing words", original, Quote{Text: "brown fox over lazy", Line: 2},
			`2:11-2:40 [34,63) fuzzy "brown fox jumps over the lazy"`},
		{"finds fuzzy match with word order changed", original, Quote{Text: "fox brown quick", Line: 2},
			`2:5-2:20 [28,43) fuzzy "quick brown fox"`},
		{"reworded across two lines", original,
			Quote{Text: "more content to test multiline matching across different paragraphs", Line: 5},
			`5:6-6:28 [155,223) fuzzy "more content to test multi-line matching\nacross different paragraphs"`},
		{"returns null for completely unrelated text", original, Quote{Text: "the cat sat on the mat", Line: 2},
			"not located"},
		{"returns null for empty quoted_text", original, Quote{Text: "", Line: 2}, "not located"},
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
	t.Parallel()
	doc, err := New("doc.md", []byte("# Title\n\nintro\n## Héllo wörld in order to\nmore in order to\n"))
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(doc.Source), "Héllo")
	text := "Héllo wörld in order to\nmore in order to"
	c := Chunk{Text: text, Offset: start, Line: 4}
	span, m := Locate(c, Quote{Text: "in order to", Line: 5})
	if p := doc.Position(span.Start); m != LocatedOnLine || p.Line != 5 || p.Column != 6 {
		t.Errorf("%v at %+v", m, p)
	}
	span, m = Locate(c, Quote{Text: "in order to", Line: 4})
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
		span, m := Locate(c, Quote{Text: quote, Line: line, Before: before, After: after})
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
		doc, err := New("doc.md", []byte(src))
		if err != nil {
			return
		}
		if err := doc.SkipScopes(DefaultScopeSettings()); err != nil {
			t.Fatal(err)
		}
		c := Chunk{Text: doc.Prose(), Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line}
		if sc, ok := doc.shownChunk(c); ok {
			shown, _ := doc.ModelText(c.Text, c.Offset)
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
		span, m := doc.LocateQuote(c, Quote{Text: quote, Line: line})
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
