package llm_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

const headerSecret = "hdr-secret-value-98765"

// leaks returns the secrets found in text.
func leaks(text string) []string {
	var found []string
	for _, s := range []string{testKey, "Zq8mW3vX9pL2kR7tY4nB6cD1", headerSecret, "url-password-123"} {
		if strings.Contains(text, s) {
			found = append(found, s)
		}
	}
	return found
}

// echo is a reply that quotes every request header back in an error or a message, as careless
// servers and proxies do.
func echo(status int) llmtest.Reply {
	return llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		var h []string
		for k, v := range r.Header {
			h = append(h, k+": "+strings.Join(v, ","))
		}
		msg := "Incorrect API key provided: " + testKey + ". Headers: " + strings.Join(h, "; ")
		if status == 200 {
			return llmtest.Text(msg)
		}
		b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg}})
		return llmtest.Status(status, string(b))
	})
}

func TestSecretsNeverLeak(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("unauthorized"), echo(401))
	s.On(llmtest.UserContains("flaky"), echo(500), echo(500), llmtest.Text("ok"))
	s.On(llmtest.UserContains("reply"), echo(200))
	s.On(llmtest.UserContains("html"), llmtest.Reply{Body: "<html>key=" + testKey + "</html>", ContentType: "text/html"})

	dir := t.TempDir()
	var log eventLog
	cfg := fastConfig()
	cfg.CacheDir = dir
	cfg.OnEvent = log.add
	c := newClient(t, cfg)
	ep := endpointOf(s)
	ep.Headers = map[string]string{"X-Custom-Auth": headerSecret}
	ep.BaseURL = strings.Replace(s.URL, "http://", "http://user:url-password-123@", 1)

	var texts []string
	for _, what := range []string{"unauthorized", "flaky", "reply", "html"} {
		req := llm.Request{Endpoint: ep, Messages: []llm.Message{{Role: llm.RoleUser, Content: what}}}
		resp, err := c.Complete(context.Background(), req)
		if err != nil {
			texts = append(texts, err.Error(), fmt.Sprintf("%v %+v %#v", err, err, err))
		}
		_ = resp
		// The checked path quotes the reply in its error.
		_, err = c.CompleteJSON(context.Background(), req, nil)
		if err != nil {
			texts = append(texts, err.Error())
		}
	}
	if len(texts) < 3 {
		t.Fatalf("expected several errors, got %q", texts)
	}
	for _, e := range log.events {
		texts = append(texts, e.String(), fmt.Sprintf("%+v", e))
	}
	for _, f := range cacheFiles(t, dir) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		// The echoing server put the key and the header secret in a successful reply: they are
		// redacted before the reply is stored (docs/security.md).
		if found := leaks(string(data)); len(found) > 0 {
			t.Errorf("cache file %s holds %q", f, found)
		}
	}
	for _, text := range texts {
		if found := leaks(text); len(found) > 0 {
			t.Errorf("secret %q leaked in: %s", found, text)
		}
	}
	// The first error is the 401, with the server's message redacted but still readable.
	host := strings.TrimPrefix(strings.TrimSuffix(s.URL, "/v1"), "http://")
	if !strings.HasPrefix(texts[0], "llm: "+host+" (openai-compatible) rejected the API key: HTTP 401 Unauthorized: Incorrect API key provided: [redacted]. Headers: ") {
		t.Errorf("401 error text: %s", texts[0])
	}
}

func TestCacheFilesHoldNoRequestSecrets(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("a plain answer"))
	dir := t.TempDir()
	cfg := fastConfig()
	cfg.CacheDir = dir
	c := newClient(t, cfg)
	ep := endpointOf(s)
	ep.Headers = map[string]string{"X-Custom-Auth": headerSecret}
	if _, err := c.Complete(context.Background(), llm.Request{Endpoint: ep, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Embed(context.Background(), ep, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	files := cacheFiles(t, dir)
	if len(files) != 2 {
		t.Fatalf("files %v", files)
	}
	for _, f := range files {
		data, _ := os.ReadFile(f)
		if found := leaks(string(data)); len(found) > 0 || strings.Contains(string(data), "sk-") {
			t.Errorf("cache file %s holds %q", f, found)
		}
	}
}

func TestEndpointFormattingHidesKey(t *testing.T) {
	t.Parallel()
	ep := llm.Endpoint{Provider: "openai", BaseURL: "https://api.openai.com/v1", APIKey: testKey, Model: "gpt-4o",
		Headers: map[string]string{"X-Custom-Auth": headerSecret}}
	var out strings.Builder
	fmt.Fprintf(&out, "%v|%+v|%#v|%s|", ep, ep, ep, ep)
	fmt.Fprintf(&out, "%v|%s|%q|%x|%#v|%d|", ep.APIKey, ep.APIKey, ep.APIKey, ep.APIKey, ep.APIKey, ep.APIKey)
	b, _ := json.Marshal(ep)
	out.Write(b)
	b, _ = json.Marshal(struct{ K redact.Secret }{ep.APIKey})
	out.Write(b)
	h := slog.NewTextHandler(&out, nil)
	slog.New(h).Info("endpoint", "key", ep.APIKey, "ep", ep)
	if found := leaks(out.String()); len(found) > 0 {
		t.Fatalf("leaked %q in %s", found, out.String())
	}
	if got := fmt.Sprint(ep); got != "gpt-4o at api.openai.com (openai)" {
		t.Fatalf("String() = %q", got)
	}
	if got := fmt.Sprintf("%q", ep.APIKey); got != `"[redacted]"` {
		t.Fatalf("%%q of a key = %s", got)
	}
}
