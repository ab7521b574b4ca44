// Package safehttp makes the HTTP clients of requests that may carry a secret: the model
// client's (chat, generations, embeddings, searches in every provider's shape, openai-go's
// included) and the blueprint's $call and $factcheck (docs/security.md, "Redirects, proxies
// and echoed keys").
//
// Such a client follows a redirect only to the same scheme, host and port; any other redirect
// fails the request with a *RedirectError naming both origins, before anything is sent to the
// other one. It sends no Referer header. And its proxy is never used for a loopback host, by
// the same test (IsLoopback) the trust rule uses, so a name the trust rule treats as this
// machine ("LOCALHOST", "localhost.") never travels through HTTP_PROXY with a key.
package safehttp

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"strings"
)

// MaxRedirects is the longest chain of (same-origin) redirects a request follows, as net/http's
// default.
const MaxRedirects = 10

// HostPort splits "host:port", "[v6]:port", "host" or a bare IPv6 address into a host and a
// port ("" when there is none), the host lower-case, without brackets and without a trailing
// dot: the form in which two spellings of one name compare equal.
func HostPort(s string) (host, port string) {
	host = s
	if h, p, err := net.SplitHostPort(s); err == nil {
		host, port = h, p
	}
	host = strings.TrimSuffix(strings.Trim(strings.ToLower(host), "[]"), ".")
	return host, port
}

// IsLoopback reports whether a URL's host (with or without a port) is a loopback address: a
// literal address in 127.0.0.0/8 or ::1 (an IPv4-mapped one too), or the name "localhost" in
// any case, with or without a trailing dot. Other names are never resolved: a DNS answer is
// not the user's choice, so "localhost.example.com" or a name that resolves to 127.0.0.1 is not
// loopback. The trust rule (internal/trust) and the proxy bypass (Proxy) both use it.
func IsLoopback(hostport string) bool {
	host, _ := HostPort(hostport)
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ProxyFunc chooses the proxy of a request, as http.Transport's Proxy (nil URL: none).
type ProxyFunc = func(*http.Request) (*url.URL, error)

// Proxy returns next with loopback hosts (IsLoopback) taken out: a request to one never goes
// through a proxy; every other request goes where next says. A nil next stays nil (no proxy).
// net/http's own bypass (in http.ProxyFromEnvironment) knows only the lower-case name
// "localhost" and literal loopback addresses, so "LOCALHOST" or "localhost." would otherwise
// reach the proxy, key included.
func Proxy(next ProxyFunc) ProxyFunc {
	if next == nil {
		return nil
	}
	return func(req *http.Request) (*url.URL, error) {
		if req.URL != nil && IsLoopback(req.URL.Host) {
			return nil, nil
		}
		return next(req)
	}
}

// DialFunc makes a connection, as http.Transport's DialContext.
type DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error)

// NewTransport returns a clone of http.DefaultTransport (its timeouts and pool) whose proxy is
// Proxy(proxy) and whose dialer is dial when it is not nil.
func NewTransport(proxy ProxyFunc, dial DialFunc) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.Proxy = Proxy(proxy)
	if dial != nil {
		t.DialContext = dial
	}
	return t
}

// NewClient returns a client on rt that follows redirects only within one origin and sends no
// Referer. rt is used as it is: build it with NewTransport (or use Guard) so that its proxy
// skips loopback hosts. A nil rt is NewTransport(http.ProxyFromEnvironment, nil), the default
// transport's settings with that bypass.
func NewClient(rt http.RoundTripper) *http.Client {
	if rt == nil {
		rt = NewTransport(http.ProxyFromEnvironment, nil)
	}
	if _, ok := rt.(*transport); !ok {
		rt = &transport{next: rt}
	}
	return &http.Client{Transport: rt, CheckRedirect: checkRedirect}
}

