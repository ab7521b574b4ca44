package funcarg

import (
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/internal/jsregex"
)

// Op is what a Text function tests.
type Op int

// The tests of Text functions.
const (
	// Contains: the text contains the string ($contains).
	Contains Op = iota
	// StartsWith: the text starts with it ($starts_with).
	StartsWith
	// EndsWith: the text ends with it ($ends_with).
	EndsWith
	// Word: the text contains it as a whole word ($contains_word).
	Word
)

// Text is the argument of $contains, $starts_with, $ends_with, $contains_word and their i
// forms.
type Text struct {
	Op Op
	// Fold is set for the case-insensitive (i) forms.
	Fold bool
	// S is the string as written (not yet lower-cased).
	S string
}

// Match is the argument of $matches and $imatches: the regex, compiled as
// `new RegExp(pattern, flags)` would (with "i" for $imatches).
type Match struct {
	Re *jsregex.Regexp
}

// Mode is how a List function combines its items.
type Mode int

// The modes of List functions.
const (
	// AnyOf is true when any item is found.
	AnyOf Mode = iota
	// AllOf scores the share of items found.
	AllOf
	// AtLeastN scores the items found over N, at most 1.
	AtLeastN
)

// List is the argument of the *_any_of, *_all_of and *_at_least_n_of functions.
type List struct {
	Mode Mode
	// N is the n of [n, [items]] (AtLeastN only).
	N float64
	// Fold is set for the case-insensitive (i) forms.
	Fold bool
	// Items are the strings to find, as written.
	Items []string
	// Regexes are the items compiled, for the matches_ functions (nil for contains_).
	Regexes []*jsregex.Regexp
}

// WordCount is the argument of $word_count_between: [min, max].
type WordCount struct {
	Min, Max float64
}

// IsJSON is the (absent) argument of $is_json.
type IsJSON struct{}

// Script is the argument of $js: its code, which the engine compiles.
type Script struct {
	Code string
}

// ToolCalled is the argument of $tool_called: the tool's name.
type ToolCalled struct {
	Name string
}

// ToolCount is the argument of $tool_call_count_between: [min, max] or [min, max, name].
type ToolCount struct {
	Min, Max float64
	// Name restricts the count to one tool ("" counts every call).
	Name string
}

// ToolOrder is the argument of $tool_call_order: the tool names, in order.
type ToolOrder struct {
	Names []string
}

// ToolArgs is the argument of $tool_args_match: {name, where, normalizeWhitespace?}. Where is
// either a JavaScript expression over args (IsScript, Script: the engine compiles it) or an
// object the arguments must match partially (Partial).
type ToolArgs struct {
	Name      string
	Normalize bool
	IsScript  bool
	Script    string
	Partial   map[string]any
}

// Call is the argument of $call: a named service or an inline {url, ...}, and the parameters
// sent with the response. The engine reads the inline service from Spec.
type Call struct {
	// Service names a service of the blueprint's externalServices ("" for an inline one).
	Service string
	// Spec is the whole argument.
	Spec map[string]any
}

// Factcheck is the argument of $factcheck: an optional instruction for the service.
type Factcheck struct {
	Instruction string
}

func textArg(op Op, fold bool) parser {
	return func(args any, has bool) (any, error) {
		s, err := argString(args, has)
		if err != nil {
			return nil, err
		}
		return Text{Op: op, Fold: fold, S: s}, nil
	}
}

// CompileRegex compiles a pattern as `new RegExp(pattern, flags)` would, accepting a leading
// inline flag group such as "(?i)"; fold adds the i flag.
func CompileRegex(pattern string, fold bool) (*jsregex.Regexp, error) {
	rest, inline := jsregex.SplitInlineFlags(pattern)
	flags := inline
	if fold && !strings.Contains(flags, "i") {
		flags += "i"
	}
	return jsregex.Compile(rest, flags)
}

func matchArg(fold bool) parser {
	return func(args any, has bool) (any, error) {
		s, err := argString(args, has)
		if err != nil {
			return nil, fmt.Errorf("expected a regular expression string, found %s", Describe(args, has))
		}
		re, err := CompileRegex(s, fold)
		if err != nil {
			return nil, err
		}
		return Match{Re: re}, nil
	}
}

