package llm_test

import (
	"testing"

	"github.com/vectorlint/vectorlint/llm"
)

func TestRedactURL(t *testing.T) {
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
		if got := llm.RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
