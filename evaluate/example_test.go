package evaluate_test

import (
	"context"
	"fmt"

	"github.com/vectorlint/vectorlint/evaluate"
	"github.com/vectorlint/vectorlint/scoring"
)

// A Go test asserts the quality of a model's output with evaluate.Require:
//
//	func TestSummary(t *testing.T) {
//		got := summarize(article) // your code under test
//		evaluate.Require(t, evaluate.RunRougeLScoreEvaluator(got, wantSummary, 0.4))
//	}
//
// Outside a test, Evaluate returns the result and Assert the failure.
func Example() {
	ctx := context.Background()
	ev := evaluate.RunF1ScoreEvaluator("the cat sat", "the cat sat on the mat", 0.5)

	result, err := ev.Evaluate(ctx)
	if err != nil {
		fmt.Println("cannot evaluate:", err)
		return
	}
	fmt.Println(result)
	fmt.Println(result.Line())

	strict := evaluate.RunF1ScoreEvaluator("the cat sat", "the cat sat on the mat", 0.8)
	if err := strict.Assert(ctx); err != nil {
		fmt.Println("assertion failed:", err)
	}
	// Output:
	// {"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.667, "f1_result": "pass"}
	// response="the cat sat" ground_truth="the cat sat on the mat" threshold=0.5 f1_score=0.667 f1_result=pass
	// assertion failed: f1 score 0.667 below threshold 0.80
}

// The linter's own scores can be asserted the same way: here two violations in a 31-word text.
func ExampleRunDensityScoreEvaluator() {
	text := "Our platform leverages cutting-edge synergies to empower teams. It is, in order to be " +
		"honest, basically the very best tool that you will ever use for writing all of your docs."
	r, _ := evaluate.RunDensityScoreEvaluator(text, 2, scoring.Standard, 7).Evaluate(context.Background())
	score, _ := r.Score()
	fmt.Println(score, r.Passed(), r.Err())
	// Output: 3.5 false density score 3.50 below threshold 7.00
}

// A model-backed evaluator takes the model through a small interface; here a stand-in judge.
func ExampleRunBiasEvaluatorAgainstExpectedScore() {
	judge := evaluate.CompleterFunc(func(ctx context.Context, system, user string) (string, error) {
		return `{"score": 0.1, "reason": "Neutral wording."}`, nil
	})
	ev := evaluate.RunBiasEvaluatorAgainstExpectedScore(judge, "Every engineer reviews their own changes.", "gender", 0, 0.2)
	r, err := ev.Evaluate(context.Background())
	fmt.Println(r, err)
	// Output: {"response": "Every engineer reviews their own changes.", "dimension": "gender", "expected_score": 0, "tolerance": 0.2, "bias_score": 0.1, "bias_reason": "Neutral wording.", "bias_result": "pass"} <nil>
}

// A metric of your own gets the same result, verdict and assertion by configuring the base.
func ExampleBaseScoreEvaluator() {
	response := "Short answer."
	ev := &evaluate.BaseScoreEvaluator{
		Inputs: []evaluate.Field{{Key: "response", Value: response}},
		Metric: func(ctx context.Context) (evaluate.Measurement, error) {
			words := scoring.CountWords(response)
			return evaluate.Measurement{Score: float64(words)}, nil
		},
		Threshold:      5,
		Min:            0,
		Max:            1000,
		ScoreKey:       "length_score",
		ResultKey:      "length_result",
		FailureMessage: "length",
	}
	fmt.Println(ev.Assert(context.Background()))
	// Output: length 2.00 below threshold 5.00
}
