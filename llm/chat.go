package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/vectorlint/vectorlint/internal/redact"
)

const opChat = "chat completion"

// Complete sends a chat completion request and returns the reply. A reply in the cache is
// returned without a request, and so is, when the cache is used, the reply of an identical
// request in flight at the same time (Client.call). Failures are *APIError values: retryable ones (408, 409, 429, 5xx,
// timeouts, connection errors, unusable 2xx bodies) after Config.MaxAttempts attempts, others
// (400, 401, 403, 404…) at once.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	s, err := c.chatSpec(req)
	if err != nil {
		return nil, err
	}
	r, err := c.call(ctx, s)
	if err != nil {
		return nil, err
	}
	return &r.Response, nil
}

// CompleteChecked is Complete with a check of the reply's content. A reply the check rejects
// is not cached; the model is asked once more, with its reply and a user message quoting the
// check's error appended to the conversation. If that reply fails the check too, the result
// is a *ReplyError (and the last reply). A reply accepted on the second try is cached under
// the original request as well, so an identical run makes no calls. Both replies count in
// Usage.
func (c *Client) CompleteChecked(ctx context.Context, req Request, check func(content string) error) (*Response, error) {
	if check == nil {
		return c.Complete(ctx, req)
	}
	s, err := c.chatSpec(req)
	if err != nil {
		return nil, err
	}
	var checkErr error
	s.accept = func(r *reply) error { checkErr = check(r.Content); return checkErr }
	first, err := c.call(ctx, s)
	if checkErr == nil {
		if err != nil {
			return nil, err
		}
		return &first.Response, nil
	}
	secrets := req.Endpoint.secrets()
	rejected := s.event(EventRejected)
	rejected.Err = redact.Text(checkErr.Error(), secrets...)
	c.emit(rejected)

	retry := req
	retry.Messages = append(cloneMessages(req.Messages),
		Message{Role: RoleAssistant, Content: first.Content},
		Message{Role: RoleUser, Content: retryPrompt(checkErr)})
	rs, err := c.chatSpec(retry)
	if err != nil {
		return nil, err
	}
	var problem error
	rs.accept = func(r *reply) error { problem = check(r.Content); return problem }
	second, err := c.call(ctx, rs)
	if problem == nil && err != nil {
		return nil, err
	}
	second.Attempts += first.Attempts
	if problem != nil {
		failure := s.event(EventFailure)
		failure.Err = redact.Text(problem.Error(), secrets...)
		c.emit(failure)
		return &second.Response, &ReplyError{Host: req.Endpoint.Host(), Model: req.Endpoint.Model,
			Err: redactErr(problem, secrets), Reply: redact.Text(oneLine(second.Content, 120), secrets...)}
	}
	c.store(s, second)
	return &second.Response, nil
}

// retryPrompt is the user message that quotes a rejected reply's problem back to the model.
func retryPrompt(problem error) string {
	return "Your previous reply could not be used: " + problem.Error() +
		"\nReply again with the complete answer, in exactly the required format and nothing else."
}

// CompleteJSON is CompleteChecked for JSON replies: the JSON is extracted from the reply
// (extractJSON: bare, in a ```json fence, or embedded in prose) and passed to validate, which
// may be nil. Response.JSON holds the extracted JSON. A reply without JSON, or one validate
// rejects, is retried once with the error quoted to the model.
func (c *Client) CompleteJSON(ctx context.Context, req Request, validate func(jsonText string) error) (*Response, error) {
	resp, err := c.CompleteChecked(ctx, req, func(content string) error {
		js, err := extractJSON(content)
		if err != nil {
			return err
		}
		if validate != nil {
			return validate(js)
		}
		return nil
	})
	if resp != nil && err == nil {
		resp.JSON, _ = extractJSON(resp.Content)
	}
	return resp, err
}

// decodeJSON sends req with CompleteJSON and decodes the reply's JSON into a T; validate (may
// be nil) checks the decoded value. A reply that does not decode or validate is retried once
// with the error quoted to the model.
func decodeJSON[T any](ctx context.Context, c *Client, req Request, validate func(*T) error) (*T, *Response, error) {
	var out *T
	resp, err := c.CompleteJSON(ctx, req, func(js string) error {
		v := new(T)
		if err := json.Unmarshal([]byte(js), v); err != nil {
			return fmt.Errorf("the JSON does not have the required shape: %w", err)
		}
		if validate != nil {
			if err := validate(v); err != nil {
				return err
			}
		}
		out = v
		return nil
	})
	if err != nil {
		return nil, resp, err
	}
	return out, resp, nil
}

// requestedFormat is the response format req asks for.
func requestedFormat(req Request) Format {
	switch {
	case req.Schema != nil:
		return formatJSONSchema
	case req.JSONMode:
		return formatJSONObject
	}
	return formatText
}

