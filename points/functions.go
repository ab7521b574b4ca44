package points

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/internal/jsregex"
	"github.com/vectorlint/vectorlint/internal/suggest"
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

// evaluator scores one subject. It is built once per point by a prepareFunc, with the
// arguments validated and regexes and scripts compiled, and is safe for concurrent use.
type evaluator func(in *evalInput) fnResult

// prepareFunc validates a point's arguments and builds its evaluator.
type prepareFunc func(args any, hasArgs bool) (evaluator, error)

// registry maps every canonical function name to its preparation. Built once; never modified.
var registry = buildRegistry()

func buildRegistry() map[string]prepareFunc {
	r := map[string]prepareFunc{
		"contains":     substringFn(false, strings.Contains),
		"icontains":    substringFn(true, strings.Contains),
		"starts_with":  substringFn(false, strings.HasPrefix),
		"istarts_with": substringFn(true, strings.HasPrefix),
		"ends_with":    substringFn(false, strings.HasSuffix),
		"iends_with":   substringFn(true, strings.HasSuffix),

		"contains_any_of":         listFn(anyOf, substringMatcher(false)),
		"icontains_any_of":        listFn(anyOf, substringMatcher(true)),
		"contains_all_of":         listFn(allOf, substringMatcher(false)),
		"icontains_all_of":        listFn(allOf, substringMatcher(true)),
		"contains_at_least_n_of":  listFn(atLeastN, substringMatcher(false)),
		"icontains_at_least_n_of": listFn(atLeastN, substringMatcher(true)),

		"matches":                regexFn(false),
		"imatches":               regexFn(true),
		"matches_all_of":         listFn(allOf, regexMatcher(false)),
		"imatches_all_of":        listFn(allOf, regexMatcher(true)),
		"matches_at_least_n_of":  listFn(atLeastN, regexMatcher(false)),
		"imatches_at_least_n_of": listFn(atLeastN, regexMatcher(true)),

		"contains_word":  wordFn(false),
		"icontains_word": wordFn(true),

		"word_count_between": prepareWordCount,
		"is_json":            prepareIsJSON,
		"js":                 prepareJS,

		"tool_called":             prepareToolCalled,
		"tool_args_match":         prepareToolArgsMatch,
		"tool_call_count_between": prepareToolCallCount,
		"tool_call_order":         prepareToolCallOrder,

		"call":      prepareCall,
		"factcheck": prepareFactcheck,
	}
	for _, name := range []string{
		"contains", "icontains", "starts_with", "istarts_with", "ends_with", "iends_with",
		"contains_any_of", "icontains_any_of", "contains_all_of", "icontains_all_of",
		"contains_at_least_n_of", "icontains_at_least_n_of",
		"matches", "imatches", "matches_all_of", "imatches_all_of", "matches_at_least_n_of", "imatches_at_least_n_of",
		"contains_word", "icontains_word", "tool_called",
	} {
		r["not_"+name] = negate(r[name])
	}
	return r
}

