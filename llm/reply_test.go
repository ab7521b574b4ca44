package llm_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
)

func TestExtractJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, reply, want, wantErr string
	}{
		{name: "bare object", reply: `{"violations": []}`, want: `{"violations": []}`},
		{name: "surrounding space", reply: "\n  {\"a\":1}\n\n", want: `{"a":1}`},
		{name: "json fence", reply: "```json\n{\"a\": 1}\n```", want: `{"a": 1}`},
		{name: "bare fence", reply: "```\n{\"a\": 1}\n```\n", want: `{"a": 1}`},
		{name: "JSON fence with prose", reply: "Here is my review:\n\n```JSON\n{\"a\": [1, 2]}\n```\nHope it helps!",
			want: `{"a": [1, 2]}`},
		{name: "fence on one line", reply: "```{\"a\":1}```", want: `{"a":1}`},
		{name: "json on the fence line", reply: "```{\"a\":1}\n```", want: `{"a":1}`},
		{name: "second fence is the JSON", reply: "```text\nnot json\n```\n```json\n{\"b\":2}\n```", want: `{"b":2}`},
		{name: "embedded in prose", reply: `Sure! {"criteria": [{"id": "X", "score": 3}]} Let me know.`,
			want: `{"criteria": [{"id": "X", "score": 3}]}`},
		{name: "object preferred to a citation", reply: `As noted [1], the answer is {"ok": true}.`, want: `{"ok": true}`},
		{name: "array when no object", reply: `Result: [1, 2, 3]`, want: `[1, 2, 3]`},
		{name: "think block", reply: "<think>\nThe user wants {JSON}.\n</think>\n{\"a\": 1}", want: `{"a": 1}`},
		{name: "bare array", reply: `[{"a":1}]`, want: `[{"a":1}]`},
		{name: "empty", reply: "  \n", wantErr: "expected a JSON object, found an empty reply"},
		{name: "prose", reply: "I cannot help with that.", wantErr: `expected a JSON object, found text without JSON: "I cannot help with that."`},
		{name: "truncated", reply: `{"violations": [{"line": 3, "quoted_text": "in ord`,
			wantErr: "expected complete JSON, found JSON cut off after 50 characters (the reply may have hit the token limit)"},
		{name: "truncated in a fence", reply: "```json\n{\"violations\": [",
			wantErr: "expected complete JSON, found JSON cut off after 16 characters (the reply may have hit the token limit)"},
		{name: "syntax error", reply: `{"a": 1,, "b": 2}`,
			wantErr: `expected valid JSON, found invalid character ',' looking for beginning of object key string at character 9, near "{\"a\": 1,,"`},
		{name: "single quotes", reply: `{'a': 1}`,
			wantErr: `expected valid JSON, found invalid character '\'' looking for beginning of object key string at character 2, near "{'"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llm.ExtractJSON(tt.reply)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ExtractJSON(%q) error:\n got %v\nwant %s", tt.reply, err, tt.wantErr)
				}
				var pe *llm.ReplyParseError
				if !errors.As(err, &pe) {
					t.Fatalf("error is %T, want *ReplyParseError", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ExtractJSON(%q) = %q, %v; want %q", tt.reply, got, err, tt.want)
			}
		})
	}
}

func FuzzExtractJSON(f *testing.F) {
	for _, s := range []string{`{"a":1}`, "```json\n{\"a\":1}\n```", "text {\"a\": [1,2]} more", "<think>x</think>[1]",
		"```", "```json\n{", `{"a":`, "{{{{[[[[", `"string"`, "[1] {\"b\":2}", "<think>", "\xff{\"a\":1}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := llm.ExtractJSON(s)
		if err != nil {
			var pe *llm.ReplyParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ReplyParseError", err)
			}
			return
		}
		if !json.Valid([]byte(got)) {
			t.Fatalf("ExtractJSON(%q) = %q, which is not valid JSON", s, got)
		}
	})
}
