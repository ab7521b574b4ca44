package llmtest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestPerRule: one rule's request is answered {"violations": …}; a request of several rules
// {"rules": […]} per `<rule id=…>` block, in order, leaving out the rules answer refuses; the
// rules may be in a system message (chat) or the last user message (Anthropic).
func TestPerRule(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.WithDefault(llmtest.PerRule(func(rule string) ([]any, bool) {
		switch {
		case strings.Contains(rule, "Skip me."):
			return nil, false
		case strings.Contains(rule, "Find X."):
			return []any{"x"}, true
		}
		return nil, true
	})))
	for _, tt := range []struct{ name, path, body, want string }{
		{"one rule", "/v1/chat/completions", `{"model":"m","messages":[{"role":"system","content":"a"},{"role":"user","content":"1\ttext"},{"role":"system","content":"<rule name=\"X\">\nFind X.\n</rule>"}]}`,
			`{"violations":["x"]}`},
		{"several, chat", "/v1/chat/completions", `{"model":"m","messages":[{"role":"system","content":"a"},{"role":"user","content":"1\ttext"},{"role":"system","content":"Report.\n\n<rule id=\"P.Y\" name=\"Y\">\nFind Y.\n</rule>\n\n<rule id=\"P.Z\" name=\"Z\">\nSkip me.\n</rule>\n\n<rule id=\"P.X\" name=\"X\">\nFind X.\n</rule>"}]}`,
			`{"rules":[{"rule":"P.Y","violations":[]},{"rule":"P.X","violations":["x"]}]}`},
		{"several, anthropic", "/v1/messages", `{"model":"m","max_tokens":10,"system":"a","messages":[{"role":"user","content":"1\ttext"},{"role":"user","content":"<rule id=\"P.X\" name=\"X\">\nFind X.\n</rule>"}]}`,
			`{"rules":[{"rule":"P.X","violations":["x"]}]}`},
	} {
		resp, err := http.Post(s.URL+strings.TrimPrefix(tt.path, "/v1"), "application/json", strings.NewReader(tt.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !strings.Contains(string(b), strings.ReplaceAll(tt.want, `"`, `\"`)) {
			t.Errorf("%s: reply %s, want content %s", tt.name, b, tt.want)
		}
	}
}
