package blueprint

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

var fuzzBlueprintSeeds = []string{
	"title: T\nmodels: [a:b]\n---\n- id: p\n  prompt: Q\n  should:\n    - x\n    - $contains: y\n    - - $matches: \"^a\"\n      - z\n  should_not: [w]\n",
	"- prompt: \"What is 2+2?\"\n",
	"prompt: A\n---\nprompt: B\nshould: [\"$is_json\", {\"c\": \"d\"}]\n",
	"point_defs: {a: 'return 1', b: {$ref: a}}\n---\n- {id: p, prompt: q, should: [{$ref: b, weight: 2}]}\n",
	"- id: m\n  messages: [{user: a}, {assistant: null}, {ai: b}, {role: user, content: c}]\n",
	"a: &x [1, 2]\nb: *x\n<<: {c: 1}\n---\n- {prompt: q}\n",
	`{"title": "J", "prompts": [{"promptText": "Q", "points": ["A", {"$contains": "b"}, [{"fn": "match", "arg": "c"}]]}]}`,
	`[{"prompt": "x", "weight": 11}]`,
}

func FuzzParse(f *testing.F) {
	for i, s := range fuzzBlueprintSeeds {
		f.Add([]byte(s), i%2 == 0)
	}
	if data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(f), "examples/blueprints/capitals.yml")); err == nil {
		f.Add(data, false)
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		file := "f.yml"
		if asJSON {
			file = "f.json"
		}
		bp, err := Parse(data, ParseOptions{File: file})
		if err != nil {
			if err.Error() == "" {
				t.Fatal("empty error message")
			}
			return
		}
		if _, err := json.Marshal(bp); err != nil {
			t.Fatalf("the parsed blueprint does not marshal: %v", err)
		}
		ids := map[string]bool{}
		for _, p := range bp.Prompts {
			if p.ID == "" || ids[p.ID] {
				t.Fatalf("empty or duplicate prompt id %q", p.ID)
			}
			ids[p.ID] = true
			_ = CanonicalPromptJSON(p)
			for _, pt := range p.Rubric().Points() {
				if pt.Multiplier < 0.1 || pt.Multiplier > 10 {
					t.Fatalf("multiplier %v out of range", pt.Multiplier)
				}
			}
		}
	})
}

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
			pt := &Point{Fn: p.fn, Args: p.args, HasArgs: p.args != nil, Multiplier: 1}
			pt.prepare()
			if pt.prepErr != nil {
				continue
			}
			r := pt.impl(in)
			if r.err == nil && (math.IsNaN(r.score) || r.score < 0 || r.score > 1) {
				t.Fatalf("%s(%v) on %q = %v", p.fn, p.args, text, r.score)
			}
		}
	})
}

func FuzzParseResponses(f *testing.F) {
	f.Add([]byte(`{"promptId": "p", "model": "m", "response": "r"}` + "\n" + `{"promptId": "p", "model": "n", "turns": ["a"]}`))
	f.Add([]byte(`{"responses": {"p": {"default": "x", "byModel": {"m": ["a", "b"]}}}}`))
	f.Add([]byte("\n\n{}\n[]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResponses(data, "r")
		if err != nil {
			return
		}
		for _, p := range r.PromptIDs() {
			for _, m := range r.Models() {
				if turns, ok := r.Turns(p, m); ok && len(turns) == 0 {
					t.Fatalf("%s × %s: no turns", p, m)
				}
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
