package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/llm/internal/anthropic"
)

// API is the request and reply shape of a model endpoint, for Client.Generate.
type API string

// The shapes Generate speaks. APIChat is the default; a Weval custom model chooses another with
// `inherit` and `format`, which APIFor maps to its shape.
const (
	// APIChat is OpenAI's Chat Completions: {model, messages, temperature, max_tokens}.
	APIChat API = "chat"
	// apiCompletions is OpenAI's legacy Completions: {model, prompt, …}, the conversation
	// flattened into one prompt string (see GenerateRequest.PromptFormat).
	apiCompletions API = "completions"
	// apiAnthropic is Anthropic's Messages API: {model, system, messages, max_tokens}, the key
	// in x-api-key and an anthropic-version header.
	apiAnthropic API = "anthropic"
	// apiGemini is Google's generateContent: {contents, systemInstruction, generationConfig},
	// the model in the URL and the key in x-goog-api-key.
	apiGemini API = "gemini"
)

// anthropicVersion is the anthropic-version header sent with apiAnthropic requests unless the
// endpoint's headers set one.
const anthropicVersion = "2023-06-01"

// APIFor returns the shape of a Weval custom model: the native API of the provider its inherit
// names in the provider table (by name or model-id prefix): `inherit: anthropic` speaks
// Anthropic's Messages API and `inherit: google` (or gemini) Gemini's generateContent; every
// other inherit value (openai, openrouter, mistral, together, xai…) the OpenAI shape, whose
// `format: completions` is the Completions API. (An anthropic or google model with format
// completions uses the OpenAI Completions shape too: those providers have no completions API
// of their own.)
func APIFor(inherit, format string) API {
	if format == "completions" {
		return apiCompletions
	}
	name := strings.ToLower(strings.TrimSpace(inherit))
	for _, p := range providerTable() {
		if p.native != "" && (string(p.name) == name || p.idPrefix == name) {
			return p.native
		}
	}
	return APIChat
}

// GenerateRequest is one call for generated text in any of the shapes of API. Unlike Request
// (OpenAI chat through openai-go, with structured output), it builds the JSON body itself, so
// a caller controls every parameter: Parameters are applied last and a nil value removes a
// parameter from the body.
type GenerateRequest struct {
	// Endpoint gives the key, the headers (values treated as secrets), the model name sent,
	// and the concurrency limits. Its BaseURL is the API root unless URL is set.
	Endpoint Endpoint
	// URL is the full URL of the operation (a custom model's `url`); empty means the
	// endpoint's base URL plus the API's path (/chat/completions, /completions, /messages,
	// /models/{model}:generateContent).
	URL string
	// API is the request shape (default APIChat).
	API      API
	Messages []Message
	// Temperature, when set, is sent (temperature, or generationConfig.temperature).
	Temperature *float64
	// MaxTokens, when positive, is sent (max_tokens, or generationConfig.maxOutputTokens).
	MaxTokens int
	// PromptFormat flattens the conversation for apiCompletions: "conversational" (default:
	// "User: …" / "Assistant: …" lines ending with "Assistant:") or "raw" (the texts alone).
	PromptFormat string
	// ReasoningEffort ("low", "medium", "high") is sent as reasoning_effort (OpenAI shapes),
	// or as an Anthropic thinking budget (1024, 4096, 8192 tokens) when ThinkingBudget is 0.
	ReasoningEffort string
	// ThinkingBudget, when positive, is sent as Anthropic's thinking {type: enabled,
	// budget_tokens} or Gemini's generationConfig.thinkingConfig.thinkingBudget.
	ThinkingBudget int
	// ParameterMapping renames the standard parameters temperature, maxTokens,
	// reasoningEffort and thinkingBudget (e.g. {"temperature": "heat"}).
	ParameterMapping map[string]string
	// Parameters are set last, at the top level of the body; a nil value deletes the key.
	Parameters map[string]any
	// NoCache skips the cache for this call (neither read nor written).
	NoCache bool
	// Timeout overrides Config.Timeout for each attempt of this call.
	Timeout time.Duration
	// MaxAttempts overrides Config.MaxAttempts for this call; 0 keeps the client's.
	MaxAttempts int
	// Label says what the call is for, in events.
	Label string
}

