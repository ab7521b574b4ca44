package blueprint

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
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
	// Issue 20's Weval items: header noCache copied into prompts, a prompt temperature, a lone "$",
	// a systems list with one null, and the two run-config errors.
	"noCache: true\ntemperatures: [0, 0.7]\nsystem: [null, S]\n---\n- {prompt: q, temperature: 0.9, should: [\"$\", \"$is_json\"]}\n",
	"systems: [a, null, null]\n---\n- {id: p, prompt: q, system: b, temperature: hot}\n",
	// Issue 31: numbers out of their ranges.
	"concurrency: 9223372036854775807\ntemperature: 1e308\ntoolUse: {maxSteps: 1e9}\n---\n- {prompt: q, maxCalls: 1e18, weight: .inf}\n",
}

// FuzzParse checks that no blueprint, YAML or JSON, makes Parse panic; that a rejected one gets
// a *ParseError whose every problem names the file and a line inside it; and that an accepted
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
		checkDiag := func(d finding.Problem) {
			if d.File != file || !strings.HasPrefix(d.Labeled(), file+":") || d.Message == "" {
				t.Fatalf("problem without the file or a message: %+v", d)
			}
			if d.Line < 0 || d.Line > lines {
				t.Fatalf("problem on line %d of a %d-line file: %v", d.Line, lines, d)
			}
		}
		bp, err := Parse(data, ParseOptions{File: file})
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != file || len(pe.Errors()) == 0 {
				t.Fatalf("error %T %v is not a *ParseError naming %s with errors", err, err, file)
			}
			for _, d := range pe.Problems {
				checkDiag(d)
			}
			return
		}
		for _, d := range bp.Warnings {
			checkDiag(d)
			if d.Level == finding.LevelError {
				t.Fatalf("accepted with an error: %v", d)
			}
		}
		if _, err := json.Marshal(bp); err != nil {
			t.Fatalf("the parsed blueprint does not marshal: %v", err)
		}
		checkBounds(t, bp)
		ids := map[string]bool{}
		for _, p := range bp.Prompts {
			if p.ID == "" || ids[p.ID] {
				t.Fatalf("empty or duplicate prompt id %q", p.ID)
			}
			ids[p.ID] = true
			_ = canonicalPromptJSON(p)
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

// checkBounds fails when an accepted blueprint holds a number out of its range (spec/trust.md §8).
func checkBounds(t *testing.T, bp *Blueprint) {
	t.Helper()
	temperature := func(f *float64) bool { return f == nil || *f >= 0 && *f <= maxTemperature }
	ok := temperature(bp.Temperature) && (bp.Concurrency == nil || *bp.Concurrency >= 1 && *bp.Concurrency <= llm.MaxConcurrency)
	for _, f := range bp.Temperatures {
		ok = ok && temperature(&f)
	}
	if bp.ToolUse != nil && bp.ToolUse.MaxSteps != nil {
		ok = ok && *bp.ToolUse.MaxSteps >= 1 && *bp.ToolUse.MaxSteps <= maxToolSteps
	}
	for _, m := range bp.Models {
		if m.Custom != nil && m.Custom.ThinkingBudget != nil {
			b := *m.Custom.ThinkingBudget
			ok = ok && b >= 0 && b <= llm.MaxReplyTokens && b == math.Trunc(b)
		}
	}
	for _, s := range bp.Services {
		ok = ok && s.TimeoutMS >= 0 && s.TimeoutMS <= points.MaxServiceTimeoutMS && s.RetryBackoffMS >= 0 &&
			s.RetryBackoffMS <= points.MaxServiceBackoffMS && (s.MaxRetries == nil || *s.MaxRetries >= 0 && *s.MaxRetries <= points.MaxServiceRetries)
	}
	for _, p := range bp.Prompts {
		ok = ok && temperature(p.Temperature) && (p.Weight == nil || *p.Weight >= 0.1 && *p.Weight <= 10) &&
			(p.MaxCalls == nil || *p.MaxCalls >= 0 && *p.MaxCalls <= maxToolCalls)
	}
	if !ok {
		t.Fatalf("accepted a number out of range: %+v", bp)
	}
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

func FuzzParseResponses(f *testing.F) {
	f.Add([]byte(`{"promptId": "p", "model": "m", "response": "r"}` + "\n" + `{"promptId": "p", "model": "n", "turns": ["a"]}`))
	f.Add([]byte(`{"responses": {"p": {"default": "x", "byModel": {"m": ["a", "b"]}}}}`))
	f.Add([]byte(`{"version": 1, "strategy": "first", "responses": {"p": {"default": {"turns": ["a"], "final": "b"}, "byModel": {"m*": {"turns": ["c"]}}, "notes": "n"}}}`))
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

// FuzzParseKeyPoints fuzzes the reading of a key point extraction reply (a model's text): it
// never panics, and an accepted reply gives non-empty, trimmed key points, each found in it.
func FuzzParseKeyPoints(f *testing.F) {
	f.Add("<key_point>Paris is the capital.</key_point>\n<key_point>It lies on the Seine.</key_point>")
	f.Add("<KEY_POINT>\n spans\n lines </Key_Point><key_point></key_point>")
	f.Add("<key_point><key_point>nested</key_point></key_point>")
	f.Add("no tags at all")
	f.Fuzz(func(t *testing.T, reply string) {
		kps, err := parseKeyPoints(reply)
		if err != nil {
			if kps != nil {
				t.Fatalf("key points %q with error %v", kps, err)
			}
			return
		}
		if len(kps) == 0 {
			t.Fatal("no key points and no error")
		}
		for _, kp := range kps {
			if kp == "" || kp != strings.TrimSpace(kp) || !strings.Contains(reply, kp) {
				t.Fatalf("key point %q of %q", kp, reply)
			}
		}
	})
}
