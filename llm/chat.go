package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"
)

const opChat = "chat completion"

// Complete sends a chat completion request and returns the reply. A reply in the cache is
// returned without a request. Failures are *APIError values: retryable ones (408, 409, 429,
// 5xx, timeouts, connection errors, unusable 2xx bodies) after Config.MaxAttempts attempts,
// others (400, 401, 403, 404…) at once.
func (c *Client) Complete(ctx context.Context, req Request) (*Response, error) {
	key, err := c.chatKey(req)
	if err != nil {
		return nil, err
	}
	resp, err := c.chatOnce(ctx, req, key)
	if err != nil {
		return nil, err
	}
	if !resp.Cached {
		c.store(req, key, resp)
	}
	return resp, nil
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
	key, err := c.chatKey(req)
	if err != nil {
		return nil, err
	}
	first, err := c.chatOnce(ctx, req, key)
	if err != nil {
		return nil, err
	}
	checkErr := check(first.Content)
	if checkErr == nil {
		if !first.Cached {
			c.store(req, key, first)
		}
		return first, nil
	}
	secrets := req.Endpoint.secrets()
	c.emit(Event{Kind: EventRejected, Op: opChat, Label: req.Label, Host: req.Endpoint.Host(), Model: req.Endpoint.Model,
		Err: Redact(checkErr.Error(), secrets...)})

	retry := req
	retry.Messages = append(cloneMessages(req.Messages),
		Message{Role: RoleAssistant, Content: first.Content},
		Message{Role: RoleUser, Content: RetryPrompt(checkErr)})
	retryKey, err := c.chatKey(retry)
	if err != nil {
		return nil, err
	}
	second, err := c.chatOnce(ctx, retry, retryKey)
	if err != nil {
		return nil, err
	}
	second.Attempts += first.Attempts
	if err := check(second.Content); err != nil {
		c.emit(Event{Kind: EventFailure, Op: opChat, Label: req.Label, Host: req.Endpoint.Host(), Model: req.Endpoint.Model,
			Err: Redact(err.Error(), secrets...)})
		return second, &ReplyError{Host: req.Endpoint.Host(), Model: req.Endpoint.Model,
			Err: redactErr(err, secrets), Reply: Redact(oneLine(second.Content, 120), secrets...)}
	}
	if !second.Cached {
		c.store(retry, retryKey, second)
	}
	c.store(req, key, second)
	return second, nil
}

// RetryPrompt is the user message that quotes a rejected reply's problem back to the model.
func RetryPrompt(problem error) string {
	return "Your previous reply could not be used: " + problem.Error() +
		"\nReply again with the complete answer, in exactly the required format and nothing else."
}

// CompleteJSON is CompleteChecked for JSON replies: the JSON is extracted from the reply
// (ExtractJSON: bare, in a ```json fence, or embedded in prose) and passed to validate, which
// may be nil. Response.JSON holds the extracted JSON. A reply without JSON, or one validate
// rejects, is retried once with the error quoted to the model.
func (c *Client) CompleteJSON(ctx context.Context, req Request, validate func(jsonText string) error) (*Response, error) {
	resp, err := c.CompleteChecked(ctx, req, func(content string) error {
		js, err := ExtractJSON(content)
		if err != nil {
			return err
		}
		if validate != nil {
			return validate(js)
		}
		return nil
	})
	if resp != nil && err == nil {
		resp.JSON, _ = ExtractJSON(resp.Content)
	}
	return resp, err
}

// DecodeJSON sends req with CompleteJSON and decodes the reply's JSON into a T; validate (may
// be nil) checks the decoded value. A reply that does not decode or validate is retried once
// with the error quoted to the model.
func DecodeJSON[T any](ctx context.Context, c *Client, req Request, validate func(*T) error) (*T, *Response, error) {
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
		return FormatJSONSchema
	case req.JSONMode:
		return FormatJSONObject
	}
	return FormatText
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
		return bad("expected an http(s) base URL, found %q", Redact(ep.BaseURL, ep.secrets()...))
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

