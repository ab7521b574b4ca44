// Package scoring holds vectorlint's scoring formulas as pure functions: the density score of
// semi-objective rules, the weighted score of subjective rules, the aggregation of chunk
// ratings, the severity of criterion findings, and the word counter and rounding every score
// shares (spec/linter.md §5). Coverage aggregation for Weval blueprints lives here too, and the
// text metrics that compare a response with a reference — ExactMatch and F1 (SQuAD v2.0), BLEU
// (sacreBLEU), RougeL (rouge-score), Cosine of embeddings — which the evaluate package's
// evaluators and blueprint runs' similarity both use. [KrippendorffAlphaInterval] measures how
// far a blueprint run's judges agree, and [PairedTest] whether a blueprint's scores changed
// between two runs (mean difference, Student-t interval, sign-flip permutation p-value).
//
// Nothing here calls a model, reads a file or keeps state: the linter, the points engine and
// the evaluate package call these functions with numbers and get numbers back, so the same input
// always gives the same score.
//
// # Semi-objective (density) scores
//
// A rule that lists violations is scored by their density, violations per 100 words:
//
//	density = violations / words × 100
//	raw     = clamp(0, 100, 100 − density × strictness)
//	score   = raw / 10
//
// words is [CountWords] of the evaluated text, at least 1. Strictness is [Lenient] (5),
// [Standard] (10, the default), [Strict] (20) or any positive number; [ParseStrictness] reads
// the names and numbers users write in rules and configs. [ScoreDensity] computes it.
//
// # Subjective (rubric) scores
//
// Each criterion gets a rating from 1 to 4, normalised to 1–10 by
// 1 + (rating − 1) / 3 × 9 ([NormalizeRating]); the rule's score is the weight-averaged
// normalised score ([ScoreSubjective]). A long document is rated chunk by chunk and
// [AggregateRatings] turns the chunks' ratings into one rating per criterion, weighted by words.
// [CriterionSeverity] and [NeedsSummaryFinding] say how a criterion's findings are reported.
//
// # Rounding
//
// Scores keep full precision for arithmetic and are shown and serialised rounded with [Round]
// (one decimal for 0–10 scores, [Round1]). Round rounds the exact binary value of the float and
// breaks ties away from zero, the way JavaScript's Number.prototype.toFixed does, so vectorlint
// shows the same figure as the original VectorLint: 9.25 is shown as 9.3, where Go's "%.1f"
// (ties to even) would show 9.2.
package scoring
