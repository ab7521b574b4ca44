package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// testKey looks like a real key so that pattern-based redaction is exercised too.
const testKey = "sk-test-Zq8mW3vX9pL2kR7tY4nB6cD1"

// fastConfig retries quickly and deterministically: jitter 0 makes the n-th wait exactly half
// of BaseDelay·2^(n−1).
func fastConfig() llm.Config {
	return llm.Config{Timeout: 2 * time.Second, BaseDelay: 2 * time.Millisecond, MaxDelay: 8 * time.Millisecond,
		Rand: func() float64 { return 0 }}
}

func newClient(t *testing.T, cfg llm.Config) *llm.Client {
	t.Helper()
	c, err := llm.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

func endpointOf(s *llmtest.Server) llm.Endpoint {
	return llm.Endpoint{Provider: "openai-compatible", BaseURL: s.URL, APIKey: testKey, Model: "test-model",
		Temperature: ptr(0.2)}
}

func userRequest(s *llmtest.Server, text string) llm.Request {
	return llm.Request{Endpoint: endpointOf(s), Messages: []llm.Message{
		{Role: llm.RoleSystem, Content: "You are a careful reviewer."},
		{Role: llm.RoleUser, Content: text}}}
}

// eventLog collects events safely.
type eventLog struct {
	mu     sync.Mutex
	events []llm.Event
}

func (l *eventLog) add(e llm.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// count is the number of events of kind k.
func (l *eventLog) count(k llm.EventKind) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, e := range l.events {
		if e.Kind == k {
			n++
		}
	}
	return n
}

func (l *eventLog) kinds() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, e := range l.events {
		out = append(out, e.Kind.String())
	}
	return out
}

func (l *eventLog) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, e := range l.events {
		fmt.Fprintf(&b, "%s %+v\n", e, e)
	}
	return b.String()
}

