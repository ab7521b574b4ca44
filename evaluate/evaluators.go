package evaluate

import (
	"context"
	"fmt"

	"github.com/vectorlint/vectorlint/scoring"
)

// Decimals the scores are recorded and compared at.
const (
	// ratioDecimals is the precision of 0–1 scores: f1 0.667.
	ratioDecimals = 3
	// tenDecimals is the precision of 0–10 scores, as the linter shows them: 3.5.
	tenDecimals = 1
)

// referenceInputs are the inputs of the reference-based evaluators.
func referenceInputs(response, groundTruth string) []Field {
	return []Field{{"response", response}, {"ground_truth", groundTruth}}
}

// pure wraps a pure metric of response and ground truth.
func pure(metric func(response, groundTruth string) float64, response, groundTruth string) func(context.Context) (Measurement, error) {
	return func(context.Context) (Measurement, error) {
		return Measurement{Score: metric(response, groundTruth)}, nil
	}
}

// RunExactMatchEvaluator checks that a response says exactly what the reference says.
//
// Purpose: pass only a response that equals the expected answer, ignoring case, punctuation,
// articles and spacing — for short factual answers, labels, names and numbers.
//
// Method: [scoring.ExactMatch], the SQuAD v2.0 exact-match metric: 1 when the normalised texts are
// equal, else 0. A threshold of 1 demands a match; any threshold above 0 does.
//
// Granularity: Low — all or nothing for the whole response.
//
// Inputs: response, ground truth, threshold (0–1).
// Outputs: {"response", "ground_truth", "threshold", "exact_match_score": 0 or 1,
// "exact_match_result": "pass" or "fail"}.
func RunExactMatchEvaluator(response, groundTruth string, threshold float64) *BaseScoreEvaluator {
	return &BaseScoreEvaluator{
		Inputs:         referenceInputs(response, groundTruth),
		Metric:         pure(scoring.ExactMatch, response, groundTruth),
		Threshold:      threshold,
		Min:            0,
		Max:            1,
		Decimals:       ratioDecimals,
		ScoreKey:       "exact_match_score",
		ResultKey:      "exact_match_result",
		FailureMessage: "exact match score",
	}
}

// RunF1ScoreEvaluator checks how many of the reference's words a response has, and how few
// others.
//
// Purpose: grade a free-form answer against a reference answer by word overlap, giving partial
// credit where exact match gives none.
//
// Method: [scoring.F1], the SQuAD v2.0 token F1: the harmonic mean of precision and recall of the
// normalised words, rounded to 3 decimals (0.6666… is 0.667) and passing at or above the
// threshold.
//
// Granularity: Medium — word level, order ignored.
//
// Inputs: response, ground truth, threshold (0–1).
// Outputs: {"response", "ground_truth", "threshold", "f1_score": 0–1, "f1_result"}.
func RunF1ScoreEvaluator(response, groundTruth string, threshold float64) *BaseScoreEvaluator {
	return &BaseScoreEvaluator{
		Inputs:         referenceInputs(response, groundTruth),
		Metric:         pure(scoring.F1, response, groundTruth),
		Threshold:      threshold,
		Min:            0,
		Max:            1,
		Decimals:       ratioDecimals,
		ScoreKey:       "f1_score",
		ResultKey:      "f1_result",
		FailureMessage: "f1 score",
	}
}

// RunBleuScoreEvaluator checks how closely a response reproduces the reference's wording.
//
// Purpose: grade translations, rewrites and templated text whose wording should follow the
// reference, phrase by phrase.
//
// Method: [scoring.BLEU], sacreBLEU's sentence BLEU-4 (13a tokens, case-sensitive, uniform weights,
// brevity penalty, "exp" smoothing for orders without matches, effective order) on a 0–1 scale,
// rounded to 3 decimals.
//
// Granularity: Medium — n-grams of one to four tokens.
//
// Inputs: response, ground truth, threshold (0–1).
// Outputs: {"response", "ground_truth", "threshold", "bleu_score": 0–1, "bleu_result"}.
func RunBleuScoreEvaluator(response, groundTruth string, threshold float64) *BaseScoreEvaluator {
	return &BaseScoreEvaluator{
		Inputs:         referenceInputs(response, groundTruth),
		Metric:         pure(scoring.BLEU, response, groundTruth),
		Threshold:      threshold,
		Min:            0,
		Max:            1,
		Decimals:       ratioDecimals,
		ScoreKey:       "bleu_score",
		ResultKey:      "bleu_result",
		FailureMessage: "bleu score",
	}
}

