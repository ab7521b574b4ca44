package llm

import (
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"

	"github.com/vectorlint/vectorlint/internal/redact"
)

// Endpoint is where and how one model is called: an OpenAI-compatible Chat Completions (and
// Embeddings) server, its key, the model, and request defaults. A Client serves any number of
// endpoints; each call names its own.
type Endpoint struct {
	// Provider is informational except for a provider whose wire shape differs (the provider
	// table's azure-openai: the deployment path, the api-version query and the api-key header).
	Provider Provider
	// BaseURL is the API root, e.g. "https://api.openai.com/v1" or "http://localhost:11434/v1".
	// For Azure it is the resource endpoint, e.g. "https://NAME.openai.azure.com".
	BaseURL string
	// APIKey is sent as a bearer token (Azure: the api-key header). It may be empty for local
	// servers. It never appears in errors, events, cache files or formatted output.
	APIKey redact.Secret
	// Model is the model id sent in requests (for Azure: the deployment name).
	Model string
	// APIVersion is Azure's api-version query parameter.
	APIVersion string
	// Temperature is the default sampling temperature of calls to this endpoint; nil sends none
	// (the server's default). Request.Temperature overrides it.
	Temperature *float64
	// MaxTokens, when positive, is the max_tokens of calls to this endpoint that set none
	// (Request.MaxTokens overrides it): ANTHROPIC_MAX_TOKENS for the linter's Anthropic
	// endpoint (Resolve).
	MaxTokens int
	// Headers are extra request headers (e.g. OpenRouter's HTTP-Referer). Their values are
	// treated as secrets: redacted from errors and events, never part of cache keys; the
	// values of credential headers (Authorization, names with key, token, secret or auth) are
	// redacted from replies too.
	Headers map[string]string
	// Secrets are other values the requests to this endpoint carry that must never be shown:
	// the values the environment filled into its URL or headers (a blueprint's ${VAR} under
	// --allow-env). They are redacted like the key, from errors, events and replies.
	Secrets []redact.Secret
	// MaxConcurrency, when positive, limits the requests in flight to this endpoint's limit
	// group, on top of the client's global limit. The first endpoint of a group to be used
	// fixes the group's limit.
	MaxConcurrency int
	// LimitGroup names the group MaxConcurrency applies to; empty means the base URL, so every
	// model of one provider shares the limit.
	LimitGroup string
	// Prices, when set, replaces Config.Prices for calls to this endpoint.
	Prices *Prices
	// KeySource says where APIKey came from (for a blueprint's custom model: the variable its
	// headers expand), BaseURLSource where BaseURL (or a GenerateRequest's URL) came from.
	// Resolve, ModelEndpoint and ResolveSearch fill them; Trust.Check reads them. Zero values
	// mean the calling program set the fields itself.
	KeySource, BaseURLSource envsource.Source
	// SettingNames name the settings the key, base URL and model come from, for the message
	// of a failure one of them fixes (a 401 names the key's variable); empty fields fall back
	// to the provider's environment variables.
	SettingNames SettingNames
}

// Host returns the host (and port) of the base URL, the part of an endpoint that is safe to show
// in messages. It never includes user info or query parameters.
func (e Endpoint) Host() string {
	u, err := url.Parse(e.BaseURL)
	if err != nil || u.Host == "" {
		return "invalid-base-url"
	}
	return u.Host
}

// String describes the endpoint without its key: "gpt-4o at api.openai.com (openai)".
func (e Endpoint) String() string {
	s := e.Model + " at " + e.Host()
	if e.Provider != "" {
		s += " (" + string(e.Provider) + ")"
	}
	return s
}

// GoString describes the endpoint without its key or header values for %#v.
func (e Endpoint) GoString() string { return "llm.Endpoint{" + e.String() + "}" }

