package llm_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// longSystem is a system message of n characters: n/4 tokens as the client and the fake count.
func longSystem(n int) string { return strings.Repeat("Rule. ", n/6+1)[:n] }

// cacheKeyOf is the prompt_cache_key the client sends for a prefix of one system message: a
// SHA-256 of its role and text, as docs/providers.md describes it.
func cacheKeyOf(system string) string {
	sum := sha256.Sum256([]byte("system\x00" + system + "\x00"))
	return "vectorlint-" + hex.EncodeToString(sum[:])[:32]
}

func twoCalls(t *testing.T, c *llm.Client, ep llm.Endpoint, system string, schema *llm.Schema) {
	t.Helper()
	for i := range 2 {
		_, err := c.Complete(context.Background(), llm.Request{Endpoint: ep, Schema: schema, Messages: []llm.Message{
			{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: fmt.Sprint("document ", i)}}})
		if err != nil {
			t.Fatal(err)
		}
	}
}

func costText(u llm.Usage) string {
	if u.Cost == nil {
		return "nil"
	}
	return fmt.Sprintf("%.7f", *u.Cost)
}

// TestAnthropicNativeMessages: the linter's Anthropic endpoint is called through the native
// Messages API (anthropic-sdk-go), with the system prompt as a system block marked
// cache_control; the fake writes the prefix to its cache on the first call and reads it on the
// second, and the usage and cost count both at Anthropic's prices (reads 10 %, writes 125 % of
// the input price).
func TestAnthropicNativeMessages(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey(testKey))
	cfg := fastConfig()
	cfg.Prices = &llm.Prices{InputPerMillion: 3, OutputPerMillion: 15}
	c := newClient(t, cfg)
	ep := llm.Endpoint{Provider: "anthropic", BaseURL: s.URL, APIKey: testKey, Model: "claude-sonnet-4-5",
		Temperature: ptr(0.2), MaxTokens: 4096}
	system := longSystem(4200) // 1,050 tokens + 4: above the 1,024-token minimum
	schema := &llm.Schema{Name: "violations", Strict: true, Schema: map[string]any{"type": "object",
		"properties": map[string]any{"ok": map[string]any{"type": "boolean"}}, "required": []string{"ok"}, "additionalProperties": false}}
	twoCalls(t, c, ep, system, schema)

	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	for i, r := range reqs {
		if r.Path != "/v1/messages" || r.API != "anthropic" || r.Header.Get("x-api-key") != testKey || r.Header.Get("Authorization") != "" ||
			r.Header.Get("anthropic-version") == "" || r.Header.Get("User-Agent") != "vectorlint" {
			t.Fatalf("request %d: path %s x-api-key %q authorization %q anthropic-version %q user agent %q", i, r.Path,
				r.Header.Get("x-api-key"), r.Header.Get("Authorization"), r.Header.Get("anthropic-version"), r.Header.Get("User-Agent"))
		}
		for name := range r.Header {
			if strings.HasPrefix(name, "X-Stainless") {
				t.Errorf("request %d carries the SDK's header %s", i, name)
			}
		}
		if fmt.Sprint(r.CacheBreakpoints) != "[0]" {
			t.Errorf("request %d: cache_control on messages %v, want on the system block only [0]", i, r.CacheBreakpoints)
		}
		want := fmt.Sprintf(`[{"cache_control":{"type":"ephemeral"},"text":%q,"type":"text"}]`, system)
		if got := canonical(t, r.Params["system"]); got != want {
			t.Errorf("request %d: system %.200s…, want %.200s…", i, got, want)
		}
		if got, want := canonical(t, r.Params["messages"]), fmt.Sprintf(`[{"content":[{"text":"document %d","type":"text"}],"role":"user"}]`, i); got != want {
			t.Errorf("request %d: messages %s, want %s", i, got, want)
		}
		if got, want := canonical(t, r.Params["output_config"]), `{"format":{"schema":{"additionalProperties":false,"properties":{"ok":{"type":"boolean"}},"required":["ok"],"type":"object"},"type":"json_schema"}}`; got != want {
			t.Errorf("request %d: output_config %s, want %s", i, got, want)
		}
		if string(r.Params["max_tokens"]) != "4096" || string(r.Params["temperature"]) != "0.2" || string(r.Params["model"]) != `"claude-sonnet-4-5"` {
			t.Errorf("request %d: max_tokens %s temperature %s model %s", i, r.Params["max_tokens"], r.Params["temperature"], r.Params["model"])
		}
		if _, ok := r.Params["prompt_cache_key"]; ok {
			t.Errorf("request %d carries prompt_cache_key", i)
		}
	}

	// Each call: 1,054 prefix tokens and 7 for "document N"; the first writes the prefix, the
	// second reads it.
	u := c.Usage()
	if u.Calls != 2 || u.InputTokens != 2*1061 || u.CachedInputTokens != 1054 || u.CacheWriteTokens != 1054 || u.OutputTokens != 2 {
		t.Fatalf("usage %+v", u)
	}
	wantCost := (14*3 + 1054*3*0.1 + 1054*3*1.25 + 2*15) / 1e6
	if got := costText(u); got != fmt.Sprintf("%.7f", wantCost) {
		t.Fatalf("cost %s, want %.7f", got, wantCost)
	}
	b, _ := json.Marshal(u)
	if want := `{"calls":2,"cachedCalls":0,"inputTokens":2122,"outputTokens":2,"cachedInputTokens":1054,"cacheWriteTokens":1054,"cost":0.0043407}`; string(b) != want {
		t.Fatalf("usage JSON %s, want %s", b, want)
	}
}

