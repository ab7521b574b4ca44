package llm_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Chat completions and embeddings go through github.com/openai/openai-go (its request types
// and services). These tests keep what reaches the server what the client has always sent:
// the golden files under testdata/wire are the bodies of the client's own net/http encoder
// before it went back to the SDK (3f0ee6a), and every body the SDK sends must equal them as a
// JSON value (the SDK orders object keys its own way). go test -update rewrites them from the
// current bodies, after you check the change.

// wireBody compares the body a server received with the golden file testdata/wire/name.json.
func wireBody(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "wire", name+".json")
	if testutil.Updating() {
		if err := os.WriteFile(path, append(append([]byte(nil), got...), '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatalf("the body sent is not JSON: %v\n%s", err, got)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("the body sent differs from %s:\n got %s\nwant %s", path, got, want)
	}
}

// noSDKHeaders fails when a request carries a header the client does not send itself (the
// SDK's X-Stainless-* headers describe the machine to the server).
func noSDKHeaders(t *testing.T, h map[string][]string) {
	t.Helper()
	for name := range h {
		if strings.HasPrefix(strings.ToLower(name), "x-stainless") {
			t.Errorf("header %s was sent", name)
		}
	}
}

func TestChatBodyOnTheWire(t *testing.T) {
	t.Parallel()
	zero, warm := 0.0, 0.7
	schema := &llm.Schema{Name: "violations", Strict: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"array"}},"required":["v"],"additionalProperties":false}`)}
	messages := []llm.Message{{Role: llm.RoleSystem, Content: "Be strict."},
		{Role: llm.RoleUser, Content: "Text with \"quotes\", ünïcode, <b> & \u2028."},
		{Role: llm.RoleAssistant, Content: "{}"}, {Role: llm.RoleUser, Content: "again"}}
	tests := []struct {
		name string
		edit func(*llm.Request)
		// server options: a server that rejects structured output makes the client fall back;
		// the last request is compared.
		server []llmtest.Option
	}{
		{"plain-text", func(*llm.Request) {}, nil},
		{"temperature-zero", func(r *llm.Request) { r.Temperature = &zero }, nil},
		{"endpoint-temperature-max-tokens", func(r *llm.Request) { r.Endpoint.Temperature = &warm; r.MaxTokens = 512 }, nil},
		{"json-schema", func(r *llm.Request) { r.Schema = schema }, nil},
		{"json-schema-description-not-strict", func(r *llm.Request) {
			s := *schema
			s.Strict, s.Description, s.Name = false, "The rule's findings.", ""
			r.Schema = &s
		}, nil},
		{"json-schema-map", func(r *llm.Request) {
			r.Schema = &llm.Schema{Name: "m", Schema: map[string]any{"type": "object", "b": 1, "a": "<x>"}}
		}, nil},
		{"json-object", func(r *llm.Request) { r.JSONMode = true }, nil},
		{"schema-fallback-json-object", func(r *llm.Request) { r.Schema = schema }, []llmtest.Option{llmtest.RejectJSONSchema()}},
		{"schema-fallback-text", func(r *llm.Request) { r.Schema = schema },
			[]llmtest.Option{llmtest.RejectJSONSchema(), llmtest.RejectJSONMode()}},
		{"extra-parameters", func(r *llm.Request) {
			r.Extra = map[string]any{"top_p": 0.5, "seed": 7, "reasoning_effort": "low", "stop": []string{"\n\n"}}
		}, nil},
		// Extra parameters win over the standard fields of the same name.
		{"extra-overrides-standard-fields", func(r *llm.Request) {
			r.MaxTokens = 10
			r.Extra = map[string]any{"max_tokens": 99, "model": "other"}
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.Start(t, tt.server...)
			c := newClient(t, fastConfig())
			req := llm.Request{Endpoint: llm.Endpoint{BaseURL: s.URL, Model: "gpt-test", APIKey: testKey},
				Messages: append([]llm.Message(nil), messages...)}
			tt.edit(&req)
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			reqs := s.Requests()
			last := reqs[len(reqs)-1]
			wireBody(t, "chat-"+tt.name, last.Body)
			noSDKHeaders(t, last.Header)
		})
	}
}

func TestEmbeddingsBodyOnTheWire(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	ep := llm.Endpoint{BaseURL: s.URL, Model: "embed-test", APIKey: testKey}
	if _, err := c.Embed(context.Background(), ep, []string{"first", "second with \"quotes\" <b>", ""}); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.Path != "/v1/embeddings" || r.Header.Get("Authorization") != "Bearer "+testKey || r.Header.Get("User-Agent") != "vectorlint" {
		t.Fatalf("path %s, headers %v", r.Path, r.Header)
	}
	wireBody(t, "embeddings", r.Body)
	noSDKHeaders(t, r.Header)
}