// FunctionNames returns every point function name, sorted.
func FunctionNames() []string {
	out := make([]string, 0, len(registry))
	for name := range registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// UnknownFunctionError reports a $name that is not a point function.
type UnknownFunctionError struct {
	// Name is the function name as written (without "$").
	Name string
	// Quoted is set when the point was a string such as "$icontains: 'x'".
	Quoted bool
}

// Error names the function, with a suggestion or the quoting hint.
func (e *UnknownFunctionError) Error() string {
	if e.Quoted {
		return fmt.Sprintf("unknown point function %q: \"$%s\" is a quoted function call; write it as a mapping without the outer quotes", "$"+e.Name, e.Name)
	}
	msg := fmt.Sprintf("unknown point function %q", "$"+e.Name)
	if s := suggestFunction(normaliseFn(e.Name)); s != "" {
		msg += fmt.Sprintf(" (did you mean $%s?)", s)
	}
	return msg
}

// FunctionError reports a function point whose arguments are invalid or whose regex or script
// does not compile.
type FunctionError struct {
	Fn  string
	Err error
}

// Error is "$fn: reason".
func (e *FunctionError) Error() string { return "$" + e.Fn + ": " + e.Err.Error() }

// Unwrap returns the underlying error.
func (e *FunctionError) Unwrap() error { return e.Err }

// suggestFunction returns the known function name closest to name, or "".
func suggestFunction(name string) string {
	return suggest.Closest(name, slices.Collect(maps.Keys(registry)), 3)
}

// prepare looks the point's function up and compiles it.
func (p *Point) prepare() {
	if !p.IsFunction() {
		return
	}
	prep, ok := registry[p.Fn]
	if !ok {
		name := p.Written
		if name == "" {
			name = p.Fn
		}
		p.prepErr = &UnknownFunctionError{Name: name}
		return
	}
	ev, err := prep(p.Args, p.HasArgs)
	if err != nil {
		p.prepErr = &FunctionError{Fn: p.Fn, Err: err}
		return
	}
	p.impl = ev
}

// describeArg says what an argument is, for "expected X, found Y" messages.
func describeArg(v any, has bool) string {
	if !has {
		return "no argument"
	}
	n, err := fromAny(v, 0)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	return n.describe()
}

func argString(args any, has bool) (string, error) {
	s, ok := args.(string)
	if !ok {
		return "", fmt.Errorf("expected a string argument, found %s", describeArg(args, has))
	}
	return s, nil
}

func argStrings(v any, what string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("expected %s to be a list of strings, found %s", what, describeArg(v, true))
	}
	out := make([]string, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("expected item %d of %s to be a string, found %s", i+1, what, describeArg(item, true))
		}
		out[i] = s
	}
	return out, nil
}

func substringFn(fold bool, test func(s, sub string) bool) prepareFunc {
	return func(args any, has bool) (evaluator, error) {
		s, err := argString(args, has)
		if err != nil {
			return nil, err
		}
		if fold {
			s = jsToLower(s)
		}
		return func(in *evalInput) fnResult {
			t := in.text()
			if fold {
				t = in.lowerText()
			}
			return boolResult(test(t, s))
		}, nil
	}
}

// matcher tests one item of a list function.
type matcher func(in *evalInput) (bool, error)

type matcherFactory func(item string) (matcher, error)

func substringMatcher(fold bool) matcherFactory {
	return func(item string) (matcher, error) {
		if fold {
			item = jsToLower(item)
			return func(in *evalInput) (bool, error) { return strings.Contains(in.lowerText(), item), nil }, nil
		}
		return func(in *evalInput) (bool, error) { return strings.Contains(in.text(), item), nil }, nil
	}
}

// compileRegex compiles a pattern as `new RegExp(pattern, flags)` would, accepting a leading
// inline flag group such as "(?i)".
func compileRegex(pattern string, fold bool) (*jsregex.Regexp, error) {
	rest, inline := jsregex.SplitInlineFlags(pattern)
	flags := inline
	if fold && !strings.Contains(flags, "i") {
		flags += "i"
	}
	return jsregex.Compile(rest, flags)
}

func regexMatcher(fold bool) matcherFactory {
	return func(item string) (matcher, error) {
		re, err := compileRegex(item, fold)
		if err != nil {
			return nil, err
		}
		return func(in *evalInput) (bool, error) { return re.MatchString(in.text()) }, nil
	}
}

func regexFn(fold bool) prepareFunc {
	return func(args any, has bool) (evaluator, error) {
		s, err := argString(args, has)
		if err != nil {
			return nil, fmt.Errorf("expected a regular expression string, found %s", describeArg(args, has))
		}
		m, err := regexMatcher(fold)(s)
		if err != nil {
			return nil, err
		}
		return func(in *evalInput) fnResult {
			ok, err := m(in)
			if err != nil {
				return fnResult{err: err}
			}
			return boolResult(ok)
		}, nil
	}
}

