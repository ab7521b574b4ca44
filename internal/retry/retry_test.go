package retry_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/retry"
)

// fastPolicy retries at once (jitter 0, 2 ms steps). Its attempt timeout is far beyond any reply
// of a local server, however loaded the machine (with a timeout of a second, a slow reply on a
// loaded CI machine was retried and a test failed): an attempt times out only where a test sets
// a short timeout and its server hangs.
func fastPolicy() retry.Policy {
	return retry.Policy{Timeout: time.Minute, BaseDelay: 2 * time.Millisecond, MaxDelay: 8 * time.Millisecond,
		Rand: func() float64 { return 0 }}
}

// scripted serves the statuses in turn (the last one from then on), each with its number as
// body; hang makes a request wait for the client to give up.
func scripted(t *testing.T, statuses ...int) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var n atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		i := int(n.Add(1))
		st := statuses[min(i, len(statuses))-1]
		switch st {
		case 0: // hang until the client gives up
			<-r.Context().Done()
			return
		case 429:
			w.Header().Set("Retry-After", "0.05")
		case 999: // a 200 whose body is cut off
			hj, _ := w.(http.Hijacker)
			conn, buf, _ := hj.Hijack()
			fmt.Fprint(buf, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\npartial")
			buf.Flush()
			conn.Close()
			return
		}
		w.WriteHeader(st)
		fmt.Fprintf(w, "reply %d", i)
	}))
	t.Cleanup(s.Close)
	return s, &n
}

// get is an attempt that GETs url and returns the response unread.
func get(url string, attempts *[]int) func(ctx context.Context, n int) (*http.Response, error) {
	return func(ctx context.Context, n int) (*http.Response, error) {
		*attempts = append(*attempts, n)
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return nil, err
		}
		return http.DefaultClient.Do(req)
	}
}

func readAll(t *testing.T, res *http.Response) string {
	t.Helper()
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestHTTP(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		statuses []int
		policy   func(*retry.Policy)
		// detach runs the attempts after the first without the policy's timeout: the test of a
		// hung attempt times out the first at 100 ms, and the reply to the second must not
		// depend on the machine answering within that.
		detach bool
		// want: the attempts made and the final status and body
		attempts int
		status   int
		body     string
		minTime  time.Duration
	}{
		{name: "success at once", statuses: []int{200}, attempts: 1, status: 200, body: "reply 1"},
		{name: "5xx retried until success", statuses: []int{503, 500, 200}, attempts: 3, status: 200, body: "reply 3"},
		{name: "408, 409 and 429 retried", statuses: []int{408, 409, 429, 201}, attempts: 4, status: 201, body: "reply 4", minTime: 50 * time.Millisecond},
		{name: "400 not retried", statuses: []int{400, 200}, attempts: 1, status: 400, body: "reply 1"},
		{name: "404 not retried", statuses: []int{404, 200}, attempts: 1, status: 404, body: "reply 1"},
		{name: "the last failure returned when attempts run out", statuses: []int{500}, attempts: 4, status: 500, body: "reply 4"},
		{name: "MaxAttempts", statuses: []int{502}, policy: func(p *retry.Policy) { p.MaxAttempts = 2 }, attempts: 2, status: 502, body: "reply 2"},
		{name: "a Retry-After beyond MaxRetryAfter ends the call", statuses: []int{429, 200},
			policy: func(p *retry.Policy) { p.MaxRetryAfter = 10 * time.Millisecond }, attempts: 1, status: 429, body: "reply 1"},
		{name: "a linear backoff of the caller's", statuses: []int{500, 500, 200},
			policy: func(p *retry.Policy) {
				p.Backoff = func(n int) time.Duration { return time.Duration(n) * 30 * time.Millisecond }
			}, attempts: 3, status: 200, body: "reply 3", minTime: 90 * time.Millisecond},
		{name: "a hung attempt times out and is retried", statuses: []int{0, 200},
			policy: func(p *retry.Policy) { p.Timeout = 100 * time.Millisecond }, detach: true, attempts: 2, status: 200, body: "reply 2",
			minTime: 100 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, served := scripted(t, tt.statuses...)
			p := fastPolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			var attempts []int
			attempt := get(s.URL, &attempts)
			if tt.detach {
				attempt = func(ctx context.Context, n int) (*http.Response, error) {
					if n > 1 {
						ctx = context.WithoutCancel(ctx)
					}
					return get(s.URL, &attempts)(ctx, n)
				}
			}
			start := time.Now()
			res, err := retry.HTTP(context.Background(), p, attempt)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != tt.status || readAll(t, res) != tt.body {
				t.Fatalf("status %d", res.StatusCode)
			}
			if len(attempts) != tt.attempts || int(served.Load()) != tt.attempts || attempts[len(attempts)-1] != tt.attempts {
				t.Fatalf("attempts %v, %d served, want %d", attempts, served.Load(), tt.attempts)
			}
			if d := time.Since(start); d < tt.minTime {
				t.Fatalf("done in %v, want at least %v (the waits)", d, tt.minTime)
			}
		})
	}
}

