package points

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/vectorlint/vectorlint/points/internal/funcarg"
)

// DefaultJSTimeout bounds one $js evaluation (and one $tool_args_match "where" expression).
const DefaultJSTimeout = 100 * time.Millisecond

// maxJSText bounds the explanation and error text a script can put into a result.
const maxJSText = 2000

var errJSTimeout = errors.New("JavaScript time limit exceeded")

// compileJS compiles a $js snippet: a bare expression or script (its completion value is the
// result), or a function body using return, which is wrapped in a function when a plain
// script would be a syntax error. Its template literals and object spread and rest are
// rewritten into size-checked calls (rewriteJS).
func compileJS(name, code string) (*goja.Program, error) {
	prog, err := compileGuarded(name, code)
	if err == nil {
		return prog, nil
	}
	if wrapped, werr := compileGuarded(name, "(function(){\n"+code+"\n})()"); werr == nil {
		return wrapped, nil
	}
	return nil, fmt.Errorf("JavaScript does not compile: %s", truncate(withoutSuffix(err.Error()), 300))
}

// withoutSuffix removes jsRegexpSuffix from a message about a pattern: the script's author
// never wrote it. A pattern that only Go's regexp accepts (goja's lenient reading of, say,
// \p{Script=Greek}) fails on regexp2 with goja's "Invalid regular expression (regexp2)".
func withoutSuffix(msg string) string { return strings.ReplaceAll(msg, jsRegexpSuffix, "") }

// jsGrace is how long runJS waits, after interrupting a script for its memory (or when the
// caller's context ends), for the script to stop before it gives up on it: long enough for the
// script to unwind and its memory to be confirmed as its own.
const jsGrace = 100 * time.Millisecond

// jsStopGrace is the same wait for a script interrupted at its time limit, whose answer is then
// "stopped" whatever it does: long enough for a script in JavaScript code to see the interrupt,
// or for a result sent just at the limit to arrive; short, because a script stuck in a built-in
// call (a regular expression scan) gives its slot back only when runJS gives up on it.
const jsStopGrace = 10 * time.Millisecond

// runJS runs a compiled program in a fresh sandbox: no require, no I/O, no timers, no code
// built from strings, a time limit, a bounded call stack, size-checked built-ins (jsGuards)
// and a memory budget (JSPool; pool may be nil for a pool of its own). bind sets the script's
// globals.
//
// The script runs on its own goroutine. At the time limit (or when ctx ends) it is
// interrupted, which stops it at its next instruction; a built-in call still running then
// (goja cannot interrupt one: sorting a long array, or a regular expression scan) is abandoned
// after jsStopGrace (jsGrace when stopped for memory), so the caller gets its error on time whatever the script does, and its pool
// slot is free at once. The abandoned goroutine ends when the built-in returns: every regular
// expression scan is bounded by jsRegexpTimeout, and jsGuards bounds what one built-in call
// may do. A script that ran past its limit is stopped whatever it returned.
func runJS(ctx context.Context, pool *JSPool, prog *goja.Program, timeout time.Duration, bind func(vm *goja.Runtime) error) (goja.Value, error) {
	if pool == nil {
		pool = NewJSPool()
	}
	return pool.run(ctx, prog, timeout, bind)
}

func jsError(err error, timeout time.Duration) error {
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		if e, ok := ie.Value().(error); ok && !errors.Is(e, errJSTimeout) {
			return e
		}
		return fmt.Errorf("JavaScript ran longer than %v and was stopped", timeout)
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return fmt.Errorf("JavaScript threw: %s", truncate(withoutSuffix(ex.Value().String()), 300))
	}
	var se *goja.StackOverflowError
	if errors.As(err, &se) {
		return errors.New("JavaScript exceeded the call stack limit")
	}
	return fmt.Errorf("JavaScript failed: %s", truncate(err.Error(), 300))
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

// jsFn builds $js: the script is compiled once, and run in a fresh sandbox for each subject.
func jsFn(a funcarg.Script) (evaluator, error) {
	prog, err := compileJS("$js", a.Code)
	if err != nil {
		return nil, err
	}
	return func(in *evalInput) fnResult {
		v, err := runJS(in.ctx, in.env.JSPool, prog, in.env.JSTimeout, func(vm *goja.Runtime) error {
			s := in.subject
			msgs := make([]any, len(s.Messages))
			for i, m := range s.Messages {
				var content any
				if m.Content != nil {
					content = *m.Content
				}
				msgs[i] = map[string]any{"role": m.Role, "content": content}
			}
			if err := vm.Set("r", s.Text); err != nil {
				return err
			}
			if err := vm.Set("response", s.Text); err != nil {
				return err
			}
			return vm.Set("context", map[string]any{"messages": msgs, "modelId": s.ModelID, "promptId": s.PromptID})
		})
		if err != nil {
			return fnResult{err: err}
		}
		return jsResult(v)
	}, nil
}

// jsResult converts what a script returned: a boolean, a number (clamped to [0, 1]) or
// {score, explain}. undefined is false, as in the original (a script that falls off its end).
func jsResult(v goja.Value) fnResult {
	if v == nil || goja.IsUndefined(v) {
		return fnResult{score: 0, boolean: true, explain: "The script returned undefined (treated as false)."}
	}
	if goja.IsNull(v) {
		return errResult("the script returned null; expected a boolean, a number or {score, explain}")
	}
	x := v.Export()
	if r, kind := scoreResult(x); kind != notAScore {
		if kind == nanScore {
			return errResult("the script returned NaN; expected a boolean or a number")
		}
		return r
	}
	obj, ok := x.(map[string]any)
	if !ok {
		return errResult("the script returned a %s; expected a boolean, a number or {score, explain}", jsTypeName(x))
	}
	raw, ok := obj["score"]
	if !ok {
		return errResult("the script returned an object without score; expected {score, explain}")
	}
	r, kind := scoreResult(raw)
	switch kind {
	case nanScore:
		return errResult("the script returned score NaN")
	case notAScore:
		return errResult("the script returned a score of type %s; expected a boolean or a number", jsTypeName(raw))
	}
	if e, ok := obj["explain"].(string); ok {
		r.explain = truncate(e, maxJSText)
	}
	return r
}

// scoreKind says what scoreResult made of a value.
type scoreKind int

const (
	validScore scoreKind = iota
	nanScore             // a number that is NaN: an error, never a score
	notAScore            // neither a boolean nor a number
)

// scoreResult turns the score a point function returned ($js's value or its score field,
// $call's score field) into a result as spec/blueprints.md §3 says: true/false → 1/0, a number
// clamped to [0, 1]. Both functions use it, so the same value scores the same whichever
// returned it.
func scoreResult(v any) (fnResult, scoreKind) {
	switch x := v.(type) {
	case bool:
		return boolResult(x), validScore
	case int64:
		return fnResult{score: clamp01(float64(x))}, validScore
	case float64:
		if math.IsNaN(x) {
			return fnResult{}, nanScore
		}
		return fnResult{score: clamp01(x)}, validScore
	}
	return fnResult{}, notAScore
}

func jsTypeName(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case []any:
		return "array"
	case nil:
		return "null"
	}
	return fmt.Sprintf("value (%T)", v)
}

func clamp01(f float64) float64 {
	return math.Max(0, math.Min(1, f))
}