// temperature is the effective temperature of req.
func temperature(req Request) *float64 {
	if req.Temperature != nil {
		return req.Temperature
	}
	return req.Endpoint.Temperature
}

// schemaJSON is the canonical JSON of a schema request (name, description, strictness, schema).
func schemaJSON(s *Schema) (json.RawMessage, error) {
	if s == nil {
		return nil, nil
	}
	b, err := json.Marshal(struct {
		Name        string `json:"name"`
		Description string `json:"description,omitempty"`
		Strict      bool   `json:"strict"`
		Schema      any    `json:"schema"`
	}{schemaName(s), s.Description, s.Strict, s.Schema})
	if err != nil {
		return nil, fmt.Errorf("llm: encoding the response schema: %w", err)
	}
	return b, nil
}

func schemaName(s *Schema) string {
	if s.Name == "" {
		return "response"
	}
	return s.Name
}

// checkRequest rejects requests that cannot be sent.
func checkRequest(req Request) error {
	ep := req.Endpoint
	bad := func(format string, a ...any) error {
		return &APIError{Op: opChat, Host: ep.Host(), Model: ep.Model, Kind: KindRequest, Message: fmt.Sprintf(format, a...)}
	}
	if err := checkBaseURL(ep.BaseURL); err != nil {
		return bad("expected an http(s) base URL, found %q", redact.Text(ep.BaseURL, ep.secrets()...))
	}
	if ep.Model == "" {
		return bad("no model given")
	}
	if len(req.Messages) == 0 {
		return bad("no messages given")
	}
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem, RoleUser, RoleAssistant:
		default:
			return bad("message %d: expected role system, user or assistant, found %q", i+1, m.Role)
		}
	}
	return nil
}

// chatSpec checks req and describes its call: its cache key covers everything that
// determines the reply (never the key or header values).
func (c *Client) chatSpec(req Request) (*callSpec, error) {
	if err := c.CheckTrust(req.Endpoint); err != nil {
		return nil, err
	}
	if err := checkRequest(req); err != nil {
		return nil, err
	}
	schema, err := schemaJSON(req.Schema)
	if err != nil {
		return nil, err
	}
	format := requestedFormat(req)
	native := wireOf(req.Endpoint.Provider) == wireAnthropic
	kind := &chatKind{c: c, req: req, requested: format, native: native}
	op := "chat/completions"
	if native {
		op = "messages"
	}
	s := newCallSpec(opChat, req.Label, req.Endpoint, c.timeout(req.Timeout), req.MaxAttempts, kind)
	s.cache, s.entryOp, s.messages = c.useCache(req.NoCache), "chat", req.Messages
	if s.cache {
		k := keyInput{Op: "chat", URL: req.Endpoint.operationURL(op), Model: req.Endpoint.Model,
			Temperature: temperature(req), Messages: req.Messages, Schema: schema, MaxTokens: maxTokens(req), Extra: req.Extra, Sample: req.Sample}
		if format != formatText {
			k.Format = string(format)
		}
		if s.key, err = hashKey(k); err != nil {
			return nil, &APIError{Op: opChat, Host: req.Endpoint.Host(), Model: req.Endpoint.Model, Kind: KindRequest, Message: err.Error()}
		}
	}
	return s, nil
}

// effectiveFormat is the requested format, lowered to what the endpoint is known to accept.
func (c *Client) effectiveFormat(ep Endpoint, requested Format) Format {
	c.mu.Lock()
	defer c.mu.Unlock()
	if known, ok := c.formats[ep.formatKey()]; ok && known.rank() < requested.rank() {
		return known
	}
	return requested
}

// lowerFormat records that the endpoint rejected format and returns the next one to try.
func (c *Client) lowerFormat(ep Endpoint, rejected Format) Format {
	next := rejected.lower()
	c.mu.Lock()
	defer c.mu.Unlock()
	if known, ok := c.formats[ep.formatKey()]; !ok || next.rank() < known.rank() {
		c.formats[ep.formatKey()] = next
	}
	return next
}

