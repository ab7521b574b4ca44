package llm_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The rules of docs/security.md ("Redirects, proxies and echoed keys") on the model client,
// for every shape it speaks: a redirect is followed only within one origin, no Referer is
// sent, and a key echoed in a successful reply is redacted before the reply is returned or
// cached.

// otherHost is a real server that logs every request, whatever its path: the host a redirect
// points at.
type otherHost struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []string // "METHOD path headers"
}

func startOther(t *testing.T) *otherHost {
	t.Helper()
	o := &otherHost{}
	o.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		o.mu.Lock()
		o.log = append(o.log, fmt.Sprintf("%s %s %v", r.Method, r.URL, r.Header))
		o.mu.Unlock()
		fmt.Fprint(w, `{"choices":[{"message":{"role":"assistant","content":"stolen"}}]}`)
	}))
	t.Cleanup(o.srv.Close)
	return o
}

func (o *otherHost) requests() []string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]string(nil), o.log...)
}

// port is the other host's port.
func (o *otherHost) port() string { return o.srv.URL[strings.LastIndex(o.srv.URL, ":")+1:] }

// redirectShape is one way the client calls a model, with the key where that API puts it.
type redirectShape struct {
	name string
	// op is the operation's name in errors; call makes the call against s.
	op   string
	call func(c *llm.Client, s *llmtest.Server) (*llm.Response, error)
}

func redirectShapes() []redirectShape {
	msgs := []llm.Message{{Role: llm.RoleUser, Content: "hi"}}
	gen := func(api llm.API, path string) func(c *llm.Client, s *llmtest.Server) (*llm.Response, error) {
		return func(c *llm.Client, s *llmtest.Server) (*llm.Response, error) {
			ep := llm.Endpoint{APIKey: testKey, Model: "test-model", Headers: map[string]string{"X-Custom-Token": headerSecret}}
			url := ""
			if path != "" {
				url = strings.TrimSuffix(s.URL, "/v1") + path
			} else {
				ep.BaseURL = s.URL
			}
			return c.Generate(context.Background(), llm.GenerateRequest{Endpoint: ep, URL: url, API: api, Messages: msgs, MaxTokens: 100, NoCache: true})
		}
	}
	return []redirectShape{
		{"openai chat (openai-go)", "chat completion", func(c *llm.Client, s *llmtest.Server) (*llm.Response, error) {
			return c.Complete(context.Background(), llm.Request{Endpoint: endpointOf(s), Messages: msgs, NoCache: true})
		}},
		{"azure chat (api-key, api-version)", "chat completion", func(c *llm.Client, s *llmtest.Server) (*llm.Response, error) {
			ep := llm.Endpoint{Provider: "azure-openai", BaseURL: strings.TrimSuffix(s.URL, "/v1"), APIKey: testKey,
				Model: "test-model", APIVersion: "2024-10-21"}
			return c.Complete(context.Background(), llm.Request{Endpoint: ep, Messages: msgs, NoCache: true})
		}},
		{"embeddings (openai-go)", "embeddings", func(c *llm.Client, s *llmtest.Server) (*llm.Response, error) {
			_, err := c.Embed(context.Background(), endpointOf(s), []string{"a"})
			return nil, err
		}},
		{"anthropic messages (x-api-key)", "messages", gen(llm.APIAnthropic, "")},
		{"gemini generateContent (x-goog-api-key)", "generateContent", gen(llm.APIGemini, "")},
		{"custom model url with the key in its query", "chat completion", gen(llm.APIChat, "/v1/chat/completions?key="+testKey)},
		{"completions", "completion", gen(llm.APICompletions, "")},
	}
}

// TestRedirectToAnotherHostRefused: a trusted server answering any redirect status towards
// another host fails the call at once (no retry), with a message naming both origins and no
// key; the other host gets nothing, whether the client made its own HTTP client or was given
// one.
func TestRedirectToAnotherHostRefused(t *testing.T) {
	t.Parallel()
	other := startOther(t)
	for _, given := range []bool{false, true} {
		for _, code := range []int{301, 302, 303, 307, 308} {
			for _, sh := range redirectShapes() {
				t.Run(fmt.Sprintf("%s %d given %v", sh.name, code, given), func(t *testing.T) {
					t.Parallel()
					s := llmtest.Start(t)
					// The other host is reached by another name (localhost, not 127.0.0.1) on its
					// own port, and receives the path and query, key and all, if followed.
					s.On(llmtest.Any(), llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
						return llmtest.Redirect(code, "http://localhost:"+other.port()+r.Path+"?"+r.Query)
					}))
					cfg := fastConfig()
					if given {
						cfg.HTTPClient = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
					}
					c := newClient(t, cfg)
					before := len(other.requests())
					_, err := sh.call(c, s)
					if n := len(other.requests()) - before; n != 0 {
						t.Fatalf("the other host got %d requests: %v", n, other.requests())
					}
					from, to := "http://"+hostOf(s.URL), "http://localhost:"+other.port()
					want := fmt.Sprintf("llm: %s with test-model at %s: %s redirected the request to %s: a request that may carry a key "+
						"follows a redirect only to the same scheme, host and port, so nothing was sent to %s", sh.op, hostOf(s.URL), from, to, to)
					var apiErr *llm.APIError
					if err == nil || err.Error() != want || !errors.As(err, &apiErr) || apiErr.Kind != llm.KindRedirect || apiErr.Attempts != 1 || apiErr.Retryable() {
						t.Fatalf("error\n%v\nwant\n%s (a KindRedirect after 1 attempt)", err, want)
					}
					if n := len(s.Requests()); n != 1 {
						t.Errorf("the server got %d requests, want 1 (a refused redirect is not retried)", n)
					}
				})
			}
		}
	}
}

