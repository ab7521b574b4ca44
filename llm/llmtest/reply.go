package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Fault is a way for a reply to go wrong below the level of an HTTP status.
type Fault int

// Faults the server can inject.
const (
	// FaultNone answers normally.
	FaultNone Fault = iota
	// FaultHang never answers: the handler waits until the client gives up (its context ends)
	// or the server closes.
	FaultHang
	// FaultCloseConnection closes the connection without writing anything.
	FaultCloseConnection
	// FaultCloseMidResponse writes the status line, headers announcing the full length, and
	// half of the body, then closes the connection.
	FaultCloseMidResponse
	// FaultMalformedJSON answers 200 with a body that is not valid JSON.
	FaultMalformedJSON
	// FaultTruncatedJSON answers 200 with the first half of a valid completion body (and a
	// matching Content-Length, so the HTTP exchange itself is complete).
	FaultTruncatedJSON
	// FaultBatchExpired makes a batch line expire: the provider did not reach it within the
	// batch's window (an OpenAI batch with one is "expired"; Anthropic reports the line
	// "expired"). A live request with it is answered normally.
	FaultBatchExpired
)

// Reply is what the server answers to one request. The zero value is an empty assistant
// message. Use the constructors (Text, JSON, Status, RateLimited, Hang…) rather than filling
// fields by hand.
type Reply struct {
	// Content is the assistant message of a 200 chat completion.
	Content string
	// Status, when non-zero and not 200, answers with that status and Body (default: an
	// OpenAI-style error object).
	Status int
	// Body, when set, is sent as the whole response body instead of a generated one.
	Body string
	// ContentType of Body (default application/json).
	ContentType string
	// Header holds extra response headers (e.g. Retry-After).
	Header map[string]string
	// Fault injects a failure; see the Fault constants.
	Fault Fault
	// Latency delays this reply (added to the server's and the rule's latency).
	Latency time.Duration
	// FinishReason of the choice (default "stop").
	FinishReason string
	// Usage overrides the estimated token counts.
	Usage *Usage
	// Func, when set, computes the reply from the request (the other fields are ignored).
	Func func(*Request) Reply
}

// Usage is a token count the server reports. CachedTokens and CacheWriteTokens are the part of
// PromptTokens read from the server's prompt cache and written to it (promptcache.go): an
// OpenAI-shaped reply reports the first as prompt_tokens_details.cached_tokens; an Anthropic
// one reports them as cache_read_input_tokens and cache_creation_input_tokens, and the rest
// as input_tokens.
type Usage struct {
	PromptTokens     int64 `json:"prompt_tokens"`
	CompletionTokens int64 `json:"completion_tokens"`
	CachedTokens     int64 `json:"cached_tokens,omitempty"`
	CacheWriteTokens int64 `json:"cache_write_tokens,omitempty"`
}

// Text is a 200 reply whose assistant message is s.
func Text(s string) Reply { return Reply{Content: s} }

// JSON is a 200 reply whose assistant message is v encoded as JSON. It panics when v cannot
// be encoded: that is a mistake in the test, not a condition to handle.
func JSON(v any) Reply {
	return Reply{Content: mustJSON(v)}
}

// Fenced is JSON wrapped in a ```json Markdown fence, as many models reply.
func Fenced(v any) Reply {
	return Reply{Content: "```json\n" + mustJSON(v) + "\n```"}
}

func mustJSON(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("llmtest.JSON: cannot encode %T: %v", v, err))
	}
	return string(b)
}

// Status answers with an HTTP status and body. An empty body becomes an OpenAI-style error
// object whose message is the status text.
func Status(code int, body string) Reply { return Reply{Status: code, Body: body} }

// Redirect answers with a redirect status (301, 302, 303, 307, 308) to location, as a
// gateway that moved, or one that tries to send a request (and its key) somewhere else, does.
func Redirect(code int, location string) Reply {
	return Reply{Status: code, Header: map[string]string{"Location": location}, Body: "moved", ContentType: "text/plain"}
}