// isFormatRejection reports whether err is a server refusing the response_format parameter.
func isFormatRejection(err error) bool {
	var se *statusError
	if !errors.As(err, &se) || (se.status != http.StatusBadRequest && se.status != http.StatusUnprocessableEntity) {
		return false
	}
	if se.param == "response_format" || strings.HasPrefix(se.param, "response_format.") {
		return true
	}
	if strings.HasPrefix(se.param, "output_config") {
		return true
	}
	m := strings.ToLower(se.message)
	for _, s := range []string{"response_format", "response format", "json_schema", "json_object", "structured output", "json mode",
		"output_config", "output format"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}

// messagesFor returns the messages to send when req is sent with format: when the format is
// less structured than requested, the schema (or a JSON instruction) goes into the system
// message instead.
func messagesFor(req Request, format Format) []Message {
	msgs := cloneMessages(req.Messages)
	requested := requestedFormat(req)
	if format.rank() >= requested.rank() {
		return msgs
	}
	var instruction string
	if requested == formatJSONSchema {
		schema, _ := json.Marshal(req.Schema.Schema)
		instruction = "Reply with only a JSON object that conforms to this JSON schema, with no other text:\n" + string(schema)
	} else {
		instruction = "Reply with only a JSON object, with no other text."
	}
	for i, m := range msgs {
		if m.Role == RoleSystem {
			msgs[i].Content = m.Content + "\n\n" + instruction
			return msgs
		}
	}
	return append([]Message{{Role: RoleSystem, Content: instruction}}, msgs...)
}

// chatKind sends chat completions through openai-go: its request types and its chat
// completions service, with the endpoint's options (requestOptions); to an endpoint whose
// provider speaks Anthropic's native API (native), through anthropic-sdk-go's Messages service
// (messages.go). The reply is read from the raw body (parseChat, parseAnthropic), so that every
// body a server may send, malformed ones included, is reported as it always was.
type chatKind struct {
	c         *Client
	req       Request
	requested Format
	native    bool
	// opts are the endpoint's request options, made for the first round (a reply from the
	// cache needs none).
	opts []option.RequestOption

	// The current round: the response format, the messages (send builds the SDK's request
	// from them: the type is large, and the SDK copies it anyway), whether the temperature
	// is left out (the model refused one: temperature.go), and the number of leading messages
	// marked for the provider's prompt cache and the prompt_cache_key sent ("": none;
	// cacheprefix.go).
	format   Format
	msgs     []Message
	noTemp   bool
	cached   int
	cacheKey string
}

func (k *chatKind) round() (Format, []Message, error) {
	if k.opts == nil && !k.native {
		k.opts = k.c.requestOptions(k.req.Endpoint)
	}
	k.format = k.c.effectiveFormat(k.req.Endpoint, k.requested)
	k.msgs = messagesFor(k.req, k.format)
	k.noTemp = k.c.temperatureRejected(k.req.Endpoint.formatKey())
	k.cached, k.cacheKey = cachedPrefix(k.msgs), ""
	if !k.native && k.cached > 0 && sendsCacheKey(k.req.Endpoint) && !k.c.cacheKeyRejected(k.req.Endpoint.formatKey()) {
		k.cacheKey = promptCacheKey(k.msgs, k.cached)
	}
	return k.format, k.msgs, nil
}

func (k *chatKind) send(ctx context.Context) (*http.Response, error) {
	if k.native {
		return k.sendMessages(ctx)
	}
	var res *http.Response
	opts := append(slices.Clip(k.opts), option.WithResponseBodyInto(&res))
	p := k.chatParams()
	if _, err := k.c.chat.New(ctx, p, opts...); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, &badResponseError{msg: "the server sent no reply"}
	}
	return res, nil
}

// chatParams is the SDK's chat request of the round (a live call sends it, a batch line
// carries it: batch.go).
func (k *chatKind) chatParams() openai.ChatCompletionNewParams {
	p := chatParams(k.req, k.format, k.msgs, k.noTemp)
	if k.cacheKey != "" {
		p.PromptCacheKey = openai.String(k.cacheKey)
	}
	return p
}

func (k *chatKind) decode(body []byte) (*reply, error) {
	parse := parseChat
	if k.native {
		parse = parseAnthropic
	}
	r, err := parse(body)
	if err != nil {
		return nil, err
	}
	if r.Tokens == (TokenUsage{}) {
		r.Tokens = TokenUsage{Input: EstimateInputTokens(k.msgs), Output: EstimateTokens(r.Content)}
	}
	return &reply{Response: *r}, nil
}

// again lowers the response format when the server rejected it, or leaves the temperature out
// when the model refused it (temperature.go), and says so in an event.
func (k *chatKind) again(err error) bool {
	if k.cacheKey != "" && isCacheKeyRejection(err) {
		k.c.rejectCacheKey(k.req.Endpoint.formatKey())
		k.c.emit(Event{Kind: EventFallback, Op: opChat, Label: k.req.Label, Host: k.req.Endpoint.Host(), Model: k.req.Endpoint.Model,
			Format: k.format, Dropped: "prompt_cache_key", Err: err.Error()})
		return true
	}
	if !k.noTemp && temperature(k.req) != nil && isTemperatureRejection(err) {
		k.c.rejectTemperature(k.req.Endpoint.formatKey())
		k.c.emit(Event{Kind: EventFallback, Op: opChat, Label: k.req.Label, Host: k.req.Endpoint.Host(), Model: k.req.Endpoint.Model,
			Format: k.format, Dropped: "temperature", Err: err.Error()})
		return true
	}
	if k.format == formatText || !isFormatRejection(err) {
		return false
	}
	next := k.c.lowerFormat(k.req.Endpoint, k.format)
	k.c.emit(Event{Kind: EventFallback, Op: opChat, Label: k.req.Label, Host: k.req.Endpoint.Host(), Model: k.req.Endpoint.Model,
		Format: next, Err: err.Error()})
	return true
}

