package llm

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/runwide"
)

// StopReason says why calls to an endpoint were stopped.
type StopReason int

// Reasons to stop calling an endpoint: failures that say something about the endpoint or the
// settings, not about one request, so that every later request would fail the same way.
const (
	// StopRefused: the connection was refused (no server listens at the address), through
	// every retry of a call.
	StopRefused StopReason = iota + 1
	// StopDNS: the host name could not be resolved, through every retry of a call.
	StopDNS
	// StopTLS: the TLS handshake failed (an untrusted certificate, a plain-HTTP server addressed
	// with https), through every retry of a call.
	StopTLS
	// StopUnauthorized: HTTP 401, the key is missing or wrong.
	StopUnauthorized
	// StopForbidden: HTTP 403, the key may not use the endpoint or the model.
	StopForbidden
	// StopNotFound: HTTP 404, the server has no such model or no such endpoint.
	StopNotFound
	// StopNoReply: a call timed out through all its attempts at a host that has answered no
	// request of the run: the server accepts connections and never replies.
	StopNoReply
)

// String names the reason as the JSON output and events show it.
func (r StopReason) String() string {
	switch r {
	case StopRefused:
		return "connection refused"
	case StopDNS:
		return "dns"
	case StopTLS:
		return "tls"
	case StopUnauthorized:
		return "unauthorized"
	case StopForbidden:
		return "forbidden"
	case StopNotFound:
		return "not found"
	case StopNoReply:
		return "no reply"
	}
	return "unknown"
}

// StopError is a failure that is a fact about an endpoint rather than about one request: a
// connection refused, a host name that does not resolve or a TLS handshake that fails through
// all of a call's retries, or an HTTP 401, 403 or 404. The client records the first one and
// refuses to start any later request that would meet the same failure (see Client.Stopped for
// the scopes); those calls fail at once, without a request, with the same *StopError. Its
// text names the provider, the host, the cause and the setting that fixes it, and never holds
// a key.
type StopError struct {
	Reason   StopReason
	Provider Provider
	// Host is the endpoint's host (and port); Model the model of the call that failed.
	Host  string
	Model string
	// Status is the HTTP status for the HTTP reasons, else 0.
	Status int
	// Detail is the cause: the server's message or the network error, shortened and
	// redacted.
	Detail string
	// Attempts is how many requests the failing call made.
	Attempts int
	// Fix says what to change, naming the variable, flag or setting.
	Fix string
	err *APIError
}

// Error reads like "llm: cannot connect to 127.0.0.1:9 (openai): connection refused (4
// attempts); is a server running there? Check --base-url, OPENAI_BASE_URL or BaseURL in
// vectorlint.ini".
func (e *StopError) Error() string {
	var b strings.Builder
	b.WriteString("llm: ")
	who := e.Host
	if e.Provider != "" {
		who += " (" + string(e.Provider) + ")"
	}
	switch e.Reason {
	case StopRefused:
		fmt.Fprintf(&b, "cannot connect to %s: %s", who, e.Detail)
	case StopDNS:
		fmt.Fprintf(&b, "cannot resolve the host of %s: %s", who, e.Detail)
	case StopTLS:
		fmt.Fprintf(&b, "TLS handshake with %s failed: %s", who, e.Detail)
	case StopUnauthorized:
		fmt.Fprintf(&b, "%s rejected the API key: %s", who, e.status())
	case StopForbidden:
		fmt.Fprintf(&b, "%s refused access to model %s: %s", who, e.Model, e.status())
	case StopNotFound:
		fmt.Fprintf(&b, "%s has no model %s or no such endpoint: %s", who, e.Model, e.status())
	case StopNoReply:
		fmt.Fprintf(&b, "%s sends no reply: %s", who, e.Detail)
	default:
		fmt.Fprintf(&b, "%s: %s", who, e.Detail)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (%d attempts)", e.Attempts)
	}
	if e.Fix != "" {
		b.WriteString("; " + e.Fix)
	}
	return b.String()
}

