package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/openai/openai-go/v3/option"
)

// Body size limits: an error body is only read for its message; a reply body is bounded so a
// misbehaving server cannot exhaust memory.
const (
	maxErrorBody = 64 << 10
	maxReplyBody = 64 << 20
)

// requestOptions are openai-go's request options for a call to ep: the base URL (for Azure
// the deployment's path and the api-version query), the key (a bearer token; Azure's api-key
// header), the User-Agent and the endpoint's own headers, which win. (openai-go's azure
// package is not used: it links the Azure SDK, and it refuses plain-HTTP endpoints and custom
// Authorization headers that Azure-compatible gateways are called with today.)
func (c *Client) requestOptions(ep Endpoint) []option.RequestOption {
	opts := make([]option.RequestOption, 0, 4+len(ep.Headers))
	opts = append(opts, option.WithBaseURL(ep.apiBase()), option.WithHeader("User-Agent", c.cfg.UserAgent))
	key := string(ep.APIKey)
	switch {
	case wireOf(ep.Provider) == wireAzure:
		if ep.APIVersion != "" {
			opts = append(opts, option.WithQuery("api-version", ep.APIVersion))
		}
		if key != "" {
			opts = append(opts, option.WithHeader("api-key", key))
		}
	case key != "":
		opts = append(opts, option.WithAPIKey(key))
	}
	for k, v := range ep.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	return opts
}

// onTheWire is the client's openai-go middleware, next to the network. It keeps the request
// what the client has always sent: without the SDK's X-Stainless-* headers, which describe this
// machine (OS, architecture, Go version) to every server a user points vectorlint at. And it
// turns an error status into a *statusError carrying the server's message, its Retry-After
// headers and OpenAI's error.param, whatever the shape (or absence) of the error body, reading
// at most maxErrorBody of it, before the SDK would read it all into its own error.
func onTheWire(req *http.Request, next option.MiddlewareNext) (*http.Response, error) {
	for name := range req.Header {
		if strings.HasPrefix(name, "X-Stainless-") {
			req.Header.Del(name)
		}
	}
	res, err := next(req)
	if err != nil || res.StatusCode < 400 {
		return res, err
	}
	return nil, statusFrom(res)
}

// errorMessage extracts a short message from an error body in any of the shapes servers use:
// {"error": {"message", "param"}}, {"error": "…"}, {"message": "…"}, {"detail": "…"}; else the
// start of the body.
func errorMessage(body []byte) (msg, param string) {
	var shape struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(body, &shape) == nil {
		var obj struct {
			Message string `json:"message"`
			Param   string `json:"param"`
		}
		var s string
		switch {
		case len(shape.Error) > 0 && json.Unmarshal(shape.Error, &obj) == nil && obj.Message != "":
			return oneLine(obj.Message, 300), obj.Param
		case len(shape.Error) > 0 && json.Unmarshal(shape.Error, &s) == nil && s != "":
			return oneLine(s, 300), ""
		case shape.Message != "":
			return oneLine(shape.Message, 300), ""
		case len(shape.Detail) > 0 && json.Unmarshal(shape.Detail, &s) == nil && s != "":
			return oneLine(s, 300), ""
		case len(shape.Detail) > 0:
			return oneLine(string(shape.Detail), 300), ""
		}
	}
	text := strings.TrimSpace(string(body))
	if text == "" {
		return "", ""
	}
	return fmt.Sprintf("the body began %q", oneLine(text, 120)), ""
}

// readBody reads a 2xx reply body; a failure while reading is a connection error.
func readBody(res *http.Response) ([]byte, error) {
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, maxReplyBody+1))
	if err != nil {
		return nil, &connError{err: err}
	}
	if len(body) > maxReplyBody {
		return nil, &badResponseError{msg: fmt.Sprintf("the reply is larger than %d MiB", maxReplyBody>>20)}
	}
	return body, nil
}

// describeBadJSON explains why a reply body is not the JSON expected.
func describeBadJSON(body []byte, err error) string {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return "the server sent an empty reply body"
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || (err != nil && strings.Contains(err.Error(), "unexpected end of JSON input")) {
		return fmt.Sprintf("the server's reply is cut off after %d bytes (truncated JSON)", len(body))
	}
	return fmt.Sprintf("the server's reply is not valid JSON (%v); it began %q", err, oneLine(string(trimmed), 80))
}

// causeText describes a transport failure without the request URL (which may carry
// credentials in its query).
func causeText(err error) string {
	if reason, detail, _ := networkFailure(err); reason != 0 {
		return detail
	}
	switch {
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection in the middle of the reply"
	case errors.Is(err, io.EOF):
		return "the server closed the connection without replying"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset by the server"
	case errors.Is(err, context.DeadlineExceeded):
		return "timed out"
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
