package llmtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"log"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

// Message is a chat message as the server received it.
type Message struct {
	Role    string
	Content string
}

// Request is one request as the server received it.
type Request struct {
	Method string
	Path   string
	// Query is the raw query string (Azure's api-version).
	Query  string
	Header http.Header
	Body   []byte
	Time   time.Time
	// Model, Messages, Temperature, MaxTokens and ResponseFormat are parsed from a chat
	// completion body; Input from an embeddings body.
	Model       string
	Messages    []Message
	Temperature *float64
	MaxTokens   *int64
	// ResponseFormat is the response_format object as sent (nil when absent).
	ResponseFormat json.RawMessage
	Input          []string
	// Params holds every top-level body field, raw.
	Params map[string]json.RawMessage
	// API is the request's shape: "chat", "embeddings", "completions" (OpenAI's legacy
	// /completions), "anthropic" (/messages) or "gemini" (…:generateContent). Messages,
	// Temperature and MaxTokens are read from every shape (an Anthropic system field or a
	// Gemini systemInstruction becomes a leading system message, Gemini's "model" role
	// "assistant"), so the matchers work alike.
	API string
	// Prompt is the prompt string of a completions request (also given as one user message).
	Prompt string
	// CacheBreakpoints are the indexes in Messages of the messages of an Anthropic request
	// with a content block marked cache_control {"type": "ephemeral"} (the system blocks are
	// message 0); PromptCacheKey is a chat request's prompt_cache_key ("" when absent).
	CacheBreakpoints []int
	PromptCacheKey   string
	// Batch and CustomID are set for a line of a batch (batch.go): the provider batch's id and
	// the line's custom_id. Method and Path are then the line's method and url (OpenAI) or
	// POST /v1/messages (Anthropic), Body its body (params).
	Batch, CustomID string
}

// IsEmbeddings reports whether the request was for /embeddings.
func (r *Request) IsEmbeddings() bool { return strings.HasSuffix(r.Path, "/embeddings") }

// ResponseFormatType is response_format.type ("json_schema", "json_object", "text") or "".
func (r *Request) ResponseFormatType() string {
	var rf struct {
		Type string `json:"type"`
	}
	if len(r.ResponseFormat) == 0 || json.Unmarshal(r.ResponseFormat, &rf) != nil {
		return ""
	}
	return rf.Type
}

// System returns the system messages' text, joined by blank lines.
func (r *Request) System() string {
	var parts []string
	for _, m := range r.Messages {
		if m.Role == "system" || m.Role == "developer" {
			parts = append(parts, m.Content)
		}
	}
	return strings.Join(parts, "\n\n")
}

// LastUser returns the last user message's text.
func (r *Request) LastUser() string {
	for i := len(r.Messages) - 1; i >= 0; i-- {
		if r.Messages[i].Role == "user" {
			return r.Messages[i].Content
		}
	}
	return ""
}

// Option configures a Server.
type Option func(*Server)

// WithLatency delays every reply by d (for benchmarks: the "L" of spec/quality.md).
func WithLatency(d time.Duration) Option { return func(s *Server) { s.latency = d } }

// WithDefault sets the reply to chat requests no rule matches (default: Text("ok")).
func WithDefault(r Reply) Option { return func(s *Server) { s.def = r } }

// RejectJSONSchema makes the server answer a response_format of type json_schema with a 400,
// as servers without structured outputs do.
func RejectJSONSchema() Option { return func(s *Server) { s.rejectSchema = true } }

// RejectJSONMode makes the server answer a response_format of type json_object with a 400.
func RejectJSONMode() Option { return func(s *Server) { s.rejectJSONMode = true } }

// RequireAPIKey makes the server answer 401 unless the request carries the key as a bearer
// token or an api-key header.
func RequireAPIKey(key string) Option { return func(s *Server) { s.apiKey = key } }

