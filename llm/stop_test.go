package llm_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/runwide"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// runCalls makes n calls with requests built by req, at once, and returns their errors.
func runCalls(c *llm.Client, n int, req func(i int) llm.Request) []error {
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Complete(context.Background(), req(i))
		}()
	}
	wg.Wait()
	return errs
}

// hostOf is the host:port of a server's URL.
func hostOf(url string) string {
	url = strings.TrimSuffix(url, "/v1")
	return url[strings.Index(url, "://")+3:]
}

// TestStopAfterStatus: after a 401, 403 or 404 no new request is started. Forty calls with a
// concurrency of 4: at most the 4 already in flight reached the server, every call failed with
// the same *StopError (which still unwraps to the first call's *APIError), and Stopped lists it
// once.
func TestStopAfterStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status int
		body   string
		reason llm.StopReason
		want   string
		cause  string
	}{
		{401, `{"error":{"message":"Incorrect API key provided."}}`, llm.StopUnauthorized,
			"llm: HOST (openai-compatible) rejected the API key: HTTP 401 Unauthorized: Incorrect API key provided.; set OPENAI_API_KEY to a valid key",
			"HTTP 401 Unauthorized from HOST"},
		{403, `{"error":{"message":"Project does not have access to model test-model"}}`, llm.StopForbidden,
			"llm: HOST (openai-compatible) refused access to model test-model: HTTP 403 Forbidden: Project does not have access to model test-model; check that the key in OPENAI_API_KEY may use this model, or choose another with OPENAI_MODEL",
			"HTTP 403 Forbidden from HOST"},
		{404, `{"error":{"message":"The model 'test-model' does not exist"}}`, llm.StopNotFound,
			"llm: HOST (openai-compatible) has no model test-model or no such endpoint: HTTP 404 Not Found: The model 'test-model' does not exist; check the model name in OPENAI_MODEL and the URL in OPENAI_BASE_URL",
			"HTTP 404 Not Found for model test-model at HOST"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			s := llmtest.Start(t)
			reply := llmtest.Status(tt.status, tt.body)
			reply.Latency = 20 * time.Millisecond
			s.SetDefault(reply)
			cfg := fastConfig()
			cfg.Concurrency = 4
			c := newClient(t, cfg)
			errs := runCalls(c, 40, func(i int) llm.Request { return userRequest(s, fmt.Sprintf("text %d", i)) })
			if n := s.Calls(); n < 1 || n > 4 {
				t.Errorf("the server got %d requests, want 1 to 4 (those in flight when the first failed)", n)
			}
			stopped := c.Stopped()
			if len(stopped) != 1 {
				t.Fatalf("Stopped() = %v, want one error", stopped)
			}
			host := hostOf(s.URL)
			for i, err := range errs {
				var se *llm.StopError
				var apiErr *llm.APIError
				if !errors.As(err, &se) || se != stopped[0] || !errors.Is(err, runwide.ErrStopped) ||
					!errors.As(err, &apiErr) || apiErr.Status != tt.status {
					t.Fatalf("call %d: error %v, want the recorded *StopError", i, err)
				}
			}
			se := stopped[0]
			if se.Reason != tt.reason || se.Host != host || se.Model != "test-model" || se.Status != tt.status {
				t.Errorf("stop %+v", se)
			}
			if got, want := se.Error(), strings.ReplaceAll(tt.want, "HOST", host); got != want {
				t.Errorf("message\n got %s\nwant %s", got, want)
			}
			if got, want := se.Cause(), strings.ReplaceAll(tt.cause, "HOST", host); got != want {
				t.Errorf("cause %q, want %q", got, want)
			}
			// A later call fails at once, without a request.
			before := s.Calls()
			if _, err := c.Complete(context.Background(), userRequest(s, "later")); !errors.Is(err, runwide.ErrStopped) || s.Calls() != before {
				t.Errorf("a later call: %v, %d requests", err, s.Calls()-before)
			}
		})
	}
}

