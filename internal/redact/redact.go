// Package redact removes credentials from text before it is printed, logged or written to a
// result: API keys, a URL's password and credential query values, credential headers. The
// model client redacts its errors, events and replies with it; the points engine and
// blueprints use it for the urls and headers of $call services and custom models. A Secret is a
// key that formats as "[redacted]" whatever prints it.
package redact

import (
	"regexp"
	"strings"
	"sync"
)

// Marker replaces what is removed.
const Marker = "[redacted]"

// keyPattern matches text that looks like an API key or credential even when it is not one the
// client was given: OpenAI/Anthropic/OpenRouter style "sk-…" keys, Google "AIza…" keys, bearer
// tokens and "api-key: …" / "key=…" pairs.
var keyPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`sk-[A-Za-z0-9_\-]{8,}|AIza[0-9A-Za-z_\-]{20,}|(?i:\bbearer\s+)[A-Za-z0-9._~+/=\-]{8,}|(?i:\b(?:api[-_]?key|x-api-key|key|token|access_token)["']?\s*[:=]\s*["']?)[^\s"'&,;]{8,}`)
})

// Text replaces the given secrets and anything that looks like an API key in s with
// "[redacted]". Secrets shorter than 4 bytes are ignored (replacing them would garble text
// without protecting anything).
func Text(s string, secrets ...string) string {
	return keyPattern().ReplaceAllStringFunc(Secrets(s, secrets...), func(m string) string {
		// Keep the label of "Bearer …" and "api-key: …" so the message still reads.
		lower := strings.ToLower(m)
		if strings.HasPrefix(lower, "sk-") || strings.HasPrefix(m, "AIza") {
			return Marker
		}
		if i := strings.LastIndexAny(m, " \t:=\"'"); i >= 0 {
			return m[:i+1] + Marker
		}
		return Marker
	})
}

// Secrets replaces the given secrets in s with "[redacted]", and nothing else: the redaction
// of a successful reply, whose text must stay exactly as the server wrote it unless it holds a
// key the request carried (docs/security.md). Text, for errors, does this first. Secrets
// shorter than 4 bytes are ignored; pass longer ones first, so a value is replaced whole
// before any part of it.
func Secrets(s string, secrets ...string) string {
	for _, sec := range secrets {
		if len(sec) >= 4 && strings.Contains(s, sec) {
			s = strings.ReplaceAll(s, sec, Marker)
		}
	}
	return s
}

// urlPasswordRe and urlSecretParamRe find the credentials a URL may carry: the password of its
// user info, and the values of query parameters named like keys, tokens or signatures.
var (
	urlPasswordRe    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(//[^/?#@:]*:)[^/?#@]*@`) })
	urlSecretParamRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`([?&;][^=&#]*(?i:key|token|secret|sig|auth|pass|pwd|credential|session)[^=&#]*=)[^&#]*`)
	})
)

// URL returns a URL as it may be printed: the password of its user info and the values of
// query parameters named like credentials (key, token, sig, ...) are "[redacted]". It works on
// text that does not parse as a URL too.
func URL(s string) string {
	s = urlPasswordRe().ReplaceAllString(s, "${1}"+Marker+"@")
	return urlSecretParamRe().ReplaceAllString(s, "${1}"+Marker)
}

// IsSecretQueryParam reports whether a URL query parameter's name looks like it holds a
// credential (URL redacts its value).
func IsSecretQueryParam(name string) bool { return urlSecretParamRe().MatchString("?" + name + "=") }

// EnvRef matches a ${VAR} reference in a url or header value, which names a variable instead of
// holding a secret.
var EnvRef = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]+)\}`) })

// Headers returns header values as they may be written to a result or printed: a value that
// refers to the environment (${VAR}) is kept as written, since it holds no secret; a literal
// value of a credential header (Authorization, Cookie, or a name with key, token, secret or
// auth) is "[redacted]", and anything looking like an API key in another value too.
func Headers(headers map[string]string) map[string]string {
	if len(headers) == 0 {
		return nil
	}
	out := make(map[string]string, len(headers))
	for k, v := range headers {
		literal := EnvRef().ReplaceAllString(v, "")
		switch {
		case IsCredentialHeader(k) && strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(literal), "Bearer")) != "":
			out[k] = Marker
		default:
			out[k] = Text(v)
		}
	}
	return out
}

// IsCredentialHeader reports whether a header's name says it carries a credential:
// Authorization, Cookie, or a name with auth, key, token or secret in it (any case).
func IsCredentialHeader(name string) bool {
	name = strings.ToLower(name)
	return name == "cookie" || strings.Contains(name, "auth") || strings.Contains(name, "key") ||
		strings.Contains(name, "token") || strings.Contains(name, "secret")
}
