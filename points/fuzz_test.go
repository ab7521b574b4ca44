package points

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"
	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/points/rubric"
)

func FuzzParseToolCalls(f *testing.F) {
	f.Add("TOOL_CALL {\"name\":\"a\",\"arguments\":{\"x\":1}}\nTOOL_CALL bad\n")
	f.Add("  TOOL_CALL {\"name\":\"b\"}  \r\nTOOL_CALL{}")
	f.Add("TOOL_CALL {\"name\":\"c\"} {}\nTOOL_CALL \u00a0{\"name\":\"d\"}")
	f.Fuzz(func(t *testing.T, text string) {
		calls, issues := ParseToolCalls(text)
		lines := strings.Count(text, "\n") + 1
		for _, c := range calls {
			if c.Line < 1 || c.Line > lines {
				t.Fatalf("call on line %d of %d", c.Line, lines)
			}
		}
		for _, is := range issues {
			if is.Line < 1 || is.Line > lines || is.Reason == "" {
				t.Fatalf("issue %+v", is)
			}
		}
		if len(calls)+len(issues) > lines {
			t.Fatalf("%d calls and %d issues from %d lines", len(calls), len(issues), lines)
		}
	})
}

// fuzzPoints are points scored against fuzzed text; the argument of the last few is fuzzed too.
var fuzzPoints = []struct {
	fn   string
	args any
}{
	{"contains", "a"}, {"icontains", "İ"}, {"contains_word", "Paraná"}, {"icontains_word", "ΣΑΣ"},
	{"contains_all_of", []any{"a", "b"}}, {"imatches_at_least_n_of", []any{2.0, []any{"a+", "(?i)b"}}},
	{"matches", `(?<=\$)\d+`}, {"imatches", "^x.*y$"}, {"word_count_between", []any{1.0, 3.0}}, {"is_json", nil},
	{"tool_called", "a"}, {"tool_call_order", []any{"a", "b"}}, {"tool_call_count_between", []any{0.0, 2.0}},
	{"tool_args_match", map[string]any{"name": "a", "where": map[string]any{"x": 1.0}, "normalizeWhitespace": true}},
	{"not_contains_any_of", []any{"z"}},
}

func FuzzPointFunctions(f *testing.F) {
	f.Add("The Paraná river", "a+b")
	f.Add("TOOL_CALL {\"name\":\"a\",\"arguments\":{\"x\":1}}", "(")
	f.Add("{\"x\": [1, 2]}", "[\\s\\S]*")
	f.Add("ΟΔΟΣ İ \ufeff a b", "(?i)ς")
	f.Fuzz(func(t *testing.T, text, pattern string) {
		in := &evalInput{ctx: context.Background(), subject: &Subject{Text: text}, env: &Env{}}
		points := append([]struct {
			fn   string
			args any
		}{}, fuzzPoints...)
		points = append(points, struct {
			fn   string
			args any
		}{"matches", pattern}, struct {
			fn   string
			args any
		}{"icontains_word", pattern}, struct {
			fn   string
			args any
		}{"matches_all_of", []any{pattern, "x"}})
		for _, p := range points {
			pt := &rubric.Point{Fn: p.fn, Args: p.args, HasArgs: p.args != nil, Multiplier: 1}
			if Prepare(pt) != nil {
				continue
			}
			r := pt.Compiled.(evaluator)(in)
			if r.err == nil && (math.IsNaN(r.score) || r.score < 0 || r.score > 1) {
				t.Fatalf("%s(%v) on %q = %v", p.fn, p.args, text, r.score)
			}
		}
	})
}

// FuzzJSToLower checks jsToLower against JavaScript's own toLowerCase (goja's).
func FuzzJSToLower(f *testing.F) {
	for _, s := range []string{"ABC", "İSTANBUL", "ΟΔΟΣ", "AΣ.", "Σ", "ǅ", "ÀÉÎ ΣΑΣ"} {
		f.Add(s)
	}
	vm := goja.New()
	lower, _ := goja.AssertFunction(vm.ToValue("").ToObject(vm).Get("toLowerCase"))
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) {
			return
		}
		v, err := lower(vm.ToValue(s))
		if err != nil {
			t.Fatal(err)
		}
		if got := jsToLower(s); got != v.String() {
			t.Fatalf("jsToLower(%q) = %q, JavaScript gives %q", s, got, v.String())
		}
	})
}