// status is "HTTP 401 Unauthorized: <the server's message>".
func (e *StopError) status() string {
	s := fmt.Sprintf("HTTP %d", e.Status)
	if t := http.StatusText(e.Status); t != "" {
		s += " " + t
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// Cause is the failure in a few words, for a summary line: "connection refused to
// 127.0.0.1:9", "HTTP 401 Unauthorized from api.openai.com".
func (e *StopError) Cause() string {
	switch e.Reason {
	case StopRefused:
		return "connection refused to " + e.Host
	case StopDNS:
		return "cannot resolve " + hostName(e.Host)
	case StopTLS:
		return "TLS handshake with " + e.Host + " failed"
	case StopNotFound:
		return fmt.Sprintf("HTTP 404 Not Found for model %s at %s", e.Model, e.Host)
	case StopNoReply:
		return "no reply from " + e.Host
	}
	s := fmt.Sprintf("HTTP %d", e.Status)
	if t := http.StatusText(e.Status); t != "" {
		s += " " + t
	}
	return s + " from " + e.Host
}

// Unwrap returns the *APIError of the call that failed, so errors.As still finds it.
func (e *StopError) Unwrap() error { return e.err }

// Is makes errors.Is(err, runwide.ErrStopped) true.
func (e *StopError) Is(target error) bool { return target == runwide.ErrStopped }

// hostName is the host of "host:port" (IPv6 brackets removed).
func hostName(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// SettingNames name, for the messages of failures a setting fixes, where an endpoint's key,
// base URL and model come from: "OPENAI_API_KEY", "--base-url, OPENAI_BASE_URL or BaseURL in
// vectorlint.ini". An empty field falls back to the provider's environment variables.
type SettingNames struct {
	Key     string
	BaseURL string
	Model   string
	// Timeout names the setting of the attempt timeout (default "--timeout").
	Timeout string
}

// LinterSettingNames are the setting names of the linter's endpoint of provider p (see
// Resolve): its environment variables, and the --base-url and --model flags and, when
// withConfig is set, the BaseURL and Model keys of vectorlint.ini that may replace them.
func LinterSettingNames(p Provider, withConfig bool) SettingNames {
	row := linterProvider(p)
	list := func(flag, variable, key string) string {
		if withConfig {
			return flag + ", " + variable + " or " + key + " in vectorlint.ini"
		}
		return flag + " or " + variable
	}
	n := SettingNames{Key: row.keyVar, BaseURL: list("--base-url", row.baseURLVar, "BaseURL"),
		Model: list("--model", row.modelVar, "Model"), Timeout: "--timeout"}
	if withConfig {
		n.Timeout = "--timeout or Timeout in vectorlint.ini"
	}
	return n
}

// settingNames fills the empty fields of the endpoint's SettingNames from its provider.
func settingNames(ep Endpoint) SettingNames {
	n := ep.SettingNames
	def := providerSettingNames(ep.Provider)
	setDefault(&n.Key, def.Key)
	setDefault(&n.BaseURL, def.BaseURL)
	setDefault(&n.Model, def.Model)
	setDefault(&n.Timeout, "--timeout")
	return n
}

// providerSettingNames are the settings of a provider's key, base URL and model, from the
// provider table: a linter provider's or the search model's variables; for a model id's
// provider (and any other name), <NAME>_API_KEY (its key variables when it has some),
// <NAME>_BASE_URL and the model id.
func providerSettingNames(name Provider) SettingNames {
	if name == "" {
		return SettingNames{Key: "the API key", BaseURL: "the base URL", Model: "the model name"}
	}
	if p, ok := providerNamed(name); ok && (p.linter || p.search) {
		return SettingNames{Key: p.keyVar, BaseURL: p.baseURLVar, Model: p.modelVar}
	}
	up := strings.ToUpper(string(name))
	n := SettingNames{Key: up + "_API_KEY", BaseURL: up + "_BASE_URL", Model: "the model id"}
	if p, ok := modelIDProvider(string(name)); ok && len(p.idKeys()) > 0 {
		n.Key = strings.Join(p.idKeys(), " or ")
	}
	return n
}

// fixFor says what to change after a failure of the given reason at ep.
func fixFor(ep Endpoint, reason StopReason, tlsPlain bool) string {
	n := settingNames(ep)
	switch reason {
	case StopRefused:
		return "is a server running there? Check " + n.BaseURL
	case StopDNS:
		return "check the host name in " + n.BaseURL + ", and the network"
	case StopTLS:
		if tlsPlain {
			return "the server speaks plain HTTP: use an http:// URL in " + n.BaseURL
		}
		return "check the URL in " + n.BaseURL + "; a server with a private certificate must have its authority trusted (SSL_CERT_FILE)"
	case StopUnauthorized:
		if ep.APIKey == "" && len(ep.Headers) == 0 {
			return "no API key was sent: set " + n.Key
		}
		return "set " + n.Key + " to a valid key"
	case StopForbidden:
		return "check that the key in " + n.Key + " may use this model, or choose another with " + n.Model
	case StopNotFound:
		return "check the model name in " + n.Model + " and the URL in " + n.BaseURL
	case StopNoReply:
		return "check that the server works, or allow more time with " + n.Timeout
	}
	return ""
}

// networkFailure tells whether a transport error is one that stops the endpoint, and
// describes it without the request URL. plain is set for a plain-HTTP server addressed with
// https.
func networkFailure(err error) (reason StopReason, detail string, plain bool) {
	var dnsErr *net.DNSError
	var certErr *tls.CertificateVerificationError
	var unknownCA x509.UnknownAuthorityError
	var hostErr x509.HostnameError
	var invalidCert x509.CertificateInvalidError
	var recordErr tls.RecordHeaderError
	var alert tls.AlertError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return StopRefused, "connection refused", false
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return StopDNS, "no such host " + dnsErr.Name, false
		}
		return StopDNS, "looking up " + dnsErr.Name + ": " + dnsErr.Err, false
	case errors.As(err, &certErr):
		return StopTLS, "the server's certificate is not trusted: " + certErr.Err.Error(), false
	case errors.As(err, &unknownCA), errors.As(err, &hostErr), errors.As(err, &invalidCert):
		return StopTLS, "the server's certificate is not trusted: " + causeOf(err), false
	case errors.As(err, &recordErr),
		// net/http turns the record-header error of a plain-HTTP reply into this text, with no
		// type or sentinel to match.
		strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return StopTLS, "the server answered in plain HTTP, not TLS", true
	case errors.As(err, &alert):
		return StopTLS, "the server sent the TLS alert " + alert.Error(), false
	}
	return 0, "", false
}

// causeOf is the innermost cause of a url.Error (its text without the URL).
func causeOf(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// stopScopes are the keys under which a call's endpoint may be stopped: its host (network
// failures, and a host that never replies: every endpoint at that scheme and host), its host
// and credentials (401 and 403:
// another key at the same host may work) and its base URL and model (404: another model may
// exist). The credentials enter only as a hash, and only in memory.
type stopScopes struct {
	host, auth, model string
}

func scopesOf(ep Endpoint) stopScopes {
	origin := ep.BaseURL
	if u, err := url.Parse(ep.BaseURL); err == nil {
		origin = u.Scheme + "://" + u.Host
	}
	return stopScopes{
		host:  "host " + origin,
		auth:  "auth " + origin + " " + hex.EncodeToString([]byte(credentials(ep))),
		model: "model " + strings.TrimRight(ep.BaseURL, "/") + "\x00" + ep.Model,
	}
}

// credentials identifies the credentials of calls to ep, the key and the headers, by their
// SHA-256 (raw bytes, for keys in memory only).
func credentials(ep Endpoint) string {
	if len(ep.Headers) == 0 { // the common case, without a hash.Hash
		sum := sha256.Sum256([]byte(ep.APIKey))
		return string(sum[:])
	}
	h := sha256.New()
	h.Write([]byte(ep.APIKey))
	keys := make([]string, 0, len(ep.Headers))
	for k := range ep.Headers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		h.Write([]byte{0})
		h.Write([]byte(strings.ToLower(k) + "\x00" + ep.Headers[k]))
	}
	return string(h.Sum(nil))
}

// scopeOf is the scope a reason stops.
func (s stopScopes) scopeOf(r StopReason) string {
	switch r {
	case StopUnauthorized, StopForbidden:
		return s.auth
	case StopNotFound:
		return s.model
	}
	return s.host
}

// stopBoard records the stopped scopes of a client, and the hosts under suspicion: a call to
// such a host met a network failure (refused, DNS, TLS) and is retrying. A new call to a
// suspect host waits for the verdict before its first request, so that the retries of the
// calls already in flight decide for all of them: a dead host costs a few requests, not one
// burst per queued call.
type stopBoard struct {
	mu      sync.Mutex
	byScope map[string]*StopError
	list    []*StopError
	suspect map[string]int // host scope → calls retrying after a network failure
	// answered holds the hosts (host scopes) that have answered a request of the run: a
	// timeout at such a host is about that request, not about the host.
	answered map[string]bool
	// changed is canceled (and replaced) whenever a scope stops or a host is cleared of
	// suspicion, to wake the calls waiting for a concurrency slot or a verdict. It is a context
	// rather than a channel so that a wait for a slot (semaphore.Weighted.Acquire) can end on it.
	changed       context.Context
	cancelChanged context.CancelFunc
}

// markAnswered records that the host of s answered a request (any status).
func (b *stopBoard) markAnswered(s stopScopes) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.answered[s.host] {
		if b.answered == nil {
			b.answered = map[string]bool{}
		}
		b.answered[s.host] = true
	}
}

