// Package trust is the trust rule of spec/trust.md §1: where a value the user holds (an API key
// from the process environment or the user config) may be sent. A key the user holds goes only
// to the provider's built-in endpoint, to a URL the user gave (a flag, the process environment,
// the user config), to a loopback address, or to a host in VECTORLINT_TRUSTED_HOSTS; a URL a
// repository file chose (vectorlint.ini, .env, .env.local, a blueprint) pointing anywhere else
// is refused before any request. The model client checks every call with it; the points
// engine checks each $call with it. Where a value came from is its envsource.Source.
package trust

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/safehttp"
)

// HostsVar is the variable that lists, comma-separated, the extra hosts a key from the user's
// environment may be sent to. It is read from the process environment only: a .env file in a
// repository cannot widen where the user's key goes.
const HostsVar = "VECTORLINT_TRUSTED_HOSTS"

// Rule decides where an API key may be sent. A key the repository gave (a .env key) goes
// wherever the repository says: the file chose both.
//
// A nil *Rule allows every URL (a Go program choosing its own endpoints).
type Rule struct {
	// Hosts are the trusted host names of VECTORLINT_TRUSTED_HOSTS, lower-case. An entry with
	// a port ("proxy.internal:8443") trusts that port only; one without trusts every port.
	Hosts []string
}

// ParseHosts reads a VECTORLINT_TRUSTED_HOSTS value: host names (or IP addresses, with an
// optional :port) separated by commas; spaces and empty entries are ignored. An entry with a
// scheme, a path or user info is an *envsource.SettingError naming it, so a URL pasted by
// mistake is not silently trusted as something else.
func ParseHosts(value string) (*Rule, error) {
	r := &Rule{}
	for _, entry := range strings.Split(value, ",") {
		h := strings.ToLower(strings.TrimSpace(entry))
		if h == "" {
			continue
		}
		if strings.ContainsAny(h, "/@?# \t") || h == ":" {
			return nil, &envsource.SettingError{Source: HostsVar, Expected: "comma-separated host names such as models.internal or proxy.example.com:8443", Found: entry}
		}
		r.Hosts = append(r.Hosts, strings.TrimSuffix(h, "."))
	}
	return r, nil
}

// trustsHost reports whether host (host or host:port of a URL) is in Hosts.
func (r *Rule) trustsHost(hostport string) bool {
	host, port := safehttp.HostPort(hostport)
	for _, h := range r.Hosts {
		eh, ep := safehttp.HostPort(h)
		if eh == host && (ep == "" || ep == port) {
			return true
		}
	}
	return false
}

// Check returns nil when a value from key may be sent to rawURL, whose address came from
// urlFrom; else an *UntrustedHostError. Only a value the user holds (key from the process
// environment or the user config) sent to a URL a repository file chose is checked: the URL's
// host must be loopback (safehttp.IsLoopback: names are never resolved) or in Hosts.
func (r *Rule) Check(rawURL string, key, urlFrom envsource.Source) error {
	if r == nil || !key.Origin.HeldByUser() || urlFrom.Origin.UserChosen() {
		return nil
	}
	host := ""
	if u, err := url.Parse(rawURL); err == nil {
		host = u.Host
	}
	if host != "" && (safehttp.IsLoopback(host) || r.trustsHost(host)) {
		return nil
	}
	name, _ := safehttp.HostPort(host)
	if name == "" {
		name = "an invalid URL"
	}
	return &UntrustedHostError{Host: name, Key: key, BaseURL: urlFrom}
}

// UntrustedHostError is a URL from a repository file that would receive a key the user holds,
// at a host the user did not trust. Nothing is sent.
type UntrustedHostError struct {
	// Host is the host name the URL points at (without port or user info).
	Host string
	// Key is where the key came from; BaseURL where the URL came from.
	Key, BaseURL envsource.Source
}

// Error names the file and line of the URL, the key's variable and origin (never its value),
// the host, and VECTORLINT_TRUSTED_HOSTS.
func (e *UntrustedHostError) Error() string {
	what := e.BaseURL.Name
	if what == "" {
		what = "the base URL"
	}
	return fmt.Sprintf("%s: %s would send %s (from %s) to %s, which is not the provider's endpoint, a loopback address or a host in %s: "+
		"refused before any call (a file in the repository may not redirect your key). "+
		"If you trust %s, add it to %s in the process environment (a .env file cannot set it)",
		e.BaseURL.Where(), what, e.Key.Name, e.Key.Origin, e.Host, HostsVar, e.Host, HostsVar)
}
