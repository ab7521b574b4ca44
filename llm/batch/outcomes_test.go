package batch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestBatchOutcomes runs a batch with one request expired or failed inside it, for each
// provider: collect stores the others, names the one the batch did not answer, and a live run
// afterwards makes exactly that one call and returns what a live run returns.
func TestBatchOutcomes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		provider  llm.Provider
		second    llmtest.Reply // doc2's reply in the batch (a live call then gets {"ok":false})
		state     string
		counts    Counts
		failure   Failure
		errorFile bool
	}{
		{"openai expired", "openai", llmtest.BatchExpired(), "expired", Counts{Total: 3, Succeeded: 2, Expired: 1},
			Failure{Request: 1, CustomID: "r2", Expired: true, Reason: "batch_expired: This request could not be executed before the completion window expired."}, true},
		{"openai partial failure", "openai", llmtest.Status(500, ""), "completed", Counts{Total: 3, Succeeded: 2, Failed: 1},
			Failure{Request: 1, CustomID: "r2", Reason: "HTTP 500: Internal Server Error"}, true},
		{"anthropic expired", "anthropic", llmtest.BatchExpired(), "ended", Counts{Total: 3, Succeeded: 2, Expired: 1},
			Failure{Request: 1, CustomID: "r2", Expired: true, Reason: "the batch expired before this request was made"}, false},
		{"anthropic errored", "anthropic", llmtest.Status(500, ""), "ended", Counts{Total: 3, Succeeded: 2, Failed: 1},
			Failure{Request: 1, CustomID: "r2", Reason: "api_error: Internal Server Error"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tc.provider)
			f.srv.On(llmtest.UserContains("doc1"), llmtest.Text(`{"ok":true}`))
			f.srv.On(llmtest.UserContains("doc2"), tc.second, llmtest.Text(`{"ok":false}`))
			f.srv.On(llmtest.UserContains("doc3"), llmtest.Text(`{"ok":true,"note":"three"}`))
			b := f.batcher(t)
			reqs := f.requests(3)
			ctx := context.Background()
			st, err := b.Submit(ctx, reqs, "fp")
			if err != nil {
				t.Fatal(err)
			}
			// The lines are the live calls' bodies.
			ref := llmtest.Start(t)
			script(ref)
			want, _ := live(t, withBase(f.ep, ref.URL), "", reqs)
			for i, l := range f.srv.BatchLines() {
				if string(l.Body) != string(ref.Requests()[i].Body) {
					t.Errorf("line %d:\n got %s\nwant %s", i+1, l.Body, ref.Requests()[i].Body)
				}
			}
			if _, err := b.Collect(ctx, st, f.ep, reqs, false); !errors.As(err, new(*NotDoneError)) {
				t.Fatalf("collect before the end: %v, want a *NotDoneError", err)
			}
			res, err := b.Collect(ctx, st, f.ep, reqs, true)
			if err != nil {
				t.Fatal(err)
			}
			if res.Status.State != tc.state || res.Status.Counts != tc.counts {
				t.Errorf("status %s %+v, want %s %+v", res.Status.State, res.Status.Counts, tc.state, tc.counts)
			}
			if res.Stored != 2 || !reflect.DeepEqual(res.Failed, []Failure{tc.failure}) || res.NotInBatch != nil {
				t.Errorf("collect: stored %d, failed %+v, not in batch %v; want 2, %+v", res.Stored, res.Failed, res.NotInBatch, tc.failure)
			}
			if u := b.Usage(); u.Calls != 2 {
				t.Errorf("batch usage %+v, want 2 calls", u)
			}
			got, lu := live(t, f.ep, f.cache, reqs)
			if f.srv.Calls() != 1 || lu.CachedCalls != 2 || lu.Calls != 1 {
				t.Errorf("live run after collect: %d calls, usage %+v; want 1 call (the request the batch did not answer)", f.srv.Calls(), lu)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("replies %q, want %q", got, want)
			}
		})
	}
}

