package lint

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

// TestCheckFinite names the first number of a score that is NaN or infinite.
func TestCheckFinite(t *testing.T) {
	t.Parallel()
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		score *finding.Score
		want  string
	}{
		{nil, ""},
		{&finding.Score{Score: 7.5, Criteria: []finding.CriterionScore{{Score: 10, Weight: 1e6}}}, ""},
		{&finding.Score{Score: finding.Rounded1(nan)}, "score NaN"},
		{&finding.Score{Score: 1, Strictness: &inf}, "strictness +Inf"},
		{&finding.Score{Score: 1, Coverage: &nan}, "coverage NaN"},
		{&finding.Score{Score: 1, Criteria: []finding.CriterionScore{{Score: 4}, {Score: finding.Rounded1(math.Inf(-1))}}}, "criteria[1].score -Inf"},
		{&finding.Score{Score: 1, Criteria: []finding.CriterionScore{{Score: 4, Weight: inf}}}, "criteria[0].weight +Inf"},
	}
	for _, tt := range tests {
		err := checkFinite(tt.score)
		var got string
		var nf *NonFiniteScoreError
		if errors.As(err, &nf) {
			got = fmt.Sprintf("%s %v", nf.Field, nf.Value)
		} else if err != nil {
			got = "unexpected " + err.Error()
		}
		if got != tt.want {
			t.Errorf("%+v: got %q, want %q", tt.score, got, tt.want)
		}
	}
}