func TestCompleteRequestAndReply(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey(testKey))
	s.On(llmtest.UserContains("in order to"), llmtest.Text("Say 'to'."))
	c := newClient(t, fastConfig())
	req := userRequest(s, "We did this in order to win.")
	req.MaxTokens = 300
	req.Extra = map[string]any{"top_p": 0.5}
	resp, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	// The fake server counts ceil(chars/4) per message plus 4 per message.
	wantTokens := llm.TokenUsage{Input: (7 + 4) + (7 + 4), Output: 3}
	want := &llm.Response{Content: "Say 'to'.", Model: "test-model", FinishReason: "stop", Tokens: wantTokens,
		Format: llm.FormatText, Attempts: 1, Messages: req.Messages}
	if !reflect.DeepEqual(resp, want) {
		t.Fatalf("response:\n got %+v\nwant %+v", resp, want)
	}
	reqs := s.Requests()
	if len(reqs) != 1 {
		t.Fatalf("server saw %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Path != "/v1/chat/completions" || r.Model != "test-model" || *r.Temperature != 0.2 || *r.MaxTokens != 300 ||
		string(r.Params["top_p"]) != "0.5" || r.ResponseFormat != nil {
		t.Fatalf("request: path %s model %s temperature %v max_tokens %v top_p %s response_format %s",
			r.Path, r.Model, *r.Temperature, *r.MaxTokens, r.Params["top_p"], r.ResponseFormat)
	}
	wantMsgs := []llmtest.Message{{Role: "system", Content: "You are a careful reviewer."}, {Role: "user", Content: "We did this in order to win."}}
	if !reflect.DeepEqual(r.Messages, wantMsgs) {
		t.Fatalf("messages = %+v", r.Messages)
	}
	if got := r.Header.Get("Authorization"); got != "Bearer "+testKey {
		t.Fatalf("Authorization = %q", got)
	}
	for h, want := range map[string]string{"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "vectorlint"} {
		if got := r.Header.Get(h); got != want {
			t.Errorf("%s = %q, want %q", h, got, want)
		}
	}
	if u := c.Usage(); !reflect.DeepEqual(u, llm.Usage{Calls: 1, InputTokens: 22, OutputTokens: 3}) {
		t.Fatalf("usage = %+v", u)
	}
}

func TestCompleteSchemaRequest(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	c := newClient(t, fastConfig())
	req := userRequest(s, "text")
	req.Schema = &llm.Schema{Name: "violations", Strict: true, Schema: json.RawMessage(`{"type":"object","properties":{"violations":{"type":"array"}},"required":["violations"],"additionalProperties":false}`)}
	resp, err := c.CompleteJSON(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON != `{"violations":[]}` || resp.Format != llm.FormatJSONSchema {
		t.Fatalf("JSON %q format %s", resp.JSON, resp.Format)
	}
	// Compared as a JSON value: openai-go, which encodes the request, orders object keys its own
	// way (TestChatBodyOnTheWire holds every body to what the client has always sent).
	got := string(s.Requests()[0].ResponseFormat)
	want := `{"type":"json_schema","json_schema":{"name":"violations","strict":true,"schema":{"type":"object","properties":{"violations":{"type":"array"}},"required":["violations"],"additionalProperties":false}}}`
	var g, w any
	if json.Unmarshal([]byte(got), &g) != nil || json.Unmarshal([]byte(want), &w) != nil || !reflect.DeepEqual(g, w) {
		t.Fatalf("response_format:\n got %s\nwant %s", got, want)
	}

	// JSON mode without a schema.
	req.Schema, req.JSONMode = nil, true
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if got := string(s.Requests()[1].ResponseFormat); got != `{"type":"json_object"}` {
		t.Fatalf("JSON mode response_format = %s", got)
	}
}

func TestRetries(t *testing.T) {
	t.Parallel()
	ok := llmtest.Text("fine")
	tests := []struct {
		name      string
		replies   []llmtest.Reply
		wantCalls int
		wantErr   string
		wantKind  llm.ErrorKind
		status    int
	}{
		{name: "500 twice then success", replies: []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), ok}, wantCalls: 3},
		{name: "408 409 502 retried", replies: []llmtest.Reply{llmtest.Status(408, ""), llmtest.Status(409, ""), llmtest.Status(502, "bad gateway"), ok}, wantCalls: 4},
		{name: "429 until attempts run out", replies: []llmtest.Reply{llmtest.RateLimited("")}, wantCalls: 4,
			wantErr:  "llm: chat completion with test-model at HOST: HTTP 429 Too Many Requests: Rate limit reached for requests (4 attempts)",
			wantKind: llm.KindHTTP, status: 429},
		{name: "503 until attempts run out", replies: []llmtest.Reply{llmtest.Status(503, "")}, wantCalls: 4,
			wantErr:  "llm: chat completion with test-model at HOST: HTTP 503 Service Unavailable: Service Unavailable (4 attempts)",
			wantKind: llm.KindHTTP, status: 503},
		{name: "400 fails at once", replies: []llmtest.Reply{llmtest.Status(400, `{"error":{"message":"Invalid value for 'model'."}}`), ok}, wantCalls: 1,
			wantErr: "llm: chat completion with test-model at HOST: HTTP 400 Bad Request: Invalid value for 'model'.", wantKind: llm.KindHTTP, status: 400},
		// 401, 403 and 404 are facts about the endpoint: a *StopError (wrapping the *APIError)
		// naming what to set (stop_test.go has the rest).
		{name: "401 fails at once", replies: []llmtest.Reply{llmtest.Status(401, ""), ok}, wantCalls: 1,
			wantErr: "llm: HOST (openai-compatible) rejected the API key: HTTP 401 Unauthorized: Unauthorized; set OPENAI_API_KEY to a valid key", wantKind: llm.KindHTTP, status: 401},
		{name: "403 fails at once", replies: []llmtest.Reply{llmtest.Status(403, "<html>Forbidden</html>"), ok}, wantCalls: 1,
			wantErr: `llm: HOST (openai-compatible) refused access to model test-model: HTTP 403 Forbidden: the body began "<html>Forbidden</html>"; check that the key in OPENAI_API_KEY may use this model, or choose another with OPENAI_MODEL`, wantKind: llm.KindHTTP, status: 403},
		{name: "404 fails at once", replies: []llmtest.Reply{llmtest.Status(404, `{"detail":"Not Found"}`), ok}, wantCalls: 1,
			wantErr: "llm: HOST (openai-compatible) has no model test-model or no such endpoint: HTTP 404 Not Found: Not Found; check the model name in OPENAI_MODEL and the URL in OPENAI_BASE_URL", wantKind: llm.KindHTTP, status: 404},
		{name: "connection closed then success", replies: []llmtest.Reply{llmtest.CloseConnection(), ok}, wantCalls: 2},
		{name: "closed mid-response then success", replies: []llmtest.Reply{llmtest.CloseMidResponse(), ok}, wantCalls: 2},
		{name: "malformed JSON then success", replies: []llmtest.Reply{llmtest.MalformedJSON(), ok}, wantCalls: 2},
		{name: "connection closed every time", replies: []llmtest.Reply{llmtest.CloseConnection()}, wantCalls: 4,
			wantErr:  "llm: chat completion with test-model at HOST: connection failed: the server closed the connection without replying (4 attempts)",
			wantKind: llm.KindConnection},
		{name: "closed mid-response every time", replies: []llmtest.Reply{llmtest.CloseMidResponse()}, wantCalls: 4,
			wantErr:  "llm: chat completion with test-model at HOST: connection failed: the server closed the connection in the middle of the reply (4 attempts)",
			wantKind: llm.KindConnection},
		{name: "truncated JSON every time", replies: []llmtest.Reply{llmtest.TruncatedJSON()}, wantCalls: 4,
			wantErr:  "llm: chat completion with test-model at HOST: the server's reply is cut off after 137 bytes (truncated JSON) (4 attempts)",
			wantKind: llm.KindBadResponse},
		{name: "malformed JSON every time", replies: []llmtest.Reply{llmtest.MalformedJSON()}, wantCalls: 4,
			wantErr: `llm: chat completion with test-model at HOST: the server's reply is not valid JSON (invalid character ']' looking for beginning of value); ` +
				`it began "{\"id\":\"chatcmpl-malformed\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"…" (4 attempts)`,
			wantKind: llm.KindBadResponse},
		{name: "HTML page every time", replies: []llmtest.Reply{llmtest.HTMLPage()}, wantCalls: 4,
			wantErr: `llm: chat completion with test-model at HOST: the server's reply is not valid JSON (invalid character '<' looking for beginning of value); ` +
				`it began "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>" (4 attempts)`,
			wantKind: llm.KindBadResponse},
		{name: "no choices every time", replies: []llmtest.Reply{llmtest.NoChoices()}, wantCalls: 4,
			wantErr:  `llm: chat completion with test-model at HOST: the reply has no choices; it began "{\"object\":\"list\",\"data\":[]}" (4 attempts)`,
			wantKind: llm.KindBadResponse},
		{name: "error object in a 200", replies: []llmtest.Reply{{Body: `{"error":{"message":"Upstream provider overloaded","code":502}}`}, ok}, wantCalls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.Start(t)
			s.On(llmtest.Any(), tt.replies...)
			c := newClient(t, fastConfig())
			resp, err := c.Complete(context.Background(), userRequest(s, "hello"))
			if got := s.Calls(); got != tt.wantCalls {
				t.Errorf("server calls = %d, want %d", got, tt.wantCalls)
			}
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Complete: %v", err)
				}
				if resp.Content != "fine" || resp.Attempts != tt.wantCalls {
					t.Fatalf("response %q after %d attempts", resp.Content, resp.Attempts)
				}
				if u := c.Usage(); u.Calls != 1 {
					t.Fatalf("usage counts %d calls, want 1 (failed attempts are not calls)", u.Calls)
				}
				return
			}
			want := strings.ReplaceAll(tt.wantErr, "HOST", strings.TrimPrefix(strings.TrimSuffix(s.URL, "/v1"), "http://"))
			if err == nil || err.Error() != want {
				t.Fatalf("error:\n got %v\nwant %s", err, want)
			}
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || apiErr.Kind != tt.wantKind || apiErr.Status != tt.status || apiErr.Attempts != tt.wantCalls {
				t.Fatalf("error %#v: want kind %v status %d attempts %d", err, tt.wantKind, tt.status, tt.wantCalls)
			}
			if u := c.Usage(); u.Calls != 0 {
				t.Fatalf("usage counts %d calls after a failure", u.Calls)
			}
		})
	}
}