// TestSameOriginRedirectFollowed is the positive control: a 307 or 308 to another path of the
// same server is followed, key included and without a Referer, and the reply is the one a
// direct call gets.
func TestSameOriginRedirectFollowed(t *testing.T) {
	t.Parallel()
	for _, code := range []int{307, 308} {
		for _, sh := range redirectShapes() {
			t.Run(fmt.Sprintf("%s %d", sh.name, code), func(t *testing.T) {
				t.Parallel()
				s := llmtest.Start(t)
				// Everything under /v1 moves to the root: /v1/chat/completions → /chat/completions.
				s.On(func(r *llmtest.Request) bool { return strings.HasPrefix(r.Path, "/v1/") },
					llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
						return llmtest.Redirect(code, strings.TrimPrefix(r.Path, "/v1")+"?"+r.Query)
					}))
				s.SetDefault(llmtest.Text("Paris."))
				c := newClient(t, fastConfig())
				if strings.HasPrefix(sh.name, "azure") {
					// Azure's paths have no /v1: move /openai/… instead.
					s.On(func(r *llmtest.Request) bool {
						return strings.HasPrefix(r.Path, "/openai/") && !strings.Contains(r.Query, "moved=1")
					},
						llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
							return llmtest.Redirect(code, "http://"+hostOf(s.URL)+"/openai/deployments/test-model/chat/completions?moved=1&"+r.Query)
						}))
				}
				resp, err := sh.call(c, s)
				if err != nil {
					t.Fatal(err)
				}
				if resp != nil && resp.Content != "Paris." {
					t.Errorf("content %q", resp.Content)
				}
				reqs := s.Requests()
				if len(reqs) < 2 {
					t.Fatalf("%d requests: the redirect was not followed", len(reqs))
				}
				second := reqs[len(reqs)-1]
				if second.Header.Get("Referer") != "" {
					t.Errorf("Referer %q sent", second.Header.Get("Referer"))
				}
				keyed := false
				for _, h := range []string{"Authorization", "Api-Key", "X-Api-Key", "X-Goog-Api-Key"} {
					keyed = keyed || strings.Contains(second.Header.Get(h), testKey)
				}
				if !keyed {
					t.Errorf("the key was not sent after a same-origin redirect: %v", second.Header)
				}
			})
		}
	}
}

