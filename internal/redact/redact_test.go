package redact

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"
)

func TestText(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		secrets []string
		want    string
	}{
		{"Incorrect API key provided: sk-proj-abcdefgh12345678.", nil, "Incorrect API key provided: [redacted]."},
		{"key sk-ant-api03-XYZxyz0123456789 used", nil, "key [redacted] used"},
		{"google AIzaSyA1234567890abcdefghijklmn", nil, "google [redacted]"},
		{"Authorization: Bearer abc.def-ghi_jkl", nil, "Authorization: Bearer [redacted]"},
		{`{"api_key": "0123456789abcdef"}`, nil, `{"api_key": "[redacted]"}`},
		{"https://x.example/v1?key=0123456789abcdef&alt=json", nil, "https://x.example/v1?key=[redacted]&alt=json"},
		{"my-custom-secret-value leaked", []string{"my-custom-secret-value"}, "[redacted] leaked"},
		{"short abc stays", []string{"abc"}, "short abc stays"},
		{"the sk- prefix alone and max_tokens: 4096 stay", nil, "the sk- prefix alone and max_tokens: 4096 stay"},
	}
	for _, tt := range tests {
		if got := Text(tt.in, tt.secrets...); got != tt.want {
			t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestURL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"https://api.openai.com/v1", "https://api.openai.com/v1"},
		{"http://localhost:11434/v1", "http://localhost:11434/v1"},
		{"https://user:hunter22@proxy.example/v1", "https://user:[redacted]@proxy.example/v1"},
		{"https://user@proxy.example/v1", "https://user@proxy.example/v1"},
		{"https://h/v1?api_key=abc123&format=json", "https://h/v1?api_key=[redacted]&format=json"},
		{"https://h/x?key=k1&sig=s2&X-Amz-Signature=s3&access_token=t4#frag", "https://h/x?key=[redacted]&sig=[redacted]&X-Amz-Signature=[redacted]&access_token=[redacted]#frag"},
		{"ftp://u:p@h:99999/%zz?token=t", "ftp://u:[redacted]@h:99999/%zz?token=[redacted]"},
		{"not a url", "not a url"},
	} {
		if got := URL(tc.in); got != tc.want {
			t.Errorf("URL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestSecretFormatting: a Secret prints as "[redacted]" with every fmt verb, in JSON and in
// slog; an empty one stays empty, so "no key" is visible.
func TestSecretFormatting(t *testing.T) {
	t.Parallel()
	const key = "sk-test-0123456789abcdef"
	s := Secret(key)
	var out strings.Builder
	fmt.Fprintf(&out, "%v|%+v|%s|%q|%x|%X|%#v|%d|%10s|", s, s, s, s, s, s, s, s, s)
	b, err := json.Marshal(struct{ K Secret }{s})
	if err != nil {
		t.Fatal(err)
	}
	out.Write(b)
	slog.New(slog.NewTextHandler(&out, nil)).Info("call", "key", s)
	if strings.Contains(out.String(), "0123456789") {
		t.Fatalf("the key leaked: %s", out.String())
	}
	for _, tt := range []struct{ got, want string }{
		{fmt.Sprint(s), "[redacted]"},
		{fmt.Sprintf("%q", s), `"[redacted]"`},
		{fmt.Sprintf("%#v", s), `"[redacted]"`},
		{string(b), `{"K":"[redacted]"}`},
		{fmt.Sprint(Secret("")), ""},
	} {
		if tt.got != tt.want {
			t.Errorf("got %s, want %s", tt.got, tt.want)
		}
	}
	if !strings.Contains(out.String(), "key=[redacted]") {
		t.Errorf("slog: %s", out.String())
	}
}
