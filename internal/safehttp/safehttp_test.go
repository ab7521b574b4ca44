package safehttp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/vectorlint/vectorlint/internal/safehttp"
)

const secret = "secretLEAK-0123456789"

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]bool{
		"127.0.0.1": true, "127.0.0.1:8080": true, "127.9.8.7": true, "[::1]:443": true, "::1": true, "[::1]": true,
		"localhost": true, "LOCALHOST:11434": true, "localhost.": true, "LocalHost.:80": true, "[::ffff:127.0.0.1]:80": true,
		// Names are never resolved; other addresses are not loopback.
		"localhost.attacker.test": false, "127.0.0.1.attacker.test": false, "attacker.test": false, "0.0.0.0": false,
		"10.0.0.1": false, "[::2]:80": false, "2130706433": false, "127.1": false, "": false, "localhost..": false,
	} {
		if got := safehttp.IsLoopback(host); got != want {
			t.Errorf("IsLoopback(%q) = %v, want %v", host, got, want)
		}
	}
}

// TestProxy: a loopback host is never given a proxy, and the next function is not even asked;
// every other host gets what the next function says.
func TestProxy(t *testing.T) {
	t.Parallel()
	via, _ := url.Parse("http://proxy.test:3128")
	asked := 0
	proxy := safehttp.Proxy(func(*http.Request) (*url.URL, error) { asked++; return via, nil })
	for rawURL, want := range map[string]*url.URL{
		"http://LOCALHOST:8080/v1": nil, "http://localhost.:8080/v1": nil, "https://127.0.0.1/v1": nil,
		"http://127.3.2.1:9/": nil, "http://[::1]:8080/v1": nil, "http://localhost/v1": nil,
		"http://models.test:8080/v1": via, "https://localhost.attacker.test/v1": via, "http://10.0.0.1/": via,
	} {
		req, err := http.NewRequest(http.MethodGet, rawURL, nil)
		if err != nil {
			t.Fatal(err)
		}
		asked = 0
		got, err := proxy(req)
		if err != nil || got != want || asked != map[bool]int{true: 0, false: 1}[want == nil] {
			t.Errorf("%s: proxy %v, %v (next asked %d times), want %v", rawURL, got, err, asked, want)
		}
	}
	if safehttp.Proxy(nil) != nil {
		t.Error("Proxy(nil) is not nil: a client without a proxy would get one")
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		a, b string
		want bool
	}{
		{"http://h:80/a?key=1", "http://h/b", true},
		{"https://h/a", "https://h:443/b", true},
		{"http://H.example./a", "http://h.example/b", true},
		{"http://[::1]:8/a", "http://[0:0::1]:8/b", false}, // spelled differently: not the same name
		{"http://h:8080/a", "http://h:8081/a", false},
		{"http://h/a", "https://h/a", false},
		{"http://127.0.0.1:8/a", "http://localhost:8/a", false},
		{"http://h/a", "http://h.attacker.test/a", false},
	} {
		a, _ := url.Parse(tt.a)
		b, _ := url.Parse(tt.b)
		if got := safehttp.SameOrigin(a, b); got != tt.want {
			t.Errorf("SameOrigin(%s, %s) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// recorder is a real HTTP server that logs every request it receives.
type recorder struct {
	srv *httptest.Server
	mu  sync.Mutex
	log []*http.Request
	// handle answers; nil answers 200 "ok".
	handle func(w http.ResponseWriter, r *http.Request)
}

func startRecorder(t *testing.T, handle func(w http.ResponseWriter, r *http.Request)) *recorder {
	t.Helper()
	rec := &recorder{handle: handle}
	rec.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(strings.NewReader(string(body)))
		r2 := r.Clone(context.Background())
		rec.mu.Lock()
		rec.log = append(rec.log, r2)
		rec.mu.Unlock()
		if rec.handle != nil {
			rec.handle(w, r)
			return
		}
		fmt.Fprintf(w, "ok %s %s", r.Method, body)
	}))
	t.Cleanup(rec.srv.Close)
	return rec
}

func (r *recorder) requests() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*http.Request(nil), r.log...)
}

func (r *recorder) addr() string { return strings.TrimPrefix(r.srv.URL, "http://") }

