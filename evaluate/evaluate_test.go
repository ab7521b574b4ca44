package evaluate

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/scoring"
)

// vectors is an in-test embedder: it returns the fixed vector of each text.
func vectors(byText map[string][]float64) EmbedderFunc {
	return func(ctx context.Context, texts []string) ([][]float64, error) {
		out := make([][]float64, len(texts))
		for i, s := range texts {
			v, ok := byText[s]
			if !ok {
				return nil, errors.New("no vector for " + s)
			}
			out[i] = v
		}
		return out, nil
	}
}

// replying is an in-test judge that returns a fixed reply.
func replying(reply string) CompleterFunc {
	return func(ctx context.Context, system, user string) (string, error) {
		return reply, nil
	}
}

// sentence31 is 31 words long.
const sentence31 = "Our platform leverages cutting-edge synergies to empower teams.\n\n" +
	"It\u00a0is, in order to be honest, basically the very best tool that you will ever\tuse for writing all of your docs."

var goldenCases = []struct {
	name string
	ev   Evaluator
}{
	{"f1_pass", RunF1ScoreEvaluator("the cat sat", "the cat sat on the mat", 0.5)},
	{"f1_fail", RunF1ScoreEvaluator("a dog", "the cat sat on the mat", 0.42)},
	{"f1_at_rounded_threshold", RunF1ScoreEvaluator("the cat sat", "the cat sat on the mat", 0.667)},
	{"exact_match_pass", RunExactMatchEvaluator("The Cat sat!", "cat sat", 1)},
	{"exact_match_fail", RunExactMatchEvaluator("The cat sat.", "the cat sat on the mat", 1)},
	{"bleu_pass", RunBleuScoreEvaluator("The cat is on the mat.", "There is a cat on the mat.", 0.3)},
	{"bleu_fail", RunBleuScoreEvaluator("Run vectorlint on every pull request so reviewers see scores before they read the diff.",
		"Run vectorlint on each pull request, so that reviewers see the scores before reading the diff.", 0.5)},
	{"rouge_l_pass", RunRougeLScoreEvaluator("The quick brown dog jumps on the log.", "The quick brown fox jumps over the lazy dog", 0.5)},
	{"rouge_l_fail", RunRougeLScoreEvaluator("police killed the gunman", "the gunman killed police", 0.75)},
	{"special_characters", RunF1ScoreEvaluator("say \"hi\" <b>&</b>\nthen\tgo", "say hi", 0)},
	{"density_fail", RunDensityScoreEvaluator(sentence31, 2, scoring.Standard, 7)},
	{"density_pass", RunDensityScoreEvaluator(sentence31, 2, scoring.Lenient, 6.8)},
	{"density_clean", RunDensityScoreEvaluator("", 0, scoring.Strict, 10)},
	{"rubric_fail", RunRubricScoreEvaluator([]scoring.Criterion{
		{Name: "Value", Weight: 12, Rating: 1}, {Name: "Clarity", Weight: 2, Rating: 2}, {Name: "Tone", Weight: 1, Rating: 4}}, 5)},
	{"rubric_pass", RunRubricScoreEvaluator([]scoring.Criterion{{Name: "Flow", Weight: 40, Rating: 3}, {Name: "Depth", Weight: 30, Rating: 4}}, 8.3)},
	{"semantic_similarity_pass", RunSemanticSimilarityEvaluator(vectors(map[string][]float64{
		"The meeting moved to Friday.": {0.6, 0.8, 0}, "We now meet on Friday.": {0.8, 0.6, 0}}),
		"The meeting moved to Friday.", "We now meet on Friday.", 0.9)},
	{"semantic_similarity_fail", RunSemanticSimilarityEvaluator(vectors(map[string][]float64{
		"Cats purr.": {1, 0, 0}, "Stocks fell.": {0, 0.2, 1}}),
		"Cats purr.", "Stocks fell.", 0.5)},
	{"bias_pass", RunBiasEvaluatorAgainstExpectedScore(replying(`{"score": 0.05, "reason": "Neutral wording; no gendered assumptions."}`),
		"Engineers should document their changes.", "gender", 0, 0.1)},
	{"bias_fail", RunBiasEvaluatorAgainstExpectedScore(replying("```json\n{\"score\": 0.8, \"reason\": \"Assumes nurses are women.\"}\n```"),
		"Ask the nurse; she will know.", "gender", 0.2, 0.1)},
	{"bias_within_rounding", RunBiasEvaluatorAgainstExpectedScore(replying(`{"score": 0.8}`),
		"A one-sided opinion piece.", "political leaning", 0.7, 0.1)},
}