func TestHangTimesOutAndRetries(t *testing.T) {
	// Not parallel: the reply to the second attempt must come within 500 ms (at 100 ms a
	// loaded machine made it miss that).
	s := llmtest.Start(t)
	s.On(llmtest.Any(), llmtest.Hang(), llmtest.Text("late but fine"))
	cfg := fastConfig()
	cfg.Timeout = 500 * time.Millisecond
	var log eventLog
	cfg.OnEvent = log.add
	c := newClient(t, cfg)
	start := time.Now()
	resp, err := c.Complete(context.Background(), userRequest(s, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed < cfg.Timeout {
		t.Fatalf("returned after %v, before the %v timeout", elapsed, cfg.Timeout)
	}
	if resp.Content != "late but fine" || resp.Attempts != 2 || s.Calls() != 2 {
		t.Fatalf("content %q attempts %d calls %d", resp.Content, resp.Attempts, s.Calls())
	}
	if got, want := log.kinds(), []string{"request", "retry", "request", "response"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("events %v, want %v", got, want)
	}
	if e := log.events[1]; !strings.HasSuffix(e.Err, "no complete reply within 500ms") {
		t.Fatalf("retry event error %q", e.Err)
	}

	// Hanging every time: timeouts until the call's limit (3 × the timeout) ends it, a
	// KindTimeout error wrapping context.DeadlineExceeded. Each attempt lasts at least its
	// timeout, so there are at most 3 (a fourth would start past the limit), and the call gives
	// up only when the limit leaves no time for the next wait (at most MaxDelay). Asking for
	// exactly 3 attempts failed when a timer fired late on a loaded machine.
	s2 := llmtest.Start(t)
	s2.SetDefault(llmtest.Hang())
	cfg.Timeout = 30 * time.Millisecond
	cfg.OnEvent = nil
	c2 := newClient(t, cfg)
	start = time.Now()
	_, err = c2.Complete(context.Background(), userRequest(s2, "hello"))
	took := time.Since(start)
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.Kind != llm.KindTimeout || apiErr.Attempts < 1 || apiErr.Attempts > 3 ||
		!errors.Is(err, context.DeadlineExceeded) || took < 3*cfg.Timeout-cfg.MaxDelay {
		t.Fatalf("error %v after %v", err, took)
	}
	// The server has answered nothing in this client's life: the host is stopped (stop_test.go).
	want := ": no complete reply within 30ms per attempt, and the call gave up at its limit of 90ms (3 × the timeout)"
	if apiErr.Attempts > 1 {
		want += fmt.Sprintf(" (%d attempts)", apiErr.Attempts)
	}
	if !strings.HasSuffix(apiErr.Error(), want) {
		t.Fatalf("error text %q", err)
	}
}

func TestBackoffTiming(t *testing.T) {
	// Not parallel: it checks the waits between attempts, which other tests' load would stretch.
	s := llmtest.Start(t)
	s.SetDefault(llmtest.ServerError())
	cfg := fastConfig()
	cfg.BaseDelay = 40 * time.Millisecond
	cfg.MaxDelay = 100 * time.Millisecond
	var log eventLog
	cfg.OnEvent = log.add
	c := newClient(t, cfg)
	start := time.Now()
	_, err := c.Complete(context.Background(), userRequest(s, "hello"))
	if err == nil {
		t.Fatal("expected an error")
	}
	// Waits with jitter 0 are half of 40, 80, 100 (capped) ms.
	var delays []time.Duration
	for _, e := range log.events {
		if e.Kind == llm.EventRetry {
			delays = append(delays, e.Delay)
		}
	}
	if want := []time.Duration{20 * time.Millisecond, 40 * time.Millisecond, 50 * time.Millisecond}; !reflect.DeepEqual(delays, want) {
		t.Fatalf("delays %v, want %v", delays, want)
	}
	reqs := s.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, d := range delays {
		if gap := reqs[i+1].Time.Sub(reqs[i].Time); gap < d {
			t.Errorf("gap before attempt %d = %v, less than the backoff %v", i+2, gap, d)
		}
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("took %v", elapsed)
	}

	// With jitter the waits stay within [d/2, d].
	cfg.Rand = func() float64 { return 0.999 }
	cfg.OnEvent = nil
	var log2 eventLog
	cfg.OnEvent = log2.add
	c2 := newClient(t, cfg)
	_, _ = c2.Complete(context.Background(), userRequest(s, "hello"))
	for i, e := range log2.events {
		if e.Kind == llm.EventRetry {
			step := []time.Duration{40, 80, 100}[e.Attempt-1] * time.Millisecond
			if e.Delay < step/2 || e.Delay > step {
				t.Errorf("event %d: delay %v outside [%v, %v]", i, e.Delay, step/2, step)
			}
		}
	}
}

func TestRetryAfterHonoured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		header  func() map[string]string
		minWait time.Duration
	}{
		{name: "seconds", header: func() map[string]string { return map[string]string{"Retry-After": "1"} }, minWait: time.Second},
		// Whole seconds: between 1 and 2 s after the header is made, but the client reads it a
		// moment later, so the wait may be a little under a second (a fixed minimum failed when
		// the second was about to turn). The retry must come no earlier than the date named.
		{name: "HTTP-date", header: func() map[string]string {
			return map[string]string{"Retry-After": time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)}
		}},
		{name: "retry-after-ms", header: func() map[string]string {
			return map[string]string{"Retry-After-Ms": "150", "Retry-After": "30"}
		}, minWait: 150 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.Start(t)
			limited := llmtest.RateLimited("")
			limited.Header = tt.header()
			s.On(llmtest.Any(), limited, llmtest.Text("ok"))
			c := newClient(t, fastConfig())
			if _, err := c.Complete(context.Background(), userRequest(s, "hello")); err != nil {
				t.Fatal(err)
			}
			reqs := s.Requests()
			if date, err := http.ParseTime(limited.Header["Retry-After"]); tt.minWait == 0 && (err != nil || reqs[1].Time.Before(date)) {
				t.Fatalf("retried at %v, before the date %v (%v)", reqs[1].Time, date, err)
			}
			if gap := reqs[1].Time.Sub(reqs[0].Time); gap < tt.minWait || gap > tt.minWait+3*time.Second {
				t.Fatalf("waited %v, want at least %v (Retry-After)", gap, tt.minWait)
			}
		})
	}
}

