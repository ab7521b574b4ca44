package rules

// Bounds of the numbers a rule file sets, and vectorlint.ini's strictness overrides
// (spec/trust.md §8; the table is in docs/configuration.md). A rule comes from the repository
// under review: each number it gives has a range, checked when the rule is loaded and by
// vectorlint validate, so that no formula fed with it can overflow. A rule's weighted sums stay
// finite: a rule file holds at most MaxFileSize bytes, so fewer than a million criteria, each
// weighing at most MaxCriterionWeight; their sum, times the highest normalised rating (10), is
// far below the largest float64.
const (
	// MaxStrictness is the highest strictness: at 1000 a single violation in 1,000 words
	// already scores 0, so a higher value would only make a penalty of an absurd size.
	MaxStrictness = 1000
	// MaxCriterionWeight is the heaviest criterion weight. Weights are relative (12/2/1 and
	// 1200/200/100 score alike), so a million leaves every useful ratio room.
	MaxCriterionWeight = 1_000_000
)

// StrictnessExpected describes the accepted strictness values for messages.
const StrictnessExpected = `a number greater than 0 and at most 1000, or "lenient", "standard" or "strict"`

// WeightExpected describes the accepted criterion weights for messages.
const WeightExpected = "a number greater than 0 and at most 1000000"

// ValidWeight reports whether w is a criterion weight a rule may set: greater than 0 and at
// most MaxCriterionWeight (NaN and infinities are not).
func ValidWeight(w float64) bool { return w > 0 && w <= MaxCriterionWeight }