// Test400StaysPerRequest: a 400 is that request's error; the next calls are made.
func Test400StaysPerRequest(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("too long"), llmtest.Status(400, `{"error":{"message":"context too long"}}`))
	s.SetDefault(llmtest.Text("fine"))
	c := newClient(t, fastConfig())
	if _, err := c.Complete(context.Background(), userRequest(s, "too long")); err == nil || errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("the 400: %v", err)
	}
	errs := runCalls(c, 5, func(i int) llm.Request { return userRequest(s, fmt.Sprintf("short %d", i)) })
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s.Calls() != 6 || len(c.Stopped()) != 0 {
		t.Fatalf("%d requests, stopped %v", s.Calls(), c.Stopped())
	}
}

// TestStopScopes: a stop applies to its scope only. A 404 for one model leaves another model at
// the same server working; a 401 with one key leaves another key at the same server working;
// a refused connection at one host leaves another host working; and a refused connection
// stops every model at that host.
func TestStopScopes(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.ModelIs("gone"), llmtest.Status(404, `{"error":{"message":"no such model"}}`))
	s.SetDefault(llmtest.Text("fine"))
	c := newClient(t, fastConfig())
	gone := userRequest(s, "x")
	gone.Endpoint.Model = "gone"
	if _, err := c.Complete(context.Background(), gone); !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("404: %v", err)
	}
	if _, err := c.Complete(context.Background(), userRequest(s, "x")); err != nil {
		t.Fatalf("another model: %v", err)
	}

	keyed := llmtest.Start(t, llmtest.RequireAPIKey(testKey))
	wrong := userRequest(keyed, "x")
	wrong.Endpoint.APIKey = "sk-wrong-0123456789abcdef"
	if _, err := c.Complete(context.Background(), wrong); !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("401: %v", err)
	}
	if _, err := c.Complete(context.Background(), userRequest(keyed, "x")); err != nil {
		t.Fatalf("the right key at the same server: %v", err)
	}
	if _, err := c.Complete(context.Background(), wrong); !errors.Is(err, runwide.ErrStopped) || keyed.Calls() != 2 {
		t.Fatalf("the wrong key again: %v after %d requests", err, keyed.Calls())
	}

	closed := llmtest.ClosedURL(t)
	dead := userRequest(s, "x")
	dead.Endpoint.BaseURL = closed
	if _, err := c.Complete(context.Background(), dead); !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("refused: %v", err)
	}
	dead.Endpoint.Model = "another-model"
	var se *llm.StopError
	if _, err := c.Complete(context.Background(), dead); !errors.As(err, &se) || se.Reason != llm.StopRefused {
		t.Fatalf("another model at the dead host: %v", err)
	}
	if _, err := c.Complete(context.Background(), userRequest(s, "y")); err != nil {
		t.Fatalf("a live host: %v", err)
	}
	if got := len(c.Stopped()); got != 3 {
		t.Fatalf("Stopped() has %d errors, want 3 (404, 401, refused)", got)
	}
}