// FuzzParsePoints fuzzes the point syntax a `should` list is written in — plain criteria,
// {$function: argument}, "$function" strings, {fn, arg}, $ref, weights, citations and nested
// alternative paths — as parsed from YAML with line numbers, then scores every deterministic
// function point that compiled on a fuzzed response. Errors are Diagnostics naming the file and a
// line inside it (after LineOffset); a point that parsed scores within [0, 1] or reports an error.
// The seeds are the should lists of the real Weval blueprints.
func FuzzParsePoints(f *testing.F) {
	for _, s := range []string{
		"- plain criterion\n- $contains: x\n- - $matches: \"^a\"\n  - z\n",
		"- {$icontains_word: ΣΑΣ, weight: 2, citation: src}\n- \"$is_json\"\n- {fn: word_count_between, arg: [1, 3]}\n",
		"- {$ref: short}\n- {$ref: obj, weight: 0.5}\n- {text: t, weight: 11}\n- {\"$icontains: 'x'\": 1}\n",
		"- $tool_args_match: {name: a, where: {x: 1}, normalizeWhitespace: true}\n- $tool_call_order: [a, b]\n",
		"- $contains_at_least_n_of: [2, [a, b, c]]\n- $imatches_all_of: [\"(?i)x\", \"(\"]\n- $word_count_between: [.inf, 1]\n",
		"- []\n- [[]]\n- ~\n- {}\n- {a: b, c: d}\n- {$contains: a, $matches: b}\n",
	} {
		f.Add([]byte(s), "TOOL_CALL {\"name\":\"a\",\"arguments\":{\"x\":1}}\nx Paraná ΣΑΣ")
	}
	for _, sf := range testutil.SharedFiles(f, "corpus/weval-configs/blueprints", 8<<10, ".yml") {
		lists := shouldLists(sf.Data)
		for _, list := range lists[:min(2, len(lists))] {
			f.Add(list, "A response that mentions the capital, Paris, in 12 words or so.")
		}
	}
	defs := map[string]any{"short": "r.length < 10", "obj": map[string]any{"$contains": "x", "weight": 3.0}}
	f.Fuzz(func(t *testing.T, data []byte, response string) {
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
			return
		}
		const offset = 1
		lines := textLines(data) + offset
		r, errs := rubric.Parse(root.Content[0], rubric.Options{File: "rule.md", Owner: "P.R", OwnerKind: "rule", Defs: defs, LineOffset: offset, Prepare: Prepare})
		for _, d := range errs {
			if d.File != "rule.md" || d.Line < 0 || d.Line > lines || d.Message == "" {
				t.Fatalf("error %v is not a problem naming rule.md and a line of %d", d.Labeled(), lines)
			}
		}
		if errs != nil {
			return
		}
		in := &evalInput{ctx: context.Background(), subject: &Subject{Text: response}, env: &Env{}}
		for _, pt := range r.Points() {
			if pt.Multiplier < 0.1 || pt.Multiplier > 10 || pt.Line < 0 || pt.Line > lines {
				t.Fatalf("point %+v: multiplier or line out of range", pt)
			}
			switch pt.Fn {
			case "", "js", "call", "factcheck":
				continue // not a function, or needs a runtime or the network: tested on their own
			}
			if pt.Err() != nil {
				continue
			}
			if res := pt.Compiled.(evaluator)(in); res.err == nil && (math.IsNaN(res.score) || res.score < 0 || res.score > 1) {
				t.Fatalf("$%s(%v) on %q = %v", pt.Fn, pt.Args, response, res.score)
			}
		}
	})
}

// shouldLists returns the should and should_not lists of a YAML blueprint's prompts, each
// re-encoded as its own YAML document.
func shouldLists(data []byte) [][]byte {
	var out [][]byte
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc any
		if err := dec.Decode(&doc); err != nil {
			return out
		}
		prompts, _ := doc.([]any)
		if m, ok := doc.(map[string]any); ok {
			prompts, _ = m["prompts"].([]any)
		}
		for _, p := range prompts {
			pm, _ := p.(map[string]any)
			for _, key := range []string{"should", "should_not"} {
				if list, ok := pm[key].([]any); ok {
					if b, err := yaml.Marshal(list); err == nil {
						out = append(out, b)
					}
				}
			}
		}
	}
}

// textLines counts the lines of data as YAML and ini parsers do: "\n", "\r\n" and a lone "\r"
// each end a line.
func textLines(data []byte) int {
	return strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", ""), "\r") + 1
}