// routedClient is a NewClient whose dialer reaches other.test at other's address (a host name
// that is not the origin's, as an attacker's would be).
func routedClient(other *recorder) *http.Client {
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, _, _ := net.SplitHostPort(addr); host == "other.test" {
			addr = other.addr()
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}
	return safehttp.NewClient(safehttp.NewTransport(nil, dial))
}

// keyedRequest is a POST carrying the secret the ways providers carry keys: every key header,
// a custom header, and the URL's query.
func keyedRequest(t *testing.T, rawURL string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, rawURL+"?key="+secret, strings.NewReader(`{"q":1}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range []string{"api-key", "x-api-key", "x-goog-api-key", "X-Custom-Token"} {
		req.Header.Set(h, secret)
	}
	req.Header.Set("Authorization", "Bearer "+secret)
	return req
}

// TestCrossOriginRedirectRefused: a server answering 301, 302, 303, 307 or 308 towards another
// host, port or scheme gets the request refused, naming both origins; the other host receives
// nothing.
func TestCrossOriginRedirectRefused(t *testing.T) {
	t.Parallel()
	other := startRecorder(t, nil)
	otherPort := other.srv.URL[strings.LastIndex(other.srv.URL, ":")+1:]
	// Each target is computed from the origin's own host:port.
	targets := map[string]func(originHost string) string{
		"another host":            func(string) string { return "http://other.test:" + otherPort },
		"another name, same IP":   func(string) string { return "http://localhost:" + otherPort },
		"another port":            func(string) string { return "http://127.0.0.1:" + otherPort },
		"another scheme":          func(h string) string { return "https://" + h },
		"another host, same port": func(h string) string { return "http://other.test:" + h[strings.LastIndex(h, ":")+1:] },
	}
	for _, code := range []int{301, 302, 303, 307, 308} {
		for name, target := range targets {
			t.Run(fmt.Sprintf("%d %s", code, name), func(t *testing.T) {
				t.Parallel()
				origin := startRecorder(t, func(w http.ResponseWriter, r *http.Request) {
					http.Redirect(w, r, target(r.Host)+"/steal?"+r.URL.RawQuery, code)
				})
				to := target(origin.addr())
				before := len(other.requests())
				res, err := routedClient(other).Do(keyedRequest(t, origin.srv.URL+"/v1/chat"))
				if res != nil {
					res.Body.Close()
				}
				if n := len(other.requests()) - before; n != 0 {
					t.Errorf("the other host got %d requests", n)
				}
				var re *safehttp.RedirectError
				if !errors.As(err, &re) || re.From != origin.srv.URL || re.To != to || re.TooMany {
					t.Fatalf("error %v (%#v), want a RedirectError from %s to %s", err, re, origin.srv.URL, to)
				}
				want := origin.srv.URL + " redirected the request to " + to + ": a request that may carry a key follows a redirect only to the " +
					"same scheme, host and port, so nothing was sent to " + to
				if re.Error() != want {
					t.Errorf("message\n%s\nwant\n%s", re.Error(), want)
				}
				if n := len(origin.requests()); n != 1 {
					t.Errorf("the origin got %d requests, want 1", n)
				}
			})
		}
	}
}

// TestSameOriginRedirectFollowed is the positive control: a 307 or 308 to a path of the same
// host and port (relative, or absolute with the host spelled otherwise) is followed with the
// method, the body and the headers, the key included, and without a Referer; a 302 becomes a
// GET, as net/http does.
func TestSameOriginRedirectFollowed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		code     int
		location func(r *http.Request) string
	}{
		{307, func(r *http.Request) string { return "/new?" + r.URL.RawQuery }},
		{308, func(r *http.Request) string { return "HTTP://" + r.Host + "/new" }},
		{302, func(*http.Request) string { return "/new" }},
	} {
		t.Run(fmt.Sprint(tt.code), func(t *testing.T) {
			t.Parallel()
			origin := startRecorder(t, func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path == "/old" {
					http.Redirect(w, r, tt.location(r), tt.code)
					return
				}
				body, _ := io.ReadAll(r.Body)
				fmt.Fprintf(w, "ok %s %s", r.Method, body)
			})
			res, err := safehttp.NewClient(safehttp.NewTransport(nil, nil)).Do(keyedRequest(t, origin.srv.URL+"/old"))
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			want := `ok POST {"q":1}`
			if tt.code == 302 {
				want = "ok GET "
			}
			if res.StatusCode != 200 || string(body) != want {
				t.Errorf("status %d, body %q, want %q", res.StatusCode, body, want)
			}
			reqs := origin.requests()
			if len(reqs) != 2 || reqs[1].URL.Path != "/new" {
				t.Fatalf("%d requests", len(reqs))
			}
			second := reqs[1]
			if _, ok := second.Header["Referer"]; ok {
				t.Errorf("the redirected request has a Referer: %q", second.Header.Get("Referer"))
			}
			if second.Header.Get("x-api-key") != secret || second.Header.Get("Authorization") != "Bearer "+secret {
				t.Errorf("the key headers were not kept within the origin: %v", second.Header)
			}
		})
	}
}

// TestNoReferer: a Referer set by the caller is not sent either, and the request given is not
// changed.
func TestNoReferer(t *testing.T) {
	t.Parallel()
	srv := startRecorder(t, nil)
	req := keyedRequest(t, srv.srv.URL+"/x")
	req.Header.Set("Referer", "https://example.test/?key="+secret)
	res, err := safehttp.NewClient(nil).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := srv.requests()[0].Header; got.Get("Referer") != "" || got.Get("x-api-key") != secret {
		t.Errorf("headers sent: %v", got)
	}
	if req.Header.Get("Referer") == "" {
		t.Error("the caller's request was changed")
	}
}

// TestTooManyRedirects: a same-origin loop stops after MaxRedirects.
func TestTooManyRedirects(t *testing.T) {
	t.Parallel()
	srv := startRecorder(t, func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/again", http.StatusFound) })
	_, err := safehttp.NewClient(nil).Get(srv.srv.URL + "/start")
	var re *safehttp.RedirectError
	if !errors.As(err, &re) || !re.TooMany || re.Error() != srv.srv.URL+" redirected the request more than 10 times: stopped" {
		t.Fatalf("error %v", err)
	}
	if n := len(srv.requests()); n != safehttp.MaxRedirects {
		t.Errorf("%d requests, want %d", n, safehttp.MaxRedirects)
	}
}

// TestGuard: a client made elsewhere is used through a copy with the rules; the original and
// its transport are not changed, and a guarded client is returned as it is.
func TestGuard(t *testing.T) {
	t.Parallel()
	other := startRecorder(t, nil)
	origin := startRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://"+other.addr()+"/steal", http.StatusTemporaryRedirect)
	})
	via, _ := url.Parse("http://proxy.test:3128")
	base := &http.Transport{Proxy: func(*http.Request) (*url.URL, error) { return via, nil }}
	given := &http.Client{Transport: base}
	g := safehttp.Guard(given)
	if given.CheckRedirect != nil || given.Transport != base {
		t.Fatal("Guard changed the client it was given")
	}
	if safehttp.Guard(g) != g {
		t.Error("a guarded client was copied again")
	}
	// A copy whose redirect policy was replaced is guarded again.
	loose := *g
	loose.CheckRedirect = func(*http.Request, []*http.Request) error { return nil }
	if again := safehttp.Guard(&loose); again == &loose || again.CheckRedirect == nil {
		t.Error("a client with another redirect policy was returned as it was")
	} else if _, err := again.Do(keyedRequest(t, origin.srv.URL+"/v1")); !errors.As(err, new(*safehttp.RedirectError)) {
		t.Errorf("re-guarded: %v", err)
	}
	if n := len(other.requests()); n != 0 {
		t.Errorf("the other host got %d requests", n)
	}
	_, err := g.Do(keyedRequest(t, origin.srv.URL+"/v1"))
	var re *safehttp.RedirectError
	if !errors.As(err, &re) || len(other.requests()) != 0 {
		t.Errorf("error %v, other got %d requests", err, len(other.requests()))
	}
	// The copy's proxy skips loopback hosts (the origin was reached directly, above); the
	// original transport's proxy is unchanged.
	req, _ := http.NewRequest(http.MethodGet, "http://LOCALHOST:1/", nil)
	if p, _ := base.Proxy(req); p != via {
		t.Error("the given transport's proxy was changed")
	}
}
