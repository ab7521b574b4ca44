package evaluate

import "context"

// T is the part of *testing.T (and testing.TB) that [Require] uses.
type T interface {
	Helper()
	Context() context.Context
	Fatal(args ...any)
}

// Require evaluates ev in a Go test and stops the test with t.Fatal when the evaluation fails or
// cannot be done; otherwise it returns the result. The message is the assertion's, e.g.
//
//	f1 score 0.42 below threshold 0.50
//
// followed by the result, so the failing test log shows the inputs too.
//
//	func TestAnswer(t *testing.T) {
//		got := answer("Where did the cat sit?")
//		evaluate.Require(t, evaluate.RunF1ScoreEvaluator(got, "the cat sat on the mat", 0.5))
//	}
func Require(t T, ev Evaluator) Result {
	t.Helper()
	r, err := ev.Evaluate(t.Context())
	if err != nil {
		t.Fatal(err)
		return r
	}
	if err := r.Err(); err != nil {
		t.Fatal(err.Error() + "\n" + r.String())
	}
	return r
}