// TestStopNetworkFailures: a refused connection, an unresolvable host and failed TLS
// handshakes stop the host after the first call's retries, with a message naming the cause
// and what to check; the other calls stop without a request of their own beyond the retries
// they had started.
func TestStopNetworkFailures(t *testing.T) {
	t.Parallel()
	plain := llmtest.Start(t)
	untrusted := llmtest.Start(t, llmtest.WithTLS())
	tests := []struct {
		name   string
		url    string
		reason llm.StopReason
		want   string
		cause  string
	}{
		{"refused", llmtest.ClosedURL(t), llm.StopRefused,
			"llm: cannot connect to HOST (openai): connection refused (4 attempts); is a server running there? Check --base-url or OPENAI_BASE_URL",
			"connection refused to HOST"},
		{"dns", "http://api.vectorlint-test.invalid/v1", llm.StopDNS,
			"llm: cannot resolve the host of HOST (openai): no such host api.vectorlint-test.invalid (4 attempts); check the host name in --base-url or OPENAI_BASE_URL, and the network",
			"cannot resolve api.vectorlint-test.invalid"},
		{"plain HTTP addressed with https", strings.Replace(plain.URL, "http://", "https://", 1), llm.StopTLS,
			"llm: TLS handshake with HOST (openai) failed: the server answered in plain HTTP, not TLS (4 attempts); the server speaks plain HTTP: use an http:// URL in --base-url or OPENAI_BASE_URL",
			"TLS handshake with HOST failed"},
		{"untrusted certificate", untrusted.URL, llm.StopTLS,
			"llm: TLS handshake with HOST (openai) failed: the server's certificate is not trusted: x509: certificate signed by unknown authority (4 attempts); check the URL in --base-url or OPENAI_BASE_URL; a server with a private certificate must have its authority trusted (SSL_CERT_FILE)",
			"TLS handshake with HOST failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.reason == llm.StopDNS {
				requireNXDOMAIN(t, "api.vectorlint-test.invalid")
			}
			var log eventLog
			cfg := fastConfig()
			cfg.Concurrency = 2
			cfg.OnEvent = log.add
			c := newClient(t, cfg)
			ep := llm.Endpoint{Provider: "openai", BaseURL: tt.url, APIKey: testKey, Model: "m",
				SettingNames: llm.LinterSettingNames("openai", false)}
			errs := runCalls(c, 20, func(i int) llm.Request {
				return llm.Request{Endpoint: ep, Messages: []llm.Message{{Role: llm.RoleUser, Content: fmt.Sprint(i)}}}
			})
			stopped := c.Stopped()
			if len(stopped) != 1 {
				t.Fatalf("Stopped() = %v", stopped)
			}
			for _, err := range errs {
				var se *llm.StopError
				if !errors.As(err, &se) || se != stopped[0] {
					t.Fatalf("error %v, want the recorded stop", err)
				}
			}
			host := ep.Host()
			if got, want := stopped[0].Error(), strings.ReplaceAll(tt.want, "HOST", host); got != want {
				t.Errorf("message\n got %s\nwant %s", got, want)
			}
			if got, want := stopped[0].Cause(), strings.ReplaceAll(tt.cause, "HOST", host); got != want {
				t.Errorf("cause %q, want %q", got, want)
			}
			// Two calls were in flight at most: at most 2 × 4 attempts, then nothing.
			if n := log.count(llm.EventRequest); n < 4 || n > 8 {
				t.Errorf("%d requests, want 4 to 8", n)
			}
			if n := log.count(llm.EventFailure); n < 1 || n > 2 {
				t.Errorf("%d failure events, want one per call that made requests (1 or 2)", n)
			}
		})
	}
	if plain.Calls() != 0 {
		t.Errorf("the plain server answered %d requests over TLS", plain.Calls())
	}
}

// requireNXDOMAIN skips the test unless the machine's resolver answers that host does not exist
// (RFC 6761 reserves .invalid for that); without a resolver the DNS error's text differs.
func requireNXDOMAIN(t *testing.T, host string) {
	t.Helper()
	var dnsErr *net.DNSError
	if _, err := net.LookupHost(host); !errors.As(err, &dnsErr) || !dnsErr.IsNotFound {
		t.Skipf("the resolver does not answer NXDOMAIN for %s (%v): this case needs one", host, err)
	}
}

