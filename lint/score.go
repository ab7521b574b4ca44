package lint

import (
	"fmt"
	"math"

	"github.com/vectorlint/vectorlint/finding"
)

// The score stage (pipeline.go): a rule's score on a file, which its kind gives from the
// rule's replies and the filter's decisions (Kind.score, in each kind's file). The formulas
// themselves are package scoring's: pure functions, table-tested against spec/linter.md §5.

// reportedViolations counts the proposed violations the filter reported: the violations a
// semi-objective score counts (a silenced one does not lower the score).
func reportedViolations(props []proposal) int {
	n := 0
	for _, p := range props {
		if p.violation != nil && p.decision == reported {
			n++
		}
	}
	return n
}

// NonFiniteScoreError reports a score that came out of its formula as NaN or an infinity (a
// rule's weights or strictness made the arithmetic overflow). Such a number has no meaning and
// no output format can hold it (JSON has no NaN: one would make the whole report fail), so it
// never leaves the score stage: the rule's score on that file becomes this error, reported as
// the rule's error on the file, and every other rule and file is reported as usual
// (spec/trust.md §8).
type NonFiniteScoreError struct {
	// Field names the number: "score", "criteria[1].score", "coverage"...
	Field string
	Value float64
}

// Error says which number is not finite and what to check.
func (e *NonFiniteScoreError) Error() string {
	return fmt.Sprintf("the rule's %s came out as %v, not a finite number, so no score is reported (check the rule's criteria weights and strictness)",
		e.Field, e.Value)
}

// checkFinite returns a *NonFiniteScoreError for the first number of s that is NaN or
// infinite, nil when every one is finite.
func checkFinite(s *finding.Score) error {
	if s == nil {
		return nil
	}
	bad := func(field string, v float64) error {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteScoreError{Field: field, Value: v}
		}
		return nil
	}
	if err := bad("score", float64(s.Score)); err != nil {
		return err
	}
	for _, f := range []struct {
		name string
		v    *float64
	}{{"strictness", s.Strictness}, {"coverage", s.Coverage}} {
		if f.v != nil {
			if err := bad(f.name, *f.v); err != nil {
				return err
			}
		}
	}
	for i, c := range s.Criteria {
		if err := bad(fmt.Sprintf("criteria[%d].score", i), float64(c.Score)); err != nil {
			return err
		}
		if err := bad(fmt.Sprintf("criteria[%d].weight", i), c.Weight); err != nil {
			return err
		}
	}
	return nil
}
