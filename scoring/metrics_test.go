package scoring

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// The expected values below come from scoring/testdata/reference.py, which re-implements each
// metric's reference implementation step for step in plain Python 3 (the SQuAD v2.0 evaluation
// script; sacreBLEU 2.x sentence_bleu defaults; Google rouge-score's ROUGE-L) and prints the exact
// value for every case here. Run it to reproduce them. A few are also worked by hand in the
// comments.

// closeTo reports whether got equals want up to floating-point noise: the Go and Python
// computations may differ in the last bits of a logarithm or a sum.
func closeTo(got, want float64) bool {
	return math.Abs(got-want) <= 1e-12*math.Max(1, math.Abs(want))
}

var squadCases = []struct {
	response, groundTruth string
	exact, f1             float64
}{
	// Articles go: 2 tokens (cat sat) against 4 (cat sat on mat); P 1, R 1/2, F1 2/3.
	{"the cat sat", "the cat sat on the mat", 0, 0.6666666666666666},
	{"The Cat sat!", "cat  sat", 1, 1},
	// Both empty: an agreeing "no answer" (SQuAD v2.0).
	{"", "", 1, 1},
	{"", "something", 0, 0},
	{"a an the", "", 1, 1},
	{"Paris, France.", "paris", 0, 0.6666666666666666},
	// The em dash is no word character, so "the" before it is a whole word and goes; the dash
	// stays glued to "cat" (it is not ASCII punctuation).
	{"the\u2014cat sat", "cat sat", 0, 0.5},
	{"then the theme", "then theme", 1, 1},
	{"It's 3.14 \u2014 roughly", "its 314 roughly", 0, 0.8571428571428571},
	// Common tokens are counted with multiplicity: 1 of 3.
	{"dog dog dog", "dog", 0, 0.5},
	// Punctuation goes before articles, so "the_end" becomes "theend", not "end".
	{"Caf\u00e9 the_end", "caf\u00e9 the end", 0, 0.5},
	{"A\u00a0cat", "cat", 1, 1},
	// Python's str.split() also splits on the information separators U+001C–U+001F.
	{"cat\x1fsat", "cat sat", 1, 1},
	{"The Eiffel Tower is in Paris, the capital of France.", "Paris", 0, 0.2222222222222222},
	// str.lower() maps a word-final capital sigma to the final form and "İ" to "i" and U+0307
	// (Unicode's full case mapping); Go's simple mapping (strings.ToLower) did neither.
	{"\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2", 1, 1},
	{"\u039f\u0394\u039f\u03a3 \u0391\u0398\u0397\u039d\u03a9\u039d", "\u03bf\u03b4\u03bf\u03c3 \u03b1\u03b8\u03b7\u03bd\u03c9\u03bd", 0, 0.5},
	{"\u0130stanbul", "istanbul", 0, 0},
	{"\u0130stanbul", "i\u0307stanbul", 1, 1},
}

func TestExactMatch(t *testing.T) {
	t.Parallel()
	for _, tt := range squadCases {
		if got := ExactMatch(tt.response, tt.groundTruth); got != tt.exact {
			t.Errorf("ExactMatch(%q, %q) = %v; want %v", tt.response, tt.groundTruth, got, tt.exact)
		}
	}
}

func TestF1(t *testing.T) {
	t.Parallel()
	for _, tt := range squadCases {
		if got := F1(tt.response, tt.groundTruth); !closeTo(got, tt.f1) {
			t.Errorf("F1(%q, %q) = %v; want %v", tt.response, tt.groundTruth, got, tt.f1)
		}
	}
}