// WithTLS serves HTTPS with httptest's own certificate, which no client trusts unless told
// to: the URL starts with https://, and a client without that certificate in its pool fails
// the TLS handshake (for tests of TLS failures).
func WithTLS() Option { return func(s *Server) { s.tls = true } }

// WithEmbedder replaces the embedding function (default: a normalised hashed bag of words of
// 64 dimensions, so texts sharing words have a higher cosine similarity).
func WithEmbedder(f func(text string) []float64) Option { return func(s *Server) { s.embed = f } }

// WithGate holds every chat request until n requests have been in flight at once, then
// answers them (each after its latency). A test of a pool's concurrency asserts it without a
// timer: with fewer than n requests ever in flight together, none is answered (the client's
// time limit fails the test instead of a busy machine passing or failing it by chance).
func WithGate(n int) Option {
	return func(s *Server) { s.gateN, s.gate = n, make(chan struct{}) }
}

// Server is a fake OpenAI-compatible server on a local port: real HTTP, scripted replies,
// injected faults and a log of every request. It is safe for concurrent use.
type Server struct {
	// URL is the API base URL, ending in /v1 (e.g. "http://127.0.0.1:41234/v1").
	URL string

	srv            *httptest.Server
	done           chan struct{}
	closeOnce      sync.Once
	latency        time.Duration
	rejectSchema   bool
	rejectJSONMode bool
	apiKey         string
	embed          func(string) []float64
	tls            bool
	// gate is closed once gateN requests have been in flight together (WithGate).
	gateN int
	gate  chan struct{}

	mu          sync.Mutex
	prompts     promptCache
	def         Reply
	rules       []*Rule
	log         []Request
	chatCalls   int
	embedCalls  int
	inFlight    int
	maxInFlight int
	gateOpen    bool
	// batches holds the batch API's files and batches (batch.go).
	batches batchStore
	// holdBatches keeps every batch running (HoldBatches).
	holdBatches bool
}

// NewServer starts a server. Close it when done.
func NewServer(opts ...Option) *Server {
	s := &Server{done: make(chan struct{}), def: Text("ok"), embed: HashEmbedding}
	for _, o := range opts {
		o(s)
	}
	if s.tls {
		s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
		// Failed handshakes are what the option is for: keep them out of the test log.
		s.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
		s.srv.StartTLS()
	} else {
		s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	}
	s.URL = s.srv.URL + "/v1"
	return s
}

// Start starts a server closed at the end of the test.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s := NewServer(opts...)
	t.Cleanup(s.Close)
	return s
}

// ClosedURL returns an API base URL ("http://127.0.0.1:PORT/v1") at which nothing listens: a
// port that was just bound and released, so connecting to it is refused.
func ClosedURL(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return "http://" + addr + "/v1"
}

// Close releases hanging requests and stops the server.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.done)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// On adds a rule: requests the matcher selects get the replies in turn (the last one
// repeats). Rules are tried in the order they were added. An embeddings request a rule
// selects gets the reply's status, fault or body when it has one, else normal embeddings.
func (s *Server) On(m Matcher, replies ...Reply) *Rule {
	if len(replies) == 0 {
		replies = []Reply{Text("ok")}
	}
	r := &Rule{mu: &s.mu, match: m, replies: replies}
	s.mu.Lock()
	s.rules = append(s.rules, r)
	s.mu.Unlock()
	return r
}

// SetDefault replaces the reply to chat requests no rule matches.
func (s *Server) SetDefault(r Reply) {
	s.mu.Lock()
	s.def = r
	s.mu.Unlock()
}

// Requests returns a copy of the request log, in arrival order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.log...)
}

// Calls is the number of generation requests received: chat completions, completions,
// Anthropic messages and Gemini generateContent (everything but embeddings).
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chatCalls
}

// EmbeddingCalls is the number of embeddings requests received.
func (s *Server) EmbeddingCalls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.embedCalls
}

// MaxInFlight is the largest number of requests the server was handling at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// Reset clears the request log and counters; rules and their positions in their reply
// sequences are kept.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log, s.chatCalls, s.embedCalls, s.maxInFlight = nil, 0, 0, s.inFlight
	s.prompts = promptCache{}
}