// MarshalJSON writes the endpoint with its key and header values redacted and any user info
// removed from the base URL, so an endpoint can be logged or saved safely.
func (e Endpoint) MarshalJSON() ([]byte, error) {
	type plain Endpoint // no methods: avoids recursion
	p := plain(e)
	if len(e.Headers) > 0 {
		p.Headers = make(map[string]string, len(e.Headers))
		for k := range e.Headers {
			p.Headers[k] = redact.Marker
		}
	}
	if u, err := url.Parse(e.BaseURL); err == nil && u.User != nil {
		u.User = nil
		p.BaseURL = u.String()
	}
	return json.Marshal(p)
}

// apiBase returns the base URL the SDK should use, with a trailing slash: for Azure the
// deployment path, for everyone else the base URL itself.
func (e Endpoint) apiBase() string {
	base := strings.TrimRight(e.BaseURL, "/")
	if wireOf(e.Provider) == wireAzure {
		base += "/openai/deployments/" + url.PathEscape(e.Model)
	}
	return base + "/"
}

// operationURL is the full URL of an operation ("chat/completions", "embeddings") without user
// info. It identifies the endpoint in cache keys.
func (e Endpoint) operationURL(op string) string {
	s := e.apiBase() + op
	if e.APIVersion != "" && wireOf(e.Provider) == wireAzure {
		s += "?api-version=" + url.QueryEscape(e.APIVersion)
	}
	if u, err := url.Parse(s); err == nil && u.User != nil {
		u.User = nil
		s = u.String()
	}
	return s
}

// secrets lists the values that must never appear in text derived from calls to e: the key,
// Secrets, every header value (whole and, for "Bearer <token>", word by word), the URL's
// password and its credential query values. Errors and events are redacted with them.
func (e Endpoint) secrets() []string { return e.collectSecrets(true) }

// replySecrets lists the values a successful reply is redacted of (docs/security.md): those of
// secrets, except the values of headers whose names do not say they carry a credential
// (X-Title, Content-Type…), which a reply may well contain as ordinary words. A value the
// environment filled into such a header is still among Secrets.
func (e Endpoint) replySecrets() []string { return e.collectSecrets(false) }

// collectSecrets lists the secrets of e, longest first (so a value is replaced whole before any
// word of it); allHeaders takes every header value, not only credential headers'.
func (e Endpoint) collectSecrets(allHeaders bool) []string {
	out := make([]string, 0, 1+len(e.Secrets)+len(e.Headers))
	if e.APIKey != "" {
		out = append(out, string(e.APIKey))
	}
	for _, s := range e.Secrets {
		if s != "" {
			out = append(out, string(s))
		}
	}
	for k, v := range e.Headers {
		if v == "" || !allHeaders && !redact.IsCredentialHeader(k) {
			continue
		}
		out = append(out, v)
		// A server may quote the token of "Bearer <token>" alone.
		for _, w := range strings.Fields(v) {
			if len(w) >= 8 && w != v {
				out = append(out, w)
			}
		}
	}
	if u, err := url.Parse(e.BaseURL); err == nil {
		if p, ok := u.User.Password(); ok && p != "" {
			out = append(out, p)
		}
		for name, vs := range u.Query() {
			if redact.IsSecretQueryParam(name) {
				out = append(out, vs...)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// limitKey is the group whose MaxConcurrency applies to e.
func (e Endpoint) limitKey() string {
	if e.LimitGroup != "" {
		return e.LimitGroup
	}
	return strings.TrimRight(e.BaseURL, "/")
}

// formatKey identifies the (server, model) pair whose support for structured output is
// remembered after a fallback.
func (e Endpoint) formatKey() string { return e.operationURL("chat/completions") + "\x00" + e.Model }

// maxTokens is the max_tokens of a chat request: its own, else its endpoint's (0: none sent).
func maxTokens(req Request) int {
	if req.MaxTokens > 0 {
		return req.MaxTokens
	}
	return max(req.Endpoint.MaxTokens, 0)
}
