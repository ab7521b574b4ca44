package points

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// fakeService records requests and answers with a scripted status and body.
type fakeService struct {
	t        *testing.T
	calls    atomic.Int32
	answers  []answer // one per call; the last repeats
	lastBody map[string]any
	lastHdr  http.Header
}

type answer struct {
	status int
	body   string
}

func (f *fakeService) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := int(f.calls.Add(1)) - 1
	data, _ := io.ReadAll(r.Body)
	f.lastBody = nil
	_ = json.Unmarshal(data, &f.lastBody)
	f.lastHdr = r.Header.Clone()
	a := f.answers[min(n, len(f.answers)-1)]
	w.WriteHeader(a.status)
	io.WriteString(w, a.body)
}

func callPoint(t *testing.T, fn string, args any, env Env, s Subject) fnResult {
	t.Helper()
	pt := &rubric.Point{Fn: fn, Args: args, HasArgs: true, Multiplier: 1}
	if err := Prepare(pt); err != nil {
		t.Fatalf("prepare: %v", err)
	}
	return pt.Compiled.(evaluator)(&evalInput{ctx: context.Background(), subject: &s, env: &env})
}

func TestCallInlineURL(t *testing.T) {
	t.Parallel()
	f := &fakeService{t: t, answers: []answer{{200, `{"score": 0.75, "explain": "mostly right"}`}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	q := "What is the capital?"
	subject := Subject{Text: "Paris", PromptID: "p1", ModelID: "m1", Messages: []Message{{Role: "user", Content: &q}}}
	args := map[string]any{"url": srv.URL + "/check?token=SECRET", "claim": "{response} for {promptId} by {modelId}", "question": "{promptText}",
		"headers": map[string]any{"Authorization": "Bearer ${SERVICE_KEY}"}}
	env := Env{AllowNet: true, AllowEnv: AllowEnv{"SERVICE_KEY": true}, LookupEnv: envsource.LookupFunc(func(k string) (string, bool) {
		if k == "SERVICE_KEY" {
			return "s3cret", true
		}
		return "", false
	})}
	r := callPoint(t, "call", args, env, subject)
	if r.err != nil || r.score != 0.75 || r.explain != "mostly right" {
		t.Fatalf("result = %+v", r)
	}
	want := map[string]any{"response": "Paris", "modelId": "m1", "promptId": "p1", "claim": "Paris for p1 by m1", "question": "What is the capital?"}
	if got, _ := json.Marshal(f.lastBody); string(got) != mustJSON(want) {
		t.Errorf("body = %s, want %s", got, mustJSON(want))
	}
	if got := f.lastHdr.Get("Authorization"); got != "Bearer s3cret" {
		t.Errorf("Authorization = %q", got)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestCallNamedServiceRetries(t *testing.T) {
	t.Parallel()
	f := &fakeService{t: t, answers: []answer{{503, "busy"}, {200, `{"score": 1}`}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	zero := 1
	env := Env{AllowNet: true, Services: ServiceMap{"checker": {URL: srv.URL, RetryBackoffMS: 1, MaxRetries: &zero}}}
	r := callPoint(t, "call", map[string]any{"service": "checker"}, env, Subject{Text: "x"})
	if r.err != nil || r.score != 1 || f.calls.Load() != 2 {
		t.Fatalf("result = %+v after %d calls", r, f.calls.Load())
	}
}

// TestCallScores: a service's score is read as $js's: true/false → 1/0, a number clamped to
// [0, 1] (spec/blueprints.md §3).
func TestCallScores(t *testing.T) {
	t.Parallel() // its scripts run under calmJSLimit, which no load makes them miss
	for _, tt := range []struct {
		answer string
		want   float64
	}{
		{`{"score": 0.25}`, 0.25},
		{`{"score": 2}`, 1},
		{`{"score": 1e308}`, 1},
		{`{"score": -0.5}`, 0},
		{`{"score": true, "explain": "yes"}`, 1},
		{`{"score": false}`, 0},
	} {
		f := &fakeService{t: t, answers: []answer{{200, tt.answer}}}
		srv := httptest.NewServer(f)
		r := callPoint(t, "call", map[string]any{"url": srv.URL}, Env{AllowNet: true}, Subject{Text: "x"})
		srv.Close()
		if r.err != nil || r.score != tt.want {
			t.Errorf("%s: score %v, error %v; want %v", tt.answer, r.score, r.err, tt.want)
		}
		// The same value from $js scores the same.
		js := callPoint(t, "js", "({score: "+strings.TrimSuffix(strings.SplitN(strings.SplitN(tt.answer, `"score": `, 2)[1], ",", 2)[0], "}")+"})", Env{JSTimeout: calmJSLimit}, Subject{Text: "x"})
		if js.err != nil || js.score != tt.want {
			t.Errorf("$js with %s: score %v, error %v; want %v", tt.answer, js.score, js.err, tt.want)
		}
	}
}

func TestCallErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		answers []answer
		args    map[string]any
		env     Env
		want    string
	}{
		{"no network", nil, map[string]any{"url": "http://127.0.0.1:1"}, Env{}, ErrNetworkNotAllowed.Error()},
		{"unknown service", nil, map[string]any{"service": "nope"}, Env{AllowNet: true, Services: ServiceMap{"a": {URL: "http://x"}}},
			`external service "nope" is not defined in externalServices (defined: a)`},
		{"service error", []answer{{200, `{"error": "claim too long"}`}}, nil, Env{AllowNet: true}, "the service reported an error: claim too long"},
		{"score of another type", []answer{{200, `{"score": "0.5"}`}}, nil, Env{AllowNet: true}, `expected a score (a number or a boolean) from SRV/check, found the string "0.5"`},
		{"null score", []answer{{200, `{"score": null}`}}, nil, Env{AllowNet: true}, `expected a score (a number or a boolean) from SRV/check, found null`},
		{"missing score", []answer{{200, `{"explain": "x"}`}}, nil, Env{AllowNet: true}, "expected a score (a number or a boolean) from SRV/check, found no score"},
		{"not JSON", []answer{{200, `<html>`}}, nil, Env{AllowNet: true}, `expected a JSON object {score, explain} from SRV/check, found "<html>"`},
		{"404 is not retried", []answer{{404, "no such page"}}, nil, Env{AllowNet: true}, "HTTP 404 from SRV/check: no such page"},
		{"500 after retries", []answer{{500, "down"}}, nil, Env{AllowNet: true}, "HTTP 500 from SRV/check: down"},
		{"missing header variable", nil, map[string]any{"url": "http://127.0.0.1:1", "headers": map[string]any{"X-Key": "${NOPE}"}},
			Env{AllowNet: true, AllowEnv: AllowEnv{"NOPE": true}}, `header "X-Key" of $call uses ${NOPE}, which is not set`},
		{"header variable not allowed", nil, map[string]any{"url": "http://127.0.0.1:1", "headers": map[string]any{"X-Key": "${HOME}"}},
			Env{AllowNet: true, LookupEnv: envsource.LookupFunc(func(string) (string, bool) { return "/home/u", true })},
			`header "X-Key" of $call uses ${HOME}, which a blueprint may read only when the run names it: add --allow-env HOME if this blueprint may send that variable to its url`},
		{"url variable not allowed", nil, map[string]any{"url": "http://127.0.0.1:1/${HOME}"},
			Env{AllowNet: true, LookupEnv: envsource.LookupFunc(func(string) (string, bool) { return "/home/u", true })},
			`url of $call uses ${HOME}, which a blueprint may read only when the run names it: add --allow-env HOME if this blueprint may send that variable to its url`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeService{t: t, answers: tt.answers}
			if f.answers == nil {
				f.answers = []answer{{200, `{"score": 1}`}}
			}
			srv := httptest.NewServer(f)
			defer srv.Close()
			args := tt.args
			if args == nil {
				args = map[string]any{"url": srv.URL + "/check?key=SECRET", "retry_backoff_ms": 1.0}
			}
			r := callPoint(t, "call", args, tt.env, Subject{Text: "x"})
			want := strings.ReplaceAll(tt.want, "SRV", srv.URL)
			if r.err == nil || r.err.Error() != want {
				t.Errorf("error = %v\nwant %s", r.err, want)
			}
			if r.err != nil && strings.Contains(r.err.Error(), "SECRET") {
				t.Errorf("the error leaks the query string: %v", r.err)
			}
		})
	}
}

func TestFactcheck(t *testing.T) {
	t.Parallel()
	f := &fakeService{t: t, answers: []answer{{200, `{"score": 0.5}`}}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	lookup := envsource.LookupFunc(func(k string) (string, bool) {
		if k == FactcheckEnv {
			return srv.URL, true
		}
		return "", false
	})
	r := callPoint(t, "factcheck", "focus on dates", Env{AllowNet: true, LookupEnv: lookup}, Subject{Text: "It happened in 1948."})
	if r.err != nil || r.score != 0.5 || r.explain != "No explanation provided." {
		t.Fatalf("result = %+v", r)
	}
	if got := mustJSON(f.lastBody); got != `{"claim":"It happened in 1948.","includeRaw":false,"instruction":"focus on dates"}` {
		t.Errorf("body = %s", got)
	}

	// The zero-argument form ("$factcheck") has no instruction.
	pt := &rubric.Point{Fn: "factcheck", Multiplier: 1}
	if res := compiled(t, pt)(&evalInput{ctx: context.Background(), subject: &Subject{Text: "x"}, env: &Env{AllowNet: true, LookupEnv: lookup}}); res.err != nil || f.lastBody["instruction"] != "" {
		t.Errorf("zero-argument factcheck: %+v body %v", res, f.lastBody)
	}

	r = callPoint(t, "factcheck", "x", Env{AllowNet: true}, Subject{Text: "x"})
	if r.err == nil || r.err.Error() != "$factcheck needs the fact-check service's URL in FACTCHECK_ENDPOINT_URL, which is not set" {
		t.Errorf("without the variable: %v", r.err)
	}
	r = callPoint(t, "factcheck", "x", Env{LookupEnv: lookup}, Subject{Text: "x"})
	if !errors.Is(r.err, ErrNetworkNotAllowed) {
		t.Errorf("without --allow-net: %v", r.err)
	}
}

// TestCallRetriesAsModelCalls: $call retries through the model client's retry.HTTP, so a
// 429 that names its wait and a connection dropped in the middle of the answer are tried
// again, a hung service ends with $call's own message, and the whole call is bounded by
// CallTimeoutFactor × its timeout whatever max_retries says.
func TestCallRetriesAsModelCalls(t *testing.T) {
	// Not parallel: it counts the attempts that fit in a call's 300 ms bound.
	t.Run("429 with Retry-After", func(t *testing.T) {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(http.StatusTooManyRequests)
				return
			}
			io.WriteString(w, `{"score": 0.5}`)
		}))
		defer srv.Close()
		r := callPoint(t, "call", map[string]any{"url": srv.URL, "retry_backoff_ms": 1.0}, Env{AllowNet: true}, Subject{Text: "x"})
		if r.err != nil || r.score != 0.5 || calls.Load() != 2 {
			t.Fatalf("result = %+v after %d calls, want 0.5 after 2", r, calls.Load())
		}
	})
	t.Run("dropped in the middle of the answer", func(t *testing.T) {
		var calls atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if calls.Add(1) == 1 {
				w.Header().Set("Content-Length", "100")
				io.WriteString(w, `{"score":`)
				w.(http.Flusher).Flush()
				conn, _, _ := w.(http.Hijacker).Hijack()
				conn.Close()
				return
			}
			io.WriteString(w, `{"score": true}`)
		}))
		defer srv.Close()
		r := callPoint(t, "call", map[string]any{"url": srv.URL, "retry_backoff_ms": 1.0}, Env{AllowNet: true}, Subject{Text: "x"})
		if r.err != nil || r.score != 1 || calls.Load() != 2 {
			t.Fatalf("result = %+v after %d calls, want 1 after 2", r, calls.Load())
		}
	})
	t.Run("hung service", func(t *testing.T) {
		var calls atomic.Int32
		release := make(chan struct{})
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			calls.Add(1)
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}))
		defer srv.Close()
		defer close(release)
		// 300 ms per attempt: a second attempt starts unless the first one's timer fires more
		// than half a second late (at 100 ms, a timer 200 ms late on a loaded machine left
		// time for one attempt only).
		args := map[string]any{"url": srv.URL + "/check", "timeout_ms": 300.0, "max_retries": 10.0, "retry_backoff_ms": 1.0}
		start := time.Now()
		r := callPoint(t, "call", args, Env{AllowNet: true}, Subject{Text: "x"})
		want := "no answer from " + srv.URL + "/check within 300ms"
		if r.err == nil || r.err.Error() != want {
			t.Fatalf("error = %v, want %s", r.err, want)
		}
		// 3 × 300 ms for the whole call: at most 3 attempts of 300 ms (the waits are 1–3 ms),
		// never the 11 that max_retries allows.
		if n := calls.Load(); n < 2 || n > 3 {
			t.Errorf("%d attempts in %v, want 2 or 3 within the call's bound", n, time.Since(start))
		}
	})
}