func (s *Server) handle(w http.ResponseWriter, hr *http.Request) {
	body, err := io.ReadAll(hr.Body)
	if err != nil {
		writeError(w, http.StatusBadRequest, "cannot read the request body: "+err.Error(), "")
		return
	}
	req := Request{Method: hr.Method, Path: hr.URL.Path, Query: hr.URL.RawQuery, Header: hr.Header.Clone(), Body: body, Time: time.Now()}
	path := strings.TrimSuffix(hr.URL.Path, "/")
	if s.handleBatch(w, hr, path, body) {
		return
	}
	kind := apiOf(path)
	if kind == "" {
		writeError(w, http.StatusNotFound, "unknown path "+hr.URL.Path, "")
		return
	}
	req.API = kind
	if hr.Method != http.MethodPost {
		writeError(w, http.StatusMethodNotAllowed, "expected POST, found "+hr.Method, "")
		return
	}
	if err := parseBody(&req); err != nil {
		s.record(req, kind)
		defer s.done1()
		writeError(w, http.StatusBadRequest, "invalid request body: "+err.Error(), "")
		return
	}
	if req.Model == "" && strings.HasPrefix(path, "/openai/deployments/") {
		req.Model = strings.Split(strings.TrimPrefix(path, "/openai/deployments/"), "/")[0]
	}
	if kind == "gemini" {
		req.Model = geminiModel(path)
	}
	s.record(req, kind)
	defer s.done1()

	if !s.authorized(hr) {
		writeError(w, http.StatusUnauthorized, "Incorrect API key provided.", "")
		return
	}
	switch req.ResponseFormatType() {
	case "json_schema":
		if s.rejectSchema {
			writeError(w, http.StatusBadRequest,
				"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.", "response_format")
			return
		}
	case "json_object":
		if s.rejectJSONMode {
			writeError(w, http.StatusBadRequest,
				"Invalid parameter: 'response_format' of type 'json_object' is not supported with this model.", "response_format")
			return
		}
	}
	if s.gate != nil {
		select {
		case <-s.gate:
		case <-hr.Context().Done():
			return
		case <-s.done:
			return
		}
	}
	reply, latency := s.choose(&req)
	for reply.Func != nil {
		reply = reply.Func(&req)
	}
	if !s.sleep(hr, s.latency+latency+reply.Latency) {
		return
	}
	s.answer(w, hr, &req, reply)
}

// record logs a request and counts it in flight.
func (s *Server) record(req Request, kind string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, req)
	if kind == "embeddings" {
		s.embedCalls++
	} else {
		s.chatCalls++
	}
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	if s.gate != nil && !s.gateOpen && s.inFlight >= s.gateN {
		s.gateOpen = true
		close(s.gate)
	}
}

// authorized reports whether hr carries the key the server requires (RequireAPIKey), in any
// of the providers' headers.
func (s *Server) authorized(hr *http.Request) bool {
	return s.apiKey == "" || hr.Header.Get("Authorization") == "Bearer "+s.apiKey || hr.Header.Get("api-key") == s.apiKey ||
		hr.Header.Get("x-api-key") == s.apiKey || hr.Header.Get("x-goog-api-key") == s.apiKey
}

func (s *Server) done1() {
	s.mu.Lock()
	s.inFlight--
	s.mu.Unlock()
}

// choose picks the reply of the first matching rule, or the default. Embeddings requests
// only follow rules (for their statuses and faults); their default is a normal answer.
func (s *Server) choose(req *Request) (Reply, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range s.rules {
		if r.match(req) {
			i := min(r.hits, len(r.replies)-1)
			r.hits++
			return r.replies[i], r.latency
		}
	}
	if req.IsEmbeddings() {
		return Reply{}, 0
	}
	return s.def, 0
}