// op names the operation in errors and events.
func (a API) op() string {
	switch a {
	case apiCompletions:
		return "completion"
	case apiAnthropic:
		return "messages"
	case apiGemini:
		return "generateContent"
	}
	return opChat
}

// operationURL returns the URL the request goes to.
func (r GenerateRequest) operationURL() string {
	if r.URL != "" {
		return r.URL
	}
	base := strings.TrimRight(r.Endpoint.BaseURL, "/")
	switch r.api() {
	case apiCompletions:
		return base + "/completions"
	case apiAnthropic:
		return base + "/messages"
	case apiGemini:
		return base + "/models/" + url.PathEscape(r.Endpoint.Model) + ":generateContent"
	}
	return base + "/chat/completions"
}

func (r GenerateRequest) api() API {
	if r.API == "" {
		return APIChat
	}
	return r.API
}

// endpoint is the request's endpoint with the operation URL as its base, so that Host and the
// secrets of a URL with credentials are right in errors and events.
func (r GenerateRequest) endpoint() Endpoint {
	ep := r.Endpoint
	if r.URL != "" {
		ep.BaseURL = r.URL
	}
	return ep
}

// param returns the mapped name of a standard parameter.
func (r GenerateRequest) param(standard, def string) string {
	if name := r.ParameterMapping[standard]; name != "" {
		return name
	}
	return def
}

// effortBudget maps a reasoning effort to an Anthropic thinking budget.
func effortBudget(effort string) int {
	switch strings.ToLower(effort) {
	case "low":
		return 1024
	case "medium":
		return 4096
	case "high":
		return 8192
	}
	return 0
}

// generateBody returns the JSON body Generate sends for req (exported so callers can show or
// test exactly what a model receives).
func generateBody(req GenerateRequest) (map[string]any, error) {
	api := req.api()
	body := map[string]any{}
	var system []string
	var turns []Message
	for i, m := range req.Messages {
		switch m.Role {
		case RoleSystem:
			system = append(system, m.Content)
		case RoleUser, RoleAssistant:
			turns = append(turns, m)
		default:
			return nil, fmt.Errorf("message %d: expected role system, user or assistant, found %q", i+1, m.Role)
		}
	}
	switch api {
	case APIChat:
		msgs := make([]map[string]any, 0, len(req.Messages))
		for _, m := range req.Messages {
			msgs = append(msgs, map[string]any{"role": string(m.Role), "content": m.Content})
		}
		body["model"], body["messages"], body["stream"] = req.Endpoint.Model, msgs, false
	case apiCompletions:
		body["model"], body["prompt"], body["stream"] = req.Endpoint.Model, flattenPrompt(req.Messages, req.PromptFormat), false
	case apiAnthropic:
		msgs := make([]map[string]any, 0, len(turns))
		for _, m := range turns {
			msgs = append(msgs, map[string]any{"role": string(m.Role), "content": m.Content})
		}
		body["model"], body["messages"], body["stream"] = req.Endpoint.Model, msgs, false
		if len(system) > 0 {
			body["system"] = strings.Join(system, "\n\n")
		}
	case apiGemini:
		contents := make([]map[string]any, 0, len(turns))
		for _, m := range turns {
			role := "user"
			if m.Role == RoleAssistant {
				role = "model"
			}
			contents = append(contents, map[string]any{"role": role, "parts": []any{map[string]any{"text": m.Content}}})
		}
		body["contents"] = contents
		if len(system) > 0 {
			body["systemInstruction"] = map[string]any{"parts": []any{map[string]any{"text": strings.Join(system, "\n\n")}}}
		}
	default:
		return nil, fmt.Errorf("expected API chat, completions, anthropic or gemini, found %q", api)
	}

	budget := req.ThinkingBudget
	if budget <= 0 {
		budget = effortBudget(req.ReasoningEffort)
	}
	if api == apiGemini {
		gen := map[string]any{}
		if req.Temperature != nil {
			gen[req.param("temperature", "temperature")] = *req.Temperature
		}
		if req.MaxTokens > 0 {
			gen[req.param("maxTokens", "maxOutputTokens")] = req.MaxTokens
		}
		if req.ThinkingBudget > 0 {
			gen[req.param("thinkingBudget", "thinkingConfig")] = map[string]any{"thinkingBudget": req.ThinkingBudget}
		}
		if len(gen) > 0 {
			body["generationConfig"] = gen
		}
	} else {
		if req.Temperature != nil {
			body[req.param("temperature", "temperature")] = *req.Temperature
		}
		if req.MaxTokens > 0 {
			body[req.param("maxTokens", "max_tokens")] = req.MaxTokens
		}
		switch {
		case api == apiAnthropic && budget > 0:
			body[req.param("thinkingBudget", "thinking")] = map[string]any{"type": "enabled", "budget_tokens": budget}
		case api != apiAnthropic && req.ReasoningEffort != "":
			body[req.param("reasoningEffort", "reasoning_effort")] = req.ReasoningEffort
		}
	}
	for k, v := range req.Parameters {
		if v == nil {
			delete(body, k)
		} else {
			body[k] = v
		}
	}
	return body, nil
}

