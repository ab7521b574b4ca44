package llm

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/openai/openai-go/v3"
)

// The client writes its request bodies itself (linking the official SDK costs every command
// about 6 ms of start-up; see docs/benchmarks.md). These tests keep the bodies equal, as
// JSON values, to what github.com/openai/openai-go sends for the same request, so the wire
// format stays the one every OpenAI-compatible server is tested against.

// sdkChatParams is the SDK's request for req sent with format.
func sdkChatParams(req Request, format Format, msgs []Message) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: req.Endpoint.Model}
	for _, m := range msgs {
		switch m.Role {
		case RoleSystem:
			p.Messages = append(p.Messages, openai.SystemMessage(m.Content))
		case RoleAssistant:
			p.Messages = append(p.Messages, openai.AssistantMessage(m.Content))
		default:
			p.Messages = append(p.Messages, openai.UserMessage(m.Content))
		}
	}
	if t := temperature(req); t != nil {
		p.Temperature = openai.Float(*t)
	}
	if req.MaxTokens > 0 {
		p.MaxTokens = openai.Int(int64(req.MaxTokens))
	}
	switch format {
	case FormatJSONSchema:
		js := openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: schemaName(req.Schema), Strict: openai.Bool(req.Schema.Strict),
			Schema: req.Schema.Schema}
		if req.Schema.Description != "" {
			js.Description = openai.String(req.Schema.Description)
		}
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONSchema: &openai.ResponseFormatJSONSchemaParam{JSONSchema: js}}
	case FormatJSONObject:
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &openai.ResponseFormatJSONObjectParam{}}
	}
	if len(req.Extra) > 0 {
		p.SetExtraFields(req.Extra)
	}
	return p
}

// sameJSON reports whether a and b encode equal JSON values.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var va, vb any
	if err := json.Unmarshal(a, &va); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &vb); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(va, vb)
}

func TestChatBodyMatchesSDK(t *testing.T) {
	zero, warm := 0.0, 0.7
	schema := &Schema{Name: "violations", Strict: true,
		Schema: json.RawMessage(`{"type":"object","properties":{"v":{"type":"array"}},"required":["v"],"additionalProperties":false}`)}
	base := Request{Endpoint: Endpoint{BaseURL: "http://localhost/v1", Model: "gpt-test"},
		Messages: []Message{{Role: RoleSystem, Content: "Be strict."}, {Role: RoleUser, Content: "Text with \"quotes\" and ünïcode <b>."},
			{Role: RoleAssistant, Content: "{}"}, {Role: RoleUser, Content: "again"}}}
	tests := []struct {
		name   string
		edit   func(*Request)
		format Format
	}{
		{"plain text", func(*Request) {}, FormatText},
		{"temperature zero is sent", func(r *Request) { r.Temperature = &zero }, FormatText},
		{"endpoint temperature and max tokens", func(r *Request) { r.Endpoint.Temperature = &warm; r.MaxTokens = 512 }, FormatText},
		{"json schema", func(r *Request) { r.Schema = schema }, FormatJSONSchema},
		{"json schema with description, not strict", func(r *Request) {
			s := *schema
			s.Strict, s.Description, s.Name = false, "The rule's findings.", ""
			r.Schema = &s
		}, FormatJSONSchema},
		{"json schema as a map", func(r *Request) {
			r.Schema = &Schema{Schema: map[string]any{"type": "object"}}
		}, FormatJSONSchema},
		{"json object", func(r *Request) { r.JSONMode = true }, FormatJSONObject},
		{"extra parameters", func(r *Request) {
			r.Extra = map[string]any{"top_p": 0.5, "seed": 7, "reasoning_effort": "low", "stop": []string{"\n\n"}}
		}, FormatText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base
			req.Messages = cloneMessages(base.Messages)
			tt.edit(&req)
			msgs := messagesFor(req, tt.format)
			got, err := chatRequestBody(req, tt.format, msgs)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(sdkChatParams(req, tt.format, msgs))
			if err != nil {
				t.Fatal(err)
			}
			if !sameJSON(t, got, want) {
				t.Fatalf("body differs from openai-go's:\n got %s\nwant %s", got, want)
			}
		})
	}
}

func TestEmbeddingsBodyMatchesSDK(t *testing.T) {
	texts := []string{"first", "second with \"quotes\"", ""}
	got, err := json.Marshal(embeddingsBody{Model: "embed-test", Input: texts, EncodingFormat: "float"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := json.Marshal(openai.EmbeddingNewParams{Model: "embed-test",
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat})
	if err != nil {
		t.Fatal(err)
	}
	if !sameJSON(t, got, want) {
		t.Fatalf("body differs from openai-go's:\n got %s\nwant %s", got, want)
	}
}

func TestExtraParametersOverrideStandardFields(t *testing.T) {
	req := Request{Endpoint: Endpoint{Model: "m"}, Messages: []Message{{Role: RoleUser, Content: "x"}}, MaxTokens: 10,
		Extra: map[string]any{"max_tokens": 99, "model": "other"}}
	got, err := chatRequestBody(req, FormatText, req.Messages)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"max_tokens":99,"messages":[{"role":"user","content":"x"}],"model":"other"}`; string(got) != want {
		t.Fatalf("body\n got %s\nwant %s", got, want)
	}
}
