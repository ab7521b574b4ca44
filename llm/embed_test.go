package llm_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

func TestEmbed(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	ep := endpointOf(s)
	ep.Model = "text-embedding-3-small"
	texts := []string{"The cat sat on the mat.", "A cat on a mat.", "Quarterly revenue grew 4%."}
	got, err := c.Embed(context.Background(), ep, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range texts {
		if !reflect.DeepEqual(got[i], llmtest.HashEmbedding(text)) {
			t.Fatalf("vector %d differs from the server's", i)
		}
	}
	r := s.Requests()[0]
	if r.Path != "/v1/embeddings" || r.Model != "text-embedding-3-small" || !reflect.DeepEqual(r.Input, texts) ||
		string(r.Params["encoding_format"]) != `"float"` {
		t.Fatalf("request path %s model %s input %q format %s", r.Path, r.Model, r.Input, r.Params["encoding_format"])
	}
	wantTokens := llmtest.EstimateTokens(texts[0]) + llmtest.EstimateTokens(texts[1]) + llmtest.EstimateTokens(texts[2])
	if u := c.Usage(); !reflect.DeepEqual(u, llm.Usage{Calls: 1, InputTokens: wantTokens}) {
		t.Fatalf("usage %+v", u)
	}
	// Cached.
	again, err := c.Embed(context.Background(), ep, texts)
	if err != nil || !reflect.DeepEqual(again, got) || s.EmbeddingCalls() != 1 {
		t.Fatalf("second embed: %v, %d calls", err, s.EmbeddingCalls())
	}
	if u := c.Usage(); u.CachedCalls != 1 {
		t.Fatalf("usage %+v", u)
	}
	// Empty input: nothing to do.
	if v, err := c.Embed(context.Background(), ep, nil); err != nil || len(v) != 0 || s.EmbeddingCalls() != 1 {
		t.Fatalf("empty input: %v %v", v, err)
	}
}

func TestEmbedBatches(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	texts := make([]string, llm.EmbedBatchSize+5)
	for i := range texts {
		texts[i] = fmt.Sprint("text number ", i)
	}
	got, err := c.Embed(context.Background(), endpointOf(s), texts)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(texts) || s.EmbeddingCalls() != 2 || !reflect.DeepEqual(got[len(texts)-1], llmtest.HashEmbedding(texts[len(texts)-1])) {
		t.Fatalf("%d vectors in %d calls", len(got), s.EmbeddingCalls())
	}
	reqs := s.Requests()
	if len(reqs[0].Input) != llm.EmbedBatchSize || len(reqs[1].Input) != 5 {
		t.Fatalf("batch sizes %d and %d", len(reqs[0].Input), len(reqs[1].Input))
	}
}

func TestEmbedRetriesAndErrors(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.Any(), llmtest.RateLimited("0"), llmtest.TruncatedJSON(), llmtest.Text(""))
	c := newClient(t, fastConfig())
	got, err := c.Embed(context.Background(), endpointOf(s), []string{"a b c"})
	if err != nil || len(got) != 1 || s.EmbeddingCalls() != 3 {
		t.Fatalf("embed after faults: %v, %d calls", err, s.EmbeddingCalls())
	}

	s2 := llmtest.Start(t)
	s2.On(llmtest.Any(), llmtest.Reply{Body: `{"object":"list","data":[{"index":0,"embedding":[1,0]}]}`})
	cfg := fastConfig()
	cfg.MaxAttempts = 2
	c2 := newClient(t, cfg)
	_, err = c2.Embed(context.Background(), endpointOf(s2), []string{"a", "b"})
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Kind != llm.KindBadResponse || apiErr.Attempts != 2 ||
		apiErr.Error() != fmt.Sprintf("llm: embeddings with test-model at %s: expected 2 embeddings, found 1 (2 attempts)", endpointOf(s2).Host()) {
		t.Fatalf("error %v", err)
	}

	s3 := llmtest.Start(t)
	s3.On(llmtest.Any(), llmtest.Status(404, `{"error":{"message":"The model does not exist"}}`))
	_, err = c2.Embed(context.Background(), endpointOf(s3), []string{"a"})
	if err == nil || s3.EmbeddingCalls() != 1 || err.Error() != fmt.Sprintf("llm: %s (openai-compatible) has no model test-model or no such endpoint: HTTP 404 Not Found: The model does not exist; check the model name in OPENAI_MODEL and the URL in OPENAI_BASE_URL", endpointOf(s3).Host()) {
		t.Fatalf("404: %v after %d calls", err, s3.EmbeddingCalls())
	}
}

func TestEventString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		e    llm.Event
		want string
	}{
		{llm.Event{Kind: llm.EventRequest, Op: "chat completion", Host: "api.openai.com", Model: "gpt-4o", Attempt: 1, Format: llm.FormatJSONSchema,
			Messages: make([]llm.Message, 2), Label: "Acme.Wordiness docs/a.md"},
			"llm: request chat completion gpt-4o@api.openai.com [Acme.Wordiness docs/a.md] attempt 1: 2 messages, format json_schema"},
		{llm.Event{Kind: llm.EventResponse, Op: "chat completion", Host: "h", Model: "m", Attempt: 2, Status: 200,
			Duration: 1234567 * time.Microsecond, Tokens: llm.TokenUsage{Input: 812, Output: 96}},
			"llm: response chat completion m@h attempt 2: 200 in 1.235s, 812+96 tokens"},
		{llm.Event{Kind: llm.EventRetry, Op: "embeddings", Host: "h", Model: "m", Attempt: 1, Delay: 1500 * time.Millisecond, Err: "HTTP 429"},
			"llm: retry embeddings m@h attempt 1: HTTP 429; retrying in 1.5s"},
		{llm.Event{Kind: llm.EventFallback, Op: "chat completion", Host: "h", Model: "m", Format: llm.FormatJSONObject, Err: "HTTP 400"},
			"llm: fallback chat completion m@h: server rejected the response format, now using json_object: HTTP 400"},
		{llm.Event{Kind: llm.EventCacheHit, Op: "chat completion", Host: "h", Model: "m"}, "llm: cache-hit chat completion m@h"},
		{llm.Event{Kind: llm.EventFailure, Op: "chat completion", Host: "h", Model: "m", Err: "boom"}, "llm: failure chat completion m@h: boom"},
	}
	for _, tt := range tests {
		if got := tt.e.String(); got != tt.want {
			t.Errorf("String() =\n %q\nwant %q", got, tt.want)
		}
	}
}
