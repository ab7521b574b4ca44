package scoring_test

import (
	"testing"

	"github.com/vectorlint/vectorlint/scoring"
)

// TestScoreDensityReference checks the reference table of spec/linter.md §5, which the original
// VectorLint produced too.
func TestScoreDensityReference(t *testing.T) {
	t.Parallel()
	tests := []struct {
		violations, words int
		strictness        scoring.Strictness
		want              float64 // the score as shown, one decimal
	}{
		{0, 1, 10, 10.0},
		{0, 31, 5, 10.0},
		{0, 100000, 20, 10.0},
		{0, 0, 7.5, 10.0},
		{1, 100, 10, 9.0},
		{1, 1000, 10, 9.9},
		{2, 31, 10, 3.5},
		{2, 31, 20, 0.0},
		{2, 31, 5, 6.8},
		// 10.0 means no violations: a density too small to show is capped at 9.9.
		{1, 10000, 10, 9.9},
		{1, 1999, 10, 9.9},
		{1, 2001, 10, 9.9},
		{3, 1000000, 20, 9.9},
		{1, 1000000, 0.1, 9.9},
	}
	for _, tt := range tests {
		d, err := scoring.ScoreDensity(tt.violations, tt.words, tt.strictness)
		if err != nil {
			t.Fatalf("ScoreDensity(%d, %d, %v): %v", tt.violations, tt.words, tt.strictness, err)
		}
		if got := scoring.Round1(d.Score); got != tt.want {
			t.Errorf("ScoreDensity(%d, %d, %v).Score = %v, shown %v; want %v", tt.violations, tt.words, tt.strictness, d.Score, got, tt.want)
		}
	}
}

func TestScoreDensityFields(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name              string
		violations, words int
		strictness        scoring.Strictness
		want              scoring.Density
	}{
		{"two in 31 words", 2, 31, scoring.Standard, scoring.Density{
			Violations: 2, Words: 31, Strictness: 10,
			Density: 2.0 / 31 * 100, Raw: 100 - 2.0/31*100*10, Score: (100 - 2.0/31*100*10) / 10,
		}},
		{"one in 100 words", 1, 100, scoring.Standard, scoring.Density{
			Violations: 1, Words: 100, Strictness: 10, Density: 1, Raw: 90, Score: 9,
		}},
		{"clamped at 0", 2, 31, scoring.Strict, scoring.Density{
			Violations: 2, Words: 31, Strictness: 20, Density: 2.0 / 31 * 100, Raw: 0, Score: 0,
		}},
		{"no words counts as one", 1, 0, scoring.Lenient, scoring.Density{
			Violations: 1, Words: 1, Strictness: 5, Density: 100, Raw: 0, Score: 0,
		}},
		{"capped below 10 with a violation", 1, 10000, scoring.Standard, scoring.Density{
			Violations: 1, Words: 10000, Strictness: 10, Density: 0.01, Raw: 99.9, Score: 9.9,
		}},
		{"no violations", 0, 0, scoring.Standard, scoring.Density{
			Violations: 0, Words: 1, Strictness: 10, Density: 0, Raw: 100, Score: 10,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoring.ScoreDensity(tt.violations, tt.words, tt.strictness)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestScoreDensityErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		violations, words int
		strictness        scoring.Strictness
		want              string
	}{
		{-1, 10, 10, "density score: expected a violation count of 0 or more, found -1"},
		{1, -3, 10, "density score: expected a word count of 0 or more, found -3"},
		{1, 10, 0, "density score: expected a positive strictness, found 0"},
		{1, 10, -5, "density score: expected a positive strictness, found -5"},
	}
	for _, tt := range tests {
		_, err := scoring.ScoreDensity(tt.violations, tt.words, tt.strictness)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ScoreDensity(%d, %d, %v) error = %v; want %q", tt.violations, tt.words, tt.strictness, err, tt.want)
		}
	}
}

// TestScoreDensityWithCountWords ties the word counter to the formula: 2 violations in a
// 31-word text at standard strictness is the reference 3.5.
func TestScoreDensityWithCountWords(t *testing.T) {
	t.Parallel()
	text := "Our platform leverages cutting-edge synergies to empower teams.\n\n" +
		"It\u00a0is, in order to be honest, basically the very best tool that you will ever\tuse for writing all of your docs."
	words := scoring.CountWords(text)
	if words != 31 {
		t.Fatalf("CountWords = %d; want 31", words)
	}
	d, err := scoring.ScoreDensity(2, words, scoring.Standard)
	if err != nil {
		t.Fatal(err)
	}
	if got := scoring.Round1(d.Score); got != 3.5 {
		t.Errorf("score = %v; want 3.5", got)
	}
}