// TestEvaluatorsGolden checks every evaluator's result, as JSON and as a logfmt line, and its
// assertion message against testdata/results/NAME.golden. Run with -update to rewrite them.
func TestEvaluatorsGolden(t *testing.T) {
	t.Parallel()
	for _, tt := range goldenCases {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.ev.Evaluate(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			verdict := "assert: passed"
			if err := r.Err(); err != nil {
				verdict = "assert: " + err.Error()
			}
			got := r.String() + "\n" + r.Line() + "\n" + verdict + "\n"
			testutil.Golden(t, filepath.Join("testdata", "results", tt.name+".golden"), got)
			// Assert agrees with the verdict.
			if aerr := tt.ev.Assert(t.Context()); (aerr == nil) != r.Passed() {
				t.Errorf("Assert() = %v but Passed() = %v", aerr, r.Passed())
			}
		})
	}
}

// TestPythonLowerCase: exact_match, f1 and rouge_l lower-case as Python's str.lower() in the
// SQuAD script and rouge-score (full case mapping, final sigma), so texts with "Σ" or "İ" score as
// there (values from scoring/testdata/reference.py).
func TestPythonLowerCase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ev   Evaluator
		want float64
	}{
		{"exact match, final sigma", RunExactMatchEvaluator("\u039f\u0394\u039f\u03a3", "\u03bf\u03b4\u03bf\u03c2", 1), 1},
		{"f1, final sigma", RunF1ScoreEvaluator("\u039f\u0394\u039f\u03a3 \u0391\u0398\u0397\u039d\u03a9\u039d", "\u03bf\u03b4\u03bf\u03c3 \u03b1\u03b8\u03b7\u03bd\u03c9\u03bd", 0.5), 0.5},
		{"f1, dotted capital I", RunF1ScoreEvaluator("\u0130stanbul", "istanbul", 0.5), 0},
		{"rouge_l, dotted capital I", RunRougeLScoreEvaluator("\u0130zmir is warm", "i zmir is warm", 1), 1},
	}
	for _, tt := range tests {
		r, err := tt.ev.Evaluate(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if score, ok := r.Score(); !ok || score != tt.want || r.Passed() != (tt.want >= 0.5) {
			t.Errorf("%s: score %v (passed %v), want %v", tt.name, score, r.Passed(), tt.want)
		}
	}
}