func TestRetryAfterTooLong(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.Any(), llmtest.RateLimited("3600"), llmtest.Text("ok"))
	cfg := fastConfig()
	cfg.MaxRetryAfter = time.Second
	c := newClient(t, cfg)
	start := time.Now()
	_, err := c.Complete(context.Background(), userRequest(s, "hello"))
	var apiErr *llm.APIError
	if !errors.As(err, &apiErr) || apiErr.RetryAfter != time.Hour || s.Calls() != 1 {
		t.Fatalf("error %v after %d calls", err, s.Calls())
	}
	if !strings.HasSuffix(err.Error(), "HTTP 429 Too Many Requests: Rate limit reached for requests (the server asks to wait 1h0m0s, longer than the 1s limit)") {
		t.Fatalf("error text %q", err)
	}
	// A wait would have lasted until the call's limit (the hour asked for is longer): any
	// reply of the local server comes far sooner, however loaded the machine.
	if d := time.Since(start); d >= retry.CallTimeoutFactor*cfg.Timeout {
		t.Fatalf("waited %v although the Retry-After is over the limit", d)
	}
}

// TestContextCancellation: canceled calls end at once. "At once" is checked against what a
// call that ignored the cancellation would take (its minute of timeout, its 30 s wait), not
// against a second, which a loaded machine can use up.
func TestContextCancellation(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Hang())
	cfg := fastConfig()
	cfg.Timeout = time.Minute
	cfg.Concurrency = 1
	c := newClient(t, cfg)

	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	go func() { _, err := c.Complete(ctx, userRequest(s, "first")); errs <- err }()
	// Wait until the first call holds the only slot, then queue a second one behind it.
	for s.Calls() == 0 {
		time.Sleep(time.Millisecond)
	}
	go func() { _, err := c.Complete(ctx, userRequest(s, "second")); errs <- err }()
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	cancel()
	for i := 0; i < 2; i++ {
		select {
		case err := <-errs:
			var apiErr *llm.APIError
			if !errors.Is(err, context.Canceled) || !errors.As(err, &apiErr) || apiErr.Kind != llm.KindCanceled {
				t.Fatalf("error %v, want a KindCanceled wrapping context.Canceled", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("a call did not return %v after cancellation", time.Since(start))
		}
	}
	if s.Calls() != 1 {
		t.Fatalf("the queued call reached the server (%d calls)", s.Calls())
	}

	// Cancelling during a backoff wait stops at once too.
	s2 := llmtest.Start(t)
	s2.SetDefault(llmtest.ServerError())
	cfg.BaseDelay, cfg.MaxDelay = time.Minute, time.Minute
	c2 := newClient(t, cfg)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel2()
	start = time.Now()
	_, err := c2.Complete(ctx2, userRequest(s2, "x"))
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) >= 30*time.Second || s2.Calls() != 1 {
		t.Fatalf("error %v after %v and %d calls", err, time.Since(start), s2.Calls())
	}
}

