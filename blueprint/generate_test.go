package blueprint

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/points"
)

func parseTestBlueprint(t *testing.T, src string) *Blueprint {
	t.Helper()
	bp, err := Parse([]byte(src), ParseOptions{File: "gen.yml"})
	if err != nil {
		t.Fatal(err)
	}
	return bp
}

// TestFormatTemperature: the [temp:T] suffix writes T as JavaScript does, as Weval's template
// string `[temp:${temperatureForThisCall}]` (src/cli/services/comparison-pipeline-service
// .non-stream.ts, since its "fix temps" change, which dropped toFixed(1)).
func TestFormatTemperature(t *testing.T) {
	t.Parallel()
	for in, want := range map[float64]string{0: "0", math.Copysign(0, -1): "0", 1: "1", 0.7: "0.7", 0.25: "0.25", 1.5: "1.5", 2: "2", 1e-7: "1e-7", 0.30000000000000004: "0.30000000000000004"} {
		if got := formatTemperature(in); got != want {
			t.Errorf("FormatTemperature(%v) = %q, want %q", in, got, want)
		}
	}
}

// TestVariants: every variant id has a [temp:T] suffix, [temp:0] when the header sets no
// temperature (Weval's DEFAULT_TEMPERATURE, src/cli/services/llm-service.ts; its test
// src/cli/services/comparison-pipeline-service.non-stream.test.ts mocks the default as 0.7 and
// finds the responses under 'failing-model[temp:0.7]'), and [sp_idx:i] only with several
// system prompts.
func TestVariants(t *testing.T) {
	t.Parallel()
	models := []Model{{ID: "openai:gpt-4o"}, {ID: "local:x", Custom: &CustomModel{ID: "local:x"}}}
	tests := []struct {
		name, header string
		want         []string
	}{
		{"no temperature anywhere", "title: t", []string{"openai:gpt-4o[temp:0]", "local:x[temp:0]"}},
		{"temperature", "temperature: 0.3", []string{"openai:gpt-4o[temp:0.3]", "local:x[temp:0.3]"}},
		{"whole numbers as JavaScript writes them", "temperature: 1.0", []string{"openai:gpt-4o[temp:1]", "local:x[temp:1]"}},
		{"temperatures win", "temperature: 0.3\ntemperatures: [0, 0.7, 0.7]", []string{"openai:gpt-4o[temp:0]", "openai:gpt-4o[temp:0.7]", "local:x[temp:0]", "local:x[temp:0.7]"}},
		{"0 and 0.0 are one variant", "temperatures: [0.0, 0]", []string{"openai:gpt-4o[temp:0]", "local:x[temp:0]"}},
		{"systems", "system: [null, Be terse.]", []string{"openai:gpt-4o[temp:0][sp_idx:0]", "openai:gpt-4o[temp:0][sp_idx:1]", "local:x[temp:0][sp_idx:0]", "local:x[temp:0][sp_idx:1]"}},
		{"one system in a list", "system: [Be terse.]", []string{"openai:gpt-4o[temp:0]", "local:x[temp:0]"}},
		{"both", "temperatures: [1]\nsystems: [a, b]", []string{"openai:gpt-4o[temp:1][sp_idx:0]", "openai:gpt-4o[temp:1][sp_idx:1]", "local:x[temp:1][sp_idx:0]", "local:x[temp:1][sp_idx:1]"}},
	}
	for _, tt := range tests {
		bp := parseTestBlueprint(t, tt.header+"\n---\n- prompt: Q\n")
		var got []string
		for _, v := range modelVariants(bp, models) {
			got = append(got, v.ID)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
	for id, want := range map[string]int{"a:b": -1, "a:b[temp:0.2][sp_idx:3]": 3, "a:b[sp_idx:x]": -1} {
		if got := systemIndexOf(id); got != want {
			t.Errorf("systemIndexOf(%q) = %d, want %d", id, got, want)
		}
	}
}

// echoServer answers every generation request with what it saw: the model, the temperature,
// the system prompt and the last user message.
func echoServer(t *testing.T, opts ...llmtest.Option) *llmtest.Server {
	t.Helper()
	s := llmtest.Start(t, opts...)
	s.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		temp := "none"
		if r.Temperature != nil {
			temp = formatTemperature(*r.Temperature)
		}
		return llmtest.Text(fmt.Sprintf("%s at %s [system %q] says: %s", r.Model, temp, r.System(), r.LastUser()))
	}))
	return s
}