// TestSplitOverLimits splits a batch beyond the provider's request and byte limits (lowered
// for the test) into several provider batches under one id, and collects them all.
func TestSplitOverLimits(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		provider llm.Provider
		lim      limit
		sizes    []int
	}{
		{"openai by requests", "openai", limit{requests: 2, bytes: 1 << 30}, []int{2, 2, 1}},
		{"anthropic by requests", "anthropic", limit{requests: 3, bytes: 1 << 30}, []int{3, 2}},
		{"openai by bytes", "openai", limit{requests: 100, bytes: 900}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, tc.provider)
			script(f.srv)
			b := f.batcher(t)
			wire, _ := wireOf(tc.provider)
			b.limits[wire] = tc.lim
			reqs := f.requests(5)
			st, err := b.Submit(context.Background(), reqs, "fp")
			if err != nil {
				t.Fatal(err)
			}
			var sizes []int
			for _, p := range st.Parts {
				sizes = append(sizes, len(p.Requests))
			}
			if tc.sizes == nil {
				// Each line is a little over 400 bytes: two fit in 900.
				tc.sizes = []int{2, 2, 1}
			}
			if !reflect.DeepEqual(sizes, tc.sizes) || len(f.srv.Batches()) != len(tc.sizes) {
				t.Fatalf("parts %v (%d provider batches), want %v", sizes, len(f.srv.Batches()), tc.sizes)
			}
			for i, l := range f.srv.BatchLines() {
				if l.CustomID != "r"+string(rune('1'+i)) {
					t.Errorf("line %d: custom id %q", i+1, l.CustomID)
				}
			}
			res, err := b.Collect(context.Background(), st, f.ep, reqs, true)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stored != 5 || res.Failed != nil || res.Status.Counts != (Counts{Total: 5, Succeeded: 5}) {
				t.Fatalf("collect: %+v, counts %+v", res, res.Status.Counts)
			}
			if _, lu := live(t, f.ep, f.cache, reqs); f.srv.Calls() != 0 || lu.CachedCalls != 5 {
				t.Fatalf("live run after collect: %d calls", f.srv.Calls())
			}
		})
	}
}

// TestCollectChangedRequests: requests planned again after a change are not in the batch (the
// caller makes them live), and batch requests no request matches any more are counted stale.
func TestCollectChangedRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "openai")
	script(f.srv)
	b := f.batcher(t)
	reqs := f.requests(3)
	st, err := b.Submit(context.Background(), reqs[:2], "fp")
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Collect(context.Background(), st, f.ep, reqs[1:], true)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stored != 1 || res.Stale != 1 || !reflect.DeepEqual(res.NotInBatch, []int{1}) || res.Failed != nil {
		t.Fatalf("collect: %+v", res)
	}
}

// TestIdenticalRequestsShareALine: identical requests make one line, as live calls share one
// reply.
func TestIdenticalRequestsShareALine(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "anthropic")
	script(f.srv)
	b := f.batcher(t)
	reqs := append(f.requests(2), f.requests(2)...)
	st, err := b.Submit(context.Background(), reqs, "fp")
	if err != nil {
		t.Fatal(err)
	}
	if st.Requests() != 2 || len(f.srv.BatchLines()) != 2 {
		t.Fatalf("%d requests in the state, %d lines; want 2", st.Requests(), len(f.srv.BatchLines()))
	}
	res, err := b.Collect(context.Background(), st, f.ep, reqs, true)
	if err != nil || res.Stored != 2 {
		t.Fatalf("collect: %+v, %v", res, err)
	}
}

// cancelAfter cancels a context at the n-th status request.
type cancelAfter struct {
	mu     sync.Mutex
	n      int
	cancel context.CancelFunc
	next   http.RoundTripper
}

func (c *cancelAfter) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet {
		c.mu.Lock()
		c.n--
		if c.n == 0 {
			c.cancel()
		}
		c.mu.Unlock()
	}
	return c.next.RoundTrip(r)
}

// TestWaitCanceled: a collect waiting for a batch that does not end returns when its context
// ends, with the context's error.
func TestWaitCanceled(t *testing.T) {
	t.Parallel()
	for _, provider := range []llm.Provider{"openai", "anthropic"} {
		t.Run(string(provider), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, provider, llmtest.HoldBatches())
			script(f.srv)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			rt := &cancelAfter{n: 5, cancel: cancel, next: http.DefaultTransport}
			b, err := New(Config{Client: llm.Config{CacheDir: f.cache, HTTPClient: &http.Client{Transport: rt}}, Root: f.root, PollInterval: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			reqs := f.requests(2)
			st, err := b.Submit(context.Background(), reqs, "fp")
			if err != nil {
				t.Fatal(err)
			}
			res, err := b.Collect(ctx, st, f.ep, reqs, true)
			if !errors.Is(err, context.Canceled) || res != nil {
				t.Fatalf("collect: %+v, %v; want context.Canceled", res, err)
			}
			if rt.n > 0 {
				t.Fatalf("collect returned before the cancellation (%d polls left)", rt.n)
			}
		})
	}
}

