package evaluate

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/scoring"
)

// Evaluator is what every Run…Evaluator returns: something that evaluates and asserts.
type Evaluator interface {
	// Evaluate computes the metric and returns the result with the inputs, the metric values and
	// the verdict. An error means the evaluation could not be done (bad input, a failed model
	// call), not that it failed: a failure is a result whose verdict is "fail".
	Evaluate(ctx context.Context) (Result, error)
	// Assert evaluates and returns the result's [*AssertionError] when the verdict is "fail",
	// or the evaluation's error when it could not be done.
	Assert(ctx context.Context) error
}

// Comparison says how a score is judged against the threshold.
type Comparison int

const (
	// AtLeast passes when the score is at least the threshold (the default).
	AtLeast Comparison = iota
	// Within passes when the score differs from Expected by at most the threshold (a tolerance).
	Within
)

// defaultDecimals is the precision of scores when BaseScoreEvaluator.Decimals is 0.
const defaultDecimals = 3

// Measurement is what a metric function returns: the score, and any further values to record
// after it (such as the judge's reason for a rating).
type Measurement struct {
	Score float64
	Extra []Field
}

// BaseScoreEvaluator is the one evaluator every Run…Evaluator configures: it is given a metric
// function, a threshold, the result keys and the failure message, and does the rest — it checks
// the threshold, measures, rounds, compares, builds the [Result] and the assertion error. The
// evaluators add no behaviour of their own ("prefer configuration over abstraction").
//
// The score is rounded to Decimals with [scoring.Round] before it is recorded and compared, so
// the verdict always agrees with the number shown: an F1 of 0.6666… is recorded as 0.667 and
// passes a threshold of 0.667.
type BaseScoreEvaluator struct {
	// Inputs are recorded first in the result, in this order (e.g. response, ground_truth).
	Inputs []Field
	// Metric measures. It should return promptly when ctx is done.
	Metric func(ctx context.Context) (Measurement, error)
	// Threshold is the pass mark for AtLeast, the tolerance for Within.
	Threshold float64
	// ThresholdKey names the threshold in the result: "threshold" when empty.
	ThresholdKey string
	// Comparison is how the score is judged; AtLeast by default.
	Comparison Comparison
	// Expected is the score Within compares with; record it among the Inputs.
	Expected float64
	// Min and Max bound the metric. A threshold (or Expected) outside them is an input error,
	// so a threshold of 67 for a 0–1 metric is reported rather than failing every time. When
	// both are 0 the range is not checked; the threshold must still be a finite number.
	Min, Max float64
	// Decimals is the precision the score is recorded and compared at: 0 means the default of
	// 3 decimals (whole-number scores are unchanged by it).
	Decimals int
	// ScoreKey names the metric value in the result, e.g. "f1_score".
	ScoreKey string
	// ResultKey names the verdict, "pass" or "fail", e.g. "f1_result".
	ResultKey string
	// FailureMessage names the metric in the assertion message, e.g. "f1 score" gives
	// "f1 score 0.42 below threshold 0.50".
	FailureMessage string
}

// Evaluate checks the configuration and threshold, measures, and returns the result: the
// inputs, the threshold, the rounded score, any extra values and the verdict.
func (e *BaseScoreEvaluator) Evaluate(ctx context.Context) (Result, error) {
	if err := e.check(); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("%s: %w", e.FailureMessage, err)
	}
	m, err := e.Metric(ctx)
	if err != nil {
		return Result{}, err
	}
	if math.IsNaN(m.Score) || math.IsInf(m.Score, 0) {
		return Result{}, fmt.Errorf("%s: the metric gave %v, not a number", e.FailureMessage, m.Score)
	}
	decimals := e.Decimals
	if decimals == 0 {
		decimals = defaultDecimals
	}
	score := scoring.Round(m.Score, decimals)
	passed := score >= e.Threshold
	if e.Comparison == Within {
		passed = scoring.Round(math.Abs(score-e.Expected), decimals) <= e.Threshold
	}

	r := Result{scoreKey: e.ScoreKey, resultKey: e.ResultKey}
	for _, f := range e.Inputs {
		r.Set(f.Key, f.Value)
	}
	r.Set(e.thresholdKey(), e.Threshold)
	r.Set(e.ScoreKey, score)
	for _, f := range m.Extra {
		r.Set(f.Key, f.Value)
	}
	verdict := Pass
	if !passed {
		verdict = Fail
		r.failure = &AssertionError{
			Metric:     e.FailureMessage,
			Score:      score,
			Threshold:  e.Threshold,
			Comparison: e.Comparison,
			Expected:   e.Expected,
		}
	}
	r.Set(e.ResultKey, verdict)
	return r, nil
}

