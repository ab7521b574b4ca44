package anthropic

import (
	"encoding/json"
	"math"
	"testing"
)

// TestParams: leading system turns become system blocks in order, the others messages (a system
// turn after a message a user message, where it stands); the block of the
// Breakpoint-th turn, whatever its role, carries cache_control; no schema, no output_config;
// an unknown role or a schema that is not an object is an error naming it.
func TestParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		req     Request
		want    string
		wantErr string
	}{
		{"no breakpoint", Request{Model: "m", MaxTokens: 10, Turns: []Turn{{"system", "a"}, {"user", "b"}}},
			`{"max_tokens":10,"messages":[{"content":[{"text":"b","type":"text"}],"role":"user"}],"model":"m","system":[{"text":"a","type":"text"}]}`, ""},
		{"two system blocks, the second marked", Request{Model: "m", MaxTokens: 10, Breakpoint: 2,
			Turns: []Turn{{"system", "a"}, {"system", "b"}, {"user", "c"}}},
			`{"max_tokens":10,"messages":[{"content":[{"text":"c","type":"text"}],"role":"user"}],"model":"m",` +
				`"system":[{"text":"a","type":"text"},{"cache_control":{"type":"ephemeral"},"text":"b","type":"text"}]}`, ""},
		{"an assistant turn marked", Request{Model: "m", MaxTokens: 1, Breakpoint: 2, Temperature: new(0.5),
			Turns: []Turn{{"user", "q"}, {"assistant", "r"}, {"user", "s"}}, Schema: json.RawMessage(`{"type":"object"}`)},
			`{"max_tokens":1,"messages":[{"content":[{"text":"q","type":"text"}],"role":"user"},` +
				`{"content":[{"cache_control":{"type":"ephemeral"},"text":"r","type":"text"}],"role":"assistant"},` +
				`{"content":[{"text":"s","type":"text"}],"role":"user"}],"model":"m",` +
				`"output_config":{"format":{"schema":{"type":"object"},"type":"json_schema"}},"temperature":0.5}`, ""},
		{"the rule after the cached chunk", Request{Model: "m", MaxTokens: 10, Breakpoint: 2,
			Turns: []Turn{{"system", "instructions"}, {"user", "chunk"}, {"system", "rule"}}},
			`{"max_tokens":10,"messages":[{"content":[{"cache_control":{"type":"ephemeral"},"text":"chunk","type":"text"}],"role":"user"},` +
				`{"content":[{"text":"rule","type":"text"}],"role":"user"}],"model":"m","system":[{"text":"instructions","type":"text"}]}`, ""},
		{"an unknown role", Request{Model: "m", MaxTokens: 1, Turns: []Turn{{"tool", "x"}}}, "",
			`message 1: expected role system, user or assistant, found "tool"`},
		{"a schema that is not an object", Request{Model: "m", MaxTokens: 1, Turns: []Turn{{"user", "x"}}, Schema: json.RawMessage(`[1]`)}, "",
			"the response schema: expected a JSON object, found [1]"},
	}
	for _, tt := range tests {
		p, err := Params(tt.req)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		_ = json.Unmarshal(b, &v)
		sorted, _ := json.Marshal(v)
		if string(sorted) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, sorted, tt.want)
		}
	}
}

// TestTokens: every prompt token in Input, negative counts as 0, no overflow.
func TestTokens(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		u    Usage
		want Tokens
	}{
		{Usage{InputTokens: 7, OutputTokens: 2, CacheReadInputTokens: 1054}, Tokens{Input: 1061, Output: 2, Cached: 1054}},
		{Usage{InputTokens: 7, OutputTokens: 2, CacheCreationInputTokens: 1054}, Tokens{Input: 1061, Output: 2, CacheWrite: 1054}},
		{Usage{InputTokens: -5, CacheReadInputTokens: -1, CacheCreationInputTokens: 3}, Tokens{Input: 3, CacheWrite: 3}},
		{Usage{InputTokens: math.MaxInt64, CacheReadInputTokens: math.MaxInt64, CacheCreationInputTokens: 9},
			Tokens{Input: math.MaxInt64, Cached: math.MaxInt64}},
	} {
		if got := tt.u.Tokens(); got != tt.want {
			t.Errorf("%+v.Tokens() = %+v, want %+v", tt.u, got, tt.want)
		}
	}
}
