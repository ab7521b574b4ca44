package blueprint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/dop251/goja"
	"gopkg.in/yaml.v3"

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

// FuzzParse checks that no blueprint, YAML or JSON, makes Parse panic; that a rejected one gets
// a *ParseError whose every diagnostic names the file and a line inside it; and that an accepted
// one has unique prompt ids, weights in range and marshals. The seeds are the bundled examples and
// every real Weval blueprint of the shared corpus, each also converted to JSON.
func FuzzParse(f *testing.F) {
	for i, s := range fuzzBlueprintSeeds {
		f.Add([]byte(s), i%2 == 0)
	}
	examples, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(f), "examples", "blueprints", "*.yml"))
	for _, path := range examples {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data, false)
		}
	}
	// The small real blueprints (a few dozen): more would spend a short fuzzing run on the
	// baseline; the conformance tests parse every one.
	for _, sf := range testutil.SharedFiles(f, "corpus/weval-configs/blueprints", 8<<10, ".yml", ".yaml") {
		f.Add(sf.Data, false)
		if js, ok := blueprintYAMLToJSON(sf.Data); ok {
			f.Add(js, true)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, asJSON bool) {
		file := "f.yml"
		if asJSON {
			file = "f.json"
		}
		lines := textLines(data)
		checkDiag := func(d Diagnostic) {
			if d.File != file || !strings.HasPrefix(d.String(), file+":") || d.Message == "" {
				t.Fatalf("diagnostic without the file or a message: %+v", d)
			}
			if d.Line < 0 || d.Line > lines {
				t.Fatalf("diagnostic on line %d of a %d-line file: %v", d.Line, lines, d)
			}
		}
		bp, err := Parse(data, ParseOptions{File: file})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != file || len(pe.Errors()) == 0 {
				t.Fatalf("error %T %v is not a *ParseError naming %s with errors", err, err, file)
			}
			for _, d := range pe.Diagnostics {
				checkDiag(d)
			}
			return
		}
		for _, d := range bp.Warnings {
			checkDiag(d)
			if d.Severity == SeverityError {
				t.Fatalf("accepted with an error: %v", d)
			}
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
				if pt.Line < 0 || pt.Line > lines {
					t.Fatalf("point on line %d of a %d-line file", pt.Line, lines)
				}
			}
		}
	})
}

// blueprintYAMLToJSON converts a multi-document YAML blueprint to the JSON form (the header's
// fields and a prompts list), for JSON seeds; ok is false when the YAML does not convert.
func blueprintYAMLToJSON(data []byte) (js []byte, ok bool) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []any
	for {
		var v any
		if err := dec.Decode(&v); err != nil {
			if err == io.EOF {
				break
			}
			return nil, false
		}
		if v != nil {
			docs = append(docs, v)
		}
	}
	if len(docs) == 0 {
		return nil, false
	}
	out := docs[0]
	if header, isMap := docs[0].(map[string]any); isMap && len(docs) > 1 {
		var prompts []any
		for _, d := range docs[1:] {
			if list, isList := d.([]any); isList {
				prompts = append(prompts, list...)
			} else {
				prompts = append(prompts, d)
			}
		}
		header["prompts"] = prompts
		out = header
	}
	js, err := json.Marshal(out)
	return js, err == nil
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
	if data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(f), "examples", "blueprints", "capitals.responses.jsonl")); err == nil {
		f.Add(data)
	}
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
		r, errs := ParsePoints(root.Content[0], PointOptions{File: "rule.md", Owner: "P.R", OwnerKind: "rule", Defs: defs, LineOffset: offset})
		for _, err := range errs {
			var d Diagnostic
			if !errors.As(err, &d) || d.File != "rule.md" || d.Line < 0 || d.Line > lines || d.Message == "" {
				t.Fatalf("error %v is not a diagnostic naming rule.md and a line of %d", err, lines)
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
			if pt.prepErr != nil {
				continue
			}
			if res := pt.impl(in); res.err == nil && (math.IsNaN(res.score) || res.score < 0 || res.score > 1) {
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

// FuzzLoadCollections fuzzes a model collection file (NAME.json, a JSON list of model ids): it
// loads as non-empty, normalised ids or fails with an error naming the file. The seeds are the
// real collections of weval-org/configs.
func FuzzLoadCollections(f *testing.F) {
	f.Add([]byte(`["openai:gpt-4o", " anthropic : claude ", "ollama:qwen3:8b"]`))
	f.Add([]byte(`["", "x"]`))
	f.Add([]byte(`{"models": []}`))
	for _, sf := range testutil.SharedFiles(f, "corpus/weval-configs/models", 64<<10, ".json") {
		f.Add(sf.Data)
	}
	dir := f.TempDir()
	path := filepath.Join(dir, "CORE.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := LoadCollections(dir)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name %s", err, path)
			}
			return
		}
		for _, id := range c["CORE"] {
			if id == "" || normaliseModelID(id) != id {
				t.Fatalf("model id %q is empty or not normalised", id)
			}
		}
	})
}