func TestSchemaFallback(t *testing.T) {
	t.Parallel()
	schema := map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}
	req := func(s *llmtest.Server) llm.Request {
		r := userRequest(s, "check this")
		r.Schema = &llm.Schema{Name: "verdict", Strict: true, Schema: schema}
		return r
	}
	t.Run("json_schema rejected, json_object used and remembered", func(t *testing.T) {
		s := llmtest.Start(t, llmtest.RejectJSONSchema())
		s.SetDefault(llmtest.JSON(map[string]bool{"ok": true}))
		var log eventLog
		cfg := fastConfig()
		cfg.OnEvent = log.add
		c := newClient(t, cfg)
		resp, err := c.CompleteJSON(context.Background(), req(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Format != llm.FormatJSONObject || resp.JSON != `{"ok":true}` || resp.Attempts != 2 {
			t.Fatalf("format %s JSON %s attempts %d", resp.Format, resp.JSON, resp.Attempts)
		}
		reqs := s.Requests()
		if len(reqs) != 2 || reqs[0].ResponseFormatType() != "json_schema" || reqs[1].ResponseFormatType() != "json_object" {
			t.Fatalf("formats sent: %d requests", len(reqs))
		}
		wantSystem := "You are a careful reviewer.\n\nReply with only a JSON object that conforms to this JSON schema, with no other text:\n" +
			`{"properties":{"ok":{"type":"boolean"}},"type":"object"}`
		if got := reqs[1].System(); got != wantSystem {
			t.Fatalf("fallback system message:\n got %q\nwant %q", got, wantSystem)
		}
		if !reflect.DeepEqual(resp.Messages[0].Content, wantSystem) {
			t.Fatalf("Response.Messages does not show the message sent: %q", resp.Messages[0].Content)
		}
		// The fallback is remembered: the next call goes straight to json_object.
		if _, err := c.CompleteJSON(context.Background(), req(s), nil); err != nil {
			t.Fatal(err)
		}
		if reqs := s.Requests(); len(reqs) != 3 || reqs[2].ResponseFormatType() != "json_object" {
			t.Fatalf("after the fallback: %d requests", len(reqs))
		}
		if got := log.kinds(); !reflect.DeepEqual(got[:5], []string{"request", "fallback", "request", "response", "request"}) {
			t.Fatalf("events %v", got)
		}
		if c.Usage().Calls != 2 {
			t.Fatalf("usage calls %d, want 2 (the rejected request produced no reply)", c.Usage().Calls)
		}
	})
	t.Run("both rejected, plain text with the schema in a new system message", func(t *testing.T) {
		s := llmtest.Start(t, llmtest.RejectJSONSchema(), llmtest.RejectJSONMode())
		s.SetDefault(llmtest.Fenced(map[string]bool{"ok": false}))
		c := newClient(t, fastConfig())
		r := req(s)
		r.Messages = r.Messages[1:] // no system message
		resp, err := c.CompleteJSON(context.Background(), r, nil)
		if err != nil {
			t.Fatal(err)
		}
		if resp.Format != llm.FormatText || resp.JSON != `{"ok":false}` {
			t.Fatalf("format %s JSON %s", resp.Format, resp.JSON)
		}
		reqs := s.Requests()
		if len(reqs) != 3 || reqs[2].ResponseFormat != nil || reqs[2].Messages[0].Role != "system" ||
			!strings.HasPrefix(reqs[2].Messages[0].Content, "Reply with only a JSON object that conforms to this JSON schema") {
			t.Fatalf("third request: %+v", reqs[len(reqs)-1])
		}
	})
	t.Run("other 400s are not a fallback", func(t *testing.T) {
		s := llmtest.Start(t)
		s.SetDefault(llmtest.Status(400, `{"error":{"message":"This model's maximum context length is 8192 tokens."}}`))
		c := newClient(t, fastConfig())
		_, err := c.CompleteJSON(context.Background(), req(s), nil)
		if err == nil || s.Calls() != 1 {
			t.Fatalf("error %v after %d calls", err, s.Calls())
		}
	})
}

func TestCompleteJSONRetryWithError(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.LastUserContains("Your previous reply could not be used"), llmtest.Fenced(map[string]any{"violations": []any{}}))
	s.On(llmtest.Any(), llmtest.Text("Sure, the text looks fine!"))
	c := newClient(t, fastConfig())
	req := userRequest(s, "Some text.")
	resp, err := c.CompleteJSON(context.Background(), req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.JSON != `{"violations":[]}` || resp.Attempts != 2 {
		t.Fatalf("JSON %q attempts %d", resp.JSON, resp.Attempts)
	}
	reqs := s.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	want := []llmtest.Message{
		{Role: "system", Content: "You are a careful reviewer."},
		{Role: "user", Content: "Some text."},
		{Role: "assistant", Content: "Sure, the text looks fine!"},
		{Role: "user", Content: "Your previous reply could not be used: expected a JSON object, found text without JSON: " +
			`"Sure, the text looks fine!"` + "\nReply again with the complete answer, in exactly the required format and nothing else."},
	}
	if !reflect.DeepEqual(reqs[1].Messages, want) {
		t.Fatalf("retry messages:\n got %q\nwant %q", reqs[1].Messages, want)
	}
	if u := c.Usage(); u.Calls != 2 {
		t.Fatalf("usage calls %d, want 2 (the rejected reply was billed)", u.Calls)
	}
}

func TestCompleteCheckedFailsTwice(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.JSON(map[string]any{"violations": "none"}))
	var log eventLog
	cfg := fastConfig()
	cfg.OnEvent = log.add
	c := newClient(t, cfg)
	validate := func(js string) error {
		var v struct {
			Violations []any `json:"violations"`
		}
		if err := json.Unmarshal([]byte(js), &v); err != nil {
			return fmt.Errorf("\"violations\" must be a list: %w", err)
		}
		return nil
	}
	resp, err := c.CompleteJSON(context.Background(), userRequest(s, "text"), validate)
	host := strings.TrimPrefix(strings.TrimSuffix(s.URL, "/v1"), "http://")
	want := "llm: reply of test-model at " + host + ` rejected after one retry: "violations" must be a list: ` +
		`json: cannot unmarshal string into Go struct field .violations of type []interface {}; the reply began "{\"violations\":\"none\"}"`
	if err == nil || err.Error() != want {
		t.Fatalf("error:\n got %v\nwant %s", err, want)
	}
	var re *llm.ReplyError
	if !errors.As(err, &re) || !errors.Is(err, llm.ErrReplyRejected) || resp == nil || resp.Content != `{"violations":"none"}` {
		t.Fatalf("error %T, response %+v", err, resp)
	}
	if s.Calls() != 2 {
		t.Fatalf("%d calls, want 2", s.Calls())
	}
	if got := log.kinds(); !reflect.DeepEqual(got, []string{"request", "response", "rejected", "request", "response", "failure"}) {
		t.Fatalf("events %v", got)
	}
}

