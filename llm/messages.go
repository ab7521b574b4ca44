package llm

import (
	"context"
	"encoding/json"
	"net/http"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/vectorlint/vectorlint/llm/internal/anthropic"
)

// defaultMessagesMaxTokens is the reply limit of a Messages request whose endpoint and request
// set none (the API requires one): ANTHROPIC_MAX_TOKENS' default.
const defaultMessagesMaxTokens = 4096

// sendMessages sends the round's request to Anthropic's native Messages API through
// anthropic-sdk-go (llm/internal/anthropic): the system messages as system blocks, the shared
// prefix's last block marked with cache_control (cacheprefix.go), the schema as
// output_config's json_schema format (lowered like response_format when the model refuses it),
// on the client's HTTP client with the same retries, limits, stops and redaction as every call.
func (k *chatKind) sendMessages(ctx context.Context) (*http.Response, error) {
	ep := k.req.Endpoint
	p, err := k.messagesParams()
	if err != nil {
		return nil, err
	}
	headers := map[string]string{"User-Agent": k.c.cfg.UserAgent}
	for name, v := range ep.Headers {
		headers[name] = v
	}
	timeout := k.c.timeout(k.req.Timeout)
	return k.c.messages.Send(ctx, p, anthropic.Target{URL: ep.apiBase() + "messages", APIKey: string(ep.APIKey),
		Headers: headers, Timeout: timeout})
}

// messagesParams is the SDK's Messages request of the round (a live call sends it, a batch
// line carries it: batch.go).
func (k *chatKind) messagesParams() (sdk.MessageNewParams, error) {
	r := anthropic.Request{Model: k.req.Endpoint.Model, Breakpoint: k.cached, MaxTokens: int64(maxTokens(k.req))}
	if r.MaxTokens <= 0 {
		r.MaxTokens = defaultMessagesMaxTokens
	}
	for _, m := range k.msgs {
		r.Turns = append(r.Turns, anthropic.Turn{Role: string(m.Role), Text: m.Content})
	}
	if t := temperature(k.req); t != nil && !k.noTemp {
		r.Temperature = t
	}
	if k.format == formatJSONSchema {
		schema, err := json.Marshal(k.req.Schema.Schema)
		if err != nil {
			return sdk.MessageNewParams{}, err
		}
		r.Schema = schema
	}
	return anthropic.Params(r)
}
