package points

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/dop251/goja"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/points/internal/funcarg"
)

// ToolCall is one call from a trace-only tool-use transcript.
type ToolCall struct {
	Name string `json:"name"`
	// Arguments as decoded from JSON (nil when absent).
	Arguments any `json:"arguments"`
	// Line is the 1-based line of the TOOL_CALL in the text.
	Line int `json:"-"`
}

// TraceIssue is a line that looks like a tool call but could not be read.
type TraceIssue struct {
	Line   int
	Reason string
}

// String is "line N: reason".
func (t TraceIssue) String() string { return fmt.Sprintf("line %d: %s", t.Line, t.Reason) }

const toolCallMarker = "TOOL_CALL"

// ParseToolCalls reads the calls of a trace-only transcript: each line (surrounding whitespace
// ignored) of the form `TOOL_CALL {"name": "...", "arguments": {...}}`. Lines that start with
// TOOL_CALL but are not a JSON object with a string name are not calls; they are returned as
// issues so a reflection can say why a call was not counted.
func ParseToolCalls(text string) ([]ToolCall, []TraceIssue) {
	if !strings.Contains(text, toolCallMarker) {
		return nil, nil
	}
	var calls []ToolCall
	var issues []TraceIssue
	for i, raw := range strings.Split(text, "\n") {
		line := jsTrim(raw)
		rest, ok := strings.CutPrefix(line, toolCallMarker)
		if !ok {
			continue
		}
		lineNo := i + 1
		if rest == "" || !jsIsSpace([]rune(rest)[0]) {
			issues = append(issues, TraceIssue{lineNo, "expected a space and a JSON object after TOOL_CALL"})
			continue
		}
		dec := json.NewDecoder(bytes.NewReader([]byte(jsTrim(rest))))
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil || dec.More() || obj == nil {
			issues = append(issues, TraceIssue{lineNo, "expected a JSON object after TOOL_CALL, found " + node.QuoteShort(jsTrim(rest))})
			continue
		}
		if _, err := dec.Token(); err == nil {
			issues = append(issues, TraceIssue{lineNo, "unexpected text after the JSON object"})
			continue
		}
		name, ok := obj["name"].(string)
		if !ok {
			issues = append(issues, TraceIssue{lineNo, `expected the object to have a string "name"`})
			continue
		}
		calls = append(calls, ToolCall{Name: name, Arguments: obj["arguments"], Line: lineNo})
	}
	return calls, issues
}

// traceNote describes the issues of a trace for a reflection ("" when there are none).
func traceNote(issues []TraceIssue) string {
	if len(issues) == 0 {
		return ""
	}
	parts := make([]string, 0, 3)
	for i, is := range issues {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(issues)-3))
			break
		}
		parts = append(parts, is.String())
	}
	return fmt.Sprintf(" Ignored %d malformed TOOL_CALL line%s (%s).", len(issues), node.Plural(len(issues)), strings.Join(parts, "; "))
}

func toolResult(ok bool, summary string, issues []TraceIssue) fnResult {
	r := boolResult(ok)
	r.explain = summary + traceNote(issues)
	return r
}

// toolCalledFn builds $tool_called.
func toolCalledFn(a funcarg.ToolCalled) evaluator {
	name := a.Name
	return func(in *evalInput) fnResult {
		calls, issues := in.toolCalls()
		n := 0
		for _, c := range calls {
			if c.Name == name {
				n++
			}
		}
		return toolResult(n > 0, fmt.Sprintf("Tool %q was called %d time%s.", name, n, node.Plural(n)), issues)
	}
}

// toolCountFn builds $tool_call_count_between.
func toolCountFn(a funcarg.ToolCount) evaluator {
	lo, hi, name := a.Min, a.Max, a.Name
	return func(in *evalInput) fnResult {
		calls, issues := in.toolCalls()
		n := 0
		for _, c := range calls {
			if name == "" || c.Name == name {
				n++
			}
		}
		what := "tool calls"
		if name != "" {
			what = fmt.Sprintf("calls of %q", name)
		}
		return toolResult(float64(n) >= lo && float64(n) <= hi,
			fmt.Sprintf("%d %s; expected between %s and %s.", n, what, jsjson.FormatNumber(lo), jsjson.FormatNumber(hi)), issues)
	}
}

// toolOrderFn builds $tool_call_order.
func toolOrderFn(a funcarg.ToolOrder) evaluator {
	names := a.Names
	return func(in *evalInput) fnResult {
		calls, issues := in.toolCalls()
		idx := 0
		for _, c := range calls {
			if idx < len(names) && c.Name == names[idx] {
				idx++
			}
		}
		seq := make([]string, len(calls))
		for i, c := range calls {
			seq[i] = c.Name
		}
		return toolResult(idx == len(names), fmt.Sprintf("Calls in order: [%s]; expected %s in this order.", strings.Join(seq, ", "), strings.Join(names, " → ")), issues)
	}
}

// toolArgsFn builds $tool_args_match; a where expression is compiled once.
func toolArgsFn(a funcarg.ToolArgs) (evaluator, error) {
	name, normalize, partial := a.Name, a.Normalize, a.Partial
	var prog *goja.Program
	if a.IsScript {
		var err error
		if prog, err = compileGuarded("where", "(function(args){ return ("+a.Script+"\n); })("+whereArgs+")"); err != nil {
			return nil, fmt.Errorf("where: JavaScript does not compile: %s", truncate(err.Error(), 300))
		}
	}
	return func(in *evalInput) fnResult {
		calls, issues := in.toolCalls()
		seen := 0
		var jsErr error
		for _, c := range calls {
			if c.Name != name || c.Arguments == nil {
				continue
			}
			seen++
			if partial != nil {
				if partialMatch(c.Arguments, partial, normalize) {
					return toolResult(true, fmt.Sprintf("A call of %q (line %d) has matching arguments.", name, c.Line), issues)
				}
				continue
			}
			ok, err := runWhere(in, prog, c.Arguments)
			if err != nil {
				jsErr = err
				continue
			}
			if ok {
				return toolResult(true, fmt.Sprintf("A call of %q (line %d) satisfies the where expression.", name, c.Line), issues)
			}
		}
		summary := fmt.Sprintf("None of %d call%s of %q has matching arguments.", seen, node.Plural(seen), name)
		if jsErr != nil {
			summary += " The where expression failed on a call: " + jsErr.Error() + "."
		}
		return toolResult(false, summary, issues)
	}, nil
}

// whereArgs is the global holding the arguments a where expression sees as args.
const whereArgs = "__toolArgs"

// runWhere evaluates a compiled where expression on one call's arguments; the result is
// JavaScript truthiness.
func runWhere(in *evalInput, prog *goja.Program, args any) (bool, error) {
	v, err := runJS(in.ctx, in.env.JSPool, prog, in.env.JSTimeout, func(vm *goja.Runtime) error { return vm.Set(whereArgs, args) })
	if err != nil {
		return false, err
	}
	return v.ToBoolean(), nil
}

// partialMatch reports whether every key of want is in got with an equal value, recursively.
// Strings compare after removing whitespace when normalize is set.
func partialMatch(got, want any, normalize bool) bool {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, wv := range w {
			gv, present := g[k]
			if !present || !partialMatch(gv, wv, normalize) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok || len(g) < len(w) {
			return false
		}
		for i := range w {
			if !partialMatch(g[i], w[i], normalize) {
				return false
			}
		}
		return true
	case string:
		g, ok := got.(string)
		if !ok {
			return false
		}
		if normalize {
			return stripJSSpace(g) == stripJSSpace(w)
		}
		return g == w
	default:
		return got == want
	}
}