// TestUnsupportedProviders: a provider without a batch API is a typed error naming it and the
// live run, before anything is sent.
func TestUnsupportedProviders(t *testing.T) {
	t.Parallel()
	for _, p := range []llm.Provider{"openai-compatible", "gemini", "azure-openai", "openrouter", ""} {
		f := newFixture(t, p)
		b := f.batcher(t)
		_, err := b.Submit(context.Background(), f.requests(1), "fp")
		var ue *UnsupportedError
		if !errors.As(err, &ue) || ue.Provider != p {
			t.Fatalf("%q: %v, want an *UnsupportedError", p, err)
		}
		name := string(p)
		if name == "" {
			name = "(none)"
		}
		want := "provider " + name + " has no batch API vectorlint can use (batches work with openai and anthropic): run the lint live instead"
		if err.Error() != want || f.srv.BatchRequests() != 0 {
			t.Fatalf("%q: %q (%d requests), want %q", p, err, f.srv.BatchRequests(), want)
		}
	}
}

// TestTrust: a batch goes only where a live call with the same key could go; a result file
// elsewhere than the endpoint's origin is never fetched with the key.
func TestTrust(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "openai")
	b, err := New(Config{Client: llm.Config{CacheDir: f.cache, Trust: &trust.Rule{}}, Root: f.root})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	ep := f.ep
	ep.BaseURL = "http://models.example.invalid/v1"
	ep.KeySource = envsource.Source{Origin: envsource.OriginProcess, Name: "OPENAI_API_KEY"}
	ep.BaseURLSource = envsource.Source{Origin: envsource.OriginDotEnv, Name: "OPENAI_BASE_URL", File: ".env", Line: 2}
	reqs := f.requests(1)
	reqs[0].Endpoint = ep
	_, err = b.Submit(context.Background(), reqs, "fp")
	if !errors.As(err, new(*trust.UntrustedHostError)) || f.srv.BatchRequests() != 0 {
		t.Fatalf("submit to an untrusted host: %v", err)
	}

	other := llmtest.Start(t)
	err = b.readResults(context.Background(), f.ep, "anthropic", other.URL+"/messages/batches/x/results", map[string]outcome{})
	if err == nil || !strings.Contains(err.Error(), "refusing to send the key to") || other.BatchRequests() != 0 {
		t.Fatalf("results at another origin: %v (%d requests)", err, other.BatchRequests())
	}
}

// TestEndpointMustMatch: status and collect follow a batch only with the endpoint it went to.
func TestEndpointMustMatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "openai")
	b := f.batcher(t)
	st, err := b.Submit(context.Background(), f.requests(1), "fp")
	if err != nil {
		t.Fatal(err)
	}
	ep := f.ep
	ep.Model = "gpt-4o-mini"
	_, err = b.Status(context.Background(), st, ep)
	want := "batch " + st.ID + " was submitted to gpt-4o at " + f.srv.URL + " (openai); the endpoint now is gpt-4o-mini at " +
		strings.TrimPrefix(f.srv.URL, "http://")[:len(strings.TrimPrefix(f.srv.URL, "http://"))-3] + " (openai): set the same provider, base URL and model to follow it"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
}

