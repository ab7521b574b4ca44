package scoring

import "fmt"

// Density is the score of a semi-objective rule and the quantities it was computed from
// (spec/linter.md §5).
type Density struct {
	Violations int
	// Words is the evaluated text's word count, at least 1.
	Words      int
	Strictness Strictness
	// Density is violations per 100 words.
	Density float64
	// Raw is 100 − Density × Strictness, clamped to 0–100.
	Raw float64
	// Score is Raw / 10, on the 0–10 scale, at full precision: show it with [Round1]. With
	// violations it is at most [MaxScoreWithViolations], so that a score shown as 10.0 always
	// means no violations.
	Score float64
}

// MaxScoreWithViolations is the highest score a semi-objective rule with at least one
// violation gets: 10.0 means "no violations" (spec/linter.md §5), so a density too small to
// move the score below 9.95 is capped here instead of rounding up to 10.0.
const MaxScoreWithViolations = 9.9

// ScoreDensity scores violations found in a text of the given number of words (use
// [CountWords]; fewer than 1 counts as 1) at the given strictness. No violations give 10; the
// score falls by strictness/10 points per 1% of density and never goes below 0; any violation
// caps it at [MaxScoreWithViolations] (1 violation in 10,000 words scores 9.9, not 10.0). Negative
// violations or words and an invalid strictness are errors.
//
// Reference values: 1 violation in 100 words at strictness 10 scores 9.0; 2 in 31 words scores
// 3.5 at strictness 10, 0.0 at 20 and 6.8 at 5.
func ScoreDensity(violations, words int, strictness Strictness) (Density, error) {
	if violations < 0 {
		return Density{}, fmt.Errorf("density score: expected a violation count of 0 or more, found %d", violations)
	}
	if words < 0 {
		return Density{}, fmt.Errorf("density score: expected a word count of 0 or more, found %d", words)
	}
	if !strictness.Valid() {
		return Density{}, fmt.Errorf("density score: expected a positive strictness, found %v", float64(strictness))
	}
	words = max(words, 1)
	density := float64(violations) / float64(words) * 100
	raw := min(max(100-density*float64(strictness), 0), 100)
	score := raw / 10
	if violations > 0 {
		score = min(score, MaxScoreWithViolations)
	}
	return Density{
		Violations: violations,
		Words:      words,
		Strictness: strictness,
		Density:    density,
		Raw:        raw,
		Score:      score,
	}, nil
}
