package points

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/points/internal/funcarg"
)

// FactcheckEnv is the environment variable that names the $factcheck service's URL.
const FactcheckEnv = "FACTCHECK_ENDPOINT_URL"

// Defaults of external service calls (the original's).
const (
	defaultServiceTimeout   = 30 * time.Second
	defaultFactcheckTimeout = 65 * time.Second
	defaultMaxRetries       = 2
	defaultRetryBackoff     = time.Second
	maxServiceResponse      = 1 << 20
)

// ErrNetworkNotAllowed is returned by $call and $factcheck when the run does not allow network
// access.
var ErrNetworkNotAllowed = errors.New("network access is off: run with --allow-net (Env.AllowNet) to let this blueprint make HTTP requests; a blueprint from someone else can otherwise make this machine call any URL")

// callConfigKeys are the $call keys that configure the request; the others are sent to the
// service as parameters.
var callConfigKeys = map[string]bool{"service": true, "url": true, "method": true, "headers": true, "timeout_ms": true,
	"cache": true, "max_retries": true, "retry_backoff_ms": true}

// callFn builds $call: an inline service is read once, the parameters are sent with the
// response.
func callFn(a funcarg.Call) (evaluator, error) {
	spec, service := a.Spec, a.Service
	var inline *Service
	if service == "" {
		n, err := node.FromAny(spec)
		if err != nil {
			return nil, err
		}
		s, err := ParseService(n)
		if err != nil {
			return nil, err
		}
		inline = &s
	}
	params := map[string]any{}
	for k, v := range spec {
		if !callConfigKeys[k] {
			params[k] = v
		}
	}
	return func(in *evalInput) fnResult {
		if !in.env.AllowNet {
			return fnResult{err: ErrNetworkNotAllowed}
		}
		svc := inline
		if svc == nil {
			s, ok := in.env.Services[service]
			if !ok {
				names := make([]string, 0, len(in.env.Services))
				for n := range in.env.Services {
					names = append(names, n)
				}
				sort.Strings(names)
				avail := "none are defined"
				if len(names) > 0 {
					avail = "defined: " + strings.Join(names, ", ")
				}
				return errResult("external service %q is not defined in externalServices (%s)", service, avail)
			}
			svc = &s
		}
		body := map[string]any{}
		for k, v := range substituteTemplates(params, in.subject).(map[string]any) {
			body[k] = v
		}
		body["response"] = in.subject.Text
		body["modelId"] = in.subject.ModelID
		body["promptId"] = in.subject.PromptID
		score, explain, err := callService(in, *svc, body, defaultServiceTimeout)
		if err != nil {
			return fnResult{err: err}
		}
		return fnResult{score: score, explain: explain}
	}, nil
}

// factcheckFn builds $factcheck.
func factcheckFn(a funcarg.Factcheck) evaluator {
	instruction := a.Instruction
	return func(in *evalInput) fnResult {
		if !in.env.AllowNet {
			return fnResult{err: ErrNetworkNotAllowed}
		}
		endpoint := ""
		if in.env.LookupEnv != nil {
			endpoint, _ = in.env.LookupEnv.Lookup(FactcheckEnv)
		}
		if strings.TrimSpace(endpoint) == "" {
			return errResult("$factcheck needs the fact-check service's URL in %s, which is not set", FactcheckEnv)
		}
		zero := 0
		svc := Service{URL: strings.TrimSpace(endpoint), Method: http.MethodPost, MaxRetries: &zero}
		body := map[string]any{"claim": in.subject.Text, "instruction": instruction, "includeRaw": false}
		score, explain, err := callService(in, svc, body, defaultFactcheckTimeout)
		if err != nil {
			return fnResult{err: fmt.Errorf("fact check failed: %w", err)}
		}
		if explain == "" {
			explain = "No explanation provided."
		}
		return fnResult{score: score, explain: explain}
	}
}

var templateRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\{(response|modelId|promptId|messages|promptText)\}`)
})

// substituteTemplates replaces {response}, {modelId}, {promptId}, {messages} (JSON) and
// {promptText} (the last user message) in every string of v.
func substituteTemplates(v any, s *Subject) any {
	switch x := v.(type) {
	case string:
		return templateRe().ReplaceAllStringFunc(x, func(m string) string {
			switch m {
			case "{response}":
				return s.Text
			case "{modelId}":
				return s.ModelID
			case "{promptId}":
				return s.PromptID
			case "{messages}":
				b, _ := json.Marshal(s.Messages)
				return string(b)
			default:
				return s.promptText()
			}
		})
	case []any:
		out := make([]any, len(x))
		for i, item := range x {
			out[i] = substituteTemplates(item, s)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, item := range x {
			out[k] = substituteTemplates(item, s)
		}
		return out
	}
	return v
}

// callService POSTs body to a service and reads {score, explain} or {error}. Network errors and
// 5xx responses are retried. The url and header values may use ${VAR} for the variables
// Env.AllowEnv names; a value the user holds goes only where Env.Trust allows. Values never
// appear in errors.
func callService(in *evalInput, svc Service, body map[string]any, defTimeout time.Duration) (float64, string, error) {
	const where = "$call"
	target, urlUsed, err := ExpandEnv(svc.URL, in.env.LookupEnv, in.env.AllowEnv, "url of "+where)
	if err != nil {
		return 0, "", err
	}
	expanded, headerUsed, err := ExpandHeaders(svc.Headers, in.env.LookupEnv, in.env.AllowEnv, where)
	if err != nil {
		return 0, "", err
	}
	if held := HeldSource(append(headerUsed, urlUsed...)); held.Origin != envsource.OriginUnknown {
		if err := in.env.Trust.Check(target, held, envsource.Source{Origin: envsource.OriginBlueprint, Name: "url of " + where}); err != nil {
			return 0, "", err
		}
	}
	headers := map[string]string{"Content-Type": "application/json"}
	for k, v := range expanded {
		headers[k] = v
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return 0, "", fmt.Errorf("cannot encode the request: %w", err)
	}
	timeout := defTimeout
	if svc.TimeoutMS > 0 {
		timeout = time.Duration(svc.TimeoutMS) * time.Millisecond
	}
	retries := defaultMaxRetries
	if svc.MaxRetries != nil {
		retries = *svc.MaxRetries
	}
	backoff := defaultRetryBackoff
	if svc.RetryBackoffMS > 0 {
		backoff = time.Duration(svc.RetryBackoffMS) * time.Millisecond
	}
	method := svc.Method
	if method == "" {
		method = http.MethodPost
	}
	// Secrets do not follow redirects (docs/security.md): only same-origin ones are followed,
	// with no Referer, and a loopback host never goes through the proxy.
	given := in.env.HTTPClient
	if given == nil {
		given = http.DefaultClient
	}
	client := safehttp.Guard(given)
	secrets := serviceSecrets(target, svc.Headers, in.env.LookupEnv)
	// A variable expanded into the url is a credential too (a token in the path).
	for _, v := range EnvSecrets(in.env.LookupEnv, urlUsed) {
		secrets = append(secrets, string(v))
	}
	sort.Slice(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	// The model client's retries (retry.HTTP): network failures, attempts that ran out of
	// time, 408, 409, 429 and 5xx are tried again, after the wait the service asks for or the
	// linear backoff of the service's settings; the whole call is bounded like a model call's.
	policy := retry.Policy{MaxAttempts: retries + 1, Timeout: timeout,
		Backoff: func(n int) time.Duration { return backoff * time.Duration(n) }}
	shown := redactURL(target) // the URL for messages: credentials redacted
	res, err := retry.HTTP(in.ctx, policy, func(actx context.Context, _ int) (*http.Response, error) {
		return serviceAttempt(actx, client, method, target, shown, headers, payload, timeout)
	})
	if err == nil {
		var score float64
		var explain string
		score, explain, err = readServiceAnswer(res, shown)
		if err == nil {
			// A service that echoes a credential it was sent does not put it in results
			// (docs/security.md); any other explanation is kept exactly.
			return score, redact.Secrets(explain, secrets...), nil
		}
	}
	if in.ctx.Err() != nil {
		return 0, "", in.ctx.Err()
	}
	// A service may quote the credentials it was sent in its error; never show them.
	return 0, "", &redactedError{msg: redact.Text(err.Error(), secrets...), err: err}
}

// serviceAttempt makes one request to a service and reads its answer whole (at most one byte
// over maxServiceResponse), so that a connection dropped in the middle of the answer is
// retried like one dropped before it. Its errors are $call's own messages.
func serviceAttempt(ctx context.Context, client *http.Client, method, endpoint, shown string, headers map[string]string, payload []byte, timeout time.Duration) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, endpoint, bytes.NewReader(payload))
	if err != nil {
		// The parse error quotes the URL: show it with its credentials redacted.
		return nil, fmt.Errorf("invalid service URL %s: %w", redact.URL(endpoint), unwrapURLError(err))
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("no answer from %s within %v", shown, timeout)
		}
		return nil, fmt.Errorf("request to %s failed: %w", shown, unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxServiceResponse+1))
	if err != nil {
		return nil, fmt.Errorf("reading the answer from %s failed: %w", shown, err)
	}
	resp.Body = io.NopCloser(bytes.NewReader(data))
	return resp, nil
}

// readServiceAnswer reads a service's final answer: {score, explain} from a 2xx status.
func readServiceAnswer(resp *http.Response, endpoint string) (score float64, explain string, err error) {
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body) // already in memory (serviceAttempt)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := fmt.Sprintf("HTTP %d from %s", resp.StatusCode, endpoint)
		if text := strings.TrimSpace(string(data)); text != "" {
			msg += ": " + truncate(text, 200)
		}
		return 0, "", errors.New(msg)
	}
	if len(data) > maxServiceResponse {
		return 0, "", fmt.Errorf("the answer from %s is larger than %d bytes", endpoint, maxServiceResponse)
	}
	var out map[string]any
	if err := json.Unmarshal(data, &out); err != nil || out == nil {
		return 0, "", fmt.Errorf("expected a JSON object {score, explain} from %s, found %s", endpoint, node.QuoteShort(string(data)))
	}
	if e, ok := out["error"]; ok && e != nil && e != false && e != "" {
		return 0, "", fmt.Errorf("the service reported an error: %s", truncate(fmt.Sprint(e), 300))
	}
	raw, present := out["score"]
	r, kind := scoreResult(raw) // as $js: true/false → 1/0, numbers clamped to [0, 1]
	if kind != validScore {
		found := "no score"
		if present {
			found = funcarg.Describe(raw, true)
		}
		return 0, "", fmt.Errorf("expected a score (a number or a boolean) from %s, found %s", endpoint, found)
	}
	explain, _ = out["explain"].(string)
	return r.score, truncate(explain, maxJSText), nil
}

// serviceSecrets returns the credentials a service request carries, to remove from its
// errors: the values of ${VAR} references in its headers, the values of credential headers
// (whole and word by word), the URL's password and its credential-like query values.
func serviceSecrets(rawURL string, svcHeaders map[string]string, env envsource.Vars) []string {
	var out []string
	for k, v := range svcHeaders {
		for _, m := range redact.EnvRef().FindAllStringSubmatch(v, -1) {
			if env != nil {
				if val, ok := env.Lookup(m[1]); ok {
					out = append(out, val)
				}
			}
		}
		if safe := redact.Headers(map[string]string{k: v}); safe[k] != v {
			out = append(out, v)
			for _, w := range strings.Fields(v) {
				if len(w) >= 8 {
					out = append(out, w)
				}
			}
		}
	}
	if u, err := url.Parse(rawURL); err == nil {
		if p, ok := u.User.Password(); ok {
			// net/http sends user info as basic auth: a service may echo that header.
			basic := base64.StdEncoding.EncodeToString([]byte(u.User.Username() + ":" + p))
			out = append(out, p, url.QueryEscape(p), basic)
		}
		for name, vs := range u.Query() {
			if redact.IsSecretQueryParam(name) {
				for _, v := range vs {
					out = append(out, v, url.QueryEscape(v))
				}
			}
		}
	}
	// Longest first, so a value is replaced whole before any word of it.
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out
}

// redactedError is a service error whose message has the request's credentials removed; it
// still unwraps to the original error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactURL keeps a URL's scheme, host and path for messages: query strings and user info
// often carry keys.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return "the service"
	}
	return u.Scheme + "://" + u.Host + u.Path
}

// unwrapURLError drops net/http's "Post \"url\": " prefix, which repeats the URL.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