// Guard returns c with this package's rules: a copy of c (its Timeout and Jar kept) whose
// redirects stay within one origin, which sends no Referer, and whose transport, when it is an
// *http.Transport with a proxy, is a clone whose proxy skips loopback hosts (c's own transport
// is not changed). A nil c is a new client on a NewTransport with no proxy. A client Guard or
// NewClient made is returned as it is.
func Guard(c *http.Client) *http.Client {
	if c == nil {
		return NewClient(NewTransport(nil, nil))
	}
	if _, ok := c.Transport.(*transport); ok && isCheckRedirect(c.CheckRedirect) {
		return c
	}
	g := *c
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	if _, ok := rt.(*transport); !ok {
		if t, ok := rt.(*http.Transport); ok && t.Proxy != nil {
			t = t.Clone()
			t.Proxy = Proxy(t.Proxy)
			rt = t
		}
		rt = &transport{next: rt}
	}
	g.Transport, g.CheckRedirect = rt, checkRedirect
	return &g
}

// isCheckRedirect reports whether f is this package's redirect policy.
func isCheckRedirect(f func(*http.Request, []*http.Request) error) bool {
	return f != nil && reflect.ValueOf(f).Pointer() == reflect.ValueOf(checkRedirect).Pointer()
}

// transport removes the Referer header from every request before next sends it.
type transport struct{ next http.RoundTripper }

// RoundTrip sends req without a Referer header (on a copy: a RoundTripper must not change the
// request it is given).
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	for name := range req.Header {
		if strings.EqualFold(name, "Referer") {
			req = req.Clone(req.Context())
			for name := range req.Header {
				if strings.EqualFold(name, "Referer") {
					delete(req.Header, name)
				}
			}
			break
		}
	}
	return t.next.RoundTrip(req)
}

// CloseIdleConnections closes the idle connections of the transport underneath.
func (t *transport) CloseIdleConnections() {
	if c, ok := t.next.(interface{ CloseIdleConnections() }); ok {
		c.CloseIdleConnections()
	}
}

// checkRedirect is the clients' redirect policy: the next request must have the origin of the
// first one, and carries no Referer (net/http sets one from the previous URL, which may hold a
// key in its query).
func checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return &RedirectError{From: Origin(via[len(via)-1].URL), To: Origin(req.URL), TooMany: true}
	}
	if !SameOrigin(via[0].URL, req.URL) {
		return &RedirectError{From: Origin(via[len(via)-1].URL), To: Origin(req.URL)}
	}
	req.Header.Del("Referer")
	return nil
}

// SameOrigin reports whether two URLs have the same scheme, host (HostPort's form) and port (a
// missing port being the scheme's default).
func SameOrigin(a, b *url.URL) bool {
	if a == nil || b == nil || !strings.EqualFold(a.Scheme, b.Scheme) {
		return false
	}
	ah, _ := HostPort(a.Host)
	bh, _ := HostPort(b.Host)
	return ah == bh && effectivePort(a) == effectivePort(b)
}

// effectivePort is a URL's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}

// Origin is a URL as a redirect message shows it: scheme://host[:port], without user info,
// path or query (which may carry a key).
func Origin(u *url.URL) string {
	if u == nil {
		return "an unknown origin"
	}
	return strings.ToLower(u.Scheme) + "://" + u.Host
}

// RedirectError is a redirect the client did not follow: to another origin, or past
// MaxRedirects. Nothing was sent to To.
type RedirectError struct {
	// From is the origin that answered with the redirect, To the origin it pointed at
	// (scheme://host[:port]).
	From, To string
	// TooMany marks a chain longer than MaxRedirects (within one origin).
	TooMany bool
}

// Error names both origins and the rule.
func (e *RedirectError) Error() string {
	if e.TooMany {
		return fmt.Sprintf("%s redirected the request more than %d times: stopped", e.From, MaxRedirects)
	}
	return fmt.Sprintf("%s redirected the request to %s: a request that may carry a key follows a redirect only to the "+
		"same scheme, host and port, so nothing was sent to %s", e.From, e.To, e.To)
}
