package llm

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/retry"
)

// ErrorKind classifies a failed call.
type ErrorKind int

// Kinds of failure. Retryable ones are retried up to Config.MaxAttempts.
const (
	// KindHTTP is an HTTP error status; 408, 409, 429 and 5xx are retried.
	KindHTTP ErrorKind = iota + 1
	// KindTimeout is an attempt that took longer than Config.Timeout (retried).
	KindTimeout
	// KindConnection is a connection refused, reset or closed mid-response (retried).
	KindConnection
	// KindBadResponse is a 2xx answer whose body is not the expected JSON (retried: it is
	// almost always a proxy or a truncated transfer).
	KindBadResponse
	// KindCanceled is the caller's context ending (never retried).
	KindCanceled
	// KindRequest is a request that could not be built (never retried).
	KindRequest
	// KindRedirect is a redirect to another scheme, host or port, which a request that may
	// carry a key does not follow (docs/security.md, "Redirects, proxies and echoed keys"; never
	// retried).
	KindRedirect
)

// String names the kind.
func (k ErrorKind) String() string {
	switch k {
	case KindHTTP:
		return "http"
	case KindTimeout:
		return "timeout"
	case KindConnection:
		return "connection"
	case KindBadResponse:
		return "bad response"
	case KindCanceled:
		return "canceled"
	case KindRequest:
		return "request"
	case KindRedirect:
		return "redirect"
	}
	return "unknown"
}

// APIError is a call that failed after its retries, or at once when not retryable. Its text
// names the endpoint host, the model, the status and a short server message; it never contains
// an API key (every field is redacted when the error is built).
type APIError struct {
	// Op is "chat completion" or "embeddings".
	Op    string
	Host  string
	Model string
	Kind  ErrorKind
	// Status is the HTTP status for KindHTTP, else 0.
	Status int
	// Message is the server's error message or the cause, shortened and redacted.
	Message string
	// Attempts is how many requests were made.
	Attempts int
	// RetryAfter is the server's last Retry-After, if it sent one.
	RetryAfter time.Duration
	err        error
}

// Error reads like "llm: chat completion with gpt-4o at api.openai.com: HTTP 429 Too Many
// Requests: Rate limit reached (4 attempts)".
func (e *APIError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "llm: %s with %s at %s: ", e.Op, e.Model, e.Host)
	switch e.Kind {
	case KindHTTP:
		fmt.Fprintf(&b, "HTTP %d", e.Status)
		if t := http.StatusText(e.Status); t != "" {
			b.WriteString(" " + t)
		}
		if e.Message != "" {
			b.WriteString(": " + e.Message)
		}
	default:
		b.WriteString(e.Message)
	}
	if e.Attempts > 1 {
		fmt.Fprintf(&b, " (%d attempts)", e.Attempts)
	}
	return b.String()
}

// Unwrap returns the cause (context.Canceled, context.DeadlineExceeded, a net error…) so
// errors.Is works; its text is redacted too.
func (e *APIError) Unwrap() error {
	if e.err == nil {
		return nil
	}
	return e.err
}

// retryable reports whether the failure was of a kind that is retried.
func (e *APIError) retryable() bool {
	switch e.Kind {
	case KindTimeout, KindConnection, KindBadResponse:
		return true
	case KindHTTP:
		return retry.Retryable(e.Status)
	}
	return false
}

// redactedError wraps a cause so that its text is redacted while errors.Is/As still see it.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

func redactErr(err error, secrets []string) error {
	if err == nil {
		return nil
	}
	return &redactedError{msg: redact.Text(err.Error(), secrets...), err: err}
}

// errReplyRejected is matched (errors.Is) by every *ReplyError.
var errReplyRejected = errors.New("model reply rejected")

// ReplyError is a reply the caller's check rejected twice: once as first given, and again after
// the model was shown the problem. The model did answer; the answer was unusable.
type ReplyError struct {
	Host  string
	Model string
	// Err is the check's error on the last reply.
	Err error
	// Reply is the start of the last reply (redacted), for the message.
	Reply string
}

// Error names the model, the problem and the start of the reply.
func (e *ReplyError) Error() string {
	return fmt.Sprintf("llm: reply of %s at %s rejected after one retry: %v; the reply began %q", e.Model, e.Host, e.Err, e.Reply)
}

// Unwrap returns the check's error.
func (e *ReplyError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, errReplyRejected) true.
func (e *ReplyError) Is(target error) bool { return target == errReplyRejected }

// oneLine collapses whitespace and clips s for use inside an error message.
func oneLine(s string, n int) string {
	return clip(strings.Join(strings.Fields(s), " "), n)
}

// clip shortens s to at most n bytes (on a rune boundary) with "…" when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
