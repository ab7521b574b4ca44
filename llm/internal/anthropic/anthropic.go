// Package anthropic is the model client's adapter to Anthropic's native Messages API, through
// github.com/anthropics/anthropic-sdk-go: it builds the SDK's request from a chat request
// (system blocks, turns, the cache_control breakpoint, structured output), sends it on the
// client's own HTTP client with the SDK's retries and environment left out, and reads the usage
// of a reply, cache reads and writes included (docs/providers.md, "Anthropic").
package anthropic

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

// Turn is one message of a conversation: Role "system", "user" or "assistant".
type Turn struct {
	Role string
	Text string
}

// Request is what a Messages request is built from.
type Request struct {
	Model string
	// Turns are the conversation; the leading system turns become the request's system
	// blocks, in order, the others its messages (a later system turn a user message).
	Turns []Turn
	// Breakpoint, when positive, is the number of leading turns that form the prefix other
	// requests share: the last block of that prefix carries cache_control {type: ephemeral}.
	Breakpoint int
	// Schema, when set, asks for structured output: output_config.format {type: json_schema}.
	Schema json.RawMessage
	// Temperature, when set, is sent (as an extra field: see Params).
	Temperature *float64
	// MaxTokens is the reply's limit (the API requires one).
	MaxTokens int64
}

// Params returns the SDK's request for r. TestMessagesBody checks the JSON it sends.
func Params(r Request) (sdk.MessageNewParams, error) {
	p := sdk.MessageNewParams{Model: sdk.Model(r.Model), MaxTokens: r.MaxTokens}
	for i, t := range r.Turns {
		block := sdk.TextBlockParam{Text: t.Text}
		marked := i == r.Breakpoint-1
		if marked {
			block.CacheControl = sdk.NewCacheControlEphemeralParam()
		}
		role := t.Role
		if role == "system" && len(p.Messages) > 0 {
			// A system message after the conversation began (the rule after the chunk,
			// docs/providers.md "Prompt caching") stays where it is, as a user turn: the
			// system blocks come before every message, so moving it there would put it
			// before the cached chunk. The API joins consecutive user turns.
			role = "user"
		}
		switch role {
		case "system":
			p.System = append(p.System, block)
		case "user":
			p.Messages = append(p.Messages, sdk.MessageParam{OfUser: &sdk.UserMessageParam{
				Content: []sdk.ContentBlockParamUnion{{OfText: &block}}}})
		case "assistant":
			p.Messages = append(p.Messages, sdk.MessageParam{OfAssistant: &sdk.AssistantMessageParam{
				Content: []sdk.ContentBlockParamUnion{{OfText: &block}}}})
		default:
			return p, fmt.Errorf("message %d: expected role system, user or assistant, found %q", i+1, t.Role)
		}
	}
	if r.Temperature != nil {
		// The SDK's request type no longer has the deprecated temperature; the API still
		// takes it from the models that accept one (the model client leaves it out for a
		// model that refuses it: docs/providers.md, "Models that refuse a temperature").
		p.SetExtraFields(map[string]any{"temperature": *r.Temperature})
	}
	if len(r.Schema) > 0 {
		var schema map[string]any
		if err := json.Unmarshal(r.Schema, &schema); err != nil {
			return p, fmt.Errorf("the response schema: expected a JSON object, found %s", strings.TrimSpace(string(r.Schema[:min(len(r.Schema), 40)])))
		}
		p.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: schema}
	}
	return p, nil
}

// Service sends Messages requests through the SDK.
type Service struct {
	svc sdk.MessageService
}

// NewService returns a service on hc, with the SDK's own retries off (the caller makes them)
// and onTheWire as its middleware next to the network. The service is built directly, not with
// the SDK's NewClient, so that the SDK reads no environment variable and no profile file.
func NewService(hc *http.Client, onTheWire option.Middleware) Service {
	return Service{svc: sdk.NewMessageService(option.WithHTTPClient(hc), option.WithMaxRetries(0), option.WithMiddleware(onTheWire))}
}

// Target is where and how one request is sent.
type Target struct {
	// URL is the operation's URL (the endpoint's base URL and /messages).
	URL string
	// APIKey, when set, is sent in x-api-key.
	APIKey string
	// Headers are set last (an endpoint's own headers win over the SDK's).
	Headers map[string]string
	// Timeout bounds the attempt (the caller's context does too); the SDK would otherwise
	// work out its own from the reply's token limit, and refuse a large one.
	Timeout time.Duration
}

// Send sends p to t and returns the 2xx response, whose body the caller reads (an error status
// is whatever the middleware returns for it).
func (s Service) Send(ctx context.Context, p sdk.MessageNewParams, t Target) (*http.Response, error) {
	target, err := url.Parse(t.URL)
	if err != nil {
		return nil, err
	}
	// The SDK adds its path, v1/messages, to the base URL; the endpoint's base URL already
	// names the version (https://api.anthropic.com/v1), so the request goes to the URL given.
	opts := []option.RequestOption{
		option.WithBaseURL(target.Scheme + "://" + target.Host + "/"),
		option.WithRequestTimeout(t.Timeout),
		option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			u := *target
			r.URL = &u
			return next(r)
		}),
	}
	if t.APIKey != "" {
		// In x-api-key, the header Anthropic documents for API keys (the SDK's WithAPIKey
		// sends it as a bearer token), as Generate's native requests send it too.
		opts = append(opts, option.WithHeader("x-api-key", t.APIKey))
	}
	for k, v := range t.Headers {
		opts = append(opts, option.WithHeader(k, v))
	}
	var res *http.Response
	opts = append(opts, option.WithResponseBodyInto(&res))
	if _, err := s.svc.New(ctx, p, opts...); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, fmt.Errorf("the server sent no reply")
	}
	return res, nil
}

// Tokens is a reply's token count, in the model client's terms (llm.TokenUsage).
type Tokens struct {
	Input, Output, Cached, CacheWrite int64
}

// Usage is the usage object of a Messages reply. Anthropic counts the prompt tokens read from
// its cache and those written to it apart from input_tokens.
type Usage struct {
	InputTokens              int64 `json:"input_tokens"`
	OutputTokens             int64 `json:"output_tokens"`
	CacheReadInputTokens     int64 `json:"cache_read_input_tokens"`
	CacheCreationInputTokens int64 `json:"cache_creation_input_tokens"`
}

// Tokens is the usage with every prompt token in Input, the cache reads and writes among them
// (negative counts are taken as 0, and sums that would overflow stop at the largest count).
func (u *Usage) Tokens() Tokens {
	read, write := max(u.CacheReadInputTokens, 0), max(u.CacheCreationInputTokens, 0)
	input := max(u.InputTokens, 0)
	if write > math.MaxInt64-read {
		write = math.MaxInt64 - read
	}
	if input > math.MaxInt64-read-write {
		input = math.MaxInt64 - read - write
	}
	return Tokens{Input: input + read + write, Output: u.OutputTokens, Cached: read, CacheWrite: write}
}
