package evaluate

import (
	"context"
	"fmt"
	"testing"
)

// fakeT records what Require does with a test.
type fakeT struct {
	ctx     context.Context
	helper  bool
	fatals  []string
	stopped bool
}

func (f *fakeT) Helper()                  { f.helper = true }
func (f *fakeT) Context() context.Context { return f.ctx }
func (f *fakeT) Fatal(args ...any) {
	f.fatals = append(f.fatals, fmt.Sprint(args...))
	f.stopped = true // the real t.Fatal never returns; Require must not rely on that
}

func TestRequire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ev   Evaluator
		want string // the t.Fatal message; "" when the test goes on
	}{
		{"pass", RunF1ScoreEvaluator("the cat sat", "the cat sat on the mat", 0.5), ""},
		{"fail", RunF1ScoreEvaluator("the cat", "the cat sat on the mat", 0.5),
			"f1 score 0.40 below threshold 0.50\n" +
				`{"response": "the cat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.4, "f1_result": "fail"}`},
		{"error", RunF1ScoreEvaluator("a", "b", 2), "f1 score: threshold 2 out of range: expected a number from 0 to 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ft := &fakeT{ctx: t.Context()}
			r := Require(ft, tt.ev)
			if !ft.helper {
				t.Error("Require did not call t.Helper")
			}
			switch {
			case tt.want == "" && len(ft.fatals) > 0:
				t.Errorf("Require stopped a passing test: %q", ft.fatals)
			case tt.want == "" && !r.Passed():
				t.Errorf("Require returned %v", r)
			case tt.want != "" && (len(ft.fatals) != 1 || ft.fatals[0] != tt.want):
				t.Errorf("t.Fatal calls = %q; want one with\n%s", ft.fatals, tt.want)
			}
		})
	}
}

// TestRequireWithTestingT is how a user's own test reads: the real *testing.T satisfies T.
func TestRequireWithTestingT(t *testing.T) {
	t.Parallel()
	r := Require(t, RunRougeLScoreEvaluator("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog", 0.5))
	if score, _ := r.Score(); score != 0.588 {
		t.Errorf("score = %v", score)
	}
}