// Assert evaluates and returns the [*AssertionError] of a failed verdict, the evaluation's
// error, or nil when it passed.
func (e *BaseScoreEvaluator) Assert(ctx context.Context) error {
	r, err := e.Evaluate(ctx)
	if err != nil {
		return err
	}
	return r.Err()
}

func (e *BaseScoreEvaluator) thresholdKey() string {
	if e.ThresholdKey == "" {
		return "threshold"
	}
	return e.ThresholdKey
}

// check reports a misconfigured evaluator or a threshold outside the metric's range.
func (e *BaseScoreEvaluator) check() error {
	switch {
	case e.Metric == nil:
		return errors.New("evaluate: BaseScoreEvaluator has no Metric")
	case e.ScoreKey == "" || e.ResultKey == "":
		return errors.New("evaluate: BaseScoreEvaluator needs a ScoreKey and a ResultKey")
	case e.FailureMessage == "":
		return errors.New("evaluate: BaseScoreEvaluator needs a FailureMessage")
	case e.Comparison != AtLeast && e.Comparison != Within:
		return fmt.Errorf("evaluate: unknown Comparison %d", int(e.Comparison))
	}
	name := strings.ReplaceAll(e.thresholdKey(), "_", " ")
	if e.Min == 0 && e.Max == 0 {
		for _, v := range []float64{e.Threshold, e.Expected} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: expected a finite %s, found %v", e.FailureMessage, name, v)
			}
		}
		return nil
	}
	if e.Comparison == Within {
		if !inRange(e.Expected, e.Min, e.Max) {
			return rangeError(e.FailureMessage, "expected score", e.Expected, e.Min, e.Max)
		}
		if !inRange(e.Threshold, 0, e.Max-e.Min) {
			return rangeError(e.FailureMessage, name, e.Threshold, 0, e.Max-e.Min)
		}
		return nil
	}
	if !inRange(e.Threshold, e.Min, e.Max) {
		return rangeError(e.FailureMessage, name, e.Threshold, e.Min, e.Max)
	}
	return nil
}

func inRange(x, lo, hi float64) bool {
	return x >= lo && x <= hi // false for NaN
}

// rangeError says which value is out of range, e.g. "f1 score: threshold 67 out of range: expected
// a number from 0 to 1".
func rangeError(metric, name string, v, lo, hi float64) error {
	return fmt.Errorf("%s: %s %s out of range: expected a number from %s to %s",
		metric, name, formatNumber(v, 0), formatNumber(lo, 0), formatNumber(hi, 0))
}

// AssertionError is a failed evaluation: which metric failed, its value and the threshold.
// Its message reads "f1 score 0.42 below threshold 0.50", or for a tolerance comparison
// "bias score 0.80 differs from expected 0.20 by more than tolerance 0.10".
type AssertionError struct {
	// Metric names the metric, e.g. "f1 score".
	Metric string
	// Score is the recorded (rounded) value.
	Score     float64
	Threshold float64
	// Comparison and Expected describe a tolerance comparison.
	Comparison Comparison
	Expected   float64
}

// Error returns the message. Numbers show at least two decimals and as many more as they have.
func (e *AssertionError) Error() string {
	if e.Comparison == Within {
		return fmt.Sprintf("%s %s differs from expected %s by more than tolerance %s",
			e.Metric, formatNumber(e.Score, 2), formatNumber(e.Expected, 2), formatNumber(e.Threshold, 2))
	}
	return fmt.Sprintf("%s %s below threshold %s", e.Metric, formatNumber(e.Score, 2), formatNumber(e.Threshold, 2))
}

// formatNumber writes x in its shortest decimal form with at least minDecimals decimals:
// formatNumber(0.5, 2) is "0.50", formatNumber(0.667, 2) is "0.667".
func formatNumber(x float64, minDecimals int) string {
	s := strconv.FormatFloat(x, 'f', -1, 64)
	if minDecimals == 0 || math.IsNaN(x) || math.IsInf(x, 0) {
		return s
	}
	dot := strings.IndexByte(s, '.')
	if dot < 0 {
		s += "."
		dot = len(s) - 1
	}
	if have := len(s) - dot - 1; have < minDecimals {
		s += strings.Repeat("0", minDecimals-have)
	}
	return s
}