// TestSpecExample checks the exact result line spec/evaluators.md shows.
func TestSpecExample(t *testing.T) {
	t.Parallel()
	r, err := RunF1ScoreEvaluator("the cat sat", "the cat sat on the mat", 0.5).Evaluate(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.667, "f1_result": "pass"}`
	if got := r.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if score, ok := r.Score(); !ok || score != 0.667 {
		t.Errorf("Score() = %v, %v; want 0.667", score, ok)
	}
	if !r.Passed() || r.Err() != nil {
		t.Errorf("Passed() = %v, Err() = %v", r.Passed(), r.Err())
	}
}

func TestAssertionMessages(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		ev   Evaluator
		want string
	}{
		{"f1", RunF1ScoreEvaluator("the cat", "the cat sat on the mat", 0.5), "f1 score 0.40 below threshold 0.50"},
		{"f1 three decimals", RunF1ScoreEvaluator("the cat sat", "the cat sat on the mat", 0.7), "f1 score 0.667 below threshold 0.70"},
		{"exact match", RunExactMatchEvaluator("yes", "no", 1), "exact match score 0.00 below threshold 1.00"},
		{"bleu", RunBleuScoreEvaluator("hello world", "foo bar", 0.25), "bleu score 0.00 below threshold 0.25"},
		{"rouge_l", RunRougeLScoreEvaluator("police killed the gunman", "the gunman killed police", 0.75), "rouge_l score 0.50 below threshold 0.75"},
		{"density", RunDensityScoreEvaluator(sentence31, 2, scoring.Standard, 7), "density score 3.50 below threshold 7.00"},
		{"rubric", RunRubricScoreEvaluator([]scoring.Criterion{{Weight: 1, Rating: 2}}, 5), "rubric score 4.00 below threshold 5.00"},
		{"bias", RunBiasEvaluatorAgainstExpectedScore(replying(`{"score": 0.8}`), "text", "gender", 0.2, 0.1),
			"bias score 0.80 differs from expected 0.20 by more than tolerance 0.10"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.ev.Assert(t.Context())
			var aerr *AssertionError
			if !errors.As(err, &aerr) {
				t.Fatalf("Assert() = %v; want an *AssertionError", err)
			}
			if err.Error() != tt.want {
				t.Errorf("Assert() = %q; want %q", err, tt.want)
			}
		})
	}
}

func TestEvaluateErrors(t *testing.T) {
	t.Parallel()
	failingEmbedder := EmbedderFunc(func(context.Context, []string) ([][]float64, error) {
		return nil, errors.New("HTTP 500")
	})
	oneVector := EmbedderFunc(func(context.Context, []string) ([][]float64, error) {
		return [][]float64{{1, 0}}, nil
	})
	zeroVector := EmbedderFunc(func(context.Context, []string) ([][]float64, error) {
		return [][]float64{{1, 0}, {0, 0}}, nil
	})
	failingJudge := CompleterFunc(func(context.Context, string, string) (string, error) {
		return "", errors.New("HTTP 429 after 3 retries")
	})
	tests := []struct {
		name string
		ev   Evaluator
		want string
	}{
		{"threshold above range", RunF1ScoreEvaluator("a", "b", 67), "f1 score: threshold 67 out of range: expected a number from 0 to 1"},
		{"threshold below range", RunBleuScoreEvaluator("a", "b", -0.5), "bleu score: threshold -0.5 out of range: expected a number from 0 to 1"},
		{"threshold NaN", RunRougeLScoreEvaluator("a", "b", math.NaN()), "rouge_l score: threshold NaN out of range: expected a number from 0 to 1"},
		{"density threshold", RunDensityScoreEvaluator("a", 0, scoring.Standard, 11), "density score: threshold 11 out of range: expected a number from 0 to 10"},
		{"semantic threshold", RunSemanticSimilarityEvaluator(oneVector, "a", "b", -2), "semantic similarity score: threshold -2 out of range: expected a number from -1 to 1"},
		{"bias tolerance", RunBiasEvaluatorAgainstExpectedScore(replying(`{"score": 0}`), "a", "gender", 0, -0.1), "bias score: tolerance -0.1 out of range: expected a number from 0 to 1"},
		{"bias expected", RunBiasEvaluatorAgainstExpectedScore(replying(`{"score": 0}`), "a", "gender", 2, 0.1), "bias score: expected score 2 out of range: expected a number from 0 to 1"},
		{"density violations", RunDensityScoreEvaluator("a b", -1, scoring.Standard, 5), "density score: density score: expected a violation count of 0 or more, found -1"},
		{"density strictness", RunDensityScoreEvaluator("a b", 1, 0, 5), "density score: density score: expected a positive strictness, found 0"},
		{"rubric rating", RunRubricScoreEvaluator([]scoring.Criterion{{Name: "Tone", Weight: 1, Rating: 7}}, 5), `rubric score: subjective score: criterion "Tone": expected a rating from 1 to 4, found 7`},
		{"rubric empty", RunRubricScoreEvaluator(nil, 5), "rubric score: subjective score: expected at least one criterion, found none"},
		{"no embedder", RunSemanticSimilarityEvaluator(nil, "a", "b", 0.5), "semantic similarity: needs a model: none configured"},
		{"embedder fails", RunSemanticSimilarityEvaluator(failingEmbedder, "a", "b", 0.5), "semantic similarity: embedding: HTTP 500"},
		{"one embedding", RunSemanticSimilarityEvaluator(oneVector, "a", "b", 0.5), "semantic similarity: expected 2 embeddings from the model, found 1"},
		{"zero embedding", RunSemanticSimilarityEvaluator(zeroVector, "a", "b", 0.5), "semantic similarity: embeddings from the model: cosine: expected non-zero vectors, found a zero vector"},
		{"no judge", RunBiasEvaluatorAgainstExpectedScore(nil, "a", "gender", 0, 0.1), "bias: needs a model: none configured"},
		{"no dimension", RunBiasEvaluatorAgainstExpectedScore(replying(`{"score": 0}`), "a", " ", 0, 0.1), `bias: expected a dimension to judge (such as "gender"), found none`},
		{"judge fails", RunBiasEvaluatorAgainstExpectedScore(failingJudge, "a", "gender", 0, 0.1), "bias: judge: HTTP 429 after 3 retries"},
		{"judge reply out of range", RunBiasEvaluatorAgainstExpectedScore(replying(`{"score": 7}`), "a", "gender", 0, 0.1),
			`bias: judge reply: expected a JSON object {"score": 0 to 1, "reason": "…"}, found score 7 in "{\"score\": 7}"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.ev.Evaluate(t.Context())
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Evaluate() error = %v; want %q", err, tt.want)
			}
			if r.Len() != 0 {
				t.Errorf("Evaluate() returned a result with an error: %v", r)
			}
			if aerr := tt.ev.Assert(t.Context()); aerr == nil || aerr.Error() != tt.want {
				t.Errorf("Assert() = %v; want the same error", aerr)
			}
		})
	}
}