func listArg(mode Mode, regex, fold bool) parser {
	return func(args any, has bool) (any, error) {
		l := List{Mode: mode, Fold: fold}
		listArg := args
		if mode == AtLeastN {
			pair, ok := args.([]any)
			if !ok || len(pair) != 2 {
				return nil, fmt.Errorf("expected [n, [item, ...]], found %s", Describe(args, has))
			}
			if l.N, ok = pair[0].(float64); !ok {
				return nil, fmt.Errorf("expected [n, [item, ...]] with a number n, found %s first", Describe(pair[0], true))
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
		l.Items = items
		if regex {
			l.Regexes = make([]*jsregex.Regexp, len(items))
			for i, item := range items {
				if l.Regexes[i], err = CompileRegex(item, fold); err != nil {
					return nil, fmt.Errorf("item %d: %w", i+1, err)
				}
			}
		}
		return l, nil
	}
}

func wordCountArg(args any, has bool) (any, error) {
	pair, ok := args.([]any)
	if ok && len(pair) == 2 {
		lo, ok1 := pair[0].(float64)
		hi, ok2 := pair[1].(float64)
		if ok1 && ok2 && lo >= 0 && hi >= lo {
			return WordCount{Min: lo, Max: hi}, nil
		}
	}
	return nil, fmt.Errorf("expected [min, max] with 0 ≤ min ≤ max, found %s", Describe(args, has))
}

func scriptArg(args any, has bool) (any, error) {
	code, ok := args.(string)
	if !ok {
		return nil, fmt.Errorf("expected JavaScript code as a string, found %s", Describe(args, has))
	}
	return Script{Code: code}, nil
}

func toolCalledArg(args any, has bool) (any, error) {
	name, ok := args.(string)
	if !ok || name == "" {
		return nil, fmt.Errorf("expected a tool name string, found %s", Describe(args, has))
	}
	return ToolCalled{Name: name}, nil
}

func toolCountArg(args any, has bool) (any, error) {
	list, ok := args.([]any)
	bad := fmt.Errorf("expected [min, max] or [min, max, toolName] with 0 ≤ min ≤ max, found %s", Describe(args, has))
	if !ok || len(list) < 2 || len(list) > 3 {
		return nil, bad
	}
	lo, ok1 := list[0].(float64)
	hi, ok2 := list[1].(float64)
	if !ok1 || !ok2 || lo < 0 || hi < lo {
		return nil, bad
	}
	c := ToolCount{Min: lo, Max: hi}
	if len(list) == 3 {
		if c.Name, ok = list[2].(string); !ok {
			return nil, bad
		}
	}
	return c, nil
}

func toolOrderArg(args any, has bool) (any, error) {
	names, err := argStrings(args, "the argument")
	if err != nil || len(names) == 0 {
		return nil, fmt.Errorf("expected a non-empty list of tool names, found %s", Describe(args, has))
	}
	return ToolOrder{Names: names}, nil
}

func toolArgsArg(args any, has bool) (any, error) {
	spec, ok := args.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected {name, where, normalizeWhitespace?}, found %s", Describe(args, has))
	}
	a := ToolArgs{}
	if a.Name, ok = spec["name"].(string); !ok || a.Name == "" {
		return nil, fmt.Errorf("expected {name, where} with a tool name string, found %s", Describe(args, has))
	}
	if v, present := spec["normalizeWhitespace"]; present {
		if a.Normalize, ok = v.(bool); !ok {
			return nil, fmt.Errorf("expected normalizeWhitespace to be true or false, found %s", Describe(v, true))
		}
	}
	switch w := spec["where"].(type) {
	case string:
		a.IsScript, a.Script = true, w
	case map[string]any:
		a.Partial = w
	default:
		return nil, fmt.Errorf("expected where to be an object (partial match) or a JavaScript expression over args, found %s", Describe(spec["where"], spec["where"] != nil))
	}
	return a, nil
}

func callArg(args any, has bool) (any, error) {
	spec, ok := args.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected {service: name} or {url: ...} with parameters, found %s", Describe(args, has))
	}
	service, _ := spec["service"].(string)
	if service == "" {
		if _, ok := spec["url"].(string); !ok {
			return nil, fmt.Errorf("expected a service name (service: ...) or a URL (url: ...), found %s", Describe(args, has))
		}
	}
	return Call{Service: service, Spec: spec}, nil
}

func factcheckArg(args any, has bool) (any, error) {
	instruction := ""
	if has && args != nil {
		s, ok := args.(string)
		if !ok {
			return nil, fmt.Errorf("expected an instruction string (such as \"focus on dates only\"), found %s", Describe(args, has))
		}
		instruction = s
	}
	return Factcheck{Instruction: instruction}, nil
}
