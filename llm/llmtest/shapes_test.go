package llmtest_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestOtherShapes checks the completions, Anthropic Messages and Gemini generateContent
// endpoints: the parsed request (so matchers work alike) and the reply body byte for byte.
func TestOtherShapes(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey("k-123"))
	s.On(llmtest.All(llmtest.SystemContains("Be brief."), llmtest.LastUserContains("France")), llmtest.Text("Paris."))
	s.On(llmtest.LastUserContains("France"), llmtest.Text("Paris, I think."))
	root := strings.TrimSuffix(s.URL, "/v1")
	tests := []struct {
		name, path, body string
		header           map[string]string
		api, model       string
		messages         []llmtest.Message
		reply            string
	}{
		{"completions", "/v1/completions", `{"model":"llama","prompt":"User: Capital of France?\nAssistant:","max_tokens":50,"temperature":0.1}`,
			map[string]string{"Authorization": "Bearer k-123"}, "completions", "llama",
			[]llmtest.Message{{Role: "user", Content: "User: Capital of France?\nAssistant:"}},
			`{"choices":[{"finish_reason":"stop","index":0,"text":"Paris, I think."}],"created":1700000000,"id":"cmpl-1","model":"llama","object":"text_completion","usage":{"completion_tokens":4,"prompt_tokens":13,"total_tokens":17}}`},
		{"anthropic", "/v1/messages", `{"model":"claude","system":"Be brief.","messages":[{"role":"user","content":"Capital of France?"}],"max_tokens":100,"temperature":0.1}`,
			map[string]string{"x-api-key": "k-123"}, "anthropic", "claude",
			[]llmtest.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Capital of France?"}},
			`{"content":[{"text":"Paris.","type":"text"}],"id":"msg_2","model":"claude","role":"assistant","stop_reason":"end_turn","stop_sequence":null,"type":"message","usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":16,"output_tokens":2}}`},
		{"anthropic content blocks", "/v1/messages", `{"model":"claude","system":[{"type":"text","text":"Be brief."}],"messages":[{"role":"user","content":[{"type":"text","text":"Capital of France?"}]}],"max_tokens":100}`,
			map[string]string{"x-api-key": "k-123"}, "anthropic", "claude",
			[]llmtest.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Capital of France?"}},
			`{"content":[{"text":"Paris.","type":"text"}],"id":"msg_3","model":"claude","role":"assistant","stop_reason":"end_turn","stop_sequence":null,"type":"message","usage":{"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"input_tokens":16,"output_tokens":2}}`},
		{"gemini", "/v1beta/models/gemini-x:generateContent", `{"systemInstruction":{"parts":[{"text":"Be brief."}]},"contents":[{"role":"user","parts":[{"text":"Hi"}]},{"role":"model","parts":[{"text":"Hello"}]},{"role":"user","parts":[{"text":"Capital of France?"}]}],"generationConfig":{"temperature":0.1,"maxOutputTokens":100}}`,
			map[string]string{"x-goog-api-key": "k-123"}, "gemini", "gemini-x",
			[]llmtest.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}, {Role: "user", Content: "Capital of France?"}},
			`{"candidates":[{"content":{"parts":[{"text":"Paris."}],"role":"model"},"finishReason":"STOP","index":0}],"modelVersion":"gemini-x","usageMetadata":{"candidatesTokenCount":2,"promptTokenCount":27,"totalTokenCount":29}}`},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, body := post(t, root+tt.path, tt.body, tt.header)
			if code != 200 || body != tt.reply {
				t.Errorf("%d %s\nwant %s", code, body, tt.reply)
			}
			r := s.Requests()[i]
			if r.API != tt.api || r.Model != tt.model || !reflect.DeepEqual(r.Messages, tt.messages) || tt.name != "anthropic content blocks" && *r.Temperature != 0.1 {
				t.Errorf("parsed %s %s %+v", r.API, r.Model, r.Messages)
			}
		})
	}
	if s.Calls() != 4 {
		t.Errorf("calls %d", s.Calls())
	}

	errs := []struct{ name, path, body, header, want string }{
		{"no key", "/v1/messages", `{"model":"c","messages":[],"max_tokens":1}`, "", "Incorrect API key provided."},
		{"anthropic without max_tokens", "/v1/messages", `{"model":"c","messages":[]}`, "x-api-key", "invalid request body: max_tokens: required by the Messages API, found nothing"},
		{"anthropic system role in messages", "/v1/messages", `{"model":"c","max_tokens":1,"messages":[{"role":"system","content":"x"}]}`, "x-api-key", `invalid request body: messages: expected role user or assistant, found \"system\"`},
		{"gemini unknown field", "/v1beta/models/g:generateContent", `{"model":"g","contents":[]}`, "x-goog-api-key", `invalid request body: Invalid JSON payload received. Unknown name \"model\": Cannot find field`},
		{"completions without prompt", "/v1/completions", `{"model":"m"}`, "Authorization", "invalid request body: prompt: expected a string, found nothing"},
	}
	for _, e := range errs {
		h := map[string]string{}
		switch e.header {
		case "Authorization":
			h[e.header] = "Bearer k-123"
		case "":
		default:
			h[e.header] = "k-123"
		}
		code, _, body := post(t, root+e.path, e.body, h)
		if code/100 != 4 || !strings.Contains(body, `"message":"`+e.want+`"`) {
			t.Errorf("%s: %d %s", e.name, code, body)
		}
	}
}