func TestDecodeJSON(t *testing.T) {
	t.Parallel()
	type verdict struct {
		Criteria []struct {
			ID    string `json:"id"`
			Score int    `json:"score"`
		} `json:"criteria"`
	}
	s := llmtest.Start(t)
	s.On(llmtest.LastUserContains("score 9 is out of range"), llmtest.JSON(`{"criteria":[{"id":"Clarity","score":3}]}`))
	s.On(llmtest.Any(), llmtest.JSON(`{"criteria":[{"id":"Clarity","score":9}]}`))
	c := newClient(t, fastConfig())
	v, resp, err := llm.DecodeJSON(context.Background(), c, userRequest(s, "rate"), func(v *verdict) error {
		for _, cr := range v.Criteria {
			if cr.Score < 1 || cr.Score > 4 {
				return fmt.Errorf("criterion %s: score %d is out of range 1-4", cr.ID, cr.Score)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Criteria) != 1 || v.Criteria[0].Score != 3 || resp.Attempts != 2 {
		t.Fatalf("decoded %+v after %d attempts", v, resp.Attempts)
	}
}

func TestConcurrencyLimit(t *testing.T) {
	// Not parallel: the limit is seen only when the calls overlap within the server's 30 ms latency.
	s := llmtest.Start(t, llmtest.WithLatency(30*time.Millisecond))
	cfg := fastConfig()
	cfg.Concurrency = 3
	c := newClient(t, cfg)
	var wg sync.WaitGroup
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Complete(context.Background(), userRequest(s, fmt.Sprint("doc ", i))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if got := s.MaxInFlight(); got != 3 {
		t.Fatalf("max in flight %d, want exactly the limit 3", got)
	}
	if u := c.Usage(); u.Calls != 20 {
		t.Fatalf("calls %d", u.Calls)
	}
}

func TestPerEndpointLimit(t *testing.T) {
	// Not parallel: the limits are seen only when the calls overlap within the servers' 30 ms latency.
	slow := llmtest.Start(t, llmtest.WithLatency(30*time.Millisecond))
	other := llmtest.Start(t, llmtest.WithLatency(30*time.Millisecond))
	cfg := fastConfig()
	cfg.Concurrency = 8
	c := newClient(t, cfg)
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		for _, s := range []*llmtest.Server{slow, other} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				req := userRequest(s, fmt.Sprint("doc ", i))
				if s == slow {
					req.Endpoint.MaxConcurrency = 2
				}
				if _, err := c.Complete(context.Background(), req); err != nil {
					t.Error(err)
				}
			}()
		}
	}
	wg.Wait()
	if got := slow.MaxInFlight(); got != 2 {
		t.Fatalf("limited endpoint: max in flight %d, want 2", got)
	}
	if got := other.MaxInFlight(); got <= 2 || got > 8 {
		t.Fatalf("other endpoint: max in flight %d, want above 2 and at most the global 8", got)
	}
}

func TestUsageAndCost(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.ModelIs("big"), llmtest.Reply{Content: "x", Usage: &llmtest.Usage{PromptTokens: 1000, CompletionTokens: 500}})
	s.On(llmtest.ModelIs("small"), llmtest.Reply{Content: "y", Usage: &llmtest.Usage{PromptTokens: 200, CompletionTokens: 10}})
	cfg := fastConfig()
	cfg.Prices = &llm.Prices{InputPerMillion: 2.5, OutputPerMillion: 10}
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	big, small := userRequest(s, "a"), userRequest(s, "b")
	big.Endpoint.Model, small.Endpoint.Model = "big", "small"
	small.Endpoint.Prices = &llm.Prices{InputPerMillion: 1000, OutputPerMillion: 1000}
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(2)
		go func() { defer wg.Done(); _, _ = c.Complete(context.Background(), withText(big, i)) }()
		go func() { defer wg.Done(); _, _ = c.Complete(context.Background(), withText(small, i)) }()
	}
	wg.Wait()
	_, _ = c.Complete(context.Background(), withText(big, 0)) // cached: no tokens, no cost
	u := c.Usage()
	wantCost := 3*(1000*2.5+500*10)/1e6 + 3*(200*1000+10*1000)/1e6
	if u.Calls != 6 || u.CachedCalls != 1 || u.InputTokens != 3600 || u.OutputTokens != 1530 || u.Cost == nil ||
		fmt.Sprintf("%.6f", *u.Cost) != fmt.Sprintf("%.6f", wantCost) {
		t.Fatalf("usage %+v cost %v, want cost %v", u, deref(u.Cost), wantCost)
	}
	by := c.UsageByModel()
	if by["big"].Calls != 3 || by["big"].CachedCalls != 1 || by["big"].InputTokens != 3000 || by["small"].OutputTokens != 30 {
		t.Fatalf("by model %+v", by)
	}
	// Without prices the cost is nil (null in JSON).
	c2 := newClient(t, fastConfig())
	_, _ = c2.Complete(context.Background(), big)
	if b, _ := json.Marshal(c2.Usage()); string(b) != `{"calls":1,"cachedCalls":0,"inputTokens":1000,"outputTokens":500,"cost":null}` {
		t.Fatalf("usage JSON %s", b)
	}
}

