package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

func TestAPIFor(t *testing.T) {
	t.Parallel()
	tests := []struct {
		inherit, format string
		want            llm.API
	}{
		{"openai", "", llm.APIChat},
		{"openai", "chat", llm.APIChat},
		{"openai", "completions", llm.APICompletions},
		{"anthropic", "", llm.APIAnthropic},
		{"Anthropic", "chat", llm.APIAnthropic},
		{"anthropic", "completions", llm.APICompletions},
		{"google", "", llm.APIGemini},
		{"mistral", "", llm.APIChat},
		{"together", "", llm.APIChat},
		{"xai", "", llm.APIChat},
		{"openrouter", "", llm.APIChat},
	}
	for _, tt := range tests {
		if got := llm.APIFor(tt.inherit, tt.format); got != tt.want {
			t.Errorf("APIFor(%q, %q) = %q, want %q", tt.inherit, tt.format, got, tt.want)
		}
	}
}

var conversation = []llm.Message{
	{Role: llm.RoleSystem, Content: "Be brief."},
	{Role: llm.RoleUser, Content: "Hi"},
	{Role: llm.RoleAssistant, Content: "Hello"},
	{Role: llm.RoleUser, Content: "Capital of France?"},
}

func TestGenerateBody(t *testing.T) {
	t.Parallel()
	temp := 0.5
	tests := []struct {
		name string
		req  llm.GenerateRequest
		want string
	}{
		{"chat", llm.GenerateRequest{API: llm.APIChat, Endpoint: llm.Endpoint{Model: "m"}, Messages: conversation, Temperature: &temp, MaxTokens: 1500},
			`{"max_tokens":1500,"messages":[{"content":"Be brief.","role":"system"},{"content":"Hi","role":"user"},{"content":"Hello","role":"assistant"},{"content":"Capital of France?","role":"user"}],"model":"m","stream":false,"temperature":0.5}`},
		{"completions conversational", llm.GenerateRequest{API: llm.APICompletions, Endpoint: llm.Endpoint{Model: "m"}, Messages: conversation, MaxTokens: 100},
			`{"max_tokens":100,"model":"m","prompt":"Be brief.\n\nUser: Hi\nAssistant: Hello\nUser: Capital of France?\nAssistant:","stream":false}`},
		{"completions raw", llm.GenerateRequest{API: llm.APICompletions, PromptFormat: "raw", Endpoint: llm.Endpoint{Model: "m"}, Messages: conversation},
			`{"model":"m","prompt":"Be brief.\n\nHi\n\nHello\n\nCapital of France?","stream":false}`},
		{"anthropic", llm.GenerateRequest{API: llm.APIAnthropic, Endpoint: llm.Endpoint{Model: "claude"}, Messages: conversation, Temperature: &temp, MaxTokens: 1500},
			`{"max_tokens":1500,"messages":[{"content":"Hi","role":"user"},{"content":"Hello","role":"assistant"},{"content":"Capital of France?","role":"user"}],"model":"claude","stream":false,"system":"Be brief.","temperature":0.5}`},
		{"anthropic thinking from effort", llm.GenerateRequest{API: llm.APIAnthropic, Endpoint: llm.Endpoint{Model: "c"}, Messages: conversation[1:2], MaxTokens: 10, ReasoningEffort: "medium"},
			`{"max_tokens":10,"messages":[{"content":"Hi","role":"user"}],"model":"c","stream":false,"thinking":{"budget_tokens":4096,"type":"enabled"}}`},
		{"anthropic thinking budget", llm.GenerateRequest{API: llm.APIAnthropic, Endpoint: llm.Endpoint{Model: "c"}, Messages: conversation[1:2], ThinkingBudget: 2000},
			`{"messages":[{"content":"Hi","role":"user"}],"model":"c","stream":false,"thinking":{"budget_tokens":2000,"type":"enabled"}}`},
		{"gemini", llm.GenerateRequest{API: llm.APIGemini, Endpoint: llm.Endpoint{Model: "gemini-x"}, Messages: conversation, Temperature: &temp, MaxTokens: 1500, ThinkingBudget: 512},
			`{"contents":[{"parts":[{"text":"Hi"}],"role":"user"},{"parts":[{"text":"Hello"}],"role":"model"},{"parts":[{"text":"Capital of France?"}],"role":"user"}],"generationConfig":{"maxOutputTokens":1500,"temperature":0.5,"thinkingConfig":{"thinkingBudget":512}},"systemInstruction":{"parts":[{"text":"Be brief."}]}}`},
		{"reasoning effort", llm.GenerateRequest{Endpoint: llm.Endpoint{Model: "o"}, Messages: conversation[1:2], ReasoningEffort: "high"},
			`{"messages":[{"content":"Hi","role":"user"}],"model":"o","reasoning_effort":"high","stream":false}`},
		{"mapping and parameters", llm.GenerateRequest{Endpoint: llm.Endpoint{Model: "m"}, Messages: conversation[1:2], Temperature: &temp, MaxTokens: 1500,
			ParameterMapping: map[string]string{"temperature": "heat", "maxTokens": "token_limit"},
			Parameters:       map[string]any{"stream": nil, "top_p": nil, "token_limit": 200, "stop": []any{"END"}, "custom": "v", "zero": 0, "no": false}},
			`{"custom":"v","heat":0.5,"messages":[{"content":"Hi","role":"user"}],"model":"m","no":false,"stop":["END"],"token_limit":200,"zero":0}`},
		{"parameters remove the temperature", llm.GenerateRequest{Endpoint: llm.Endpoint{Model: "m"}, Messages: conversation[1:2], Temperature: &temp,
			Parameters: map[string]any{"temperature": nil, "max_tokens": 150}},
			`{"max_tokens":150,"messages":[{"content":"Hi","role":"user"}],"model":"m","stream":false}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body, err := llm.GenerateBody(tt.req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(body)
			if string(got) != tt.want {
				t.Errorf("body\n got %s\nwant %s", got, tt.want)
			}
		})
	}
	if _, err := llm.GenerateBody(llm.GenerateRequest{Messages: []llm.Message{{Role: "tool", Content: "x"}}}); err == nil ||
		err.Error() != `message 1: expected role system, user or assistant, found "tool"` {
		t.Errorf("bad role: %v", err)
	}
}

// TestGenerateShapes sends each shape over real HTTP to the fake server and checks what it
// received and what came back.
func TestGenerateShapes(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey(testKey))
	s.On(llmtest.LastUserContains("France"), llmtest.Text("Paris."))
	temp := 0.7
	tests := []struct {
		name       string
		req        llm.GenerateRequest
		path       string
		authHeader string
		messages   []llmtest.Message
	}{
		{"chat at the base URL", llm.GenerateRequest{Endpoint: llm.Endpoint{BaseURL: s.URL, Model: "gpt", APIKey: testKey}},
			"/v1/chat/completions", "Authorization", nil},
		{"chat at a full URL", llm.GenerateRequest{URL: s.URL + "/chat/completions", Endpoint: llm.Endpoint{Model: "gpt", APIKey: testKey}},
			"/v1/chat/completions", "Authorization", nil},
		{"completions", llm.GenerateRequest{API: llm.APICompletions, URL: s.URL + "/completions", Endpoint: llm.Endpoint{Model: "llama", Headers: map[string]string{"Authorization": "Bearer " + testKey}}},
			"/v1/completions", "Authorization", []llmtest.Message{{Role: "user", Content: "Be brief.\n\nUser: Hi\nAssistant: Hello\nUser: Capital of France?\nAssistant:"}}},
		{"anthropic", llm.GenerateRequest{API: llm.APIAnthropic, Endpoint: llm.Endpoint{BaseURL: s.URL, Model: "claude", APIKey: testKey}},
			"/v1/messages", "x-api-key", nil},
		{"gemini", llm.GenerateRequest{API: llm.APIGemini, Endpoint: llm.Endpoint{BaseURL: s.URL + "beta", Model: "gemini-x", APIKey: testKey}},
			"/v1beta/models/gemini-x:generateContent", "x-goog-api-key", nil},
		{"azure chat at a full URL", llm.GenerateRequest{URL: s.URL + "/chat/completions",
			Endpoint: llm.Endpoint{Provider: "azure-openai", Model: "gpt", APIKey: testKey}},
			"/v1/chat/completions", "api-key", nil},
	}
	full := []llmtest.Message{{Role: "system", Content: "Be brief."}, {Role: "user", Content: "Hi"}, {Role: "assistant", Content: "Hello"}, {Role: "user", Content: "Capital of France?"}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s.Reset()
			c := newClient(t, fastConfig())
			tt.req.Messages, tt.req.Temperature, tt.req.MaxTokens = conversation, &temp, 1500
			resp, err := c.Generate(context.Background(), tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Content != "Paris." || resp.Cached || resp.Attempts != 1 || resp.Tokens.Output != 2 || resp.Tokens.Input == 0 {
				t.Errorf("response %+v", resp)
			}
			reqs := s.Requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests", len(reqs))
			}
			r := reqs[0]
			want := tt.messages
			if want == nil {
				want = full
			}
			if r.Path != tt.path || !reflect.DeepEqual(r.Messages, want) || *r.Temperature != 0.7 || *r.MaxTokens != 1500 {
				t.Errorf("request %s %+v temperature %v max %v", r.Path, r.Messages, *r.Temperature, *r.MaxTokens)
			}
			if got := r.Header.Get(tt.authHeader); !strings.Contains(got, testKey) {
				t.Errorf("%s = %q", tt.authHeader, got)
			}
			if strings.Contains(string(r.Body), testKey) {
				t.Error("the key is in the request body")
			}
			if tt.authHeader != "Authorization" && r.Header.Get("Authorization") != "" {
				t.Errorf("Authorization = %q as well as %s", r.Header.Get("Authorization"), tt.authHeader)
			}
			if got := r.Header.Get("User-Agent"); got != "vectorlint" {
				t.Errorf("User-Agent = %q", got)
			}
			if tt.req.API == llm.APIAnthropic && r.Header.Get("anthropic-version") != llm.AnthropicVersion {
				t.Errorf("anthropic-version = %q", r.Header.Get("anthropic-version"))
			}
		})
	}
}

func TestGenerateCache(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("generated"))
	dir := t.TempDir()
	cfg := fastConfig()
	cfg.CacheDir = dir
	req := llm.GenerateRequest{API: llm.APIAnthropic, Endpoint: llm.Endpoint{BaseURL: s.URL, Model: "claude", APIKey: testKey,
		Headers: map[string]string{"X-Proxy-Key": "proxy-secret-123456"}}, Messages: conversation, MaxTokens: 1500}
	c := newClient(t, cfg)
	first, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Generate(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if s.Calls() != 1 || !second.Cached || second.Content != first.Content || second.Tokens != first.Tokens {
		t.Fatalf("calls %d, second %+v", s.Calls(), second)
	}
	// A new client over the same folder reads the entry: the cache is on disk.
	if r, _ := newClient(t, cfg).Generate(context.Background(), req); !r.Cached {
		t.Error("a new client did not find the cached reply")
	}
	// A different temperature is another request.
	temp := 0.3
	req2 := req
	req2.Temperature = &temp
	if r, _ := c.Generate(context.Background(), req2); r.Cached || s.Calls() != 2 {
		t.Errorf("a different body was answered from the cache (calls %d)", s.Calls())
	}
	// NoCache neither reads nor writes.
	req3 := req
	req3.NoCache = true
	if r, _ := c.Generate(context.Background(), req3); r.Cached || s.Calls() != 3 {
		t.Errorf("NoCache: cached %v, calls %d", r.Cached, s.Calls())
	}
	if u := c.Usage(); u.Calls != 3 || u.CachedCalls != 1 {
		t.Errorf("usage %+v", u)
	}
	// No key, header value or prompt text in any cache file.
	err = filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, secret := range []string{testKey, "proxy-secret-123456", "Capital of France"} {
			if strings.Contains(string(data), secret) {
				t.Errorf("%s contains %q", path, secret)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestGenerateErrors(t *testing.T) {
	t.Parallel()
	secretHeader := "hdr-secret-987654321"
	tests := []struct {
		name    string
		api     llm.API
		replies []llmtest.Reply
		calls   int
		want    string
	}{
		{"401 echoing the key", llm.APIChat, []llmtest.Reply{llmtest.Status(401, `{"error":{"message":"Incorrect API key provided: `+testKey+` / `+secretHeader+`"}}`)}, 1,
			"llm: HOST rejected the API key: HTTP 401 Unauthorized: Incorrect API key provided: [redacted] / [redacted]; set the API key to a valid key"},
		{"anthropic error object", llm.APIAnthropic, []llmtest.Reply{llmtest.Status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"}}`)}, 1,
			"llm: messages with m at HOST: HTTP 400 Bad Request: max_tokens: Field required"},
		{"500 retried then ok", llm.APIGemini, []llmtest.Reply{llmtest.ServerError(), llmtest.Text("ok")}, 2, ""},
		{"anthropic reply without content", llm.APIAnthropic, []llmtest.Reply{{Body: `{"type":"message","role":"assistant"}`}}, 4,
			`llm: messages with m at HOST: expected a message with a content list, found a reply that began "{\"type\":\"message\",\"role\":\"assistant\"}" (4 attempts)`},
		{"gemini blocked", llm.APIGemini, []llmtest.Reply{{Body: `{"promptFeedback":{"blockReason":"SAFETY"}}`}}, 4,
			"llm: generateContent with m at HOST: the prompt was blocked: SAFETY (4 attempts)"},
		{"completions without text", llm.APICompletions, []llmtest.Reply{{Body: `{"choices":[{"message":{"content":"x"}}]}`}}, 4,
			`llm: completion with m at HOST: expected a completion with choices[0].text, found a reply that began "{\"choices\":[{\"message\":{\"content\":\"x\"}}]}" (4 attempts)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.Start(t)
			s.On(llmtest.Any(), tt.replies...)
			var log eventLog
			cfg := fastConfig()
			cfg.OnEvent = log.add
			c := newClient(t, cfg)
			_, err := c.Generate(context.Background(), llm.GenerateRequest{API: tt.api,
				Endpoint: llm.Endpoint{BaseURL: s.URL, Model: "m", APIKey: testKey, Headers: map[string]string{"X-H": secretHeader}},
				Messages: conversation[1:2], MaxTokens: 5})
			if s.Calls() != tt.calls {
				t.Errorf("calls %d, want %d", s.Calls(), tt.calls)
			}
			if tt.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var ae *llm.APIError
			if !errors.As(err, &ae) {
				t.Fatalf("error %v is not an *APIError", err)
			}
			if got := strings.ReplaceAll(err.Error(), strings.TrimPrefix(s.URL[:len(s.URL)-3], "http://"), "HOST"); got != tt.want {
				t.Errorf("error\n got %s\nwant %s", got, tt.want)
			}
			if text := log.text(); strings.Contains(text, testKey) || strings.Contains(text, secretHeader) {
				t.Errorf("a secret reached the events:\n%s", text)
			}
		})
	}
	c := newClient(t, fastConfig())
	if _, err := c.Generate(context.Background(), llm.GenerateRequest{URL: "ftp://x/y", Messages: conversation}); err == nil ||
		err.Error() != `llm: chat completion with  at x: expected an http(s) URL, found "ftp://x/y"` {
		t.Errorf("bad URL: %v", err)
	}
	if _, err := c.Generate(context.Background(), llm.GenerateRequest{URL: "http://x/y", Endpoint: llm.Endpoint{Model: "m"}}); err == nil ||
		!strings.HasSuffix(err.Error(), ": no messages given") {
		t.Errorf("no messages: %v", err)
	}
}

// TestGenerateLimitGroup checks that a limit group caps the calls in flight across endpoints
// of one provider, while the client's global limit is higher.
func TestGenerateLimitGroup(t *testing.T) {
	// Not parallel: the limit is seen only when the calls overlap within the server's latency.
	s := llmtest.Start(t, llmtest.WithLatency(20*time.Millisecond))
	cfg := fastConfig()
	cfg.Concurrency = 8
	c := newClient(t, cfg)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			api := []llm.API{llm.APIChat, llm.APIAnthropic}[i%2]
			_, err := c.Generate(context.Background(), llm.GenerateRequest{API: api,
				Endpoint: llm.Endpoint{BaseURL: s.URL, Model: "m", MaxConcurrency: 2, LimitGroup: "local"},
				Messages: []llm.Message{{Role: llm.RoleUser, Content: strings.Repeat("x", i+1)}}, MaxTokens: 5})
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := s.MaxInFlight(); got != 2 {
		t.Errorf("max in flight %d, want 2", got)
	}
}

func TestParseGenerateReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		api     llm.API
		body    string
		content string
		tokens  llm.TokenUsage
		err     string
	}{
		{llm.APICompletions, `{"model":"m","choices":[{"text":" Paris","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`, " Paris", llm.TokenUsage{Input: 3, Output: 1}, ""},
		{llm.APIAnthropic, `{"type":"message","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"A"},{"type":"text","text":"B"}],"usage":{"input_tokens":5,"output_tokens":2}}`, "AB", llm.TokenUsage{Input: 5, Output: 2}, ""},
		{llm.APIAnthropic, `{"type":"message","content":[{"type":"text","text":"A"}],"usage":{"input_tokens":5,"output_tokens":2,"cache_read_input_tokens":1200,"cache_creation_input_tokens":300}}`, "A", llm.TokenUsage{Input: 1505, Output: 2, Cached: 1200, CacheWrite: 300}, ""},
		{llm.APIChat, `{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":1300,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":1152}}}`, "ok", llm.TokenUsage{Input: 1300, Output: 1, Cached: 1152}, ""},
		{llm.APIChat, `{"choices":[{"message":{"content":"ok"}}],"usage":{"prompt_tokens":10,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":99}}}`, "ok", llm.TokenUsage{Input: 10, Output: 1, Cached: 10}, ""},
		{llm.APIGemini, `{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}],"usageMetadata":{"promptTokenCount":2000,"candidatesTokenCount":2,"cachedContentTokenCount":1500}}`, "Hi", llm.TokenUsage{Input: 2000, Output: 2, Cached: 1500}, ""},
		{llm.APIAnthropic, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "", llm.TokenUsage{}, "the server reported an error in a successful reply: Overloaded"},
		{llm.APIGemini, `{"candidates":[{"content":{"parts":[{"text":"think","thought":true},{"text":"Hi"},{"text":"!"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":2}}`, "Hi!", llm.TokenUsage{Input: 4, Output: 2}, ""},
		{llm.APIGemini, `{"candidates":[]}`, "", llm.TokenUsage{}, `expected candidates, found a reply that began "{\"candidates\":[]}"`},
		{llm.APIGemini, `{"error":{"code":400,"message":"API key not valid"}}`, "", llm.TokenUsage{}, "the server reported an error in a successful reply: API key not valid"},
		{llm.APIChat, `{"choices":[{"message":{"content":"ok"}}]}`, "ok", llm.TokenUsage{}, ""},
		{llm.APICompletions, `{"choices":`, "", llm.TokenUsage{}, "the server's reply is cut off after 11 bytes (truncated JSON)"},
		{llm.API("soap"), `{}`, "", llm.TokenUsage{}, `unknown API "soap"`},
	}
	for _, tt := range tests {
		r, err := llm.ParseGenerateReply(tt.api, []byte(tt.body))
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s %s: error %v, want %s", tt.api, tt.body, err, tt.err)
			}
			continue
		}
		if err != nil || r.Content != tt.content || r.Tokens != tt.tokens {
			t.Errorf("%s %s: %+v %v", tt.api, tt.body, r, err)
		}
	}
}

func FuzzParseGenerateReply(f *testing.F) {
	for _, seed := range []string{
		`{"choices":[{"text":"x"}]}`, `{"content":[{"type":"text","text":"x"}]}`,
		`{"candidates":[{"content":{"parts":[{"text":"x"}]}}]}`, `{"error":"x"}`, `[]`, `null`, ``,
		`{"content":[],"usage":{"input_tokens":9223372036854775807,"cache_read_input_tokens":5,"cache_creation_input_tokens":-2}}`,
	} {
		for _, api := range []string{"chat", "completions", "anthropic", "gemini"} {
			f.Add(api, seed)
		}
	}
	f.Fuzz(func(t *testing.T, api, body string) {
		r, err := llm.ParseGenerateReply(llm.API(api), []byte(body))
		if (r == nil) == (err == nil) {
			t.Fatalf("reply %v and error %v", r, err)
		}
		if r != nil {
			// The cached and written tokens are a part of the input tokens.
			if tk := r.Tokens; tk.Cached < 0 || tk.CacheWrite < 0 || tk.Cached > max(tk.Input, 0)-tk.CacheWrite {
				t.Fatalf("tokens %+v: expected cached and written tokens within the input tokens", tk)
			}
		}
	})
}