// chatKey is the cache key of req ("" when the cache is off for it).
func (c *Client) chatKey(req Request) (string, error) {
	if err := c.CheckTrust(req.Endpoint); err != nil {
		return "", err
	}
	if err := checkRequest(req); err != nil {
		return "", err
	}
	schema, err := schemaJSON(req.Schema)
	if err != nil {
		return "", err
	}
	if c.cache == nil || c.cfg.NoCache || req.NoCache {
		return "", nil
	}
	format := requestedFormat(req)
	k := keyInput{Op: "chat", URL: req.Endpoint.operationURL("chat/completions"), Model: req.Endpoint.Model,
		Temperature: temperature(req), Messages: req.Messages, Schema: schema, MaxTokens: maxTokens(req), Extra: req.Extra}
	if format != FormatText {
		k.Format = string(format)
	}
	key, err := hashKey(k)
	if err != nil {
		return "", &APIError{Op: opChat, Host: req.Endpoint.Host(), Model: req.Endpoint.Model, Kind: KindRequest, Message: err.Error()}
	}
	return key, nil
}

// chatOnce answers req from the cache (key non-empty) or from the server. It does not store.
func (c *Client) chatOnce(ctx context.Context, req Request, key string) (*Response, error) {
	ep := req.Endpoint
	if key != "" {
		entry, err := c.cache.get(key, "chat")
		if err != nil {
			c.emit(Event{Kind: EventCacheError, Op: opChat, Label: req.Label, Host: ep.Host(), Model: ep.Model, Err: err.Error()})
		}
		if entry != nil {
			c.usage.add(ep.Model, entry.Usage, true, c.prices(ep))
			msgs := cloneMessages(req.Messages)
			c.emit(Event{Kind: EventCacheHit, Op: opChat, Label: req.Label, Host: ep.Host(), Model: ep.Model,
				Format: Format(entry.Format), Messages: redactMessages(msgs, ep.secrets())})
			return &Response{Content: entry.Content, Model: entry.Model, FinishReason: entry.FinishReason,
				Tokens: entry.Usage, Cached: true, Format: Format(entry.Format), Messages: msgs}, nil
		}
	}
	return c.callChat(ctx, req)
}

// store writes resp to the cache under key (no-op when key is empty).
func (c *Client) store(req Request, key string, resp *Response) {
	if key == "" {
		return
	}
	err := c.cache.put(key, &cacheEntry{Op: "chat", Model: resp.Model, Content: resp.Content,
		FinishReason: resp.FinishReason, Format: string(resp.Format), Usage: resp.Tokens})
	if err != nil {
		c.emit(Event{Kind: EventCacheError, Op: opChat, Label: req.Label, Host: req.Endpoint.Host(), Model: req.Endpoint.Model,
			Err: Redact(err.Error(), req.Endpoint.secrets()...)})
	}
}