// TestEchoedKeyRedactedInReplies: a model that repeats the key, a credential header or a value
// the caller marked secret in a successful reply has it redacted in the Response, in the JSON
// of CompleteJSON and in the cache (also when the reply comes back from the cache); a reply
// without one — even one with key-shaped text that is not a key, or a header value that is no
// credential — is returned exactly as the server wrote it.
func TestEchoedKeyRedactedInReplies(t *testing.T) {
	t.Parallel()
	const envSecret = "env-filled-secret-4242"
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("echo text"), llmtest.Text("Your key is "+testKey+", your token "+headerSecret+" and "+envSecret+"."))
	s.On(llmtest.UserContains("echo json"), llmtest.JSON(map[string]any{"message": "key " + testKey}))
	plain := "Example: sk-not-the-key-0123456789 and Bearer abcdefghijkl, api_key=abcdefgh1234; from the Docs team."
	s.On(llmtest.UserContains("plain"), llmtest.Text(plain))
	dir := t.TempDir()
	cfg := fastConfig()
	cfg.CacheDir = dir
	c := newClient(t, cfg)
	ep := endpointOf(s)
	ep.Headers = map[string]string{"X-Custom-Auth": headerSecret, "X-Title": "Docs team"}
	ep.Secrets = []redact.Secret{envSecret}
	req := func(text string) llm.Request {
		return llm.Request{Endpoint: ep, Messages: []llm.Message{{Role: llm.RoleUser, Content: text}}}
	}
	for _, cached := range []bool{false, true} {
		resp, err := c.Complete(context.Background(), req("echo text"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "Your key is [redacted], your token [redacted] and [redacted]."; resp.Content != want || resp.Cached != cached {
			t.Errorf("cached %v: content %q, want %q", resp.Cached, resp.Content, want)
		}
		resp, err = c.CompleteJSON(context.Background(), req("echo json"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.JSON != `{"message":"key [redacted]"}` {
			t.Errorf("cached %v: JSON %s", cached, resp.JSON)
		}
		resp, err = c.Complete(context.Background(), req("plain"))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Content != plain {
			t.Errorf("cached %v: a reply without a secret changed:\n%q\nwant\n%q", cached, resp.Content, plain)
		}
	}
	if n := s.Calls(); n != 3 {
		t.Errorf("%d calls, want 3 (the second round from the cache)", n)
	}
	files := cacheFiles(t, dir)
	if len(files) == 0 {
		t.Fatal("nothing cached")
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, secret := range []string{testKey, headerSecret, envSecret} {
			if strings.Contains(string(data), secret) {
				t.Errorf("cache file %s holds %q", f, secret)
			}
		}
	}
}

// TestEchoedKeyRedactedInGenerate: the same in every shape Generate speaks, for the key in its
// header and for a key in the URL's query.
func TestEchoedKeyRedactedInGenerate(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("echo " + testKey + " / " + headerSecret + " / url-query-key-777"))
	c := newClient(t, fastConfig())
	for _, api := range []llm.API{llm.APIChat, llm.APICompletions, llm.APIAnthropic, llm.APIGemini} {
		ep := llm.Endpoint{APIKey: testKey, Model: "m", Headers: map[string]string{"Authorization": "Bearer " + headerSecret}}
		url := strings.TrimSuffix(s.URL, "/v1")
		switch api {
		case llm.APIChat:
			url += "/v1/chat/completions?key=url-query-key-777"
		case llm.APICompletions:
			url += "/v1/completions?key=url-query-key-777"
		case llm.APIAnthropic:
			url += "/v1/messages?key=url-query-key-777"
		case llm.APIGemini:
			url += "/v1beta/models/m:generateContent?key=url-query-key-777"
		}
		resp, err := c.Generate(context.Background(), llm.GenerateRequest{Endpoint: ep, URL: url, API: api,
			Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}, MaxTokens: 100, NoCache: true})
		if err != nil {
			t.Fatalf("%s: %v", api, err)
		}
		if resp.Content != "echo [redacted] / [redacted] / [redacted]" {
			t.Errorf("%s: content %q", api, resp.Content)
		}
	}
}

// TestNoRefererSent: an endpoint header named Referer is not sent (the header may hold a URL
// with a key); OpenRouter's HTTP-Referer is.
func TestNoRefererSent(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	req := userRequest(s, "x")
	req.Endpoint.Headers = map[string]string{"Referer": "https://example.test/?key=" + testKey, "HTTP-Referer": "https://vectorlint.dev"}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	h := s.Requests()[0].Header
	if _, ok := h["Referer"]; ok || h.Get("HTTP-Referer") != "https://vectorlint.dev" {
		t.Errorf("headers %v", h)
	}
}

// TestLoopbackNeverProxied: the client's proxy is not used for any host the trust rule treats
// as loopback, whatever its spelling; any other host goes through it. The proxy is a real one
// that logs what it is asked for and forwards it.
func TestLoopbackNeverProxied(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	var mu sync.Mutex
	var proxied []string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		proxied = append(proxied, r.Host)
		mu.Unlock()
		out := r.Clone(r.Context())
		out.RequestURI, out.URL.Host = "", hostOf(s.URL)
		res, err := (&http.Transport{}).RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer res.Body.Close()
		for k, v := range res.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(res.StatusCode)
		_, _ = io.Copy(w, res.Body)
	}))
	t.Cleanup(proxy.Close)
	proxyURL, err := url.Parse(proxy.URL)
	if err != nil {
		t.Fatal(err)
	}
	port := hostOf(s.URL)[strings.LastIndex(hostOf(s.URL), ":")+1:]
	// A given client with a proxy for every request, as http.ProxyURL is: the client's copy
	// skips loopback hosts. Its dialer maps every loopback spelling to 127.0.0.1 (the system
	// resolver knows neither "localhost." nor, everywhere, 127.0.0.2); models.test is reached
	// through the proxy, which forwards it to the fake server.
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = http.ProxyURL(proxyURL)
	tr.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, p, _ := net.SplitHostPort(addr); safehttp.IsLoopback(host) {
			addr = net.JoinHostPort("127.0.0.1", p)
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	c := newClient(t, llm.Config{HTTPClient: &http.Client{Transport: tr}, MaxAttempts: 1})
	for _, host := range []string{"LOCALHOST", "localhost.", "LocalHost.", "localhost", "127.0.0.1", "127.0.0.2", "[::1]", "models.test"} {
		mu.Lock()
		proxied = nil
		mu.Unlock()
		ep := endpointOf(s)
		ep.BaseURL = "http://" + host + ":" + port + "/v1"
		_, err := c.Complete(context.Background(), llm.Request{Endpoint: ep, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, NoCache: true})
		mu.Lock()
		got := append([]string(nil), proxied...)
		mu.Unlock()
		if host == "models.test" {
			if err != nil || len(got) != 1 || got[0] != "models.test:"+port {
				t.Errorf("%s: %v; proxied %v, want the request through the proxy", host, err, got)
			}
			continue
		}
		if len(got) != 0 || err != nil {
			t.Errorf("%s: %v; the proxy was asked for %v, want a direct call", host, err, got)
		}
	}
}