func TestNoModelIsErrNoModel(t *testing.T) {
	t.Parallel()
	_, err := RunSemanticSimilarityEvaluator(nil, "a", "b", 0.5).Evaluate(t.Context())
	if !errors.Is(err, ErrNoModel) {
		t.Errorf("error %v is not ErrNoModel", err)
	}
}

func TestEvaluateCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := RunF1ScoreEvaluator("a", "a", 0.5).Evaluate(ctx)
	if !errors.Is(err, context.Canceled) || err.Error() != "f1 score: context canceled" {
		t.Errorf("Evaluate(canceled) = %v", err)
	}
	called := false
	judge := CompleterFunc(func(ctx context.Context, system, user string) (string, error) {
		called = true
		return "", ctx.Err()
	})
	_, err = RunBiasEvaluatorAgainstExpectedScore(judge, "a", "gender", 0, 0.1).Evaluate(ctx)
	if !errors.Is(err, context.Canceled) || called {
		t.Errorf("bias Evaluate(canceled) = %v, judge called %v", err, called)
	}
}

// TestRougeLEvaluatorStopsWhenCanceled: the ROUGE-L metric gives up when its context ends
// (scoring.RougeLContext), and the evaluator names it.
func TestRougeLEvaluatorStopsWhenCanceled(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("word ", 1000)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := RunRougeLScoreEvaluator(long, long, 0.5).Metric(ctx)
	if err == nil || err.Error() != "rouge_l score: context canceled" {
		t.Errorf("metric error = %v", err)
	}
}

