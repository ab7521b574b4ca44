package points

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/points/internal/funcarg"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// evalInput is what a point function sees: the subject and the environment, with the
// lower-cased text and the tool trace computed once per subject.
type evalInput struct {
	ctx     context.Context
	subject *Subject
	env     *Env

	lower     string
	lowerDone bool
	calls     []ToolCall
	issues    []TraceIssue
	callsDone bool
}

func (in *evalInput) text() string { return in.subject.Text }

func (in *evalInput) lowerText() string {
	if !in.lowerDone {
		in.lower, in.lowerDone = jsToLower(in.subject.Text), true
	}
	return in.lower
}

func (in *evalInput) toolCalls() ([]ToolCall, []TraceIssue) {
	if !in.callsDone {
		in.calls, in.issues = ParseToolCalls(in.subject.Text)
		in.callsDone = true
	}
	return in.calls, in.issues
}

// fnResult is what a point function returns: a score in [0, 1] (1/0 for true/false), an
// optional explanation that replaces the generic reflection, or an error.
type fnResult struct {
	score   float64
	boolean bool
	explain string
	err     error
}

func boolResult(b bool) fnResult {
	if b {
		return fnResult{score: 1, boolean: true}
	}
	return fnResult{score: 0, boolean: true}
}

func errResult(format string, args ...any) fnResult {
	return fnResult{err: fmt.Errorf(format, args...)}
}

// evaluator scores one subject. It is built once per point by Prepare, from the argument
// funcarg checked and decoded (regexes compiled, scripts compiled here), and is safe for
// concurrent use.
type evaluator func(in *evalInput) fnResult

// Prepare compiles a function point so it can be scored: its function is looked up, its
// argument checked, its regexes and scripts compiled. The compiled function is kept in
// pt.Compiled, so a rubric whose points were prepared scores without compiling anything again
// (ScoreRubric compiles a point that was not prepared each time it scores it). It returns why
// the point cannot be evaluated: an *rubric.UnknownFunctionError or *rubric.FunctionError, with
// the same words as rubric.Check, which checks all of this but scripts and $call services.
// Text points need nothing: it returns nil.
//
// rubric.Options.Prepare takes it, so that a blueprint's or a list's points are compiled as
// they are parsed and their problems reported in order with the parser's.
func Prepare(pt *rubric.Point) error {
	if !pt.IsFunction() {
		return nil
	}
	if err := pt.Err(); err != nil {
		return err
	}
	ev, err := compile(pt)
	if err != nil {
		return err
	}
	pt.Compiled = ev
	return nil
}

// compile builds a function point's evaluator.
func compile(pt *rubric.Point) (evaluator, error) {
	if !funcarg.Known(pt.Fn) {
		return nil, &rubric.UnknownFunctionError{Name: pt.Name()}
	}
	f, err := funcarg.Parse(pt.Fn, pt.Args, pt.HasArgs)
	if err == nil {
		var ev evaluator
		if ev, err = build(f.Arg); err == nil {
			if f.Negated {
				ev = negate(ev)
			}
			return ev, nil
		}
	}
	return nil, &rubric.FunctionError{Fn: pt.Fn, Err: err}
}

// build makes the evaluator of a decoded argument: each type of funcarg is one family of
// functions.
func build(arg any) (evaluator, error) {
	switch a := arg.(type) {
	case funcarg.Text:
		return textFn(a), nil
	case funcarg.Match:
		return matchFn(a), nil
	case funcarg.List:
		return listFn(a), nil
	case funcarg.WordCount:
		return wordCountFn(a), nil
	case funcarg.IsJSON:
		return isJSON, nil
	case funcarg.Script:
		return jsFn(a)
	case funcarg.ToolCalled:
		return toolCalledFn(a), nil
	case funcarg.ToolCount:
		return toolCountFn(a), nil
	case funcarg.ToolOrder:
		return toolOrderFn(a), nil
	case funcarg.ToolArgs:
		return toolArgsFn(a)
	case funcarg.Call:
		return callFn(a)
	case funcarg.Factcheck:
		return factcheckFn(a), nil
	}
	return nil, fmt.Errorf("no implementation for an argument of type %T", arg)
}

