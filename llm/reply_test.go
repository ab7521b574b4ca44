package llm_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
)

func TestExtractJSON(t *testing.T) {
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

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		value string
		want  time.Duration
		ok    bool
	}{
		{"0", 0, true},
		{"7", 7 * time.Second, true},
		{" 120 ", 120 * time.Second, true},
		{"1.5", 1500 * time.Millisecond, true},
		{"Sat, 01 Mar 2025 12:00:30 GMT", 30 * time.Second, true},
		{"Saturday, 01-Mar-25 12:01:00 GMT", time.Minute, true}, // RFC 850
		{"Sat Mar  1 12:00:05 2025", 5 * time.Second, true},     // ANSI C asctime
		{"Sat, 01 Mar 2025 11:00:00 GMT", 0, true},              // in the past: retry now
		{"", 0, false},
		{"soon", 0, false},
		{"-5", 0, false},
		{"1e400", 0, false},
		{"99999999999", 0, false},
		{"Mon, 01 Mar 2100 12:00:00 GMT", 0, false}, // absurdly far
		{"NaN", 0, false},
	}
	for _, tt := range tests {
		got, ok := llm.ParseRetryAfter(tt.value, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseRetryAfter(f *testing.F) {
	for _, s := range []string{"0", "7", "1.5", "Sat, 01 Mar 2025 12:00:30 GMT", "", "-1", "1e9", ".", "9.9e-400"} {
		f.Add(s)
	}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := llm.ParseRetryAfter(s, now)
		if d < 0 || d > 366*24*time.Hour {
			t.Fatalf("ParseRetryAfter(%q) = %v, out of range", s, d)
		}
		if !ok && d != 0 {
			t.Fatalf("ParseRetryAfter(%q) = %v with ok=false", s, d)
		}
		if tm, err := http.ParseTime(s); err == nil && s == strings.TrimSpace(s) && tm.Sub(now) < 300*24*time.Hour && !ok {
			t.Fatalf("ParseRetryAfter rejected the valid HTTP-date %q", s)
		}
	})
}