// hasAnswered reports whether the host of s has answered a request of the run.
func (b *stopBoard) hasAnswered(s stopScopes) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.answered[s.host]
}

// isSuspect reports whether calls to the host of s are waiting for a verdict.
func (b *stopBoard) isSuspect(s stopScopes) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.suspect[s.host] > 0
}

// suspectHost records that a call to the host of s met a network failure and retries; the
// returned function (call it once, when the call ends) withdraws it.
func (b *stopBoard) suspectHost(s stopScopes) (clear func()) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.suspect == nil {
		b.suspect = map[string]int{}
	}
	b.suspect[s.host]++
	return func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		if b.suspect[s.host]--; b.suspect[s.host] == 0 {
			delete(b.suspect, s.host)
			b.wake()
		}
	}
}

// wake wakes every waiting call (b.mu held).
func (b *stopBoard) wake() {
	if b.cancelChanged != nil {
		b.cancelChanged()
		b.changed, b.cancelChanged = nil, nil
	}
}

// check returns the StopError of the first stopped scope among s, or nil.
func (b *stopBoard) check(s stopScopes) *StopError {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, k := range []string{s.host, s.auth, s.model} {
		if e := b.byScope[k]; e != nil {
			return e
		}
	}
	return nil
}

// wait returns a context canceled when the next scope stops or a host is cleared.
func (b *stopBoard) wait() context.Context {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.changed == nil {
		b.changed, b.cancelChanged = context.WithCancel(context.Background())
	}
	return b.changed
}