// TestStopWakesWaitingCalls: a call waiting for a concurrency slot fails as soon as its scope
// stops, while the call holding the slot is still in flight.
func TestStopWakesWaitingCalls(t *testing.T) {
	// Not parallel: a call is given 20 ms to start waiting for its slot.
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("hang"), llmtest.Hang())
	s.On(llmtest.UserContains("deny"), llmtest.Status(401, ""))
	c := newClient(t, fastConfig())
	group := func(text string) llm.Request {
		r := userRequest(s, text)
		r.Endpoint.MaxConcurrency, r.Endpoint.LimitGroup = 1, "one at a time"
		return r
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	hung := make(chan error, 1)
	go func() { _, err := c.Complete(ctx, group("hang")); hung <- err }()
	for s.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	waiting := make(chan error, 1)
	go func() { _, err := c.Complete(context.Background(), group("waits for the slot")); waiting <- err }()
	time.Sleep(20 * time.Millisecond) // it is now waiting for the group's slot
	if _, err := c.Complete(context.Background(), userRequest(s, "deny")); !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("the 401: %v", err)
	}
	select {
	case err := <-waiting:
		if !errors.Is(err, runwide.ErrStopped) {
			t.Fatalf("the waiting call: %v", err)
		}
	case <-time.After(time.Second):
		t.Fatal("the waiting call was not stopped while it waited")
	}
	cancel()
	<-hung
	if s.Calls() != 2 {
		t.Fatalf("%d requests, want 2 (the hung one and the 401)", s.Calls())
	}
}

// TestStopBetweenRetries: a call waiting to retry after a 500 does not make its next attempt
// once another call has stopped the endpoint.
func TestStopBetweenRetries(t *testing.T) {
	// Not parallel: the 403 must stop the endpoint within the retrying call's wait of a second.
	// The 403 is sent once that call has started its wait (its retry event), not after a
	// sleep: with a sleep and a wait of 100 ms, a slow 403 let the retry through.
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("flaky"), llmtest.ServerError())
	s.On(llmtest.UserContains("deny"), llmtest.Status(403, ""))
	cfg := fastConfig()
	cfg.BaseDelay, cfg.MaxDelay = 2*time.Second, 2*time.Second // jitter 0: a wait of 1 s
	waiting := make(chan struct{})
	var once sync.Once
	cfg.OnEvent = func(e llm.Event) {
		if e.Kind == llm.EventRetry {
			once.Do(func() { close(waiting) })
		}
	}
	c := newClient(t, cfg)
	flaky := make(chan error, 1)
	go func() { _, err := c.Complete(context.Background(), userRequest(s, "flaky")); flaky <- err }()
	<-waiting
	if _, err := c.Complete(context.Background(), userRequest(s, "deny")); !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("the 403: %v", err)
	}
	if err := <-flaky; !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("the retrying call: %v", err)
	}
	if s.Calls() != 2 {
		t.Fatalf("%d requests, want 2", s.Calls())
	}
}

// TestStoppedCallsStillReadTheCache: a stop refuses requests, not cached replies.
func TestStoppedCallsStillReadTheCache(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("deny"), llmtest.Status(401, ""))
	s.SetDefault(llmtest.Text("fine"))
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	if _, err := c.Complete(context.Background(), userRequest(s, "cached")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Complete(context.Background(), userRequest(s, "deny")); !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("the 401: %v", err)
	}
	resp, err := c.Complete(context.Background(), userRequest(s, "cached"))
	if err != nil || !resp.Cached || resp.Content != "fine" {
		t.Fatalf("the cached call: %v, %+v", err, resp)
	}
	if _, err := c.Complete(context.Background(), userRequest(s, "new")); !errors.Is(err, runwide.ErrStopped) || s.Calls() != 2 {
		t.Fatalf("a new call: %v after %d requests", err, s.Calls())
	}
}

// TestStopGenerateAndEmbed: Generate and Embed stop like Complete.
func TestStopGenerateAndEmbed(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey(testKey))
	c := newClient(t, fastConfig())
	ep := endpointOf(s)
	ep.APIKey = "sk-wrong-0123456789abcdef"
	_, err := c.Generate(context.Background(), llm.GenerateRequest{Endpoint: ep, API: llm.APIAnthropic,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}, MaxTokens: 5})
	if !errors.Is(err, runwide.ErrStopped) {
		t.Fatalf("Generate: %v", err)
	}
	if _, err := c.Embed(context.Background(), ep, []string{"a"}); !errors.Is(err, runwide.ErrStopped) || s.Calls() != 1 || s.EmbeddingCalls() != 0 {
		t.Fatalf("Embed after the stop: %v (%d requests, %d embeddings)", err, s.Calls(), s.EmbeddingCalls())
	}
}

