package llm

import (
	"context"

	"github.com/vectorlint/vectorlint/internal/retry"
)

// Hooks for this package's external tests (package llm_test): names that no other package
// uses, so the package keeps them unexported (issue 26: no package exports more than 100).

// The request shapes of Generate other than APIChat (APIFor gives them to callers).
const (
	APICompletions = apiCompletions
	APIAnthropic   = apiAnthropic
	APIGemini      = apiGemini
	// AnthropicVersion is the anthropic-version header of apiAnthropic requests.
	AnthropicVersion = anthropicVersion
)

// The response formats a reply can have been produced with.
const (
	FormatJSONSchema = formatJSONSchema
	FormatJSONObject = formatJSONObject
	FormatText       = formatText
)

// EmbedBatchSize is the most texts of one embeddings request.
const EmbedBatchSize = embedBatchSize

// ErrReplyRejected is matched by every rejected reply (ReplyError).
var ErrReplyRejected = errReplyRejected

type (
	// ReplyParseError says why a reply holds no usable JSON.
	ReplyParseError = replyParseError
)

// ExtractJSON, GenerateBody, ParseGenerateReply and RetryPrompt are the package's own.
var (
	ExtractJSON        = extractJSON
	GenerateBody       = generateBody
	ParseGenerateReply = parseGenerateReply
	RetryPrompt        = retryPrompt
)

// DecodeJSON is decodeJSON.
func DecodeJSON[T any](ctx context.Context, c *Client, req Request, validate func(*T) error) (*T, *Response, error) {
	return decodeJSON(ctx, c, req, validate)
}

// OnJoining has f called as each call with a key is about to join (or lead) its flight. Set it
// before the client's first call.
func (c *Client) OnJoining(f func()) { c.joining = f }

// RetryPolicy is the policy the client's calls are retried by.
func (c *Client) RetryPolicy() retry.Policy { return c.retry }

// Retryable reports whether the failure is of a kind that is retried.
func (e *APIError) Retryable() bool { return e.retryable() }

// MinCachedPrefix is the shortest prefix the client marks for a provider's prompt cache.
const MinCachedPrefix = minCachedPrefix