// flattenPrompt turns a conversation into one prompt string for the Completions API.
func flattenPrompt(msgs []Message, format string) string {
	var b strings.Builder
	if format == "raw" {
		for _, m := range msgs {
			if b.Len() > 0 {
				b.WriteString("\n\n")
			}
			b.WriteString(m.Content)
		}
		return strings.TrimSpace(b.String())
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleSystem:
			b.WriteString(m.Content + "\n\n")
		case RoleUser:
			b.WriteString("User: " + m.Content + "\n")
		case RoleAssistant:
			b.WriteString("Assistant: " + m.Content + "\n")
		}
	}
	b.WriteString("Assistant:")
	return b.String()
}

// Generate sends a request in the shape req.API names and returns the generated text. It
// shares everything with Complete: the cache (keyed on the operation URL and the exact body,
// never on keys or header values), retries, concurrency limits, usage and events, and its
// errors are *APIError values with every secret redacted.
func (c *Client) Generate(ctx context.Context, req GenerateRequest) (*Response, error) {
	api := req.api()
	ep := req.endpoint()
	op := api.op()
	bad := func(format string, a ...any) error {
		return &APIError{Op: op, Host: ep.Host(), Model: ep.Model, Kind: KindRequest,
			Message: redact.Text(fmt.Sprintf(format, a...), ep.secrets()...)}
	}
	if err := c.CheckTrust(ep); err != nil {
		return nil, err
	}
	target := req.operationURL()
	if err := checkBaseURL(target); err != nil {
		return nil, bad("expected an http(s) URL, found %q", target)
	}
	if len(req.Messages) == 0 {
		return nil, bad("no messages given")
	}
	if api != apiGemini && req.Endpoint.Model == "" {
		return nil, bad("no model given")
	}
	body, err := generateBody(req)
	if err != nil {
		return nil, bad("%v", err)
	}
	payload, err := json.Marshal(body)
	if err != nil {
		return nil, bad("encoding the request body: %v", err)
	}

	kind := &generateKind{c: c, api: api, target: target, ep: req.Endpoint, payload: payload, msgs: req.Messages,
		body: body, tempKey: req.param("temperature", "temperature"), label: req.Label}
	s := newCallSpec(op, req.Label, ep, c.timeout(req.Timeout), req.MaxAttempts, kind)
	s.cache, s.entryOp, s.messages = c.useCache(req.NoCache), "generate", req.Messages
	if s.cache {
		if s.key, err = hashKey(keyInput{Op: "generate-" + string(api), URL: cacheURL(target), Model: req.Endpoint.Model, Extra: body}); err != nil {
			return nil, bad("%v", err)
		}
	}
	r, err := c.call(ctx, s)
	if err != nil {
		return nil, err
	}
	return &r.Response, nil
}

// generateKind sends a body Generate built (generateBody) with net/http: the shapes are
// Anthropic's and Gemini's native ones, and OpenAI's addressed at a custom model's own URL
// with every parameter up to the blueprint (renamed, removed), which openai-go's typed requests
// do not express.
type generateKind struct {
	c       *Client
	api     API
	target  string
	ep      Endpoint // the request's endpoint: its key and headers
	payload []byte
	msgs    []Message
	// body is the payload's value and tempKey its temperature's name, for leaving the
	// temperature out when the model refuses one (temperature.go); noTemp says it is out.
	body    map[string]any
	tempKey string
	noTemp  bool
	label   string
}

