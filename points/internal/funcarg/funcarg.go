// Package funcarg is the catalogue of point functions: their names and what each takes. Parse
// checks a function point's argument and decodes it into the value the engine (package points)
// builds the function from, so the rubric parser reports a bad argument (a wrong shape, a regex
// that does not compile) without linking the engine, and both report it with the same words.
//
// What needs the engine is left to it: compiling a $js script or a $tool_args_match where
// expression (a JavaScript engine), and reading a $call's inline service.
package funcarg

import (
	"fmt"
	"sort"

	"github.com/vectorlint/vectorlint/internal/node"
)

// Func is a function point's argument, checked and decoded: one of the argument types of this
// package (Text, Match, List, WordCount, IsJSON, Script, ToolCalled, ToolCount, ToolOrder,
// ToolArgs, Call, Factcheck).
type Func struct {
	// Arg is the decoded argument.
	Arg any
	// Negated is set for a not_ function: booleans are negated, graded scores become 1 − score.
	Negated bool
}

// parser checks and decodes the argument of one function.
type parser func(args any, has bool) (any, error)

// catalogue maps every function name (without not_) to its parser. Built once; never modified.
var catalogue = map[string]parser{
	"contains":     textArg(Contains, false),
	"icontains":    textArg(Contains, true),
	"starts_with":  textArg(StartsWith, false),
	"istarts_with": textArg(StartsWith, true),
	"ends_with":    textArg(EndsWith, false),
	"iends_with":   textArg(EndsWith, true),

	"contains_any_of":         listArg(AnyOf, false, false),
	"icontains_any_of":        listArg(AnyOf, false, true),
	"contains_all_of":         listArg(AllOf, false, false),
	"icontains_all_of":        listArg(AllOf, false, true),
	"contains_at_least_n_of":  listArg(AtLeastN, false, false),
	"icontains_at_least_n_of": listArg(AtLeastN, false, true),

	"matches":                matchArg(false),
	"imatches":               matchArg(true),
	"matches_all_of":         listArg(AllOf, true, false),
	"imatches_all_of":        listArg(AllOf, true, true),
	"matches_at_least_n_of":  listArg(AtLeastN, true, false),
	"imatches_at_least_n_of": listArg(AtLeastN, true, true),

	"contains_word":  textArg(Word, false),
	"icontains_word": textArg(Word, true),

	"word_count_between": wordCountArg,
	"is_json":            func(any, bool) (any, error) { return IsJSON{}, nil },
	"js":                 scriptArg,

	"tool_called":             toolCalledArg,
	"tool_args_match":         toolArgsArg,
	"tool_call_count_between": toolCountArg,
	"tool_call_order":         toolOrderArg,

	"call":      callArg,
	"factcheck": factcheckArg,
}

// negatable are the functions that have a not_ form.
var negatable = map[string]bool{
	"contains": true, "icontains": true, "starts_with": true, "istarts_with": true, "ends_with": true, "iends_with": true,
	"contains_any_of": true, "icontains_any_of": true, "contains_all_of": true, "icontains_all_of": true,
	"contains_at_least_n_of": true, "icontains_at_least_n_of": true,
	"matches": true, "imatches": true, "matches_all_of": true, "imatches_all_of": true, "matches_at_least_n_of": true, "imatches_at_least_n_of": true,
	"contains_word": true, "icontains_word": true, "tool_called": true,
}

// lookup returns the parser of a canonical function name and whether it is a not_ form.
func lookup(fn string) (parser, bool, bool) {
	if p, ok := catalogue[fn]; ok {
		return p, false, true
	}
	if base, ok := cutNot(fn); ok && negatable[base] {
		return catalogue[base], true, true
	}
	return nil, false, false
}

func cutNot(fn string) (string, bool) {
	const prefix = "not_"
	if len(fn) > len(prefix) && fn[:len(prefix)] == prefix {
		return fn[len(prefix):], true
	}
	return "", false
}

// Known reports whether fn (a canonical name, such as "not_icontains") is a point function.
func Known(fn string) bool {
	_, _, ok := lookup(fn)
	return ok
}

// Names returns every point function name, not_ forms included, sorted.
func Names() []string {
	out := make([]string, 0, len(catalogue)+len(negatable))
	for name := range catalogue {
		out = append(out, name)
		if negatable[name] {
			out = append(out, "not_"+name)
		}
	}
	sort.Strings(out)
	return out
}

// Parse checks the argument of the function fn (a canonical name; Known must be true) and
// decodes it. has tells an absent argument from an explicit null. The error says what was
// expected and what was found, without the function's name.
func Parse(fn string, args any, has bool) (Func, error) {
	p, negated, ok := lookup(fn)
	if !ok {
		return Func{}, fmt.Errorf("unknown point function %q", "$"+fn)
	}
	arg, err := p(args, has)
	if err != nil {
		return Func{}, err
	}
	return Func{Arg: arg, Negated: negated}, nil
}

// Describe says what an argument is, for "expected X, found Y" messages.
func Describe(v any, has bool) string {
	if !has {
		return "no argument"
	}
	n, err := node.FromAny(v)
	if err != nil {
		return fmt.Sprintf("%T", v)
	}
	return n.Describe()
}

func argString(args any, has bool) (string, error) {
	s, ok := args.(string)
	if !ok {
		return "", fmt.Errorf("expected a string argument, found %s", Describe(args, has))
	}
	return s, nil
}

func argStrings(v any, what string) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("expected %s to be a list of strings, found %s", what, Describe(v, true))
	}
	out := make([]string, len(list))
	for i, item := range list {
		s, ok := item.(string)
		if !ok {
			return nil, fmt.Errorf("expected item %d of %s to be a string, found %s", i+1, what, Describe(item, true))
		}
		out[i] = s
	}
	return out, nil
}