// chatParams is the SDK's request for req sent with format and msgs. Extra parameters are set
// at the top level and win over the standard fields of the same name (the caller set them on
// purpose). noTemp leaves the temperature out (a model that refuses one). TestChatBodyOnTheWire
// checks the bodies against those the client has always sent.
func chatParams(req Request, format Format, msgs []Message, noTemp bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: req.Endpoint.Model}
	p.Messages = make([]openai.ChatCompletionMessageParamUnion, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case RoleSystem:
			p.Messages[i] = openai.SystemMessage(m.Content)
		case RoleAssistant:
			p.Messages[i] = openai.AssistantMessage(m.Content)
		default:
			p.Messages[i] = openai.UserMessage(m.Content)
		}
	}
	if t := temperature(req); t != nil && !noTemp {
		p.Temperature = openai.Float(*t)
	}
	if n := maxTokens(req); n > 0 {
		p.MaxTokens = openai.Int(int64(n))
	}
	switch format {
	case formatJSONSchema:
		js := openai.ResponseFormatJSONSchemaJSONSchemaParam{Name: schemaName(req.Schema), Strict: openai.Bool(req.Schema.Strict),
			Schema: req.Schema.Schema}
		if req.Schema.Description != "" {
			js.Description = openai.String(req.Schema.Description)
		}
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &openai.ResponseFormatJSONSchemaParam{JSONSchema: js}}
	case formatJSONObject:
		p.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONObject: &openai.ResponseFormatJSONObjectParam{}}
	}
	if len(req.Extra) > 0 {
		p.SetExtraFields(req.Extra)
	}
	return p
}

// chatWire is the part of a chat completion body the client reads.
type chatWire struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content json.RawMessage `json:"content"`
			Refusal *string         `json:"refusal"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *openAIUsage    `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// openAIUsage is the usage object of OpenAI's chat and completions replies (and of the
// OpenAI-compatible servers that copy it: Azure, Gemini's compatible endpoint): the cached
// part of the prompt is prompt_tokens_details.cached_tokens.
type openAIUsage struct {
	PromptTokens        int64 `json:"prompt_tokens"`
	CompletionTokens    int64 `json:"completion_tokens"`
	PromptTokensDetails *struct {
		CachedTokens int64 `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
}

// tokens is the usage as a TokenUsage.
func (u *openAIUsage) tokens() TokenUsage {
	t := TokenUsage{Input: u.PromptTokens, Output: u.CompletionTokens}
	if u.PromptTokensDetails != nil {
		t.Cached = min(max(u.PromptTokensDetails.CachedTokens, 0), max(t.Input, 0))
	}
	return t
}

// parseChat decodes a chat completion body; an unusable body is a *badResponseError.
func parseChat(body []byte) (*Response, error) {
	var w chatWire
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, &badResponseError{msg: describeBadJSON(body, err)}
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		msg, _ := errorMessage(body)
		return nil, &badResponseError{msg: "the server reported an error in a successful reply: " + msg}
	}
	if len(w.Choices) == 0 {
		return nil, &badResponseError{msg: fmt.Sprintf("the reply has no choices; it began %q", oneLine(string(body), 80))}
	}
	ch := w.Choices[0]
	content, err := messageText(ch.Message.Content)
	if err != nil {
		return nil, &badResponseError{msg: err.Error()}
	}
	r := &Response{Content: content, Model: w.Model, FinishReason: ch.FinishReason}
	if ch.Message.Refusal != nil {
		r.Refusal = *ch.Message.Refusal
	}
	if w.Usage != nil {
		r.Tokens = w.Usage.tokens()
	}
	return r, nil
}

// messageText reads a message content: a string, null, or a list of {"type":"text","text"} parts.
func messageText(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", fmt.Errorf("the reply's message content is neither text nor a list of text parts: it began %q", oneLine(string(raw), 60))
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" || p.Type == "" {
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// redactMessages returns messages with the endpoint's secrets removed from their text (for
// events). It copies only when something changes.
func redactMessages(msgs []Message, secrets []string) []Message {
	out := msgs
	copied := false
	for i, m := range msgs {
		r := m.Content
		for _, s := range secrets {
			if len(s) >= 4 && strings.Contains(r, s) {
				r = strings.ReplaceAll(r, s, redact.Marker)
			}
		}
		if r != m.Content {
			if !copied {
				out = cloneMessages(msgs)
				copied = true
			}
			out[i].Content = r
		}
	}
	return out
}