func withText(r llm.Request, i int) llm.Request {
	r.Messages = append([]llm.Message(nil), r.Messages...)
	r.Messages[1].Content = fmt.Sprint("document ", i)
	return r
}

func TestAzureRequestShape(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey(testKey))
	c := newClient(t, fastConfig())
	ep := llm.Endpoint{Provider: "azure-openai", BaseURL: strings.TrimSuffix(s.URL, "/v1"), APIKey: testKey,
		Model: "gpt4o-prod", APIVersion: "2024-10-21"}
	if _, err := c.Complete(context.Background(), llm.Request{Endpoint: ep, Messages: []llm.Message{{Role: llm.RoleUser, Content: "hi"}}}); err != nil {
		t.Fatal(err)
	}
	r := s.Requests()[0]
	if r.Path != "/openai/deployments/gpt4o-prod/chat/completions" || r.Header.Get("api-key") != testKey || r.Header.Get("Authorization") != "" {
		t.Fatalf("path %s api-key %q authorization %q", r.Path, r.Header.Get("api-key"), r.Header.Get("Authorization"))
	}
	if r.Temperature != nil {
		t.Fatalf("a nil endpoint temperature was sent as %v", *r.Temperature)
	}
	if q := r.Query; q != "api-version=2024-10-21" {
		t.Fatalf("query %q", q)
	}
}

func TestHeadersAndNoKey(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	req := userRequest(s, "x")
	req.Endpoint.APIKey = ""
	req.Endpoint.Headers = map[string]string{"HTTP-Referer": "https://vectorlint.dev", "X-Title": "vectorlint"}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	h := s.Requests()[0].Header
	if h.Get("Authorization") != "" || h.Get("HTTP-Referer") != "https://vectorlint.dev" || h.Get("X-Title") != "vectorlint" {
		t.Fatalf("headers %v", h)
	}
}

func TestPathWithoutV1(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	c := newClient(t, fastConfig())
	req := userRequest(s, "x")
	req.Endpoint.BaseURL = strings.TrimSuffix(s.URL, "/v1")
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if p := s.Requests()[0].Path; p != "/chat/completions" {
		t.Fatalf("path %s", p)
	}
}

func TestBadRequests(t *testing.T) {
	t.Parallel()
	c := newClient(t, fastConfig())
	s := llmtest.Start(t)
	tests := []struct {
		name string
		edit func(*llm.Request)
		want string
	}{
		{"no base URL", func(r *llm.Request) { r.Endpoint.BaseURL = "" }, `llm: chat completion with test-model at invalid-base-url: expected an http(s) base URL, found ""`},
		{"no model", func(r *llm.Request) { r.Endpoint.Model = "" }, "no model given"},
		{"no messages", func(r *llm.Request) { r.Messages = nil }, "no messages given"},
		{"bad role", func(r *llm.Request) { r.Messages[0].Role = "tool" }, `message 1: expected role system, user or assistant, found "tool"`},
		{"unencodable extra", func(r *llm.Request) { r.Extra = map[string]any{"f": func() {}} }, "json: unsupported type: func()"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := userRequest(s, "x")
			tt.edit(&req)
			_, err := c.Complete(context.Background(), req)
			var apiErr *llm.APIError
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.As(err, &apiErr) || apiErr.Kind != llm.KindRequest || apiErr.Retryable() {
				t.Fatalf("error %v, want a KindRequest containing %q", err, tt.want)
			}
		})
	}
	if s.Calls() != 0 {
		t.Fatalf("bad requests reached the server")
	}
	if _, err := llm.New(llm.Config{Concurrency: -1}); err == nil || err.Error() != "llm: Config.Concurrency: expected a value ≥ 0, found a negative one" {
		t.Fatalf("New with negative concurrency: %v", err)
	}
}