// TestSettingNamesInFixes: the endpoint's SettingNames name what to change; an endpoint of a
// Weval provider falls back to that provider's variables.
func TestSettingNamesInFixes(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Status(401, ""))
	tests := []struct {
		ep   llm.Endpoint
		want string
	}{
		{llm.Endpoint{Provider: "anthropic", SettingNames: llm.LinterSettingNames("anthropic", true)}, "set ANTHROPIC_API_KEY to a valid key"},
		{llm.Endpoint{Provider: "openrouter"}, "set OPENROUTER_API_KEY to a valid key"},
		{llm.Endpoint{Provider: "google"}, "set GOOGLE_API_KEY or GEMINI_API_KEY to a valid key"},
		{llm.Endpoint{Provider: "perplexity"}, "set PERPLEXITY_API_KEY to a valid key"},
		{llm.Endpoint{SettingNames: llm.SettingNames{Key: "the headers of custom model my-model"}}, "set the headers of custom model my-model to a valid key"},
	}
	for i, tt := range tests {
		c := newClient(t, fastConfig())
		tt.ep.BaseURL, tt.ep.Model, tt.ep.APIKey = s.URL, fmt.Sprint("m", i), testKey
		_, err := c.Complete(context.Background(), llm.Request{Endpoint: tt.ep, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
		var se *llm.StopError
		if !errors.As(err, &se) || se.Fix != tt.want {
			t.Errorf("%v: fix of %v, want %q", tt.ep.Provider, err, tt.want)
		}
	}
	// Without a key, the fix says that none was sent.
	c := newClient(t, fastConfig())
	_, err := c.Complete(context.Background(), llm.Request{Endpoint: llm.Endpoint{Provider: "openai", BaseURL: s.URL, Model: "m",
		SettingNames: llm.LinterSettingNames("openai", true)}, Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}})
	var se *llm.StopError
	if !errors.As(err, &se) || se.Fix != "no API key was sent: set OPENAI_API_KEY" {
		t.Errorf("no key: %v", err)
	}
	if got := llm.LinterSettingNames("openai", true); got != (llm.SettingNames{Key: "OPENAI_API_KEY",
		BaseURL: "--base-url, OPENAI_BASE_URL or BaseURL in vectorlint.ini", Model: "--model, OPENAI_MODEL or Model in vectorlint.ini",
		Timeout: "--timeout or Timeout in vectorlint.ini"}) {
		t.Errorf("LinterSettingNames = %+v", got)
	}
}

// TestCallTimeLimit: a call with all its retries and waits ends within CallTimeoutFactor ×
// the timeout. A server asking to wait longer than the time left fails the call at once.
func TestCallTimeLimit(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.RateLimited("10"))
	cfg := fastConfig()
	cfg.Timeout = 2 * time.Second // a call's limit of 6 s, less than the 10 s asked for
	c := newClient(t, cfg)
	start := time.Now()
	_, err := c.Complete(context.Background(), userRequest(s, "x"))
	// Waiting would have lasted until the call's limit; failing at once takes one local reply.
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Status != http.StatusTooManyRequests || s.Calls() != 1 || time.Since(start) >= 3*cfg.Timeout {
		t.Fatalf("error %v after %d requests and %v", err, s.Calls(), time.Since(start))
	}
	if want := "llm: chat completion with test-model at " + hostOf(s.URL) +
		": HTTP 429 Too Many Requests: Rate limit reached for requests (no time left for another attempt within the call's limit of 6s)"; err.Error() != want {
		t.Fatalf("error\n got %s\nwant %s", err, want)
	}
}