func TestNormalizeAnswer(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"The Cat  sat!", "cat sat"},
		{"an apple a day", "apple day"},
		{"A\u00a0cat", "cat"},
		{"the\u2014cat", "\u2014cat"},
		{"theatre then the", "theatre then"},
		{"an_a the1", "ana the1"},
		{"\xff the \xfe", "\ufffd \ufffd"}, // invalid UTF-8 becomes U+FFFD, as Python would decode it with errors="replace"
	}
	for _, tt := range tests {
		if got := normalizeAnswer(tt.in); got != tt.want {
			t.Errorf("normalizeAnswer(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

var bleuCases = []struct {
	response, groundTruth string
	want                  float64
}{
	// Python gives 1.0000000000000004 (the mean of four logs of 100); BLEU clamps to 1.
	{"The quick brown fox jumps over the lazy dog.", "The quick brown fox jumps over the lazy dog.", 1},
	// Effective order 3 (no 4-grams in 3 tokens), all precisions 1; brevity penalty
	// exp(1 − 6/3) = 1/e.
	{"the cat sat", "the cat sat on the mat", 0.3678794411714425},
	// "exp" smoothing: no 4-gram matches, so p4 = 1/(2 × 4).
	{"The cat is on the mat.", "There is a cat on the mat.", 0.39442436483275556},
	{"hello world", "foo bar", 0},
	{"", "the cat", 0},
	{"the cat", "", 0},
	// 13a keeps "1,000.50" whole (period and comma between digits) and splits off the others.
	{"It costs 1,000.50 dollars, today.", "It costs 1,000.50 dollars today.", 0.4889230224349009},
	// 13a unescapes &amp; &lt; &gt; &quot;.
	{"Tom &amp; Jerry &lt;3", "Tom & Jerry <3", 1},
	// Case-sensitive.
	{"THE CAT", "the cat", 0},
	// A dash after a digit is split off.
	{"the 2019-2020 season was long", "the 2019 - 2020 season was long", 1},
	{"Run vectorlint on every pull request so reviewers see scores before they read the diff.",
		"Run vectorlint on each pull request, so that reviewers see the scores before reading the diff.", 0.18853972982966044},
	// p1 4/5, p2 2/4, p3 1/2 smoothed (0 of 3 → 1/(2×3)), p4 1/4 smoothed twice (0 of 2 → 1/(4×2)).
	{"a b c d e", "a b x d e", 0.30213753973567675},
	{"well-known (and loved) \"quotes\": yes/no?", "well-known and loved quotes: yes or no?", 0.11498759556447218},
}

func TestBLEU(t *testing.T) {
	t.Parallel()
	for _, tt := range bleuCases {
		if got := BLEU(tt.response, tt.groundTruth); !closeTo(got, tt.want) {
			t.Errorf("BLEU(%q, %q) = %v; want %v", tt.response, tt.groundTruth, got, tt.want)
		}
	}
}

func TestTokenize13a(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want []string
	}{
		{"The cat is on the mat.", []string{"The", "cat", "is", "on", "the", "mat", "."}},
		{"It costs 1,000.50 dollars, today.", []string{"It", "costs", "1,000.50", "dollars", ",", "today", "."}},
		{`well-known (and loved) "quotes": yes/no?`, []string{"well-known", "(", "and", "loved", ")", `"`, "quotes", `"`, ":", "yes", "/", "no", "?"}},
		{"Tom &amp; Jerry &lt;3", []string{"Tom", "&", "Jerry", "<", "3"}},
		{"2019-2020", []string{"2019", "-", "2020"}},
		{"line one-\nline two\n", []string{"line", "oneline", "two"}},
		{"<skipped> it's", []string{"it's"}},
		{"", nil},
	}
	for _, tt := range tests {
		if got := tokenize13a(tt.in); !slices.Equal(got, tt.want) {
			t.Errorf("tokenize13a(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

func TestBleuFromStats(t *testing.T) {
	t.Parallel()
	// A hand-worked case of sacreBLEU's compute_bleu: 10 hypothesis tokens against 12 reference
	// tokens, precisions 8/10, 4/9, 0/8 (smoothed to 1/(2×8)), 0/7 (smoothed to 1/(4×7)).
	got := bleuFromStats([4]int{8, 4, 0, 0}, [4]int{10, 9, 8, 7}, 10, 12)
	bp := math.Exp(1 - 12.0/10)
	want := bp * math.Exp((math.Log(80)+math.Log(400.0/9)+math.Log(100.0/16)+math.Log(100.0/28))/4)
	if !closeTo(got, want) {
		t.Errorf("bleuFromStats = %v; want %v", got, want)
	}
}

var rougeCases = []struct {
	response, groundTruth string
	want                  float64
}{
	// rouge-score's own tests (rouge_scorer_test.py): P 1, R 2/3, F 4/5.
	{"testing one", "testing one two", 0.8},
	{"testing two", "testing one two", 0.8},
	{"the cat sat", "the cat sat on the mat", 0.6666666666666666},
	// LCS "the quick brown jumps the" (5) of 8 and 9 tokens: F = 2×5/17.
	{"The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog", 0.5882352941176471},
	// Only ASCII letters and digits make tokens.
	{"\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", "\u65e5\u672c\u8a9e\u306e\u30c6\u30ad\u30b9\u30c8", 0},
	{"police killed the gunman", "the gunman killed police", 0.5},
	{"", "x", 0},
	{"Hello, WORLD!!", "hello world", 1},
	// "café" becomes the token "caf".
	{"caf\u00e9 au lait", "cafe au lait", 0.6666666666666666},
	// "İ" lower-cases to "i" and U+0307, which separates tokens: "i", "zmir".
	{"\u0130zmir is warm", "i zmir is warm", 1},
	{"\u0130stanbul", "istanbul", 0},
	{"Run vectorlint on every pull request so reviewers see scores before they read the diff.",
		"Run vectorlint on each pull request, so that reviewers see the scores before reading the diff.", 0.7741935483870969},
}

func TestRougeL(t *testing.T) {
	t.Parallel()
	for _, tt := range rougeCases {
		if got := RougeL(tt.response, tt.groundTruth); !closeTo(got, tt.want) {
			t.Errorf("RougeL(%q, %q) = %v; want %v", tt.response, tt.groundTruth, got, tt.want)
		}
	}
}

func TestLCSLength(t *testing.T) {
	t.Parallel()
	// rouge-score's testLcsTable: [1 2 3 4 5] and [2 5 3 4] share "2 3 4".
	a := []string{"1", "2", "3", "4", "5"}
	ctx := t.Context()
	if got, _ := lcsLength(ctx, a, []string{"2", "5", "3", "4"}); got != 3 {
		t.Errorf("lcsLength = %d; want 3", got)
	}
	if got, _ := lcsLength(ctx, []string{"2", "5", "3", "4"}, a); got != 3 {
		t.Errorf("lcsLength (swapped) = %d; want 3", got)
	}
	if got, _ := lcsLength(ctx, a, []string{"8", "9"}); got != 0 {
		t.Errorf("lcsLength = %d; want 0", got)
	}
}

func TestRougeLStopsWhenCanceled(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 1000)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := RougeLContext(ctx, long, long); !errors.Is(err, context.Canceled) {
		t.Errorf("RougeLContext(canceled) error = %v", err)
	}
}

// FuzzMetrics checks that the metrics never panic and stay in range on any input, and that
// every metric gives the maximum for a text against itself where the reference does.
func FuzzMetrics(f *testing.F) {
	for _, c := range bleuCases {
		f.Add(c.response, c.groundTruth)
	}
	for _, c := range squadCases {
		f.Add(c.response, c.groundTruth)
	}
	f.Add("\xff\xfe<skipped>&amp;", "-\n\x1c")
	f.Fuzz(func(t *testing.T, response, groundTruth string) {
		for name, metric := range map[string]func(string, string) float64{
			"ExactMatch": ExactMatch, "F1": F1, "BLEU": BLEU, "RougeL": RougeL,
		} {
			v := metric(response, groundTruth)
			if !(v >= 0 && v <= 1) {
				t.Fatalf("%s(%q, %q) = %v, outside 0–1", name, response, groundTruth, v)
			}
		}
		if ExactMatch(response, response) != 1 || F1(response, response) != 1 {
			t.Fatalf("a text does not match itself: %q", response)
		}
		if len(rougeTokens(response)) > 0 && RougeL(response, response) != 1 {
			t.Fatalf("RougeL of %q against itself = %v", response, RougeL(response, response))
		}
	})
}