func (c *Client) prices(ep Endpoint) *Prices {
	if ep.Prices != nil {
		return ep.Prices
	}
	return c.cfg.Prices
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
	m := strings.ToLower(se.message)
	for _, s := range []string{"response_format", "response format", "json_schema", "json_object", "structured output", "json mode"} {
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
	if requested == FormatJSONSchema {
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

// chatBody is the JSON body of a chat completion request, in the OpenAI wire format.
type chatBody struct {
	Model          string          `json:"model"`
	Messages       []chatMessage   `json:"messages"`
	Temperature    *float64        `json:"temperature,omitempty"`
	MaxTokens      int             `json:"max_tokens,omitempty"`
	ResponseFormat *responseFormat `json:"response_format,omitempty"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responseFormat struct {
	Type       string          `json:"type"`
	JSONSchema *jsonSchemaSpec `json:"json_schema,omitempty"`
}

type jsonSchemaSpec struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Strict      bool   `json:"strict"`
	Schema      any    `json:"schema"`
}

// chatRequestBody encodes the request body for req sent with format. Extra parameters are
// added at the top level and win over the standard fields of the same name (the caller set
// them on purpose). TestChatBodyMatchesSDK checks the encoding against openai-go's.
func chatRequestBody(req Request, format Format, msgs []Message) ([]byte, error) {
	b := chatBody{Model: req.Endpoint.Model, Temperature: temperature(req), MaxTokens: maxTokens(req)}
	b.Messages = make([]chatMessage, len(msgs))
	for i, m := range msgs {
		role := m.Role
		if role != RoleSystem && role != RoleAssistant {
			role = RoleUser
		}
		b.Messages[i] = chatMessage{Role: string(role), Content: m.Content}
	}
	switch format {
	case FormatJSONSchema:
		b.ResponseFormat = &responseFormat{Type: "json_schema", JSONSchema: &jsonSchemaSpec{
			Name: schemaName(req.Schema), Description: req.Schema.Description, Strict: req.Schema.Strict, Schema: req.Schema.Schema}}
	case FormatJSONObject:
		b.ResponseFormat = &responseFormat{Type: "json_object"}
	}
	return withExtra(b, req.Extra)
}

// withExtra encodes v, a struct, with the extra top-level fields merged in.
func withExtra(v any, extra map[string]any) ([]byte, error) {
	data, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return data, err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return nil, err
	}
	for k, x := range extra {
		raw, err := json.Marshal(x)
		if err != nil {
			return nil, fmt.Errorf("extra parameter %q: %w", k, err)
		}
		fields[k] = raw
	}
	return json.Marshal(fields)
}

// callChat sends req to the server, with retries and the response-format fallback.
func (c *Client) callChat(ctx context.Context, req Request) (*Response, error) {
	ep := req.Endpoint
	secrets := ep.secrets()
	timeout := c.cfg.Timeout
	if req.Timeout > 0 {
		timeout = req.Timeout
	}
	info := callInfo{op: opChat, label: req.Label, ep: ep, timeout: timeout, maxAttempts: req.MaxAttempts, secrets: secrets}
	requested := requestedFormat(req)
	totalAttempts := 0
	for {
		format := c.effectiveFormat(ep, requested)
		msgs := messagesFor(req, format)
		body, err := chatRequestBody(req, format, msgs)
		if err != nil {
			return nil, &APIError{Op: opChat, Host: ep.Host(), Model: ep.Model, Kind: KindRequest, Message: Redact(err.Error(), secrets...)}
		}
		var resp *Response
		attempts, err := c.withRetries(ctx, info, func(actx context.Context, attempt int) error {
			c.emit(Event{Kind: EventRequest, Op: opChat, Label: req.Label, Host: ep.Host(), Model: ep.Model,
				Attempt: attempt, Format: format, Messages: redactMessages(msgs, secrets)})
			start := time.Now()
			res, err := c.post(actx, ep, "chat/completions", body)
			if err != nil {
				return err
			}
			reply, err := readBody(res)
			if err != nil {
				return err
			}
			r, err := parseChat(reply)
			if err != nil {
				return err
			}
			if r.Tokens == (TokenUsage{}) {
				r.Tokens = TokenUsage{Input: EstimateInputTokens(msgs), Output: EstimateTokens(r.Content)}
			}
			c.emit(Event{Kind: EventResponse, Op: opChat, Label: req.Label, Host: ep.Host(), Model: ep.Model,
				Attempt: attempt, Status: res.StatusCode, Duration: time.Since(start), Tokens: r.Tokens, Format: format})
			resp = r
			return nil
		})
		totalAttempts += attempts
		if err != nil {
			if format != FormatText && isFormatRejection(err) {
				next := c.lowerFormat(ep, format)
				c.emit(Event{Kind: EventFallback, Op: opChat, Label: req.Label, Host: ep.Host(), Model: ep.Model,
					Format: next, Err: err.Error()})
				continue
			}
			if totalAttempts > 0 || !errors.Is(err, ErrStopped) { // a call stopped before any request is no event
				c.emit(Event{Kind: EventFailure, Op: opChat, Label: req.Label, Host: ep.Host(), Model: ep.Model, Err: err.Error()})
			}
			return nil, err
		}
		c.usage.add(ep.Model, resp.Tokens, false, c.prices(ep))
		resp.Format = format
		resp.Attempts = totalAttempts
		resp.Messages = msgs
		return resp, nil
	}
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
	Usage *struct {
		PromptTokens     int64 `json:"prompt_tokens"`
		CompletionTokens int64 `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
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
		r.Tokens = TokenUsage{Input: w.Usage.PromptTokens, Output: w.Usage.CompletionTokens}
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
				r = strings.ReplaceAll(r, s, redacted)
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