// sleep waits d, or until the client goes away or the server closes; false means stop.
func (s *Server) sleep(hr *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-hr.Context().Done():
	case <-s.done:
	}
	return false
}

// answer writes the reply: an error status, a fault, a raw body, or a normal chat completion
// or embeddings body.
func (s *Server) answer(w http.ResponseWriter, hr *http.Request, req *Request, reply Reply) {
	for k, v := range reply.Header {
		w.Header().Set(k, v)
	}
	if reply.Status != 0 && reply.Status != http.StatusOK {
		if reply.Body == "" {
			writeError(w, reply.Status, http.StatusText(reply.Status), "")
			return
		}
		writeRaw(w, reply.Status, reply.Body, reply.ContentType)
		return
	}
	switch reply.Fault {
	case FaultHang:
		select {
		case <-hr.Context().Done():
		case <-s.done:
		}
		return
	case FaultCloseConnection:
		hijackAndClose(w, nil)
		return
	case FaultMalformedJSON:
		writeRaw(w, http.StatusOK, `{"id":"chatcmpl-malformed","choices":[{"index":0,"message":{"role":"assistant","content":"x"}},]`, "")
		return
	}
	if reply.Body != "" {
		writeRaw(w, http.StatusOK, reply.Body, reply.ContentType)
		return
	}
	var body []byte
	switch req.API {
	case "embeddings":
		body = s.embeddingsBody(req)
	case "completions":
		body = textCompletionBody(req, reply, s.nextID())
	case "anthropic":
		body = anthropicBody(req, reply, s.nextID(), s.cacheUsage(req))
	case "gemini":
		body = geminiBody(req, reply)
	default:
		body = completionBody(req, reply, s.nextID(), s.cacheUsage(req))
	}
	switch reply.Fault {
	case FaultTruncatedJSON:
		writeRaw(w, http.StatusOK, string(body[:len(body)/2]), "")
	case FaultCloseMidResponse:
		head := fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		hijackAndClose(w, append([]byte(head), body[:len(body)/2]...))
	default:
		writeRaw(w, http.StatusOK, string(body), "")
	}
}

func (s *Server) nextID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.chatCalls
}

// completionBody is an OpenAI chat completion with realistic usage.
func completionBody(req *Request, reply Reply, id int, cache Usage) []byte {
	usage := Usage{PromptTokens: promptTokens(req.Messages), CompletionTokens: EstimateTokens(reply.Content), CachedTokens: cache.CachedTokens}
	if reply.Usage != nil {
		usage = *reply.Usage
	}
	u := map[string]any{"prompt_tokens": usage.PromptTokens, "completion_tokens": usage.CompletionTokens,
		"total_tokens": usage.PromptTokens + usage.CompletionTokens}
	if usage.CachedTokens > 0 {
		u["prompt_tokens_details"] = map[string]any{"cached_tokens": usage.CachedTokens}
	}
	finish := reply.FinishReason
	if finish == "" {
		finish = "stop"
	}
	b, _ := json.Marshal(map[string]any{
		"id": fmt.Sprintf("chatcmpl-%d", id), "object": "chat.completion", "created": 1700000000, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": finish,
			"message": map[string]any{"role": "assistant", "content": reply.Content}}},
		"usage": u,
	})
	return b
}