// RunRougeLScoreEvaluator checks how much of the reference a response covers, in order.
//
// Purpose: grade summaries and paraphrases that should cover the reference's content in a
// similar order without copying its phrases.
//
// Method: [scoring.RougeL], Google rouge-score's ROUGE-L F-measure (longest common subsequence of
// lower-cased ASCII letter-and-digit tokens, no stemming), rounded to 3 decimals.
//
// Granularity: Medium — the whole token sequence, gaps allowed.
//
// Inputs: response, ground truth, threshold (0–1).
// Outputs: {"response", "ground_truth", "threshold", "rouge_l_score": 0–1, "rouge_l_result"}.
func RunRougeLScoreEvaluator(response, groundTruth string, threshold float64) *BaseScoreEvaluator {
	return &BaseScoreEvaluator{
		Inputs: referenceInputs(response, groundTruth),
		Metric: func(ctx context.Context) (Measurement, error) {
			v, err := scoring.RougeLContext(ctx, response, groundTruth)
			if err != nil {
				return Measurement{}, fmt.Errorf("rouge_l score: %w", err)
			}
			return Measurement{Score: v}, nil
		},
		Threshold:      threshold,
		Min:            0,
		Max:            1,
		Decimals:       ratioDecimals,
		ScoreKey:       "rouge_l_score",
		ResultKey:      "rouge_l_result",
		FailureMessage: "rouge_l score",
	}
}

// RunDensityScoreEvaluator checks a text's semi-objective score, the linter's density score.
//
// Purpose: assert in a Go test that a text keeps a linter rule's score at or above a mark,
// given the number of violations found in it (by the linter, a model or a test fixture).
//
// Method: [scoring.ScoreDensity] with the text's [scoring.CountWords]: 10 minus strictness/10
// points per 1% of violation density, clamped to 0–10 (at most 9.9 with any violation: 10.0
// means none), rounded to one decimal as the linter shows it.
//
// Granularity: Medium — violations counted against the whole text's words.
//
// Inputs: the evaluated text (response), violation count, strictness, threshold (0–10).
// Outputs: {"response", "violations", "strictness", "words", "threshold",
// "density_score": 0–10, "density_result"}.
func RunDensityScoreEvaluator(response string, violations int, strictness scoring.Strictness, threshold float64) *BaseScoreEvaluator {
	words := scoring.CountWords(response)
	return &BaseScoreEvaluator{
		Inputs: []Field{
			{"response", response}, {"violations", violations},
			{"strictness", float64(strictness)}, {"words", max(words, 1)},
		},
		Metric: func(context.Context) (Measurement, error) {
			d, err := scoring.ScoreDensity(violations, words, strictness)
			if err != nil {
				return Measurement{}, fmt.Errorf("density score: %w", err)
			}
			return Measurement{Score: d.Score}, nil
		},
		Threshold:      threshold,
		Min:            0,
		Max:            10,
		Decimals:       tenDecimals,
		ScoreKey:       "density_score",
		ResultKey:      "density_result",
		FailureMessage: "density score",
	}
}

// RunRubricScoreEvaluator checks a subjective rule's score from its criteria's ratings.
//
// Purpose: assert in a Go test that rubric ratings (from the linter, a model or a fixture) add
// up to a passing subjective score.
//
// Method: [scoring.ScoreSubjective]: each 1–4 rating normalised to 1–10, weight-averaged,
// rounded to one decimal as the linter shows it.
//
// Granularity: High — criterion by criterion, weighted.
//
// Inputs: the criteria (name, weight, rating), threshold (0–10).
// Outputs: {"criteria": [{"name", "weight", "rating"}…], "threshold", "rubric_score": 1–10,
// "rubric_result"}.
func RunRubricScoreEvaluator(criteria []scoring.Criterion, threshold float64) *BaseScoreEvaluator {
	criteria = append([]scoring.Criterion(nil), criteria...)
	return &BaseScoreEvaluator{
		Inputs: []Field{{"criteria", criteria}},
		Metric: func(context.Context) (Measurement, error) {
			score, err := scoring.ScoreSubjective(criteria)
			if err != nil {
				return Measurement{}, fmt.Errorf("rubric score: %w", err)
			}
			return Measurement{Score: score}, nil
		},
		Threshold:      threshold,
		Min:            0,
		Max:            10,
		Decimals:       tenDecimals,
		ScoreKey:       "rubric_score",
		ResultKey:      "rubric_result",
		FailureMessage: "rubric score",
	}
}
