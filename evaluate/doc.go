// Package evaluate holds vectorlint's evaluators: small objects that score a model's output with
// one metric, return a result with a pass/fail verdict, and assert it, from the command line
// ("vectorlint evaluate") or from your own Go tests. They follow the evaluator guidelines the
// project was created from (seed 003), mapped to Go as spec/evaluators.md says:
//
//   - each evaluator is made by a Run…Evaluator function that configures the one
//     [BaseScoreEvaluator] with a metric function, a threshold, the result keys and the failure
//     message — configuration, not abstraction;
//   - Evaluate returns a [Result]: an ordered map holding the inputs, the metric values and
//     "<metric>_result": "pass" or "fail", serialised as JSON with its keys in order;
//   - Assert returns an [*AssertionError] saying which metric failed, its value and the threshold
//     ("f1 score 0.42 below threshold 0.50"), and [Require] stops a Go test with it.
//
// The reference-based metrics are the pure formulas of package scoring, which reproduce
// published reference implementations: [scoring.ExactMatch] and [scoring.F1] the official SQuAD
// v2.0 evaluation script, [scoring.BLEU] sacreBLEU's sentence_bleu, [scoring.RougeL] Google's
// rouge-score (blueprint runs compare responses with ideal ones with the same functions). [RunSemanticSimilarityEvaluator] and
// [RunBiasEvaluatorAgainstExpectedScore] need a model, reached through the small [Embedder] and
// [Completer] interfaces (adapted to the llm package's client by [ModelEmbedder] and
// [ModelCompleter]). [RunDensityScoreEvaluator] and [RunRubricScoreEvaluator] expose the
// linter's own scores (package scoring) the same way, and [RunCoverageEvaluator] the blueprint
// engine's coverage of Weval points.
//
// Scores are rounded before they are recorded and compared — 3 decimals on the 0–1 scale, one
// on the 0–10 scale — so the verdict always agrees with the number shown.
package evaluate