// TestAnthropicShortPrefixNotMarked: a shared prefix below the minimum is not marked, and
// nothing is cached.
func TestAnthropicShortPrefixNotMarked(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	ep := llm.Endpoint{Provider: "anthropic", BaseURL: s.URL, APIKey: testKey, Model: "claude"}
	twoCalls(t, c, ep, longSystem(4000), nil) // 1,000 + 4 tokens
	for i, r := range s.Requests() {
		if len(r.CacheBreakpoints) != 0 || strings.Contains(string(r.Body), "cache_control") {
			t.Errorf("request %d marks a prefix of 1,004 tokens: %v", i, r.CacheBreakpoints)
		}
		if string(r.Params["max_tokens"]) != "4096" {
			t.Errorf("request %d: max_tokens %s, want the default 4096", i, r.Params["max_tokens"])
		}
		if _, ok := r.Params["temperature"]; ok {
			t.Errorf("request %d sends a temperature none was set", i)
		}
	}
	if u := c.Usage(); u.InputTokens != 2*(1004+7) || u.CachedInputTokens != 0 || u.CacheWriteTokens != 0 {
		t.Fatalf("usage %+v", u)
	}
}

// TestAnthropicSharedPrefixMark: a message marked SharedPrefix ends the prefix: the
// cache_control breakpoint is on its block.
func TestAnthropicSharedPrefixMark(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	ep := llm.Endpoint{Provider: "anthropic", BaseURL: s.URL, APIKey: testKey, Model: "claude"}
	msgs := []llm.Message{{Role: llm.RoleSystem, Content: "Review."}, {Role: llm.RoleUser, Content: longSystem(4400), SharedPrefix: true},
		{Role: llm.RoleUser, Content: "rule 1"}}
	if _, err := c.Complete(context.Background(), llm.Request{Endpoint: ep, Messages: msgs}); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if fmt.Sprint(r.CacheBreakpoints) != "[1]" {
		t.Fatalf("cache_control on messages %v, want [1]", r.CacheBreakpoints)
	}
	// 2+4 (system) + 1,100+4 written; 2+4 for "rule 1".
	if u := c.Usage(); u.InputTokens != 6+1104+6 || u.CacheWriteTokens != 1110 || u.CachedInputTokens != 0 {
		t.Fatalf("usage %+v", u)
	}
}