func (k *generateKind) round() (Format, []Message, error) {
	if !k.noTemp && k.c.temperatureRejected(k.temperatureKey()) {
		if body, ok := withoutTemperature(k.api, k.body, k.tempKey); ok {
			payload, err := json.Marshal(body)
			if err != nil {
				return "", nil, err
			}
			k.payload, k.noTemp = payload, true
		}
	}
	return formatText, cloneMessages(k.msgs), nil
}

// temperatureKey identifies the operation URL and model for the memory of models that refuse a
// temperature.
func (k *generateKind) temperatureKey() string {
	return "generate\x00" + k.target + "\x00" + k.ep.Model
}

// withoutTemperature returns a copy of body without its temperature (at the top level, or in
// Gemini's generationConfig), and whether it had one.
func withoutTemperature(api API, body map[string]any, key string) (map[string]any, bool) {
	out := maps.Clone(body)
	if api == apiGemini {
		gen, ok := body["generationConfig"].(map[string]any)
		if !ok {
			return body, false
		}
		if _, ok := gen[key]; !ok {
			return body, false
		}
		gen = maps.Clone(gen)
		delete(gen, key)
		out["generationConfig"] = gen
		return out, true
	}
	if _, ok := body[key]; !ok {
		return body, false
	}
	delete(out, key)
	return out, true
}

func (k *generateKind) send(ctx context.Context) (*http.Response, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, k.target, bytes.NewReader(k.payload))
	if err != nil {
		return nil, err
	}
	setHeaders(hreq.Header, k.api, k.ep, k.c.cfg.UserAgent)
	res, err := k.c.http.Do(hreq)
	if err != nil {
		return nil, err
	}
	if res.StatusCode >= 400 {
		return nil, statusFrom(res)
	}
	return res, nil
}

func (k *generateKind) decode(body []byte) (*reply, error) {
	r, err := parseGenerateReply(k.api, body)
	if err != nil {
		return nil, err
	}
	if r.Tokens == (TokenUsage{}) {
		r.Tokens = TokenUsage{Input: EstimateInputTokens(k.msgs), Output: EstimateTokens(r.Content)}
	}
	return &reply{Response: *r}, nil
}

// again leaves the temperature out when the model refused it (temperature.go), and says so in
// an event.
func (k *generateKind) again(err error) bool {
	if k.noTemp || !isTemperatureRejection(err) {
		return false
	}
	if _, ok := withoutTemperature(k.api, k.body, k.tempKey); !ok {
		return false
	}
	k.c.rejectTemperature(k.temperatureKey())
	k.c.emit(Event{Kind: EventFallback, Op: k.api.op(), Label: k.label, Host: k.ep.Host(), Model: k.ep.Model,
		Format: formatText, Dropped: "temperature", Err: err.Error()})
	return true
}

// cacheURL identifies an operation URL in cache keys: without user info and query (a query may
// carry a key, as Gemini's ?key= does).
func cacheURL(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// setHeaders sets the content type, the User-Agent, the key in the header the API expects
// (Azure OpenAI's api-key for its chat and completions), and the endpoint's own headers (which
// win).
func setHeaders(h http.Header, api API, ep Endpoint, userAgent string) {
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json")
	h.Set("User-Agent", userAgent)
	key := string(ep.APIKey)
	switch {
	case api == apiAnthropic:
		h.Set("anthropic-version", anthropicVersion)
		if key != "" {
			h.Set("x-api-key", key)
		}
	case api == apiGemini:
		if key != "" {
			h.Set("x-goog-api-key", key)
		}
	case wireOf(ep.Provider) == wireAzure:
		if key != "" {
			h.Set("api-key", key)
		}
	default:
		if key != "" {
			h.Set("Authorization", "Bearer "+key)
		}
	}
	for k, v := range ep.Headers {
		h.Set(k, v)
	}
}

// statusFrom reads an error reply into a *statusError.
func statusFrom(res *http.Response) error {
	defer res.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(res.Body, maxErrorBody))
	msg, param := errorMessage(body)
	return &statusError{status: res.StatusCode, header: res.Header.Clone(), message: msg, param: param}
}

// parseGenerateReply reads the generated text of a 2xx reply in the shape of api. An unusable
// body is an error saying what was expected and what was found (Generate retries it, as a
// proxy's or a truncated reply).
func parseGenerateReply(api API, body []byte) (*Response, error) {
	switch api {
	case APIChat, "":
		return parseChat(body)
	case apiCompletions:
		return parseCompletions(body)
	case apiAnthropic:
		return parseAnthropic(body)
	case apiGemini:
		return parseGemini(body)
	}
	return nil, &badResponseError{msg: fmt.Sprintf("unknown API %q", api)}
}