// embeddingsBody is an OpenAI embeddings list, one vector per input.
func (s *Server) embeddingsBody(req *Request) []byte {
	data := make([]any, len(req.Input))
	var tokens int64
	for i, text := range req.Input {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": s.embed(text)}
		tokens += EstimateTokens(text)
	}
	b, _ := json.Marshal(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
	return b
}

// EstimateTokens is the server's token count of a text: one token per four characters,
// rounded up (the same rule as llm.EstimateTokens).
func EstimateTokens(text string) int64 { return int64(utf8.RuneCountInString(text)+3) / 4 }

// promptTokens counts a prompt as its messages' tokens plus four per message (the same rule as
// llm.EstimateInputTokens).
func promptTokens(msgs []Message) int64 {
	var n int64
	for _, m := range msgs {
		n += EstimateTokens(m.Content) + 4
	}
	return n
}

// HashEmbedding is the default embedding: words (lower-cased runs of letters and digits)
// hashed into 64 dimensions, L2-normalised. Identical texts get identical vectors and texts
// sharing words similar ones; a text without words gets the unit vector of dimension 0.
func HashEmbedding(text string) []float64 {
	const dims = 64
	v := make([]float64, dims)
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for _, w := range words {
		h := fnv.New32a()
		h.Write([]byte(w))
		v[h.Sum32()%dims]++
	}
	var norm float64
	for _, x := range v {
		norm += x * x
	}
	if norm == 0 {
		v[0] = 1
		return v
	}
	norm = math.Sqrt(norm)
	for i := range v {
		v[i] /= norm
	}
	return v
}

// parseBody fills the parsed fields of req from its JSON body.
func parseBody(req *Request) error {
	if err := json.Unmarshal(req.Body, &req.Params); err != nil {
		return err
	}
	switch req.API {
	case "anthropic":
		return parseAnthropic(req)
	case "gemini":
		return parseGemini(req)
	case "completions":
		if err := parsePrompt(req); err != nil {
			return err
		}
	}
	p := req.Params
	if raw, ok := p["model"]; ok {
		if err := json.Unmarshal(raw, &req.Model); err != nil {
			return fmt.Errorf("model: %w", err)
		}
	}
	if raw, ok := p["messages"]; ok {
		var msgs []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(raw, &msgs); err != nil {
			return fmt.Errorf("messages: %w", err)
		}
		for _, m := range msgs {
			req.Messages = append(req.Messages, Message{Role: m.Role, Content: contentText(m.Content)})
		}
	}
	if raw, ok := p["temperature"]; ok {
		var t float64
		if err := json.Unmarshal(raw, &t); err != nil {
			return fmt.Errorf("temperature: %w", err)
		}
		req.Temperature = &t
	}
	if raw, ok := p["max_tokens"]; ok {
		var n int64
		if err := json.Unmarshal(raw, &n); err != nil {
			return fmt.Errorf("max_tokens: %w", err)
		}
		req.MaxTokens = &n
	}
	if raw, ok := p["response_format"]; ok {
		req.ResponseFormat = raw
	}
	if raw, ok := p["prompt_cache_key"]; ok {
		if err := json.Unmarshal(raw, &req.PromptCacheKey); err != nil {
			return fmt.Errorf("prompt_cache_key: %w", err)
		}
	}
	if raw, ok := p["input"]; ok {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			req.Input = []string{one}
		} else if err := json.Unmarshal(raw, &req.Input); err != nil {
			return fmt.Errorf("input: %w", err)
		}
	}
	return nil
}

// contentText reads a message content: a string or a list of text parts.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) == nil {
		var b strings.Builder
		for _, p := range parts {
			b.WriteString(p.Text)
		}
		return b.String()
	}
	return string(raw)
}

// writeError writes an OpenAI-style error object.
func writeError(w http.ResponseWriter, status int, msg, param string) {
	var p any
	if param != "" {
		p = param
	}
	b, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": msg, "type": "invalid_request_error", "param": p, "code": nil}})
	writeRaw(w, status, string(b), "")
}

func writeRaw(w http.ResponseWriter, status int, body, contentType string) {
	if contentType == "" {
		contentType = "application/json"
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(status)
	_, _ = io.Copy(w, bytes.NewReader([]byte(body)))
}

// hijackAndClose takes over the connection, writes raw bytes (may be nil) and closes it.
func hijackAndClose(w http.ResponseWriter, raw []byte) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic("llmtest: the response writer cannot be hijacked")
	}
	conn, buf, err := hj.Hijack()
	if err != nil {
		return
	}
	if raw != nil {
		_, _ = buf.Write(raw)
		_ = buf.Flush()
	}
	_ = conn.Close()
}