// RateLimited answers 429 with the given Retry-After header value (seconds or an HTTP-date;
// empty for none).
func RateLimited(retryAfter string) Reply {
	r := Reply{Status: http.StatusTooManyRequests,
		Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","param":null,"code":"rate_limit_exceeded"}}`}
	if retryAfter != "" {
		r.Header = map[string]string{"Retry-After": retryAfter}
	}
	return r
}

// ServerError answers 500 with an OpenAI-style error.
func ServerError() Reply {
	return Reply{Status: http.StatusInternalServerError,
		Body: `{"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}`}
}

// BatchExpired is a reply that makes a batch line expire (FaultBatchExpired): follow it with
// the reply a later live call gets.
func BatchExpired() Reply { return Reply{Fault: FaultBatchExpired, Content: "expired"} }

// Hang never answers (FaultHang).
func Hang() Reply { return Reply{Fault: FaultHang} }

// CloseConnection drops the connection without a reply (FaultCloseConnection).
func CloseConnection() Reply { return Reply{Fault: FaultCloseConnection} }

// CloseMidResponse drops the connection halfway through the body (FaultCloseMidResponse).
func CloseMidResponse() Reply { return Reply{Fault: FaultCloseMidResponse, Content: "cut off"} }

// MalformedJSON answers 200 with a body that is not JSON (FaultMalformedJSON).
func MalformedJSON() Reply { return Reply{Fault: FaultMalformedJSON} }

// TruncatedJSON answers 200 with half a completion body (FaultTruncatedJSON).
func TruncatedJSON() Reply {
	return Reply{Fault: FaultTruncatedJSON, Content: "this reply will be cut off"}
}

// HTMLPage answers 200 with an HTML page, as a misconfigured proxy or base URL does: valid
// HTTP, not a completion.
func HTMLPage() Reply {
	return Reply{Body: "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>", ContentType: "text/html"}
}

// NoChoices answers 200 with JSON that is not a chat completion (no choices).
func NoChoices() Reply { return Reply{Body: `{"object":"list","data":[]}`} }

// Dynamic computes the reply from the request.
func Dynamic(f func(*Request) Reply) Reply { return Reply{Func: f} }

// Matcher selects the requests a rule answers.
type Matcher func(*Request) bool

// Any matches every request.
func Any() Matcher { return func(*Request) bool { return true } }

// SystemContains matches requests whose system messages contain s.
func SystemContains(s string) Matcher {
	return func(r *Request) bool { return strings.Contains(r.System(), s) }
}

// UserContains matches requests with a user message containing s.
func UserContains(s string) Matcher {
	return func(r *Request) bool {
		for _, m := range r.Messages {
			if m.Role == "user" && strings.Contains(m.Content, s) {
				return true
			}
		}
		return false
	}
}

// LastUserContains matches requests whose last user message contains s (e.g. a retry prompt).
func LastUserContains(s string) Matcher {
	return func(r *Request) bool { return strings.Contains(r.LastUser(), s) }
}

// MessageContains matches requests with any message containing s.
func MessageContains(s string) Matcher {
	return func(r *Request) bool {
		for _, m := range r.Messages {
			if strings.Contains(m.Content, s) {
				return true
			}
		}
		return false
	}
}

// ModelIs matches requests for the model.
func ModelIs(model string) Matcher { return func(r *Request) bool { return r.Model == model } }

// All matches requests every matcher matches.
func All(ms ...Matcher) Matcher {
	return func(r *Request) bool {
		for _, m := range ms {
			if !m(r) {
				return false
			}
		}
		return true
	}
}

// Rule answers the requests its matcher selects. With several replies, the n-th matching
// request gets the n-th reply and later ones the last (so Status(500), Text("ok") fails once
// and then succeeds).
type Rule struct {
	mu      *sync.Mutex // the server's
	match   Matcher
	replies []Reply
	latency time.Duration
	hits    int
}

// WithLatency delays every reply of the rule. It returns the rule for chaining.
func (r *Rule) WithLatency(d time.Duration) *Rule {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latency = d
	return r
}

// Hits is how many requests the rule has answered.
func (r *Rule) Hits() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.hits
}
