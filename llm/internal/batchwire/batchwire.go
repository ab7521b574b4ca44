// Package batchwire is the model client's side of provider batches (docs/batch.md): the hook
// through which package llm/batch gets, for a request, the body and the reply-cache key a live
// call would use, and hands back a batch's reply to be stored in the cache as the live call's.
// The client fills the hook when it is made (llm.Config.Batch), so a batch reuses the live
// path's request building, trust check, cache keys, reply parsing and redaction instead of
// copying them.
package batchwire

import "encoding/json"

// The wire shapes of a batch line's body.
const (
	// WireOpenAI is an OpenAI Chat Completions body (POST /v1/chat/completions).
	WireOpenAI = "openai"
	// WireAnthropic is an Anthropic Messages body (POST /v1/messages).
	WireAnthropic = "anthropic"
)

// Call is one request as a live call would send it.
type Call struct {
	// Key is the reply-cache key of the live call.
	Key string
	// Wire is WireOpenAI or WireAnthropic.
	Wire string
	// URL is the live call's operation URL (without user info): where the request would go.
	URL string
	// Format is the response format the body asks for (the client's llm.Format).
	Format string
	// Body is the request body, byte for byte what the live call's first attempt sends.
	Body json.RawMessage
}

// Hook is filled by the client it is given to (llm.New); R is llm.Request.
type Hook[R any] struct {
	// Prepare checks req (the trust rule included) and returns its live call. It fails when
	// the client has no reply cache: a batch's replies reach the run only through the cache.
	Prepare func(req R) (Call, error)
	// Store reads body, the reply of call's request in a batch (a chat completion object or a
	// Messages reply), redacts it of the request's secrets as a live reply is, stores it in the
	// cache under call.Key with its token counts, and counts it in the client's usage with
	// the prices multiplied by priceFactor.
	Store func(req R, call Call, body []byte, priceFactor float64) error
}