func TestBaseScoreEvaluatorMisconfigured(t *testing.T) {
	t.Parallel()
	metric := func(context.Context) (Measurement, error) { return Measurement{Score: 1}, nil }
	tests := []struct {
		name string
		ev   *BaseScoreEvaluator
		want string
	}{
		{"no metric", &BaseScoreEvaluator{ScoreKey: "x_score", ResultKey: "x_result", FailureMessage: "x"}, "evaluate: BaseScoreEvaluator has no Metric"},
		{"no keys", &BaseScoreEvaluator{Metric: metric, FailureMessage: "x"}, "evaluate: BaseScoreEvaluator needs a ScoreKey and a ResultKey"},
		{"no message", &BaseScoreEvaluator{Metric: metric, ScoreKey: "x_score", ResultKey: "x_result"}, "evaluate: BaseScoreEvaluator needs a FailureMessage"},
		{"bad comparison", &BaseScoreEvaluator{Metric: metric, ScoreKey: "x_score", ResultKey: "x_result", FailureMessage: "x", Comparison: 9}, "evaluate: unknown Comparison 9"},
		{"NaN metric", &BaseScoreEvaluator{Metric: func(context.Context) (Measurement, error) { return Measurement{Score: math.NaN()}, nil },
			ScoreKey: "x_score", ResultKey: "x_result", FailureMessage: "x score", Max: 1}, "x score: the metric gave NaN, not a number"},
	}
	for _, tt := range tests {
		_, err := tt.ev.Evaluate(t.Context())
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: Evaluate() = %v; want %q", tt.name, err, tt.want)
		}
	}
}

// TestBaseScoreEvaluatorCustom configures the base directly, as a user would for a metric of
// their own, and checks the result's order: inputs, threshold, score, extras, verdict.
func TestBaseScoreEvaluatorCustom(t *testing.T) {
	t.Parallel()
	ev := &BaseScoreEvaluator{
		Inputs: []Field{{"response", "Hello there"}},
		Metric: func(ctx context.Context) (Measurement, error) {
			return Measurement{Score: 2.0 / 11, Extra: []Field{{"length", 11}}}, nil
		},
		Threshold:      0.1,
		Min:            0,
		Max:            1,
		Decimals:       2,
		ScoreKey:       "vowel_ratio_score",
		ResultKey:      "vowel_ratio_result",
		FailureMessage: "vowel ratio",
	}
	r, err := ev.Evaluate(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"response": "Hello there", "threshold": 0.1, "vowel_ratio_score": 0.18, "length": 11, "vowel_ratio_result": "pass"}`
	if got := r.String(); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// TestBaseScoreEvaluatorDefaults: with no range and no Decimals, any finite threshold goes and
// the score keeps 3 decimals.
func TestBaseScoreEvaluatorDefaults(t *testing.T) {
	t.Parallel()
	ev := &BaseScoreEvaluator{
		Metric:         func(context.Context) (Measurement, error) { return Measurement{Score: 1234.56789}, nil },
		Threshold:      2000,
		ScoreKey:       "n_score",
		ResultKey:      "n_result",
		FailureMessage: "n",
	}
	r, err := ev.Evaluate(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if got, want := r.String(), `{"threshold": 2000, "n_score": 1234.568, "n_result": "fail"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got, want := r.Err().Error(), "n 1234.568 below threshold 2000.00"; got != want {
		t.Errorf("Err() = %q; want %q", got, want)
	}
	ev.Threshold = math.Inf(1)
	if _, err := ev.Evaluate(t.Context()); err == nil || err.Error() != "n: expected a finite threshold, found +Inf" {
		t.Errorf("infinite threshold: error = %v", err)
	}
}

func TestFormatNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		x    float64
		min  int
		want string
	}{
		{0.5, 2, "0.50"}, {0.42, 2, "0.42"}, {0.667, 2, "0.667"}, {10, 2, "10.00"}, {3.5, 2, "3.50"},
		{-1, 2, "-1.00"}, {67, 0, "67"}, {math.NaN(), 2, "NaN"}, {0.1, 0, "0.1"},
	}
	for _, tt := range tests {
		if got := formatNumber(tt.x, tt.min); got != tt.want {
			t.Errorf("formatNumber(%v, %d) = %q; want %q", tt.x, tt.min, got, tt.want)
		}
	}
}

func TestEvaluatorInputsAreCopied(t *testing.T) {
	t.Parallel()
	criteria := []scoring.Criterion{{Name: "A", Weight: 1, Rating: 4}}
	ev := RunRubricScoreEvaluator(criteria, 5)
	criteria[0].Rating = 1
	r, err := ev.Evaluate(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(r.String(), `"rubric_score": 10`) {
		t.Errorf("the evaluator saw the caller's later change: %s", r)
	}
}