func parseCompletions(body []byte) (*Response, error) {
	var w struct {
		Model   string `json:"model"`
		Choices []struct {
			Text         *string `json:"text"`
			FinishReason string  `json:"finish_reason"`
		} `json:"choices"`
		Usage *openAIUsage    `json:"usage"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, &badResponseError{msg: describeBadJSON(body, err)}
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		msg, _ := errorMessage(body)
		return nil, &badResponseError{msg: "the server reported an error in a successful reply: " + msg}
	}
	if len(w.Choices) == 0 || w.Choices[0].Text == nil {
		return nil, &badResponseError{msg: fmt.Sprintf("expected a completion with choices[0].text, found a reply that began %q", oneLine(string(body), 80))}
	}
	r := &Response{Content: *w.Choices[0].Text, Model: w.Model, FinishReason: w.Choices[0].FinishReason}
	if w.Usage != nil {
		r.Tokens = w.Usage.tokens()
	}
	return r, nil
}

func parseAnthropic(body []byte) (*Response, error) {
	var w struct {
		Type    string `json:"type"`
		Model   string `json:"model"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StopReason string           `json:"stop_reason"`
		Usage      *anthropic.Usage `json:"usage"`
		Error      json.RawMessage  `json:"error"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, &badResponseError{msg: describeBadJSON(body, err)}
	}
	if w.Type == "error" || (len(w.Error) > 0 && string(w.Error) != "null") {
		msg, _ := errorMessage(body)
		return nil, &badResponseError{msg: "the server reported an error in a successful reply: " + msg}
	}
	if w.Content == nil {
		return nil, &badResponseError{msg: fmt.Sprintf("expected a message with a content list, found a reply that began %q", oneLine(string(body), 80))}
	}
	var b strings.Builder
	for _, c := range w.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	r := &Response{Content: b.String(), Model: w.Model, FinishReason: w.StopReason}
	if w.Usage != nil {
		r.Tokens = TokenUsage(w.Usage.Tokens())
	}
	return r, nil
}

func parseGemini(body []byte) (*Response, error) {
	var w struct {
		Candidates []struct {
			Content struct {
				Parts []struct {
					Text    string `json:"text"`
					Thought bool   `json:"thought"`
				} `json:"parts"`
			} `json:"content"`
			FinishReason string `json:"finishReason"`
		} `json:"candidates"`
		PromptFeedback *struct {
			BlockReason string `json:"blockReason"`
		} `json:"promptFeedback"`
		UsageMetadata *struct {
			PromptTokenCount        int64 `json:"promptTokenCount"`
			CandidatesTokenCount    int64 `json:"candidatesTokenCount"`
			CachedContentTokenCount int64 `json:"cachedContentTokenCount"`
		} `json:"usageMetadata"`
		ModelVersion string          `json:"modelVersion"`
		Error        json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, &badResponseError{msg: describeBadJSON(body, err)}
	}
	if len(w.Error) > 0 && string(w.Error) != "null" {
		msg, _ := errorMessage(body)
		return nil, &badResponseError{msg: "the server reported an error in a successful reply: " + msg}
	}
	if len(w.Candidates) == 0 {
		if w.PromptFeedback != nil && w.PromptFeedback.BlockReason != "" {
			return nil, &badResponseError{msg: "the prompt was blocked: " + oneLine(w.PromptFeedback.BlockReason, 80)}
		}
		return nil, &badResponseError{msg: fmt.Sprintf("expected candidates, found a reply that began %q", oneLine(string(body), 80))}
	}
	var b strings.Builder
	for _, p := range w.Candidates[0].Content.Parts {
		if !p.Thought {
			b.WriteString(p.Text)
		}
	}
	r := &Response{Content: b.String(), Model: w.ModelVersion, FinishReason: w.Candidates[0].FinishReason}
	if w.UsageMetadata != nil {
		u := w.UsageMetadata
		r.Tokens = TokenUsage{Input: u.PromptTokenCount, Output: u.CandidatesTokenCount,
			Cached: min(max(u.CachedContentTokenCount, 0), max(u.PromptTokenCount, 0))}
	}
	return r, nil
}
