package scoring

import "github.com/vectorlint/vectorlint/internal/jsjson"

// Round returns x rounded to the given number of decimal places (0 to 15). It rounds the exact
// binary value of x and breaks exact ties away from zero, as JavaScript's toFixed does: the
// result is the float64 nearest to the decimal the original VectorLint would print, so
// formatting it with strconv or fmt at the same precision prints that decimal. Round(9.25, 1)
// is 9.3, Round(0.6666, 3) is 0.667, Round(2.675, 2) is 2.67 (the float64 nearest to 2.675 is
// slightly below it). NaN and infinities are returned unchanged; decimals outside 0–15 are
// clamped to that range.
func Round(x float64, decimals int) float64 { return jsjson.Round(x, decimals) }

// Round1 returns x rounded to one decimal place with [Round]: the precision at which 0–10
// scores are shown and serialised (spec/linter.md §5).
func Round1(x float64) float64 {
	return Round(x, 1)
}