// TestPriceFactor reads BATCH_PRICE_FACTOR, and the cost of collected replies is the live cost
// times the factor.
func TestPriceFactor(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		value string
		want  float64
		err   string
	}{
		{"", 0.5, ""}, {"0.5", 0.5, ""}, {" 0.25 ", 0.25, ""}, {"1", 1, ""},
		{"0", 0, "BATCH_PRICE_FACTOR: expected a number above 0 and at most 1 (the share of the live price a batch costs), found \"0\""},
		{"1.5", 0, "BATCH_PRICE_FACTOR: expected a number above 0 and at most 1 (the share of the live price a batch costs), found \"1.5\""},
		{"half", 0, "BATCH_PRICE_FACTOR: expected a number above 0 and at most 1 (the share of the live price a batch costs), found \"half\""},
		{"NaN", 0, "BATCH_PRICE_FACTOR: expected a number above 0 and at most 1 (the share of the live price a batch costs), found \"NaN\""},
	} {
		env := envsource.LookupFunc(func(k string) (string, bool) {
			if k == PriceFactorVar && tc.value != "" {
				return tc.value, true
			}
			return "", false
		})
		got, err := PriceFactor(env)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err || !errors.As(err, new(*envsource.SettingError)) {
				t.Errorf("%q: %v, want %q", tc.value, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %g, %v; want %g", tc.value, got, err, tc.want)
		}
	}

	// The cost: the same replies live and through a batch at 0.5.
	f := newFixture(t, "openai")
	script(f.srv)
	prices := &llm.Prices{InputPerMillion: 2, OutputPerMillion: 8}
	b, err := New(Config{Client: llm.Config{CacheDir: f.cache, Prices: prices}, Root: f.root, PollInterval: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	reqs := f.requests(3)
	st, err := b.Submit(context.Background(), reqs, "fp")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Collect(context.Background(), st, f.ep, reqs, true); err != nil {
		t.Fatal(err)
	}
	c, _ := llm.New(llm.Config{Prices: prices})
	for _, r := range reqs {
		if _, err := c.Complete(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	lu, bu := c.Usage(), b.Usage()
	if bu.Cost == nil || lu.Cost == nil || *bu.Cost != *lu.Cost*0.5 || bu.InputTokens != lu.InputTokens || bu.OutputTokens != lu.OutputTokens {
		t.Fatalf("batch usage %+v (cost %v), live %+v (cost %v)", bu, *bu.Cost, lu, *lu.Cost)
	}
}

// TestErrorsScrubbed: a batch API error that quotes the key does not carry it into the error.
func TestErrorsScrubbed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"key `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+` may not upload"}}`)
	}))
	defer srv.Close()
	f := newFixture(t, "openai")
	f.ep.BaseURL = srv.URL + "/v1"
	b := f.batcher(t)
	_, err := b.Submit(context.Background(), f.requests(1), "fp")
	host := strings.TrimPrefix(srv.URL, "http://")
	if want := "batch file upload at " + host + ": HTTP 400: key [redacted] may not upload"; err == nil || err.Error() != want {
		t.Fatalf("got %v\nwant %s", err, want)
	}
	if entries, _ := os.ReadDir(filepath.Join(f.dir, ".vectorlint", "batches")); len(entries) != 0 {
		t.Fatalf("a failed submit saved %d state files", len(entries))
	}
}

// failingPolls answers the status requests numbered in fail with a 503, without asking the
// server.
type failingPolls struct {
	mu   sync.Mutex
	n    int
	fail map[int]bool
	next http.RoundTripper
}

func (f *failingPolls) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Method == http.MethodGet && !strings.HasSuffix(r.URL.Path, "/content") && !strings.HasSuffix(r.URL.Path, "/results") {
		f.mu.Lock()
		f.n++
		fail := f.fail[f.n]
		f.mu.Unlock()
		if fail {
			return &http.Response{StatusCode: 503, Status: "503 Service Unavailable", Header: http.Header{},
				Body: io.NopCloser(strings.NewReader(`{"error":{"message":"busy"}}`)), Request: r}, nil
		}
	}
	return f.next.RoundTrip(r)
}

// TestWaitSurvivesPassingFailures: a poll that meets a 503 while waiting is made again; without
// waiting it is the error.
func TestWaitSurvivesPassingFailures(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "openai")
	script(f.srv)
	rt := &failingPolls{fail: map[int]bool{1: true, 3: true, 4: true}, next: http.DefaultTransport}
	b, err := New(Config{Client: llm.Config{CacheDir: f.cache, HTTPClient: &http.Client{Transport: rt}}, Root: f.root, PollInterval: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	reqs := f.requests(2)
	st, err := b.Submit(context.Background(), reqs, "fp")
	if err != nil {
		t.Fatal(err)
	}
	res, err := b.Collect(context.Background(), st, f.ep, reqs, true)
	if err != nil || res.Stored != 2 {
		t.Fatalf("collect: %+v, %v", res, err)
	}
	// 3 failed polls and the 4 states the fake moves through.
	if rt.n != 7 {
		t.Fatalf("%d polls, want 7", rt.n)
	}
	rt.fail = map[int]bool{8: true}
	_, err = b.Collect(context.Background(), st, f.ep, reqs, false)
	var ae *APIError
	if !errors.As(err, &ae) || ae.Status != 503 || ae.Message != "busy" {
		t.Fatalf("a failed poll without waiting: %v", err)
	}
}