// TestStallReports: while calls hang and none finishes, OnStall hears how many are in flight,
// to which host and for how long, at most once per interval; nothing is reported while calls
// finish.
func TestStallReports(t *testing.T) {
	// Not parallel: it checks the stall reports' intervals of 100 ms.
	s := llmtest.Start(t)
	s.On(llmtest.UserContains("hang"), llmtest.Hang())
	s.SetDefault(llmtest.Text("fine"))
	var mu sync.Mutex
	var stalls []llm.Stall
	full := 0                  // the reports that saw the three hung calls
	twoFull := make(chan bool) // closed at the second of them
	cfg := fastConfig()
	cfg.StallInterval = 100 * time.Millisecond
	cfg.OnStall = func(st llm.Stall) {
		mu.Lock()
		defer mu.Unlock()
		stalls = append(stalls, st)
		if st.Calls == 3 {
			if full++; full == 2 {
				close(twoFull)
			}
		}
	}
	c := newClient(t, cfg)
	for i := range 5 { // quick calls: no report
		if _, err := c.Complete(context.Background(), userRequest(s, fmt.Sprint(i))); err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(150 * time.Millisecond)
	mu.Lock()
	if len(stalls) != 0 {
		t.Fatalf("reports without a stall: %v", stalls)
	}
	mu.Unlock()

	// The hung calls end once two reports have seen all three of them (a fixed 450 ms gave a
	// loaded machine, whose timers fire late, time for one report only). The deadline only
	// keeps a regression from hanging the test.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Complete(ctx, userRequest(s, fmt.Sprint("hang ", i)))
		}()
	}
	select {
	case <-twoFull:
	case <-time.After(time.Minute):
		t.Error("no two reports of the three hung calls within a minute")
	}
	cancel()
	wg.Wait()
	mu.Lock()
	n := len(stalls)
	mu.Unlock()
	time.Sleep(150 * time.Millisecond) // no call in flight: no more reports
	mu.Lock()
	defer mu.Unlock()
	if len(stalls) != n {
		t.Fatalf("reports after every call ended: %v", stalls[n:])
	}
	for _, st := range stalls {
		if st.Calls < 1 || st.Calls > 3 || len(st.Hosts) != 1 || st.Hosts[0] != hostOf(s.URL) || st.Idle < 100*time.Millisecond || st.Oldest < 90*time.Millisecond {
			t.Fatalf("report %+v", st)
		}
	}
	for i := 1; i < len(stalls); i++ {
		if d := stalls[i].Idle - stalls[i-1].Idle; d < 90*time.Millisecond {
			t.Fatalf("reports %+v and %+v came less than an interval apart", stalls[i-1], stalls[i])
		}
	}
	st := llm.Stall{Calls: 8, Hosts: []string{"127.0.0.1:9", "api.openai.com"}, Oldest: 62*time.Second + 400*time.Millisecond, Idle: 1500 * time.Millisecond}
	if got, want := st.String(), "waiting for the model: 8 calls in flight to 127.0.0.1:9, api.openai.com, the oldest for 1m2s; none has finished for 1.5s"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
	if got := (llm.Stall{Calls: 1, Hosts: []string{"h"}}).String(); got != "waiting for the model: 1 call in flight to h, the oldest for 0s; none has finished for 0s" {
		t.Fatalf("String() = %q", got)
	}
}

// refuseFirst refuses the first n requests as a dead server would (ECONNREFUSED from the
// dial), then forwards to the real transport: a server that comes up while calls retry.
type refuseFirst struct {
	mu sync.Mutex
	n  int
}

func (r *refuseFirst) RoundTrip(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	refuse := r.n > 0
	r.n--
	r.mu.Unlock()
	if refuse {
		return nil, &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	}
	return http.DefaultTransport.RoundTrip(req)
}

