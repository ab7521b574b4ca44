package llm

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"

	"github.com/vectorlint/vectorlint/internal/safehttp"
)

// TrustedHostsVar is the variable that lists, comma-separated, the extra hosts a key from the
// user's environment may be sent to. It is read from the process environment only: a .env
// file in a repository cannot widen where the user's key goes.
const TrustedHostsVar = "VECTORLINT_TRUSTED_HOSTS"

// Trust decides where an API key may be sent (spec/trust.md §1). A key the user holds (one
// from the process environment or the user config) goes only to the provider's built-in
// endpoint, to a base URL the user gave (a flag, the process environment, the user config),
// to a loopback address, or to a host in Hosts. A base URL a repository file gave
// (vectorlint.ini, .env, .env.local, a blueprint) pointing anywhere else is refused. A key the
// repository gave (a .env key) goes wherever the repository says: the file chose both.
//
// A nil *Trust allows every endpoint (a Go program choosing its own endpoints).
type Trust struct {
	// Hosts are the trusted host names of VECTORLINT_TRUSTED_HOSTS, lower-case. An entry with
	// a port ("proxy.internal:8443") trusts that port only; one without trusts every port.
	Hosts []string
}

// ParseTrustedHosts reads a VECTORLINT_TRUSTED_HOSTS value: host names (or IP addresses, with
// an optional :port) separated by commas; spaces and empty entries are ignored. An entry with
// a scheme, a path or user info is an error naming it, so a URL pasted by mistake is not
// silently trusted as something else.
func ParseTrustedHosts(value string) (*Trust, error) {
	t := &Trust{}
	for _, entry := range strings.Split(value, ",") {
		h := strings.ToLower(strings.TrimSpace(entry))
		if h == "" {
			continue
		}
		if strings.ContainsAny(h, "/@?# \t") || h == ":" {
			return nil, &envsource.SettingError{Source: TrustedHostsVar, Expected: "comma-separated host names such as models.internal or proxy.example.com:8443", Found: entry}
		}
		t.Hosts = append(t.Hosts, strings.TrimSuffix(h, "."))
	}
	return t, nil
}

// trustsHost reports whether host (host or host:port of a URL) is in Hosts.
func (t *Trust) trustsHost(hostport string) bool {
	host, port := splitHostPort(hostport)
	for _, h := range t.Hosts {
		eh, ep := splitHostPort(h)
		if eh == host && (ep == "" || ep == port) {
			return true
		}
	}
	return false
}

// splitHostPort splits "host:port", "[v6]:port", "host" or a bare IPv6 address, lower-casing
// the host and dropping a trailing dot (safehttp.HostPort).
func splitHostPort(s string) (host, port string) { return safehttp.HostPort(s) }

// IsLoopback reports whether a URL's host (with or without a port) is a loopback address: a
// literal address in 127.0.0.0/8 or ::1, or the name "localhost" in any case and with or without
// a trailing dot. Other names are never resolved: a DNS answer is not the user's choice, so
// "localhost.example.com" or a name that resolves to 127.0.0.1 is not loopback. The client's
// proxy bypass uses the same test (docs/security.md): a host trusted as loopback never goes
// through HTTP_PROXY or HTTPS_PROXY.
func IsLoopback(hostport string) bool { return safehttp.IsLoopback(hostport) }

// Check returns nil when ep may be called, else an *UntrustedHostError. Only an endpoint that
// carries a key the user holds (KeySource from the process environment or the user config)
// and whose base URL a repository file chose (BaseURLSource) is checked: its host must be
// loopback or in Hosts.
func (t *Trust) Check(ep Endpoint) error {
	if t == nil || !ep.KeySource.Origin.HeldByUser() {
		return nil
	}
	if ep.BaseURLSource.Origin.UserChosen() {
		return nil
	}
	host := ""
	if u, err := url.Parse(ep.BaseURL); err == nil {
		host = u.Host
	}
	if host != "" && (IsLoopback(host) || t.trustsHost(host)) {
		return nil
	}
	name, _ := splitHostPort(host)
	if name == "" {
		name = "an invalid URL"
	}
	return &UntrustedHostError{Host: name, Key: ep.KeySource, BaseURL: ep.BaseURLSource}
}

// UntrustedHostError is a base URL from a repository file that would receive a key the user
// holds, at a host the user did not trust. Nothing is sent.
type UntrustedHostError struct {
	// Host is the host name the base URL points at (without port or user info).
	Host string
	// Key is where the key came from; BaseURL where the base URL came from.
	Key, BaseURL envsource.Source
}

// Error names the file and line of the base URL, the key's variable and origin (never its
// value), the host, and VECTORLINT_TRUSTED_HOSTS.
func (e *UntrustedHostError) Error() string {
	what := e.BaseURL.Name
	if what == "" {
		what = "the base URL"
	}
	return fmt.Sprintf("%s: %s would send %s (from %s) to %s, which is not the provider's endpoint, a loopback address or a host in %s: "+
		"refused before any call (a file in the repository may not redirect your key). "+
		"If you trust %s, add it to %s in the process environment (a .env file cannot set it)",
		e.BaseURL.Where(), what, e.Key.Name, e.Key.Origin, e.Host, TrustedHostsVar, e.Host, TrustedHostsVar)
}

// CheckTrust is Config.Trust's Check of ep: nil when the client may call it. Every call
// (Complete, Generate, Embed) makes this check first; a command calls it for each endpoint
// before the run starts, so a refusal is one error before any call rather than one per call.
func (c *Client) CheckTrust(ep Endpoint) error { return c.cfg.Trust.Check(ep) }