func TestConnectionRefused(t *testing.T) {
	t.Parallel()
	s := llmtest.NewServer()
	url := s.URL
	s.Close()
	c := newClient(t, fastConfig())
	req := llm.Request{Endpoint: llm.Endpoint{BaseURL: url, Model: "m", APIKey: testKey},
		Messages: []llm.Message{{Role: llm.RoleUser, Content: "x"}}}
	_, err := c.Complete(context.Background(), req)
	var apiErr *llm.APIError
	var stop *llm.StopError
	host := strings.TrimPrefix(strings.TrimSuffix(url, "/v1"), "http://")
	if !errors.As(err, &apiErr) || apiErr.Kind != llm.KindConnection || apiErr.Attempts != 4 ||
		apiErr.Error() != "llm: chat completion with m at "+host+": connection failed: connection refused (4 attempts)" ||
		!errors.As(err, &stop) || stop.Reason != llm.StopRefused ||
		err.Error() != "llm: cannot connect to "+host+": connection refused (4 attempts); is a server running there? Check the base URL" {
		t.Fatalf("error %v", err)
	}
}

// The linter converts the client's usage to its own result type directly.
func TestUsageConvertsToFindingUsage(t *testing.T) {
	t.Parallel()
	cost := 0.5
	u := finding.Usage(llm.Usage{Calls: 2, CachedCalls: 1, InputTokens: 30, OutputTokens: 4, Cost: &cost})
	if u.Calls != 2 || u.CachedCalls != 1 || u.InputTokens != 30 || u.OutputTokens != 4 || *u.Cost != 0.5 {
		t.Fatalf("%+v", u)
	}
	a, _ := json.Marshal(llm.Usage{Calls: 1})
	b, _ := json.Marshal(finding.Usage{Calls: 1})
	if string(a) != string(b) {
		t.Fatalf("JSON differs: %s vs %s", a, b)
	}
}

// deadlineRecorder forwards requests to the real transport and records each request's context
// deadline.
type deadlineRecorder struct {
	mu        sync.Mutex
	deadlines []time.Time
	ok        []bool
}

func (d *deadlineRecorder) RoundTrip(r *http.Request) (*http.Response, error) {
	dl, ok := r.Context().Deadline()
	d.mu.Lock()
	d.deadlines, d.ok = append(d.deadlines, dl), append(d.ok, ok)
	d.mu.Unlock()
	return http.DefaultTransport.RoundTrip(r)
}

// TestDefaultTimeout: a zero Config bounds each attempt by DefaultTimeout (60 s, trust.md §5),
// seen as the deadline of the HTTP request's context; Request.Timeout overrides it. No test
// waits for it: the deadline is checked against the clock readings around the call.
func TestDefaultTimeout(t *testing.T) {
	t.Parallel()
	if retry.DefaultTimeout != 60*time.Second {
		t.Fatalf("DefaultTimeout = %v, want 60s", retry.DefaultTimeout)
	}
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("fine"))
	rec := &deadlineRecorder{}
	c := newClient(t, llm.Config{HTTPClient: &http.Client{Transport: rec}})
	for i, timeout := range []time.Duration{0, 7 * time.Second} {
		req := userRequest(s, fmt.Sprintf("text %d", i))
		req.Timeout = timeout
		before := time.Now()
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		want := timeout
		if want == 0 {
			want = retry.DefaultTimeout
		}
		if len(rec.ok) != i+1 || !rec.ok[i] {
			t.Fatalf("request %d: no deadline on the request's context", i)
		}
		if dl := rec.deadlines[i]; dl.Before(before.Add(want)) || dl.After(after.Add(want)) {
			t.Errorf("request %d: deadline %v after the call started, want %v", i, dl.Sub(before), want)
		}
	}
}

// TestRequestMaxAttempts: a request's MaxAttempts replaces the client's for that call only (a
// blueprint run's --gen-retries bounds its generations, not its judges), in Complete and in
// Generate; 0 keeps the client's.
func TestRequestMaxAttempts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		attempts int
		want     int
	}{
		{"one retry", 2, 2},
		{"no retry", 1, 1},
		{"the client's", 0, 4},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.Start(t)
			s.SetDefault(llmtest.ServerError())
			c := newClient(t, fastConfig())
			req := userRequest(s, "hello")
			req.MaxAttempts = tt.attempts
			_, err := c.Complete(context.Background(), req)
			var apiErr *llm.APIError
			if !errors.As(err, &apiErr) || apiErr.Attempts != tt.want || s.Calls() != tt.want {
				t.Errorf("Complete: %d calls, error %v; want %d attempts", s.Calls(), err, tt.want)
			}
			_, err = c.Generate(context.Background(), llm.GenerateRequest{Endpoint: endpointOf(s), MaxAttempts: tt.attempts,
				Messages: []llm.Message{{Role: llm.RoleUser, Content: "hello"}}})
			if !errors.As(err, &apiErr) || apiErr.Attempts != tt.want || s.Calls() != 2*tt.want {
				t.Errorf("Generate: %d calls, error %v; want %d attempts", s.Calls()-tt.want, err, tt.want)
			}
		})
	}
}

// TestClientRetryPolicy: the client's own policy, which retry.HTTP gets from
// Client.RetryPolicy, is Config's settings with the defaults filled in.
func TestClientRetryPolicy(t *testing.T) {
	t.Parallel()
	c := newClient(t, llm.Config{MaxAttempts: 2, BaseDelay: 3 * time.Second})
	p := c.RetryPolicy()
	if p.MaxAttempts != 2 || p.BaseDelay != 3*time.Second || p.MaxDelay != retry.DefaultMaxDelay || p.Timeout != retry.DefaultTimeout ||
		p.MaxRetryAfter != retry.DefaultMaxRetryAfter || p.Rand == nil {
		t.Fatalf("%+v", p)
	}
}
