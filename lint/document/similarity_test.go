package document

import (
	"testing"
	"unicode/utf8"
)

// TestTokenSetRatioMatchesFuzzball checks tokenSetRatio against fuzzball's token_set_ratio: the
// examples of fuzzball's README.md ("fuzzy was a bear", "mr. harry hood", "this isnt a test" of
// its test/test.js), the quotes of the original VectorLint's tests/fuzzy-matching.test.ts
// against their line, and text with punctuation, accents and numbers. Every want is what
// fuzzball 2.2.6 (the version the original's package.json "^2.2.3" installs) returns for the
// pair, computed with `require("fuzzball").token_set_ratio(a, b)`.
func TestTokenSetRatioMatchesFuzzball(t *testing.T) {
	t.Parallel()
	const fox = "The quick brown fox jumps over the lazy dog."
	tests := []struct {
		a, b string
		want int
	}{
		{"fuzzy was a bear", "a fuzzy bear fuzzy was", 100},
		{"fuzzy was a bear", "fuzzy fuzzy was a bear", 100},
		{"apple cup zebrah horse foo", "zapple cub horse bebrah bar", 53},
		{"mr. harry hood", "Hood, Harry", 100},
		{"mr. harry hood", "Mr. Henry Hood", 85},
		{"mr. harry hood", "Mr. Minor", 40},
		{"this isnt a test", "this is a test!", 93},
		{"quick brown fox", fox, 100},
		{"brown fox over lazy", fox, 100},   // "finds fuzzy match with missing words"
		{"fox brown quick", fox, 100},       // "finds fuzzy match with word order changed"
		{"the cat sat on the mat", fox, 35}, // "returns null for completely unrelated text"
		{"the quick brown fox jumped over the lazy dog", fox, 96},
		{"Le CAFÉ est ouvert", "le café, est-il ouvert?", 100},
		{"we act in ordr to ship", "We act in order to ship", 98},
		{"naïve résumé 2024", "Résumé: naïve, 2024.", 100},
		{"", "abc", 0},
		{"!!!", "abc", 0},
	}
	for _, tt := range tests {
		if got := tokenSetRatio(tt.a, tt.b); got != tt.want {
			t.Errorf("tokenSetRatio(%q, %q) = %d, want %d (fuzzball)", tt.a, tt.b, got, tt.want)
		}
		if got := tokenSetRatio(tt.b, tt.a); got != tt.want {
			t.Errorf("tokenSetRatio(%q, %q) = %d, want %d (fuzzball; symmetric)", tt.b, tt.a, got, tt.want)
		}
	}
}

// TestQuoteSimilarity checks the quote-side reading of token_set_ratio that locating uses: a
// passage holding all the quote's words scores 100 whatever their order or what else it holds,
// and a passage holding only some of them scores by how much of the quote it holds, never 100.
func TestQuoteSimilarity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		quote, passage string
		want           int
	}{
		{"fox brown quick", "quick brown fox", 100},
		{"brown fox over lazy", "brown fox jumps over the lazy", 100},
		{"the cat sat on the mat", "the", 29},            // token_set_ratio says 100
		{"the cat sat on the mat", "cat sat on the", 88}, // four of five words
		{"the cat sat on the mat", "the cat sat on the rug", 88},
		{"we act in ordr to ship", "we act in order to ship", 98}, // the words that differ are close
		{"we act in ordr to ship", "", 0},
	}
	for _, tt := range tests {
		got := quoteSimilarity(tokenSet(fuzzTokens(tt.quote)), tokenSet(fuzzTokens(tt.passage)))
		if got != tt.want {
			t.Errorf("quoteSimilarity(%q, %q) = %d, want %d", tt.quote, tt.passage, got, tt.want)
		}
	}
}

// FuzzTokenSetRatio: the similarities never panic, lie in [0, 100], token_set_ratio is
// symmetric and 100 for a text with words against itself, and the quote-side similarity never
// exceeds it.
func FuzzTokenSetRatio(f *testing.F) {
	f.Add("fuzzy was a bear", "a fuzzy bear fuzzy was")
	f.Add("mr. harry hood", "Hood, Harry")
	f.Add("Le CAFÉ 👋 est ouvert", "le café, est-il ouvert?")
	f.Add("", "x")
	f.Add("a a a", "a b")
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := tokenSetRatio(a, b), tokenSetRatio(b, a)
		if ab != ba {
			t.Fatalf("tokenSetRatio(%q, %q) = %d but (b, a) = %d", a, b, ab, ba)
		}
		if ab < 0 || ab > 100 {
			t.Fatalf("tokenSetRatio(%q, %q) = %d, outside [0, 100]", a, b, ab)
		}
		if ta := fuzzTokens(a); len(ta) > 0 {
			if aa := tokenSetRatio(a, a); aa != 100 {
				t.Fatalf("tokenSetRatio(%q, itself) = %d", a, aa)
			}
			for _, tok := range ta {
				if tok.start < 0 || tok.end > len(a) || tok.start >= tok.end || !utf8.ValidString(a[tok.start:tok.end]) && utf8.ValidString(a) {
					t.Fatalf("token %+v of %q", tok, a)
				}
			}
		}
		q := quoteSimilarity(tokenSet(fuzzTokens(a)), tokenSet(fuzzTokens(b)))
		if q < 0 || q > ab {
			t.Fatalf("quoteSimilarity(%q, %q) = %d, token_set_ratio %d", a, b, q, ab)
		}
	})
}

// FuzzSetScorer: the word-by-word scorer locating uses gives quoteSimilarity for every passage
// of a text, and with a floor it is exact at or above the floor and below it under it.
func FuzzSetScorer(f *testing.F) {
	f.Add("The quick brown fox jumps over the lazy dog.", "brown fox over lazy", 80)
	f.Add("the cat sat on the rug, the cat", "the cat sat on the mat", 90)
	f.Add("a a b", "b a", 0)
	f.Add("Café, café; CAFÉ 👋 naïve", "cafe naïve", 50)
	f.Fuzz(func(t *testing.T, text, quote string, floor int) {
		words, qt := fuzzTokens(text), fuzzTokens(quote)
		if len(words) > 40 || len(qt) == 0 {
			return
		}
		floor = min(max(floor, 0), 101)
		sc := newSetScorer(words, qt)
		sc.setQuote(sc.ids(qt))
		qs := tokenSet(qt)
		for i := range words {
			sc.reset()
			for j := i; j < len(words); j++ {
				sc.add(j)
				want := quoteSimilarity(qs, tokenSet(words[i:j+1]))
				if got := sc.similarity(0); got != want {
					t.Fatalf("passage %q: scorer %d, quoteSimilarity %d", text[words[i].start:words[j].end], got, want)
				}
				got := sc.similarity(floor)
				if (want >= floor && got != want) || (want < floor && got >= floor) {
					t.Fatalf("passage %q, floor %d: scorer %d, quoteSimilarity %d", text[words[i].start:words[j].end], floor, got, want)
				}
			}
		}
	})
}
