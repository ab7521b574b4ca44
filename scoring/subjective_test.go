package scoring_test

import (
	"strconv"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/scoring"
)

func TestNormalizeRating(t *testing.T) {
	t.Parallel()
	for rating, want := range map[int]float64{1: 1, 2: 4, 3: 7, 4: 10} {
		got, err := scoring.NormalizeRating(rating)
		if err != nil || got != want {
			t.Errorf("NormalizeRating(%d) = %v, %v; want %v", rating, got, err, want)
		}
	}
	for _, rating := range []int{0, 5, -1} {
		_, err := scoring.NormalizeRating(rating)
		want := "expected a rating from 1 to 4, found " + strconv.Itoa(rating)
		if err == nil || err.Error() != want {
			t.Errorf("NormalizeRating(%d) error = %v; want %q", rating, err, want)
		}
	}
}

func TestScoreSubjective(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		criteria []scoring.Criterion
		exact    float64
		shown    float64
	}{
		{"spec example 12/2/1", []scoring.Criterion{{Weight: 12, Rating: 1}, {Weight: 2, Rating: 2}, {Weight: 1, Rating: 4}}, 2, 2.0},
		{"spec example 40/30", []scoring.Criterion{{Weight: 40, Rating: 3}, {Weight: 30, Rating: 4}}, 580.0 / 70, 8.3},
		{"all top", []scoring.Criterion{{Weight: 1, Rating: 4}, {Weight: 5, Rating: 4}}, 10, 10},
		{"one criterion", []scoring.Criterion{{Weight: 3, Rating: 2}}, 4, 4},
		{"zero weight ignored", []scoring.Criterion{{Weight: 0, Rating: 1}, {Weight: 2, Rating: 3}}, 7, 7},
		{"fractional weights", []scoring.Criterion{{Weight: 0.5, Rating: 1}, {Weight: 1.5, Rating: 4}}, (0.5 + 15) / 2, 7.8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoring.ScoreSubjective(tt.criteria)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.exact {
				t.Errorf("score = %v; want %v", got, tt.exact)
			}
			if shown := scoring.Round1(got); shown != tt.shown {
				t.Errorf("shown = %v; want %v", shown, tt.shown)
			}
		})
	}
}

func TestScoreSubjectiveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		criteria []scoring.Criterion
		want     string
	}{
		{nil, "subjective score: expected at least one criterion, found none"},
		{[]scoring.Criterion{{Name: "Clarity", Weight: 1, Rating: 5}}, `subjective score: criterion "Clarity": expected a rating from 1 to 4, found 5`},
		{[]scoring.Criterion{{Weight: 1, Rating: 2}, {Weight: 1, Rating: 0}}, "subjective score: criterion 2: expected a rating from 1 to 4, found 0"},
		{[]scoring.Criterion{{Name: "Tone", Weight: -2, Rating: 2}}, `subjective score: criterion "Tone": expected a weight of 0 or more, found -2`},
		{[]scoring.Criterion{{Weight: 0, Rating: 2}, {Weight: 0, Rating: 3}}, "subjective score: expected at least one criterion with a weight above 0, found all weights 0"},
	}
	for _, tt := range tests {
		_, err := scoring.ScoreSubjective(tt.criteria)
		if err == nil || err.Error() != tt.want {
			t.Errorf("ScoreSubjective(%+v) error = %v; want %q", tt.criteria, err, tt.want)
		}
	}
}

func TestAggregateRatings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		chunks []scoring.ChunkRating
		want   int
	}{
		{"one chunk", []scoring.ChunkRating{{Rating: 3, Words: 420}}, 3},
		{"equal chunks agree", []scoring.ChunkRating{{2, 500}, {2, 500}}, 2},
		{"tie goes to the lower rating", []scoring.ChunkRating{{2, 500}, {3, 500}}, 2},
		{"tie 1 and 4 weighted to 2.5 goes down", []scoring.ChunkRating{{1, 300}, {4, 200}}, 2}, // (300+800)/500 = 2.2
		{"just past the tie goes up", []scoring.ChunkRating{{2, 500}, {3, 501}}, 3},
		{"weighted by words", []scoring.ChunkRating{{4, 450}, {1, 50}}, 4}, // 1850/500 = 3.7
		{"1.5 exactly goes down", []scoring.ChunkRating{{1, 400}, {2, 400}}, 1},
		{"three chunks", []scoring.ChunkRating{{3, 500}, {3, 500}, {1, 120}}, 3}, // 3120/1120 = 2.79
		{"empty chunks count one word", []scoring.ChunkRating{{4, 0}, {1, 0}}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := scoring.AggregateRatings(tt.chunks)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("AggregateRatings = %d; want %d", got, tt.want)
			}
		})
	}
}

func TestAggregateRatingsErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		chunks []scoring.ChunkRating
		want   string
	}{
		{nil, "aggregate ratings: expected at least one chunk, found none"},
		{[]scoring.ChunkRating{{3, 10}, {0, 10}}, "aggregate ratings: chunk 2: expected a rating from 1 to 4, found 0"},
		{[]scoring.ChunkRating{{3, -1}}, "aggregate ratings: chunk 1: expected a word count of 0 or more, found -1"},
	}
	for _, tt := range tests {
		_, err := scoring.AggregateRatings(tt.chunks)
		if err == nil || err.Error() != tt.want {
			t.Errorf("AggregateRatings(%v) error = %v; want %q", tt.chunks, err, tt.want)
		}
	}
}

func TestCriterionSeverity(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rating          int
		criterion, rule finding.Severity
		want            finding.Severity
	}{
		{1, finding.SeverityError, finding.SeverityWarning, finding.SeverityError},   // criterion's own
		{1, finding.SeverityWarning, finding.SeverityError, finding.SeverityWarning}, // criterion's own
		{1, finding.SeverityUnset, finding.SeverityError, finding.SeverityError},     // unset: the rule's
		{1, finding.SeverityUnset, finding.SeverityWarning, finding.SeverityWarning}, // unset: the rule's
		{2, finding.SeverityError, finding.SeverityError, finding.SeverityWarning},
		{3, finding.SeverityError, finding.SeverityError, finding.SeverityWarning},
		{4, finding.SeverityError, finding.SeverityError, finding.SeverityWarning},
	}
	for _, tt := range tests {
		got, err := scoring.CriterionSeverity(tt.rating, tt.criterion, tt.rule, finding.SeverityWarning)
		if err != nil || got != tt.want {
			t.Errorf("CriterionSeverity(%d, %v, %v) = %v, %v; want %v", tt.rating, tt.criterion, tt.rule, got, err, tt.want)
		}
	}
	_, err := scoring.CriterionSeverity(5, finding.SeverityError, finding.SeverityError, finding.SeverityWarning)
	if want := "criterion severity: expected a rating from 1 to 4, found 5"; err == nil || err.Error() != want {
		t.Errorf("rating 5: error = %v; want %q", err, want)
	}
}

func TestNeedsSummaryFinding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rating, violations int
		want               bool
	}{
		{1, 0, true}, {2, 0, true}, {3, 0, false}, {4, 0, false},
		{1, 2, false}, {2, 1, false},
	}
	for _, tt := range tests {
		if got := scoring.NeedsSummaryFinding(tt.rating, tt.violations); got != tt.want {
			t.Errorf("NeedsSummaryFinding(%d, %d) = %v; want %v", tt.rating, tt.violations, got, tt.want)
		}
	}
}