// TestAnthropicStructuredOutputFallback: a model that refuses output_config's format gets the
// schema in the system block, and the run remembers it.
func TestAnthropicStructuredOutputFallback(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(func(r *llmtest.Request) bool { _, ok := r.Params["output_config"]; return ok },
		llmtest.Status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"output_config.format: this model does not support structured outputs"}}`))
	c := newClient(t, fastConfig())
	ep := llm.Endpoint{Provider: "anthropic", BaseURL: s.URL, APIKey: testKey, Model: "claude-3-haiku"}
	schema := &llm.Schema{Schema: map[string]any{"type": "object"}}
	twoCalls(t, c, ep, "Review.", schema)
	reqs := s.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3 (one refused, then two without output_config)", len(reqs))
	}
	for _, r := range reqs[1:] {
		if _, ok := r.Params["output_config"]; ok || !strings.Contains(r.System(), `conforms to this JSON schema, with no other text:`+"\n"+`{"type":"object"}`) {
			t.Fatalf("fallback request: output_config %s, system %q", r.Params["output_config"], r.System())
		}
	}
}

// TestOpenAIPromptCacheKey: OpenAI requests whose shared prefix is long enough carry a
// prompt_cache_key hashed from it, and the cached tokens the server reports are counted and
// priced at half the input price.
func TestOpenAIPromptCacheKey(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	cfg := fastConfig()
	cfg.Prices = &llm.Prices{InputPerMillion: 2.5, OutputPerMillion: 10}
	c := newClient(t, cfg)
	ep := llm.Endpoint{Provider: "openai", BaseURL: s.URL, APIKey: testKey, Model: "gpt-4o"}
	system := longSystem(4800) // 1,200 + 4 tokens
	twoCalls(t, c, ep, system, nil)
	for i, r := range s.Requests() {
		if r.PromptCacheKey != cacheKeyOf(system) {
			t.Errorf("request %d: prompt_cache_key %q, want %q", i, r.PromptCacheKey, cacheKeyOf(system))
		}
	}
	// The second call's first message was seen: 1,204 tokens, reported as OpenAI does in steps
	// of 128 above 1,024: 1,152.
	u := c.Usage()
	if u.InputTokens != 2*(1204+7) || u.CachedInputTokens != 1152 || u.CacheWriteTokens != 0 || u.OutputTokens != 2 {
		t.Fatalf("usage %+v", u)
	}
	wantCost := ((2422-1152)*2.5 + 1152*1.25 + 2*10) / 1e6
	if got := costText(u); got != fmt.Sprintf("%.7f", wantCost) {
		t.Fatalf("cost %s, want %.7f", got, wantCost)
	}
	if !u.CachedPriceAssumed {
		t.Error("cached tokens priced at the provider's share without CachedPriceAssumed (the footer's note)")
	}

	// An explicit cached price wins over the provider's share.
	cfg.Prices = &llm.Prices{InputPerMillion: 2.5, OutputPerMillion: 10, CachedInputPerMillion: ptr(0.0)}
	c2 := newClient(t, cfg)
	twoCalls(t, c2, ep, system, nil) // the fake remembers: both calls read the prefix now
	if u := c2.Usage(); u.CachedInputTokens != 2*1152 || costText(u) != fmt.Sprintf("%.7f", ((2422-2304)*2.5+2*10)/1e6) || u.CachedPriceAssumed {
		t.Fatalf("usage %+v cost %s", u, costText(u))
	}
}

// TestPromptCacheKeyWhere: no key for a short prefix, nor for a provider that does not route on
// one (Gemini); a server that refuses the field gets the request again without it, once a run.
func TestPromptCacheKeyWhere(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	short := llm.Endpoint{Provider: "openai", BaseURL: s.URL, APIKey: testKey, Model: "gpt-4o"}
	twoCalls(t, c, short, longSystem(4000), nil)
	gemini := llm.Endpoint{Provider: "gemini", BaseURL: s.URL, APIKey: testKey, Model: "gemini-2.5-flash"}
	twoCalls(t, c, gemini, longSystem(4800), nil)
	for i, r := range s.Requests() {
		if _, ok := r.Params["prompt_cache_key"]; ok {
			t.Errorf("request %d (%s) carries prompt_cache_key", i, r.Model)
		}
	}
	// Gemini's OpenAI-compatible usage reports cached tokens the same way.
	if u := c.UsageByModel()["gemini-2.5-flash"]; u.CachedInputTokens != 1152 {
		t.Errorf("gemini usage %+v", u)
	}

	s2 := llmtest.Start(t)
	s2.On(func(r *llmtest.Request) bool { return r.PromptCacheKey != "" },
		llmtest.Status(400, `{"error":{"message":"Unrecognized request argument supplied: prompt_cache_key","type":"invalid_request_error","param":null}}`))
	log := &eventLog{}
	cfg := fastConfig()
	cfg.OnEvent = log.add
	c2 := newClient(t, cfg)
	local := llm.Endpoint{Provider: "openai-compatible", BaseURL: s2.URL, Model: "qwen3:8b"}
	twoCalls(t, c2, local, longSystem(4800), nil)
	reqs := s2.Requests()
	if len(reqs) != 3 || reqs[0].PromptCacheKey == "" || reqs[1].PromptCacheKey != "" || reqs[2].PromptCacheKey != "" {
		t.Fatalf("%d requests, keys %q", len(reqs), func() []string {
			var k []string
			for _, r := range reqs {
				k = append(k, r.PromptCacheKey)
			}
			return k
		}())
	}
	if n := log.count(llm.EventFallback); n != 1 || !strings.Contains(log.text(), "does not accept prompt_cache_key") {
		t.Fatalf("%d fallback events:\n%s", n, log.text())
	}
}

// canonical is raw JSON re-encoded with its object keys sorted.
func canonical(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAnthropicTemperatureRefused: a model that refuses the temperature (the SDK's request type
// has none any more; it is sent as an extra field) gets the request again without it, and the
// run's later calls leave it out from the start.
func TestAnthropicTemperatureRefused(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(func(r *llmtest.Request) bool { return r.Temperature != nil },
		llmtest.Status(400, `{"type":"error","error":{"type":"invalid_request_error","message":"temperature: this model does not support temperature"}}`))
	c := newClient(t, fastConfig())
	ep := llm.Endpoint{Provider: "anthropic", BaseURL: s.URL, APIKey: testKey, Model: "claude-x", Temperature: ptr(0.2)}
	twoCalls(t, c, ep, "Review.", nil)
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Temperature == nil || *reqs[0].Temperature != 0.2 || reqs[1].Temperature != nil || reqs[2].Temperature != nil {
		t.Fatalf("%d requests; temperatures %v", len(reqs), func() []any {
			var out []any
			for _, r := range reqs {
				out = append(out, r.Temperature)
			}
			return out
		}())
	}
}
