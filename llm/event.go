package llm

import (
	"fmt"
	"strings"
	"time"
)

// Role is the author of a chat message.
type Role string

// Chat roles.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
)

// Message is one chat message.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content"`
	// SharedPrefix marks the end of the part of the conversation that other requests of the
	// run share word for word: the provider's prompt cache is asked to keep the messages up to
	// the last one marked (docs/providers.md, "Prompt caching"). When none is marked, the
	// leading system messages are the shared part.
	SharedPrefix bool `json:"sharedPrefix,omitempty"`
}

// Format is the response_format a request was sent with.
type Format string

// Response formats, from the most to the least structured: "json_schema", "json_object" and
// "text" (Response.Format and Event.Format say which one a reply was produced with). A server
// that rejects one is sent the next, with the schema moved into the system message.
const (
	formatJSONSchema Format = "json_schema"
	formatJSONObject Format = "json_object"
	formatText       Format = "text"
)

// rank orders formats: text < json_object < json_schema.
func (f Format) rank() int {
	switch f {
	case formatJSONSchema:
		return 2
	case formatJSONObject:
		return 1
	}
	return 0
}

// lower returns the next less structured format.
func (f Format) lower() Format {
	if f == formatJSONSchema {
		return formatJSONObject
	}
	return formatText
}

// EventKind says what an Event reports.
type EventKind int

// Kinds of event, in the order they happen in a call.
const (
	// EventCacheHit: the reply came from the cache; Messages holds the request's messages.
	EventCacheHit EventKind = iota + 1
	// EventRequest: an HTTP request is being sent; Messages holds exactly what is sent.
	EventRequest
	// EventResponse: a reply arrived; Status, Duration and Tokens are set.
	EventResponse
	// EventRetry: an attempt failed (Err) and is retried after Delay.
	EventRetry
	// EventFallback: the server rejected the response format (Format is the one used from now
	// on for this endpoint and model) or, with Dropped set, a parameter the model does not
	// accept (Dropped is left out from now on).
	EventFallback
	// EventRejected: the caller's check rejected a reply (Err); the model is asked again with
	// the error quoted.
	EventRejected
	// EventCacheError: a cache entry was unreadable or corrupt (a miss), or could not be
	// written (Err). The call itself is unaffected.
	EventCacheError
	// EventFailure: the call failed for good (Err).
	EventFailure
	// EventCachePruned: a write took the cache past its cap (Config.CacheMaxSize) and least
	// recently used entries were removed; Detail says how many, or Err why it failed. It belongs
	// to no call: Op, Host and Model are empty.
	EventCachePruned
)

// String names the kind as --verbose shows it.
func (k EventKind) String() string {
	switch k {
	case EventCacheHit:
		return "cache-hit"
	case EventRequest:
		return "request"
	case EventResponse:
		return "response"
	case EventRetry:
		return "retry"
	case EventFallback:
		return "fallback"
	case EventRejected:
		return "rejected"
	case EventCacheError:
		return "cache-error"
	case EventFailure:
		return "failure"
	case EventCachePruned:
		return "cache-pruned"
	}
	return "unknown"
}

// Event is request/response metadata for --verbose and --show-prompt, passed to
// Config.OnEvent. It never holds an API key or header value: Err is redacted and the endpoint
// is given by host only.
type Event struct {
	Kind EventKind
	// Op is "chat completion" or "embeddings".
	Op string
	// Label is Request.Label: what the call is for, e.g. "Acme.Wordiness docs/a.md".
	Label    string
	Host     string
	Model    string
	Attempt  int
	Status   int
	Duration time.Duration
	Delay    time.Duration
	Tokens   TokenUsage
	Format   Format
	Err      string
	// Messages are the messages sent (EventRequest) or that would have been (EventCacheHit).
	Messages []Message
	// Detail describes an event that belongs to no call (EventCachePruned).
	Detail string
	// Dropped names the request parameter an EventFallback leaves out ("temperature").
	Dropped string
}

// String is a one-line log entry, e.g.
// "llm: response chat completion gpt-4o@api.openai.com attempt 1: 200 in 1.2s, 812+96 tokens".
func (e Event) String() string {
	if e.Kind == EventCachePruned {
		if e.Err != "" {
			return "llm: cache-pruned: " + e.Err
		}
		return "llm: cache-pruned: " + e.Detail
	}
	var b strings.Builder
	fmt.Fprintf(&b, "llm: %s %s %s@%s", e.Kind, e.Op, e.Model, e.Host)
	if e.Label != "" {
		fmt.Fprintf(&b, " [%s]", e.Label)
	}
	if e.Attempt > 0 {
		fmt.Fprintf(&b, " attempt %d", e.Attempt)
	}
	switch e.Kind {
	case EventRequest:
		fmt.Fprintf(&b, ": %d messages, format %s", len(e.Messages), e.Format)
	case EventResponse:
		fmt.Fprintf(&b, ": %d in %s, %d+%d tokens", e.Status, e.Duration.Round(time.Millisecond), e.Tokens.Input, e.Tokens.Output)
	case EventRetry:
		fmt.Fprintf(&b, ": %s; retrying in %s", e.Err, e.Delay.Round(time.Millisecond))
	case EventFallback:
		if e.Dropped != "" {
			fmt.Fprintf(&b, ": the model does not accept %s, now sent without it: %s", e.Dropped, e.Err)
			break
		}
		fmt.Fprintf(&b, ": server rejected the response format, now using %s: %s", e.Format, e.Err)
	case EventRejected, EventCacheError, EventFailure:
		fmt.Fprintf(&b, ": %s", e.Err)
	}
	return b.String()
}