func TestGenerateMultiTurn(t *testing.T) {
	t.Parallel()
	s := echoServer(t)
	bp := parseTestBlueprint(t, `temperatures: [0.2, 0.9]
system: [null, "Be terse."]
---
- id: trip
  messages:
    - user: Plan a trip.
    - assistant: Where to?
    - user: Japan.
    - assistant: null
    - user: In April.
- id: one
  prompt: Hi
`)
	env := envOf(map[string]string{"OPENAI_API_KEY": "sk-test-1234567890", "OPENAI_BASE_URL": s.URL})
	resp, err := Generate(context.Background(), bp, []Model{{ID: "openai:gpt"}}, GenerateOptions{Client: testClient(t), LookupEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	wantModels := []string{"openai:gpt[temp:0.2][sp_idx:0]", "openai:gpt[temp:0.2][sp_idx:1]", "openai:gpt[temp:0.9][sp_idx:0]", "openai:gpt[temp:0.9][sp_idx:1]"}
	if !reflect.DeepEqual(resp.Models(), wantModels) || !resp.isGenerated() {
		t.Fatalf("models %q", resp.Models())
	}
	m := "openai:gpt[temp:0.9][sp_idx:1]"
	turns, ok := resp.Turns("trip", m)
	want := []string{`gpt at 0.9 [system "Be terse."] says: Japan.`, `gpt at 0.9 [system "Be terse."] says: In April.`}
	if !ok || !reflect.DeepEqual(turns, want) {
		t.Fatalf("turns %q", turns)
	}
	var hist []string
	for i, msg := range resp.histories["trip"][m] {
		hist = append(hist, fmt.Sprintf("%s %v: %s", msg.Role, resp.generatedFlags["trip"][m][i], msg.Text()))
	}
	wantHist := []string{"system false: Be terse.", "user false: Plan a trip.", "assistant false: Where to?", "user false: Japan.",
		`assistant true: gpt at 0.9 [system "Be terse."] says: Japan.`, "user false: In April.", `assistant true: gpt at 0.9 [system "Be terse."] says: In April.`}
	if !reflect.DeepEqual(hist, wantHist) {
		t.Errorf("history\n got %q\nwant %q", hist, wantHist)
	}
	if turns, _ := resp.Turns("one", "openai:gpt[temp:0.2][sp_idx:0]"); !reflect.DeepEqual(turns, []string{`gpt at 0.2 [system ""] says: Hi`}) {
		t.Errorf("sp_idx 0 (no system prompt): %q", turns)
	}
	// The second turn's request carried the first generated turn, and every request the
	// default max_tokens.
	found := false
	for _, r := range s.Requests() {
		if *r.MaxTokens != defaultMaxTokens {
			t.Errorf("max_tokens %d", *r.MaxTokens)
		}
		if r.LastUser() == "In April." && *r.Temperature == 0.9 && r.System() == "Be terse." {
			found = true
			if got := r.Messages[4]; got.Role != "assistant" || got.Content != `gpt at 0.9 [system "Be terse."] says: Japan.` {
				t.Errorf("turn 2 was sent without turn 1: %+v", r.Messages)
			}
		}
	}
	if !found || s.Calls() != 4*3 {
		t.Errorf("calls %d (found the second turn: %v)", s.Calls(), found)
	}
}

func TestGenerateFailures(t *testing.T) {
	t.Parallel()
	good := echoServer(t)
	bad := llmtest.Start(t)
	bad.SetDefault(llmtest.Status(404, `{"error":{"message":"The model broken does not exist"}}`))
	empty := llmtest.Start(t)
	empty.On(llmtest.UserContains("Q2"), llmtest.Reply{Content: "  ", FinishReason: "length"})
	empty.SetDefault(llmtest.Text("fine"))
	bp := parseTestBlueprint(t, `models:
  - openai:gpt
  - openrouter:broken
  - groq:flaky
  - xai:nokey
  - nope:model
  - id: local:custom
    url: http://127.0.0.1:1/v1/chat/completions
    modelName: m
    inherit: openai
    headers: {Authorization: "Bearer ${LOCAL_TOKEN}", X-Other: "${OTHER}"}
---
- id: q1
  prompt: Q1
- id: q2
  messages: [{user: Q2}, {assistant: null}, {user: Q3}]
`)
	env := envOf(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": good.URL, "OPENROUTER_API_KEY": "k", "OPENROUTER_BASE_URL": bad.URL,
		"GROQ_API_KEY": "k", "GROQ_BASE_URL": empty.URL})
	var mu sync.Mutex
	done := map[string]bool{}
	resp, err := Generate(context.Background(), bp, bp.Models, GenerateOptions{Client: testClient(t), LookupEnv: env,
		AllowEnv: points.AllowEnv{"LOCAL_TOKEN": true, "OTHER": true},
		OnPair: func(p, m string, err error) {
			mu.Lock()
			done[p+" "+m] = err == nil
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	host := strings.TrimPrefix(strings.TrimSuffix(bad.URL, "/v1"), "http://")
	want := map[string]string{
		// A 404 stops the model: the second prompt fails with the same error, without a request.
		"q1 openrouter:broken[temp:0]": "llm: " + host + " (openrouter) has no model broken or no such endpoint: HTTP 404 Not Found: The model broken does not exist; check the model name in the model id openrouter:broken (the blueprint's models, or --models) and the URL in OPENROUTER_BASE_URL",
		"q2 openrouter:broken[temp:0]": "turn 1 of 2: " + "llm: " + host + " (openrouter) has no model broken or no such endpoint: HTTP 404 Not Found: The model broken does not exist; check the model name in the model id openrouter:broken (the blueprint's models, or --models) and the URL in OPENROUTER_BASE_URL",
		"q2 groq:flaky[temp:0]":        `turn 1 of 2: the model returned an empty reply (finish reason "length")`,
		"q1 xai:nokey[temp:0]":         "LLM provider xai is not fully configured: set XAI_API_KEY",
		"q2 xai:nokey[temp:0]":         "LLM provider xai is not fully configured: set XAI_API_KEY",
		"q1 nope:model[temp:0]":        `model id "nope:model": expected a provider among anthropic, google, groq, mistral, ollama, openai, openrouter, together, xai, found "nope"`,
		"q2 nope:model[temp:0]":        `model id "nope:model": expected a provider among anthropic, google, groq, mistral, ollama, openai, openrouter, together, xai, found "nope"`,
		"q1 local:custom[temp:0]":      `header "Authorization" of custom model "local:custom" uses ${LOCAL_TOKEN}, which is not set`,
		"q2 local:custom[temp:0]":      `header "Authorization" of custom model "local:custom" uses ${LOCAL_TOKEN}, which is not set`,
	}
	got := map[string]string{}
	for _, p := range []string{"q1", "q2"} {
		for _, m := range resp.Models() {
			if msg, failed := resp.failureOf(p, m); failed {
				got[p+" "+m] = msg
			} else if _, ok := resp.Turns(p, m); !ok {
				t.Errorf("%s × %s: neither turns nor a failure", p, m)
			}
		}
	}
	if !reflect.DeepEqual(got, want) {
		for k, v := range got {
			if want[k] != v {
				t.Errorf("%s:\n got %s\nwant %s", k, v, want[k])
			}
		}
		t.Errorf("failures %d, want %d", len(got), len(want))
	}
	if len(done) != 12 || !done["q1 openai:gpt[temp:0]"] || done["q2 groq:flaky[temp:0]"] {
		t.Errorf("OnPair saw %v", done)
	}
	if err := checkModel(bp, Model{ID: "xai:nokey"}, GenerateOptions{LookupEnv: env}); err == nil || err.Error() != "LLM provider xai is not fully configured: set XAI_API_KEY" {
		t.Errorf("CheckModel: %v", err)
	}
	if err := checkModel(bp, Model{ID: "openai:gpt"}, GenerateOptions{LookupEnv: env}); err != nil {
		t.Errorf("CheckModel: %v", err)
	}
}

// TestGenerateCustomModels sends one prompt to a custom model of each shape and checks the
// exact body each server received.
func TestGenerateCustomModels(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey("tok-5678"))
	s.SetDefault(llmtest.Text("custom reply"))
	base := s.URL
	bp := parseTestBlueprint(t, `temperature: 0.4
system: Be brief.
models:
  - id: proxy:claude
    url: `+base+`/messages
    modelName: claude-3-sonnet
    inherit: anthropic
    thinkingBudget: 2048
    headers: {x-api-key: "${TOKEN}", X-Custom-Header: value}
  - id: g:flash
    url: `+base+`beta/models/gemini-1.5-flash:generateContent
    modelName: gemini-1.5-flash
    inherit: google
    headers: {x-goog-api-key: "${TOKEN}"}
    parameters: {safetySettings: []}
  - id: local:completions
    url: `+base+`/completions
    modelName: llama-3-8b
    inherit: openai
    format: completions
    promptFormat: conversational
    headers: {Authorization: "Bearer ${TOKEN}"}
    parameters: {max_tokens: 100, stream: null, stop: [END]}
  - id: local:mapped
    url: `+base+`/chat/completions
    modelName: special
    inherit: openai
    reasoningEffort: low
    headers: {Authorization: "Bearer ${TOKEN}"}
    parameterMapping: {temperature: heat, maxTokens: token_limit}
    parameters: {heat: 0.9, custom_param: value, stream: null}
---
- id: p
  prompt: Capital of France?
`)
	env := envOf(map[string]string{"TOKEN": "tok-5678"})
	resp, err := Generate(context.Background(), bp, bp.Models, GenerateOptions{Client: testClient(t), LookupEnv: env, AllowEnv: points.AllowEnv{"TOKEN": true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range resp.Models() {
		if msg, failed := resp.failureOf("p", m); failed {
			t.Fatalf("%s failed: %s", m, msg)
		}
		if turns, _ := resp.Turns("p", m); !reflect.DeepEqual(turns, []string{"custom reply"}) {
			t.Errorf("%s: turns %q", m, turns)
		}
	}
	bodies := map[string]string{}
	for _, r := range s.Requests() {
		bodies[r.Path] = string(r.Body)
		if strings.Contains(string(r.Body), "tok-5678") {
			t.Errorf("%s: the token is in the body", r.Path)
		}
		if r.Path == "/v1/messages" && r.Header.Get("X-Custom-Header") != "value" {
			t.Errorf("X-Custom-Header = %q", r.Header.Get("X-Custom-Header"))
		}
	}
	want := map[string]string{
		"/v1/messages": `{"max_tokens":1500,"messages":[{"content":"Capital of France?","role":"user"}],"model":"claude-3-sonnet","stream":false,"system":"Be brief.","temperature":0.4,"thinking":{"budget_tokens":2048,"type":"enabled"}}`,
		"/v1beta/models/gemini-1.5-flash:generateContent": `{"contents":[{"parts":[{"text":"Capital of France?"}],"role":"user"}],"generationConfig":{"maxOutputTokens":1500,"temperature":0.4},"safetySettings":[],"systemInstruction":{"parts":[{"text":"Be brief."}]}}`,
		"/v1/completions":      `{"max_tokens":100,"model":"llama-3-8b","prompt":"Be brief.\n\nUser: Capital of France?\nAssistant:","stop":["END"],"temperature":0.4}`,
		"/v1/chat/completions": `{"custom_param":"value","heat":0.9,"messages":[{"content":"Be brief.","role":"system"},{"content":"Capital of France?","role":"user"}],"model":"special","reasoning_effort":"low","token_limit":1500}`,
	}
	if !reflect.DeepEqual(bodies, want) {
		for k, v := range bodies {
			if want[k] != v {
				t.Errorf("%s:\n got %s\nwant %s", k, v, want[k])
			}
		}
	}
	// The result's copy of the blueprint keeps the ${TOKEN} references, never the values.
	data, _ := json.Marshal(bp)
	if strings.Contains(string(data), "tok-5678") || !strings.Contains(string(data), "${TOKEN}") {
		t.Errorf("blueprint JSON: %s", data)
	}
}

func TestGenerateCacheAndNoCache(t *testing.T) {
	t.Parallel()
	s := echoServer(t)
	bp := parseTestBlueprint(t, `models: [openai:gpt]
---
- {id: cached, prompt: A}
- {id: fresh, prompt: B, noCache: true}
`)
	env := envOf(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": s.URL})
	dir := t.TempDir()
	for run := 1; run <= 2; run++ {
		c, err := llm.New(llm.Config{CacheDir: dir})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Generate(context.Background(), bp, bp.Models, GenerateOptions{Client: c, LookupEnv: env}); err != nil {
			t.Fatal(err)
		}
		c.Close()
	}
	// Run 1 calls for both prompts; run 2 only for the noCache one.
	var asked []string
	for _, r := range s.Requests() {
		asked = append(asked, r.LastUser())
	}
	if strings.Join(asked, ",") != "A,B,B" && strings.Join(asked, ",") != "B,A,B" {
		t.Errorf("requests %q", asked)
	}
	entries, _ := filepath.Glob(filepath.Join(dir, "*", "*", "*.json"))
	if len(entries) != 1 {
		t.Errorf("cache entries %q, want 1 (noCache replies are not stored)", entries)
	}
	for _, e := range entries {
		data, _ := os.ReadFile(e)
		if strings.Contains(string(data), `"k"`) || strings.Contains(string(data), "Authorization") {
			t.Errorf("%s: %s", e, data)
		}
	}
}

// TestGenerateProviderLimit checks the per-provider limit: each of two providers has at most
// ProviderConcurrency calls in flight although the client allows more.
func TestGenerateProviderLimit(t *testing.T) {
	a := echoServer(t, llmtest.WithLatency(15*time.Millisecond))
	b := echoServer(t, llmtest.WithLatency(15*time.Millisecond))
	var src strings.Builder
	src.WriteString("models: [openai:one, openai:two, groq:three]\n---\n")
	for i := range 8 {
		fmt.Fprintf(&src, "- {id: p%d, prompt: Q%d}\n", i, i)
	}
	bp := parseTestBlueprint(t, src.String())
	env := envOf(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": a.URL, "GROQ_API_KEY": "k", "GROQ_BASE_URL": b.URL})
	c, err := llm.New(llm.Config{Concurrency: 32})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := Generate(context.Background(), bp, bp.Models, GenerateOptions{Client: c, LookupEnv: env, ProviderConcurrency: 3}); err != nil {
		t.Fatal(err)
	}
	if a.Calls() != 16 || b.Calls() != 8 || a.MaxInFlight() != 3 || b.MaxInFlight() != 3 {
		t.Errorf("calls %d/%d, in flight %d/%d (want 3 each)", a.Calls(), b.Calls(), a.MaxInFlight(), b.MaxInFlight())
	}
}

func TestCustomModelSafeHeaders(t *testing.T) {
	t.Parallel()
	cm := &CustomModel{Headers: map[string]string{
		"Authorization":       "Bearer ${KEY}",
		"X-API-Key":           "${PROXY_API_KEY}",
		"X-Custom-Header":     "value",
		"x-goog-api-key":      "AIzaSyA-literal-key-1234567890abcd",
		"Proxy-Authorization": "Basic dXNlcjpwYXNz",
		"X-Note":              "uses sk-proj-abcdefghijklmnop inline",
	}}
	want := map[string]string{
		"Authorization":       "Bearer ${KEY}",
		"X-API-Key":           "${PROXY_API_KEY}",
		"X-Custom-Header":     "value",
		"x-goog-api-key":      "[redacted]",
		"Proxy-Authorization": "[redacted]",
		"X-Note":              "uses [redacted] inline",
	}
	if got := cm.safeHeaders(); !reflect.DeepEqual(got, want) {
		t.Errorf("SafeHeaders = %v", got)
	}
	for _, v := range []any{Model{ID: "x", Custom: cm}, cm, *cm} {
		data, err := json.Marshal(v)
		if err != nil || strings.Contains(string(data), "AIzaSyA") || strings.Contains(string(data), "dXNlcjpwYXNz") || !strings.Contains(string(data), "${KEY}") {
			t.Errorf("JSON %s %v", data, err)
		}
	}
	if cm.Headers["x-goog-api-key"] != "AIzaSyA-literal-key-1234567890abcd" {
		t.Error("SafeHeaders changed the model")
	}
}

// TestGenerateOneSystemInAList: a systems list of one entry gives no [sp_idx:0] suffix, as in
// Weval (it adds the suffix only when config.systems has more than one entry), and that one
// system prompt is sent (a prompt's own is an error under a list: TestSystemsRules).
func TestGenerateOneSystemInAList(t *testing.T) {
	t.Parallel()
	s := echoServer(t)
	bp := parseTestBlueprint(t, "systems: [\"Be terse.\"]\n---\n- id: p\n  prompt: Hi\n")
	env := envOf(map[string]string{"OPENAI_API_KEY": "sk-test-1234567890", "OPENAI_BASE_URL": s.URL})
	resp, err := Generate(context.Background(), bp, []Model{{ID: "openai:gpt"}}, GenerateOptions{Client: testClient(t), LookupEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(resp.Models(), []string{"openai:gpt[temp:0]"}) {
		t.Fatalf("models %q, want one variant without an [sp_idx] suffix", resp.Models())
	}
	if turns, _ := resp.Turns("p", "openai:gpt[temp:0]"); !reflect.DeepEqual(turns, []string{`gpt at 0 [system "Be terse."] says: Hi`}) {
		t.Errorf("turns %q", turns)
	}
}

// TestGenerateTemperature: the temperature in each request body is the header's, else the
// prompt's own, else 0, as Weval chooses it (`tempValue ?? promptConfig.temperature ??
// config.temperature ?? DEFAULT_TEMPERATURE` in src/cli/services/comparison-pipeline-service
// .non-stream.ts, DEFAULT_TEMPERATURE = 0 in src/cli/services/llm-service.ts), for a provider
// model and a custom model alike. Results stay keyed by the variant's id: one column per model
// and header temperature.
func TestGenerateTemperature(t *testing.T) {
	t.Parallel()
	// The server answers with the temperature field of the body it received, as sent.
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		temp, ok := r.Params["temperature"]
		if !ok {
			return llmtest.Text("no temperature")
		}
		return llmtest.Text(string(temp))
	}))
	prompts := `---
- id: plain
  prompt: Plain
- id: warm
  prompt: Warm
  temperature: 0.9
`
	tests := []struct {
		name, header string
		// want maps "prompt model" to the temperature field of its request body.
		want map[string]string
	}{
		// local:r removes the parameter (parameters: {temperature: null}, the way to run a model
		// that accepts no temperature, docs/blueprints.md).
		{"no temperature anywhere", "title: t\n", map[string]string{
			"plain openai:gpt[temp:0]": "0", "warm openai:gpt[temp:0]": "0.9",
			"plain local:c[temp:0]": "0", "warm local:c[temp:0]": "0.9",
			"plain local:r[temp:0]": "no temperature", "warm local:r[temp:0]": "no temperature"}},
		{"the header's temperature wins", "temperature: 0.3\n", map[string]string{
			"plain openai:gpt[temp:0.3]": "0.3", "warm openai:gpt[temp:0.3]": "0.3",
			"plain local:c[temp:0.3]": "0.3", "warm local:c[temp:0.3]": "0.3",
			"plain local:r[temp:0.3]": "no temperature", "warm local:r[temp:0.3]": "no temperature"}},
		{"the header's temperatures win", "temperatures: [0.2, 1]\n", map[string]string{
			"plain openai:gpt[temp:0.2]": "0.2", "warm openai:gpt[temp:0.2]": "0.2",
			"plain openai:gpt[temp:1]": "1", "warm openai:gpt[temp:1]": "1",
			"plain local:c[temp:0.2]": "0.2", "warm local:c[temp:0.2]": "0.2",
			"plain local:c[temp:1]": "1", "warm local:c[temp:1]": "1",
			"plain local:r[temp:0.2]": "no temperature", "warm local:r[temp:0.2]": "no temperature",
			"plain local:r[temp:1]": "no temperature", "warm local:r[temp:1]": "no temperature"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Reset()
			bp := parseTestBlueprint(t, tt.header+`models:
  - openai:gpt
  - {id: "local:c", url: "`+s.URL+`/chat/completions", modelName: custom, inherit: openai}
  - {id: "local:r", url: "`+s.URL+`/chat/completions", modelName: reasoner, inherit: openai, parameters: {temperature: null}}
`+prompts)
			env := envOf(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": s.URL})
			resp, err := Generate(context.Background(), bp, bp.Models, GenerateOptions{Client: testClient(t), LookupEnv: env})
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]string{}
			for _, p := range []string{"plain", "warm"} {
				for _, m := range resp.Models() {
					turns, ok := resp.Turns(p, m)
					if msg, failed := resp.failureOf(p, m); failed || !ok || len(turns) != 1 {
						t.Errorf("%s × %s: turns %q, failure %q", p, m, turns, msg)
						continue
					}
					got[p+" "+m] = turns[0]
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("temperatures sent\n got %v\nwant %v", got, tt.want)
			}
			if s.Calls() != len(tt.want) {
				t.Errorf("%d calls, want %d", s.Calls(), len(tt.want))
			}
		})
	}
}
