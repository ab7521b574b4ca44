package batch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/llm"
)

// anthropicVersion is the anthropic-version header of the Message Batches requests.
const anthropicVersion = "2023-06-01"

// maxReplySize bounds a JSON reply of the batch API (not a result file, which is streamed).
const maxReplySize = 16 << 20

// APIError is a batch API request that failed: the operation, the host, the HTTP status (0
// when none came back) and the server's message, scrubbed of every secret of the endpoint.
type APIError struct {
	Op, Host string
	Status   int
	Message  string
}

// Error names the operation, the host, the status and the message.
func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("batch %s at %s: %s", e.Op, e.Host, e.Message)
	}
	return fmt.Sprintf("batch %s at %s: HTTP %d: %s", e.Op, e.Host, e.Status, e.Message)
}

// secretsOf are the values never shown in an error about ep: its key and header values.
func secretsOf(ep llm.Endpoint) []string {
	out := []string{string(ep.APIKey)}
	for _, v := range ep.Headers {
		out = append(out, v)
	}
	for _, s := range ep.Secrets {
		out = append(out, string(s))
	}
	return out
}

// request is one call of a batch API.
type request struct {
	op          string
	method, url string
	body        []byte
	contentType string
}

// send makes r to ep's provider, checking first that the URL is where a live call with ep's
// key may go (the trust rule, and the origin of ep's base URL), and returns the response, a
// 2xx, whose body the caller reads and closes.
func (b *Batcher) send(ctx context.Context, ep llm.Endpoint, wire string, r request) (*http.Response, error) {
	secrets := secretsOf(ep)
	fail := func(status int, msg string) error {
		return &APIError{Op: r.op, Host: ep.Host(), Status: status, Message: redact.Text(msg, secrets...)}
	}
	if err := b.client.CheckTrust(ep); err != nil {
		return nil, err
	}
	base, err := url.Parse(ep.BaseURL)
	if err != nil {
		return nil, fail(0, "the base URL is not a URL")
	}
	target, err := url.Parse(r.url)
	if err != nil || !safehttp.SameOrigin(base, target) {
		// A result file elsewhere than the endpoint would take the key where no live call goes.
		return nil, fail(0, fmt.Sprintf("refusing to send the key to %s, which is not the endpoint's origin %s",
			redact.URL(r.url), safehttp.Origin(base)))
	}
	var body io.Reader
	if r.body != nil {
		body = bytes.NewReader(r.body)
	}
	hr, err := http.NewRequestWithContext(ctx, r.method, r.url, body)
	if err != nil {
		return nil, fail(0, err.Error())
	}
	hr.Header.Set("User-Agent", b.agent)
	if r.contentType != "" {
		hr.Header.Set("Content-Type", r.contentType)
	}
	switch wire {
	case "anthropic":
		if ep.APIKey != "" {
			hr.Header.Set("x-api-key", string(ep.APIKey))
		}
		hr.Header.Set("anthropic-version", anthropicVersion)
	default:
		if ep.APIKey != "" {
			hr.Header.Set("Authorization", "Bearer "+string(ep.APIKey))
		}
	}
	for k, v := range ep.Headers {
		hr.Header.Set(k, v)
	}
	res, err := b.http.Do(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fail(0, err.Error())
	}
	if res.StatusCode/100 != 2 {
		data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
		res.Body.Close()
		return nil, fail(res.StatusCode, errorText(data))
	}
	return res, nil
}

// call makes r and decodes its JSON reply into v.
func (b *Batcher) call(ctx context.Context, ep llm.Endpoint, wire string, r request, v any) error {
	res, err := b.send(ctx, ep, wire, r)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, maxReplySize))
	if err == nil {
		err = json.Unmarshal(data, v)
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &APIError{Op: r.op, Host: ep.Host(), Status: res.StatusCode,
			Message: redact.Text("the reply is not the expected JSON: "+err.Error(), secretsOf(ep)...)}
	}
	return nil
}

// errorText is the message of an error body ({"error": {"message"}}), else its first line.
func errorText(data []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(data, &e) == nil && e.Error.Message != "" {
		return e.Error.Message
	}
	s := strings.TrimSpace(string(data))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	if s == "" {
		return "no message"
	}
	return s
}