// TestSuspectHostRecovers: while the calls in flight retry after a refused connection, new
// calls to that host wait instead of making requests of their own; when a retry succeeds they
// all go ahead. With a provider limit of 1, the waiting calls hold no slot the retrying call
// needs.
func TestSuspectHostRecovers(t *testing.T) {
	// Not parallel: it checks that the calls end within 2 s.
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("fine"))
	cfg := fastConfig()
	cfg.Concurrency = 4
	cfg.HTTPClient = &http.Client{Transport: &refuseFirst{n: 1}}
	c := newClient(t, cfg)
	start := time.Now()
	errs := runCalls(c, 12, func(i int) llm.Request {
		r := userRequest(s, fmt.Sprint(i))
		r.Endpoint.MaxConcurrency = 1
		return r
	})
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if s.Calls() != 12 || len(c.Stopped()) != 0 || time.Since(start) > 2*time.Second {
		t.Fatalf("%d requests reached the server in %v, stopped %v", s.Calls(), time.Since(start), c.Stopped())
	}

	// A dead host with a provider limit of 1: the calls end with the stop, promptly.
	c2 := newClient(t, fastConfig())
	dead := llmtest.ClosedURL(t)
	errs = runCalls(c2, 12, func(i int) llm.Request {
		r := userRequest(s, fmt.Sprint(i))
		r.Endpoint.BaseURL, r.Endpoint.MaxConcurrency = dead, 1
		return r
	})
	for _, err := range errs {
		if !errors.Is(err, runwide.ErrStopped) {
			t.Fatal(err)
		}
	}
}

// TestStopNoReply: a server that accepts connections and answers nothing stops its host once
// a call has timed out through all its attempts: the other calls wait for that verdict and
// then fail at once. At a host that has answered before, a timeout is that request's failure.
func TestStopNoReply(t *testing.T) {
	// Not parallel: its attempts time out at 50 ms, and a reply must come within that.
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Hang())
	cfg := fastConfig()
	cfg.Timeout, cfg.Concurrency = 50*time.Millisecond, 2
	c := newClient(t, cfg)
	errs := runCalls(c, 10, func(i int) llm.Request { return userRequest(s, fmt.Sprint(i)) })
	stopped := c.Stopped()
	if len(stopped) != 1 || stopped[0].Reason != llm.StopNoReply {
		t.Fatalf("Stopped() = %v", stopped)
	}
	for _, err := range errs {
		if !errors.Is(err, runwide.ErrStopped) {
			t.Fatalf("error %v", err)
		}
	}
	host := hostOf(s.URL)
	// How many attempts fit in the call's limit depends on the machine's load (the backoff
	// between attempts counts against it): at most 3, and the rest of the message is exact.
	got := stopped[0].Error()
	m := regexp.MustCompile(`\((\d+) attempts?\); `).FindStringSubmatch(got)
	if m == nil || m[1] < "1" || m[1] > "3" {
		t.Fatalf("message %q: want 1 to 3 attempts", got)
	}
	if want := "llm: " + host + " (openai-compatible) sends no reply: no complete reply within 50ms per attempt, " +
		"and the call gave up at its limit of 150ms (3 × the timeout) " + m[0] + "check that the server works, or allow more time with --timeout"; got != want {
		t.Errorf("message\n got %s\nwant %s", got, want)
	}
	if got := stopped[0].Cause(); got != "no reply from "+host {
		t.Errorf("cause %q", got)
	}
	if n := s.Calls(); n > 6 {
		t.Errorf("%d requests, want at most 2 calls × 3 attempts", n)
	}

	// A host that answers: one request's timeout is its own.
	s2 := llmtest.Start(t)
	s2.On(llmtest.UserContains("slow"), llmtest.Hang())
	s2.SetDefault(llmtest.Text("fine"))
	c2 := newClient(t, cfg)
	if _, err := c2.Complete(context.Background(), userRequest(s2, "quick")); err != nil {
		t.Fatal(err)
	}
	_, err := c2.Complete(context.Background(), userRequest(s2, "slow"))
	var apiErr *llm.APIError
	if errors.Is(err, runwide.ErrStopped) || !errors.As(err, &apiErr) || apiErr.Kind != llm.KindTimeout {
		t.Fatalf("the slow request: %v", err)
	}
	if _, err := c2.Complete(context.Background(), userRequest(s2, "quick again")); err != nil || len(c2.Stopped()) != 0 {
		t.Fatalf("after the slow request: %v, stopped %v", err, c2.Stopped())
	}
}