// record stops the scope of e unless it is already stopped, and returns the scope's error: e,
// or the one recorded first, so every call of the scope reports the same error.
func (b *stopBoard) record(s stopScopes, e *StopError) *StopError {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := s.scopeOf(e.Reason)
	if old := b.byScope[key]; old != nil {
		return old
	}
	if b.byScope == nil {
		b.byScope = map[string]*StopError{}
	}
	b.byScope[key] = e
	b.list = append(b.list, e)
	b.wake()
	return e
}

// stopped returns the recorded errors in the order they happened.
func (b *stopBoard) stopped() []*StopError {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]*StopError(nil), b.list...)
}

// Stopped returns the failures that stopped calls, in the order they happened: one per
// scope. A network failure (connection refused, DNS, TLS) stops every endpoint at the same
// scheme and host; a 401 or 403 stops the endpoints at that host with the same key and
// headers; a 404 stops one model at one base URL. Calls of other scopes go on: a dead judge
// server does not stop generation on another, a 404 for one model does not stop the others.
func (c *Client) Stopped() []*StopError { return c.stops.stopped() }

// stopFor turns the final failure of a call into a *StopError and records it when it is a
// fact about the endpoint; otherwise it returns nil.
func (c *Client) stopFor(info callInfo, apiErr *APIError) *StopError {
	e := &StopError{Provider: info.ep.Provider, Host: info.ep.Host(), Model: info.ep.Model, Attempts: apiErr.Attempts, err: apiErr}
	plain := false
	switch {
	case apiErr.Kind == KindHTTP && apiErr.Status == http.StatusUnauthorized:
		e.Reason = StopUnauthorized
	case apiErr.Kind == KindHTTP && apiErr.Status == http.StatusForbidden:
		e.Reason = StopForbidden
	case apiErr.Kind == KindHTTP && apiErr.Status == http.StatusNotFound:
		e.Reason = StopNotFound
	case apiErr.Kind == KindConnection:
		e.Reason, e.Detail, plain = networkFailure(apiErr.err)
		if e.Reason == 0 {
			return nil
		}
		e.Detail = redact.Text(e.Detail, info.secrets...)
	case apiErr.Kind == KindTimeout && !c.stops.hasAnswered(info.scopes):
		e.Reason, e.Detail = StopNoReply, apiErr.Message
	default:
		return nil
	}
	if e.Status = apiErr.Status; e.Status != 0 {
		e.Detail = apiErr.Message
	}
	e.Fix = fixFor(info.ep, e.Reason, plain)
	return c.stops.record(info.scopes, e)
}
