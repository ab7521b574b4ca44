package scoring

import (
	"errors"
	"fmt"
	"math"
)

// Ratings of subjective criteria run from MinRating to MaxRating.
const (
	MinRating = 1
	MaxRating = 4
)

// Criterion is one subjective criterion's weight and rating. Name only labels errors and
// serialised results; the score does not depend on it.
type Criterion struct {
	Name   string  `json:"name,omitempty"`
	Weight float64 `json:"weight"`
	Rating int     `json:"rating"`
}

// label names the criterion in an error message.
func (c Criterion) label(i int) string {
	if c.Name != "" {
		return fmt.Sprintf("criterion %q", c.Name)
	}
	return fmt.Sprintf("criterion %d", i+1)
}

// NormalizeRating maps a rating of 1–4 to the 1–10 scale: 1 + (rating − 1) / 3 × 9, so
// 1 → 1, 2 → 4, 3 → 7, 4 → 10. Other ratings are an error.
func NormalizeRating(rating int) (float64, error) {
	if rating < MinRating || rating > MaxRating {
		return 0, fmt.Errorf("expected a rating from %d to %d, found %d", MinRating, MaxRating, rating)
	}
	return 1 + float64(rating-1)/3*9, nil
}

// ScoreSubjective returns a subjective rule's score on the 1–10 scale: the weight-averaged
// normalised rating of its criteria, at full precision (show it with [Round1]). Weights 12/2/1
// with ratings 1/2/4 score 2.0; weights 40/30 with ratings 3/4 score 8.3.
//
// Every rating must be 1–4 and every weight a finite number of 0 or more, with at least one
// weight above 0; an error names the offending criterion.
func ScoreSubjective(criteria []Criterion) (float64, error) {
	if len(criteria) == 0 {
		return 0, errors.New("subjective score: expected at least one criterion, found none")
	}
	var weighted, total float64
	for i, c := range criteria {
		n, err := NormalizeRating(c.Rating)
		if err != nil {
			return 0, fmt.Errorf("subjective score: %s: %w", c.label(i), err)
		}
		if c.Weight < 0 || math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
			return 0, fmt.Errorf("subjective score: %s: expected a weight of 0 or more, found %v", c.label(i), c.Weight)
		}
		weighted += n * c.Weight
		total += c.Weight
	}
	if total <= 0 {
		return 0, errors.New("subjective score: expected at least one criterion with a weight above 0, found all weights 0")
	}
	return weighted / total, nil
}

// ChunkRating is one chunk's rating of a criterion and the chunk's word count.
type ChunkRating struct {
	Rating int
	// Words is the chunk's [CountWords]; fewer than 1 counts as 1.
	Words int
}

// AggregateRatings combines the ratings a criterion got on the chunks of a long document into
// one rating (spec/linter.md §5): the average of the chunk ratings weighted by the chunks'
// words, rounded to the nearest integer.
//
// Ties go to the lower rating: a 2 and a 3 on chunks of equal length give 2. A document that is
// half poor is not rated as good, and a low rating is what surfaces the criterion's findings.
// The arithmetic is exact (integers), so a tie is a tie however long the document is.
//
// Ratings outside 1–4, negative word counts and an empty list are errors.
func AggregateRatings(chunks []ChunkRating) (int, error) {
	if len(chunks) == 0 {
		return 0, errors.New("aggregate ratings: expected at least one chunk, found none")
	}
	var sum, words int64
	for i, c := range chunks {
		if c.Rating < MinRating || c.Rating > MaxRating {
			return 0, fmt.Errorf("aggregate ratings: chunk %d: expected a rating from %d to %d, found %d", i+1, MinRating, MaxRating, c.Rating)
		}
		if c.Words < 0 {
			return 0, fmt.Errorf("aggregate ratings: chunk %d: expected a word count of 0 or more, found %d", i+1, c.Words)
		}
		w := int64(max(c.Words, 1))
		sum += int64(c.Rating) * w
		words += w
	}
	// sum/words lies in [1, 4]; round it to the nearest integer, ties down.
	rating := sum / words
	if 2*(sum-rating*words) > words {
		rating++
	}
	return int(rating), nil
}

// CriterionSeverity returns the severity at which a subjective criterion's findings are
// reported, given its rating (spec/linter.md §5):
//
//   - rating 1: the criterion's own severity, or the rule's when the criterion sets none (its
//     severity is the zero value of S);
//   - ratings 2, 3 and 4: warning.
//
// S is the caller's severity type (finding.Severity); warning is its warning value. A rating
// outside 1–4 is an error.
func CriterionSeverity[S comparable](rating int, criterion, rule, warning S) (S, error) {
	var zero S
	switch {
	case rating == 1 && criterion != zero:
		return criterion, nil
	case rating == 1:
		return rule, nil
	case rating >= 2 && rating <= MaxRating:
		return warning, nil
	}
	return zero, fmt.Errorf("criterion severity: expected a rating from %d to %d, found %d", MinRating, MaxRating, rating)
}

// NeedsSummaryFinding reports whether a criterion gets one finding carrying the model's summary
// at the start of its evaluated text: when it is rated 1 or 2 and the model listed no
// violations for it, so a low rating never goes unreported.
func NeedsSummaryFinding(rating, violations int) bool {
	return (rating == 1 || rating == 2) && violations == 0
}