func wordFn(fold bool) prepareFunc {
	return func(args any, has bool) (evaluator, error) {
		w, err := argString(args, has)
		if err != nil {
			return nil, err
		}
		if fold {
			w = jsToLower(w)
		}
		return func(in *evalInput) fnResult {
			t := in.text()
			if fold {
				t = in.lowerText()
			}
			return boolResult(containsWord(t, w))
		}, nil
	}
}

type listMode int

const (
	anyOf listMode = iota
	allOf
	atLeastN
)

// listFn builds the *_any_of, *_all_of and *_at_least_n_of functions.
func listFn(mode listMode, factory matcherFactory) prepareFunc {
	return func(args any, has bool) (evaluator, error) {
		n := 0.0
		listArg := args
		if mode == atLeastN {
			pair, ok := args.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("expected [n, [item, ...]], found %s", describeArg(args, has))
			}
			if n, ok = pair[0].(float64); !ok {
				return nil, fmt.Errorf("expected [n, [item, ...]] with a number n, found %s first", describeArg(pair[0], true))
			}
			listArg = pair[1]
		}
		if !has {
			return nil, fmt.Errorf("expected a list of strings, found no argument")
		}
		items, err := argStrings(listArg, "the argument")
		if err != nil {
			return nil, err
		}
		matchers := make([]matcher, len(items))
		for i, item := range items {
			if matchers[i], err = factory(item); err != nil {
				return nil, fmt.Errorf("item %d: %w", i+1, err)
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
					if mode == anyOf {
						break
					}
				}
			}
			switch mode {
			case anyOf:
				return boolResult(found > 0)
			case allOf:
				if len(matchers) == 0 {
					return fnResult{score: 1}
				}
				return fnResult{score: float64(found) / float64(len(matchers))}
			default:
				if n <= 0 {
					return fnResult{score: 1}
				}
				return fnResult{score: math.Min(1, float64(found)/n)}
			}
		}, nil
	}
}

// negate builds not_<name>: booleans are negated, graded scores become 1 − score, errors pass
// through.
func negate(base prepareFunc) prepareFunc {
	return func(args any, has bool) (evaluator, error) {
		ev, err := base(args, has)
		if err != nil {
			return nil, err
		}
		return func(in *evalInput) fnResult {
			r := ev(in)
			if r.err != nil {
				return r
			}
			return fnResult{score: 1 - r.score, boolean: r.boolean}
		}, nil
	}
}

func prepareWordCount(args any, has bool) (evaluator, error) {
	pair, ok := args.([]any)
	if ok && len(pair) == 2 {
		lo, ok1 := pair[0].(float64)
		hi, ok2 := pair[1].(float64)
		if ok1 && ok2 && lo >= 0 && hi >= lo {
			return func(in *evalInput) fnResult {
				n := float64(wordCount(in.text()))
				switch {
				case n < lo:
					return fnResult{score: n / lo, explain: fmt.Sprintf("%d words, fewer than the minimum %s.", int(n), formatJSNumber(lo))}
				case n > hi:
					if hi == 0 {
						return fnResult{score: 0, explain: fmt.Sprintf("%d words, more than the maximum 0.", int(n))}
					}
					return fnResult{score: hi / n, explain: fmt.Sprintf("%d words, more than the maximum %s.", int(n), formatJSNumber(hi))}
				}
				return fnResult{score: 1, explain: fmt.Sprintf("%d words, within [%s, %s].", int(n), formatJSNumber(lo), formatJSNumber(hi))}
			}, nil
		}
	}
	return nil, fmt.Errorf("expected [min, max] with 0 ≤ min ≤ max, found %s", describeArg(args, has))
}

func prepareIsJSON(args any, has bool) (evaluator, error) {
	return func(in *evalInput) fnResult {
		t := strings.Trim(in.text(), " \t\r\n")
		if t == "" || (t[0] != '{' && t[0] != '[') {
			return boolResult(false)
		}
		return boolResult(json.Valid([]byte(t)))
	}, nil
}
