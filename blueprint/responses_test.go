package blueprint

import (
	"reflect"
	"testing"
)

func TestParseResponsesJSONLines(t *testing.T) {
	t.Parallel()
	src := `{"promptId": "p1", "model": "a:x", "response": "R1"}

{"promptId": "p1", "model": "b:y", "response": "R2", "latencyMs": 12}
{"promptId": "p2", "model": "a:x", "turns": ["T1", "T2"]}
`
	r, err := ParseResponses([]byte(src), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r.Models(), []string{"a:x", "b:y"}) || !reflect.DeepEqual(r.PromptIDs(), []string{"p1", "p2"}) {
		t.Errorf("models %v prompts %v", r.Models(), r.PromptIDs())
	}
	if got, ok := r.Turns("p2", "a:x"); !ok || !reflect.DeepEqual(got, []string{"T1", "T2"}) {
		t.Errorf("turns = %v %v", got, ok)
	}
	if _, ok := r.Turns("p2", "b:y"); ok {
		t.Error("p2 × b:y should have no response")
	}
	if r.lineOf("p2") != 4 {
		t.Errorf("line of p2 = %d", r.lineOf("p2"))
	}
}

func TestParseResponsesFixtures(t *testing.T) {
	t.Parallel()
	src := `
{"responses": {
  "p1": {"default": "D1", "byModel": {"a:x": "A1", " b : y ": ["B1", "B2"]}},
  "p2": {"default": ["D2a", "D2b"]}
}}`
	r, err := ParseResponses([]byte(src), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if !r.hasDefaults() || !reflect.DeepEqual(r.Models(), []string{"a:x", "b:y"}) {
		t.Errorf("defaults %v models %v", r.hasDefaults(), r.Models())
	}
	for _, c := range []struct {
		p, m string
		want []string
	}{{"p1", "a:x", []string{"A1"}}, {"p1", "b:y", []string{"B1", "B2"}}, {"p1", "c:z", []string{"D1"}}, {"p2", "a:x", []string{"D2a", "D2b"}}} {
		if got, ok := r.Turns(c.p, c.m); !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Turns(%s, %s) = %v %v, want %v", c.p, c.m, got, ok, c.want)
		}
	}
}

// TestParseResponsesWevalFixtures reads Weval's fixtures files as weval-org/app writes them
// (examples/fixtures/clarify.json and comprehensive.json; FixtureSet in
// src/lib/fixtures-service.ts): version, strategy and notes are accepted, {"turns": […]}
// gives the turns, and "final" is the last one.
func TestParseResponsesWevalFixtures(t *testing.T) {
	t.Parallel()
	src := `{
  "version": 1,
  "strategy": "first",
  "responses": {
    "clarify": {"default": {"turns": ["Could you share your filing status?", "Also, which states?"]}, "notes": "two turns"},
    "multi": {"default": {"turns": ["Screen size?"], "final": "Prioritise build quality."}},
    "plain": {"default": "alpha beta gamma.", "byModel": {"openai:gpt-4o": {"turns": ["one"]}}}
  }
}`
	r, err := ParseResponses([]byte(src), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		p, m string
		want []string
	}{
		{"clarify", "x:y", []string{"Could you share your filing status?", "Also, which states?"}},
		{"multi", "x:y", []string{"Screen size?", "Prioritise build quality."}},
		{"plain", "x:y", []string{"alpha beta gamma."}},
		{"plain", "openai:gpt-4o", []string{"one"}},
	} {
		if got, ok := r.Turns(c.p, c.m); !ok || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Turns(%s, %s) = %v %v, want %v", c.p, c.m, got, ok, c.want)
		}
	}
}

func TestParseResponsesErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, src, want string }{
		{"empty", "  \n", "r.jsonl: expected JSON Lines or fixtures JSON with responses, found an empty file"},
		{"bad JSON", `{"promptId": "p"` + "\n", `r.jsonl:1: expected a JSON object {"promptId", "model", "response"}: unexpected end of input`},
		{"not an object", "[1]\n", `r.jsonl:1: expected a JSON object {"promptId", "model", "response"}, found a list of 1 item`},
		{"no prompt id", `{"model": "m", "response": "x"}`, `r.jsonl:1: expected "promptId" to be a non-empty string, found nothing`},
		{"no model", `{"promptId": "p", "model": "", "response": "x"}`, `r.jsonl:1: expected "model" to be a non-empty string, found the string ""`},
		{"neither", `{"promptId": "p", "model": "m"}`, `r.jsonl:1: expected "response" (a string) or "turns" (a list of strings), found neither`},
		{"both", `{"promptId": "p", "model": "m", "response": "x", "turns": ["y"]}`, `r.jsonl:1: expected "response" or "turns", found both`},
		{"response type", `{"promptId": "p", "model": "m", "response": 3}`, `r.jsonl:1: expected "response" to be a string, found the number 3`},
		{"turns type", `{"promptId": "p", "model": "m", "turns": []}`, `r.jsonl:1: expected "turns" to be a non-empty list of strings, found a list of 0 items`},
		{"duplicate", "{\"promptId\": \"p\", \"model\": \"m\", \"response\": \"x\"}\n{\"promptId\": \"p\", \"model\": \"m\", \"response\": \"y\"}",
			`r.jsonl:2: a second response for prompt "p" and model "m"; each pair may be given once`},
		{"fixtures default type", "{\"responses\": {\n \"p\": {\"default\": 5}}}", `r.jsonl:2: prompt "p": expected "default" to be a string, a non-empty list of strings or {"turns": [...]}, found the number 5`},
		{"fixtures unknown key", "{\"responses\": {\"p\": {\"defualt\": \"x\"}}}", `r.jsonl:1: prompt "p": unknown key "defualt" (expected "default", "byModel" or "notes")`},
		{"fixtures turns type", "{\"responses\": {\"p\": {\"default\": {\"turns\": \"x\"}}}}", `r.jsonl:1: prompt "p": expected "default" to be a string, a non-empty list of strings or {"turns": [...]}, found "turns" as the string "x"`},
		{"fixtures turns key", "{\"responses\": {\"p\": {\"byModel\": {\"m:a\": {\"turn\": [\"x\"]}}}}}", `r.jsonl:1: prompt "p", model "m:a": expected a string, a non-empty list of strings or {"turns": [...]}, found the key "turn"`},
		{"fixtures final type", "{\"responses\": {\"p\": {\"default\": {\"turns\": [\"x\"], \"final\": 1}}}}", `r.jsonl:1: prompt "p": expected "default" to be a string, a non-empty list of strings or {"turns": [...]}, found "final" as the number 1`},
		{"fixtures empty", `{"responses": {}}`, `r.jsonl:1: expected at least one prompt under "responses", found none`},
	}
	for _, tt := range tests {
		_, err := ParseResponses([]byte(tt.src), "r.jsonl")
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: error %v\nwant %s", tt.name, err, tt.want)
		}
	}
}