// The body of the returned response stays readable after HTTP returns, until it is
// closed: the attempt's time limit does not cut it off.
func TestHTTPBodyOutlivesTheCall(t *testing.T) {
	t.Parallel()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.(http.Flusher).Flush()
		time.Sleep(50 * time.Millisecond)
		fmt.Fprint(w, "late body")
	}))
	defer s.Close()
	var attempts []int
	res, err := retry.HTTP(context.Background(), fastPolicy(), get(s.URL, &attempts))
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, res); got != "late body" {
		t.Fatalf("body %q", got)
	}
}

// TestHTTPErrors: no assertion depends on how fast the machine runs. Each subtest's limits are
// either far beyond what a local server needs, or the very thing tested, checked from the side
// a slow machine cannot cross (a call lasts at least its limit; a timer never fires early).
func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	t.Run("network failures retried, the last one returned", func(t *testing.T) {
		t.Parallel()
		s := httptest.NewServer(http.NotFoundHandler())
		url := s.URL
		s.Close()
		var attempts []int
		_, err := retry.HTTP(context.Background(), fastPolicy(), get(url, &attempts))
		if !errors.Is(err, syscall.ECONNREFUSED) || len(attempts) != 4 {
			t.Fatalf("error %v after %v", err, attempts)
		}
	})
	t.Run("a body cut off while the attempt reads it is retried", func(t *testing.T) {
		t.Parallel()
		s, served := scripted(t, 999, 200)
		res, err := retry.HTTP(context.Background(), fastPolicy(), func(ctx context.Context, n int) (*http.Response, error) {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.URL, nil)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				return nil, err
			}
			defer res.Body.Close()
			b, err := io.ReadAll(res.Body)
			if err != nil {
				return nil, err
			}
			res.Body = io.NopCloser(bytes.NewReader(b))
			return res, nil
		})
		if err != nil || readAll(t, res) != "reply 2" || served.Load() != 2 {
			t.Fatalf("error %v after %d requests", err, served.Load())
		}
	})
	t.Run("the caller's own errors are not retried", func(t *testing.T) {
		t.Parallel()
		n := 0
		mine := errors.New("invalid service URL")
		_, err := retry.HTTP(context.Background(), fastPolicy(), func(context.Context, int) (*http.Response, error) {
			n++
			return nil, mine
		})
		if err != mine || n != 1 {
			t.Fatalf("error %v after %d attempts", err, n)
		}
	})
	t.Run("the call's time limit: 3 × the attempt timeout", func(t *testing.T) {
		// Every attempt hangs until it times out; ten attempts are allowed, with no wait
		// between them. Only the call's limit can end the call early: it ends after at most
		// CallTimeoutFactor attempts (each lasts at least its timeout, so a fourth would start
		// past the limit), not before the limit (the call stops only when no time is left),
		// and no attempt may run past it. How late the timers fire on a loaded machine changes
		// none of this (asking for exactly three attempts did: a late timer left time for two).
		t.Parallel()
		s, _ := scripted(t, 0)
		p := fastPolicy()
		p.Timeout, p.MaxAttempts = 100*time.Millisecond, 10
		p.Backoff = func(int) time.Duration { return 0 }
		var attempts []int
		var deadlines []time.Time
		var first time.Time
		start := time.Now()
		_, err := retry.HTTP(context.Background(), p, func(ctx context.Context, n int) (*http.Response, error) {
			if n == 1 {
				first = time.Now()
			}
			d, _ := ctx.Deadline()
			deadlines = append(deadlines, d)
			return get(s.URL, &attempts)(ctx, n)
		})
		took := time.Since(start)
		if !errors.Is(err, context.DeadlineExceeded) || len(attempts) == 0 || len(attempts) > retry.CallTimeoutFactor || took < p.CallLimit() {
			t.Fatalf("error %v after %v in %v, want a deadline error after 1 to %d attempts in at least %v",
				err, attempts, took, retry.CallTimeoutFactor, p.CallLimit())
		}
		for i, d := range deadlines {
			if d.After(first.Add(p.CallLimit())) {
				t.Errorf("attempt %d ran until %v, past the call's limit %v", i+1, d.Sub(first), p.CallLimit())
			}
		}
	})
	t.Run("a wait past the call's time limit returns the last response at once", func(t *testing.T) {
		t.Parallel()
		s, _ := scripted(t, 503)
		p := fastPolicy()
		p.Timeout = 20 * time.Second                             // a call's limit of a minute
		p.BaseDelay, p.MaxDelay = 10*time.Minute, 10*time.Minute // waits of 5 min, beyond it
		var attempts []int
		start := time.Now()
		res, err := retry.HTTP(context.Background(), p, get(s.URL, &attempts))
		// Waiting would have slept until the call's limit and tried again.
		if err != nil || res.StatusCode != 503 || readAll(t, res) != "reply 1" || len(attempts) != 1 || time.Since(start) >= p.CallLimit() {
			t.Fatalf("error %v after %v in %v", err, attempts, time.Since(start))
		}
	})
	t.Run("canceled while waiting", func(t *testing.T) {
		t.Parallel()
		s, _ := scripted(t, 500)
		p := fastPolicy()
		const wait = 30 * time.Minute
		p.Timeout, p.BaseDelay, p.MaxDelay = time.Hour, 2*wait, 2*wait // a call's limit of 3 h
		ctx, cancel := context.WithCancel(context.Background())
		var attempts []int
		start := time.Now()
		_, err := retry.HTTP(ctx, p, func(ctx context.Context, n int) (*http.Response, error) {
			res, err := get(s.URL, &attempts)(ctx, n)
			// Canceled once the attempt is over: during the wait (or, on a slow machine,
			// before it starts, which ends the call the same way).
			time.AfterFunc(10*time.Millisecond, cancel)
			return res, err
		})
		if !errors.Is(err, context.Canceled) || len(attempts) != 1 || time.Since(start) >= wait {
			t.Fatalf("error %v after %v in %v", err, attempts, time.Since(start))
		}
	})
}

func TestParseAfter(t *testing.T) {
	t.Parallel()
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
		got, ok := retry.ParseAfter(tt.value, now)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseAfter(%q) = %v, %v; want %v, %v", tt.value, got, ok, tt.want, tt.ok)
		}
	}
}

func FuzzParseAfter(f *testing.F) {
	for _, s := range []string{"0", "7", "1.5", "Sat, 01 Mar 2025 12:00:30 GMT", "", "-1", "1e9", ".", "9.9e-400"} {
		f.Add(s)
	}
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, s string) {
		d, ok := retry.ParseAfter(s, now)
		if d < 0 || d > 366*24*time.Hour {
			t.Fatalf("ParseAfter(%q) = %v, out of range", s, d)
		}
		if !ok && d != 0 {
			t.Fatalf("ParseAfter(%q) = %v with ok=false", s, d)
		}
		if tm, err := http.ParseTime(s); err == nil && s == strings.TrimSpace(s) && tm.Sub(now) < 300*24*time.Hour && !ok {
			t.Fatalf("ParseAfter rejected the valid HTTP-date %q", s)
		}
	})
}