// textFn builds $contains, $starts_with, $ends_with, $contains_word and their i forms.
func textFn(a funcarg.Text) evaluator {
	s := a.S
	if a.Fold {
		s = jsToLower(s)
	}
	var test func(text, s string) bool
	switch a.Op {
	case funcarg.StartsWith:
		test = strings.HasPrefix
	case funcarg.EndsWith:
		test = strings.HasSuffix
	case funcarg.Word:
		test = containsWord
	default:
		test = strings.Contains
	}
	return func(in *evalInput) fnResult {
		t := in.text()
		if a.Fold {
			t = in.lowerText()
		}
		return boolResult(test(t, s))
	}
}

// matcher tests one item of a list function.
type matcher func(in *evalInput) (bool, error)

func substringMatcher(item string, fold bool) matcher {
	if fold {
		item = jsToLower(item)
		return func(in *evalInput) (bool, error) { return strings.Contains(in.lowerText(), item), nil }
	}
	return func(in *evalInput) (bool, error) { return strings.Contains(in.text(), item), nil }
}

// matchFn builds $matches and $imatches.
func matchFn(a funcarg.Match) evaluator {
	return func(in *evalInput) fnResult {
		ok, err := a.Re.MatchString(in.text())
		if err != nil {
			return fnResult{err: err}
		}
		return boolResult(ok)
	}
}

// listFn builds the *_any_of, *_all_of and *_at_least_n_of functions.
func listFn(a funcarg.List) evaluator {
	matchers := make([]matcher, len(a.Items))
	for i, item := range a.Items {
		if a.Regexes != nil {
			re := a.Regexes[i]
			matchers[i] = func(in *evalInput) (bool, error) { return re.MatchString(in.text()) }
		} else {
			matchers[i] = substringMatcher(item, a.Fold)
		}
	}
	return func(in *evalInput) fnResult {
		found := 0
		for _, m := range matchers {
			ok, err := m(in)
			if err != nil {
				return fnResult{err: err}
			}
			if ok {
				found++
				if a.Mode == funcarg.AnyOf {
					break
				}
			}
		}
		switch a.Mode {
		case funcarg.AnyOf:
			return boolResult(found > 0)
		case funcarg.AllOf:
			if len(matchers) == 0 {
				return fnResult{score: 1}
			}
			return fnResult{score: float64(found) / float64(len(matchers))}
		default:
			if a.N <= 0 {
				return fnResult{score: 1}
			}
			return fnResult{score: math.Min(1, float64(found)/a.N)}
		}
	}
}

// negate builds not_<name>: booleans are negated, graded scores become 1 − score, errors pass
// through.
func negate(ev evaluator) evaluator {
	return func(in *evalInput) fnResult {
		r := ev(in)
		if r.err != nil {
			return r
		}
		return fnResult{score: 1 - r.score, boolean: r.boolean}
	}
}

// wordCountFn builds $word_count_between.
func wordCountFn(a funcarg.WordCount) evaluator {
	lo, hi := a.Min, a.Max
	return func(in *evalInput) fnResult {
		n := float64(wordCount(in.text()))
		switch {
		case n < lo:
			return fnResult{score: n / lo, explain: fmt.Sprintf("%d words, fewer than the minimum %s.", int(n), jsjson.FormatNumber(lo))}
		case n > hi:
			if hi == 0 {
				return fnResult{score: 0, explain: fmt.Sprintf("%d words, more than the maximum 0.", int(n))}
			}
			return fnResult{score: hi / n, explain: fmt.Sprintf("%d words, more than the maximum %s.", int(n), jsjson.FormatNumber(hi))}
		}
		return fnResult{score: 1, explain: fmt.Sprintf("%d words, within [%s, %s].", int(n), jsjson.FormatNumber(lo), jsjson.FormatNumber(hi))}
	}
}

// isJSON is $is_json.
func isJSON(in *evalInput) fnResult {
	t := strings.Trim(in.text(), " \t\r\n")
	if t == "" || (t[0] != '{' && t[0] != '[') {
		return boolResult(false)
	}
	return boolResult(json.Valid([]byte(t)))
}
