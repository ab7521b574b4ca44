package points

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
)

// $call and $factcheck under docs/security.md ("Redirects, proxies and echoed keys"): a
// redirect is followed only within one origin and without Referer, and a credential the
// service echoes in a successful answer is redacted from the explanation.

const callSecret = "callSecret-LEAK-24680"

// secretEnv allows ${CALL_KEY}, whose value is callSecret.
func secretEnv(client *http.Client) Env {
	return Env{AllowNet: true, HTTPClient: client, AllowEnv: AllowEnv{"CALL_KEY": true},
		LookupEnv: envsource.LookupFunc(func(k string) (string, bool) {
			if k == "CALL_KEY" {
				return callSecret, true
			}
			return "", false
		})}
}

// TestCallRedirectToAnotherHostRefused: a service answering a redirect to another host fails
// the point at once, naming both origins; the other host receives nothing. With the given
// client or without one (http.DefaultClient), the rule is the same.
func TestCallRedirectToAnotherHostRefused(t *testing.T) {
	t.Parallel()
	var otherCalls atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		otherCalls.Add(1)
		fmt.Fprint(w, `{"score": 1, "explain": "stolen"}`)
	}))
	defer other.Close()
	to := strings.Replace(other.URL, "127.0.0.1", "localhost", 1)
	for _, code := range []int{301, 302, 303, 307, 308} {
		for _, given := range []*http.Client{nil, {}} {
			var calls atomic.Int32
			svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				http.Redirect(w, r, to+"/steal?"+r.URL.RawQuery, code)
			}))
			args := map[string]any{"url": svc.URL + "/check/${CALL_KEY}?token=${CALL_KEY}", "headers": map[string]any{"X-Key": "${CALL_KEY}"}}
			r := callPoint(t, "call", args, secretEnv(given), Subject{Text: "Paris"})
			svc.Close()
			want := fmt.Sprintf("request to %s/check/[redacted] failed: %s redirected the request to %s: a request that may carry a key follows a redirect "+
				"only to the same scheme, host and port, so nothing was sent to %s", svc.URL, svc.URL, to, to)
			if r.err == nil || r.err.Error() != want {
				t.Errorf("%d, client %v: error\n%v\nwant\n%s", code, given, r.err, want)
			}
			if n := calls.Load(); n != 1 {
				t.Errorf("%d: the service got %d requests, want 1 (a refused redirect is not retried)", code, n)
			}
		}
	}
	if n := otherCalls.Load(); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
}

// TestCallSameOriginRedirectFollowed is the positive control: a 307 to another path of the
// service is followed with the body and the headers, without Referer.
func TestCallSameOriginRedirectFollowed(t *testing.T) {
	t.Parallel()
	var second atomic.Value
	svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, "/new", http.StatusTemporaryRedirect)
			return
		}
		body, _ := io.ReadAll(r.Body)
		second.Store(fmt.Sprintf("%s body %v key=%q referer=%q", r.Method, strings.Contains(string(body), `"response":"Paris"`), r.Header.Get("X-Key"), r.Header.Get("Referer")))
		fmt.Fprint(w, `{"score": 0.5, "explain": "moved, still fine"}`)
	}))
	defer svc.Close()
	args := map[string]any{"url": svc.URL + "/old", "headers": map[string]any{"X-Key": "${CALL_KEY}"}}
	r := callPoint(t, "call", args, secretEnv(nil), Subject{Text: "Paris"})
	if r.err != nil || r.score != 0.5 || r.explain != "moved, still fine" {
		t.Fatalf("result %+v", r)
	}
	if got, want := second.Load(), fmt.Sprintf("POST body true key=%q referer=\"\"", callSecret); got != want {
		t.Errorf("the redirected request: %v, want %s", got, want)
	}
}

// TestCallEchoedSecretRedacted: a service that repeats the credentials it was sent in a
// successful explanation has them redacted; an explanation without one is kept exactly, even
// text shaped like a key.
func TestCallEchoedSecretRedacted(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ explain, want string }{
		{"you sent " + callSecret + " and password pw-LEAK-1357", "you sent [redacted] and password [redacted]"},
		{"Use sk-not-a-real-key-123456 or api_key=abcdefgh1234 here.", "Use sk-not-a-real-key-123456 or api_key=abcdefgh1234 here."},
	} {
		svc := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.Copy(io.Discard, r.Body)
			fmt.Fprintf(w, `{"score": 1, "explain": %q}`, tt.explain)
		}))
		args := map[string]any{"url": strings.Replace(svc.URL, "http://", "http://user:pw-LEAK-1357@", 1) + "/x",
			"headers": map[string]any{"X-Key": "${CALL_KEY}"}}
		r := callPoint(t, "call", args, secretEnv(nil), Subject{Text: "Paris"})
		svc.Close()
		if r.err != nil || r.explain != tt.want {
			t.Errorf("explain %q (%v), want %q", r.explain, r.err, tt.want)
		}
	}
}
