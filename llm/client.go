package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"
)

// Defaults of Config's zero fields (spec/linter.md §6).
const (
	DefaultConcurrency   = 8
	DefaultTimeout       = 120 * time.Second
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 1 * time.Second
	DefaultMaxDelay      = 30 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// Config configures a Client. Zero fields take the defaults above, so Config{} is usable
// (without a cache).
type Config struct {
	// Concurrency is the most requests in flight at once across every call of the client
	// (vectorlint.ini's Concurrency; default 8).
	Concurrency int
	// Timeout bounds each attempt, reply body included (default 120 s).
	Timeout time.Duration
	// MaxAttempts is the attempts per call, the first included (default 4).
	MaxAttempts int
	// BaseDelay and MaxDelay shape the exponential backoff between attempts: the n-th wait is
	// drawn from [d/2, d] with d = min(MaxDelay, BaseDelay·2^(n−1)) (defaults 1 s and 30 s).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter is the longest Retry-After the client waits for; a server asking for
	// more fails the call at once instead of stalling the run (default 60 s).
	MaxRetryAfter time.Duration
	// CacheDir holds cached replies; empty disables the cache. The command passes
	// os.UserCacheDir()/vectorlint or --cache-dir.
	CacheDir string
	// NoCache neither reads nor writes the cache (--no-cache).
	NoCache bool
	// CacheMaxSize caps the cache in bytes: past it, least recently used entries are removed
	// (default DefaultCacheMaxSize, 1 GB; NoCacheLimit for none).
	CacheMaxSize int64
	// Prices, when set, make Usage report a cost (see ResolvePrices).
	Prices *Prices
	// HTTPClient replaces the client's own HTTP client (its Timeout should be 0: attempts are
	// bounded by Timeout through their context).
	HTTPClient *http.Client
	// Proxy selects the proxy of the client's own HTTP transport; nil means none. The command
	// passes http.ProxyFromEnvironment (this package never reads the environment).
	Proxy func(*http.Request) (*url.URL, error)
	// OnEvent receives request/response metadata (--verbose, --show-prompt). It is called from
	// the goroutines making calls, so it must be safe for concurrent use, and it should be fast.
	OnEvent func(Event)
	// UserAgent is the User-Agent header of every request (default "vectorlint"; the command
	// passes "vectorlint/<version>").
	UserAgent string
	// Rand returns uniform numbers in [0, 1) for backoff jitter; nil uses math/rand/v2.
	Rand func() float64
}

// Client calls OpenAI-compatible Chat Completions and Embeddings endpoints with retries, a
// global concurrency limit, optional per-endpoint limits, a content-addressed cache and usage
// accounting. It is safe for concurrent use; one client serves a whole run and any number of
// endpoints (each Request names its own).
type Client struct {
	cfg    Config
	http   *http.Client
	global chan struct{}
	cache  *diskCache
	usage  usageMeter

	mu      sync.Mutex
	groups  map[string]chan struct{}
	formats map[string]Format // per endpoint and model: the best format the server accepted
}

// New returns a client. It fails only on an invalid Config (a negative limit or duration).
func New(cfg Config) (*Client, error) {
	for _, f := range []struct {
		name string
		bad  bool
	}{
		{"Concurrency", cfg.Concurrency < 0}, {"Timeout", cfg.Timeout < 0}, {"MaxAttempts", cfg.MaxAttempts < 0},
		{"BaseDelay", cfg.BaseDelay < 0}, {"MaxDelay", cfg.MaxDelay < 0}, {"MaxRetryAfter", cfg.MaxRetryAfter < 0},
	} {
		if f.bad {
			return nil, fmt.Errorf("llm: Config.%s: expected a value ≥ 0, found a negative one", f.name)
		}
	}
	setDefault(&cfg.Concurrency, DefaultConcurrency)
	setDefault(&cfg.Timeout, DefaultTimeout)
	setDefault(&cfg.MaxAttempts, DefaultMaxAttempts)
	setDefault(&cfg.BaseDelay, DefaultBaseDelay)
	setDefault(&cfg.MaxDelay, DefaultMaxDelay)
	setDefault(&cfg.MaxRetryAfter, DefaultMaxRetryAfter)
	if cfg.MaxDelay < cfg.BaseDelay {
		cfg.MaxDelay = cfg.BaseDelay
	}
	if cfg.Rand == nil {
		cfg.Rand = defaultRand
	}
	hc := cfg.HTTPClient
	if hc == nil {
		t := http.DefaultTransport.(*http.Transport).Clone()
		t.Proxy = cfg.Proxy
		// Keep a connection per concurrent request alive between calls; the default of 2 per
		// host would reconnect constantly at higher concurrency.
		t.MaxIdleConnsPerHost = max(cfg.Concurrency, 16)
		t.MaxIdleConns = max(cfg.Concurrency*4, 100)
		hc = &http.Client{Transport: t}
	}
	setDefault(&cfg.UserAgent, "vectorlint")
	c := &Client{
		cfg:     cfg,
		http:    hc,
		global:  make(chan struct{}, cfg.Concurrency),
		groups:  make(map[string]chan struct{}),
		formats: make(map[string]Format),
	}
	if cfg.CacheDir != "" {
		limit := cfg.CacheMaxSize
		if limit == 0 {
			limit = DefaultCacheMaxSize
		}
		c.cache = &diskCache{dir: cfg.CacheDir, maxSize: limit, onPrune: func(res PruneResult, err error) {
			e := Event{Kind: EventCachePruned, Detail: fmt.Sprintf("removed %s (%s), the least recently used, to stay under the cap of %s; %s (%s) remain",
				CountEntries(res.Removed), FormatSize(res.RemovedBytes), FormatSize(limit), CountEntries(res.Remaining), FormatSize(res.RemainingBytes))}
			if err != nil {
				e.Err = "cache " + cfg.CacheDir + " could not be pruned: " + err.Error()
			}
			c.emit(e)
		}}
	}
	return c, nil
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// Close releases idle connections. The client stays usable.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Usage returns the totals so far. Safe to call while calls are running.
func (c *Client) Usage() Usage { return c.usage.snapshot() }

// UsageByModel returns the totals per requested model id.
func (c *Client) UsageByModel() map[string]Usage { return c.usage.snapshotByModel() }

// emit passes an event to Config.OnEvent.
func (c *Client) emit(e Event) {
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(e)
	}
}

// acquire takes a slot of the endpoint's group (when it has a limit), then a global slot. The
// group comes first so that a call waiting for its provider holds no global slot other
// providers could use. It returns when ctx ends.
func (c *Client) acquire(ctx context.Context, ep Endpoint) (release func(), err error) {
	var group chan struct{}
	if ep.MaxConcurrency > 0 {
		c.mu.Lock()
		key := ep.limitKey()
		group = c.groups[key]
		if group == nil {
			group = make(chan struct{}, ep.MaxConcurrency)
			c.groups[key] = group
		}
		c.mu.Unlock()
		select {
		case group <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	select {
	case c.global <- struct{}{}:
	case <-ctx.Done():
		if group != nil {
			<-group
		}
		return nil, ctx.Err()
	}
	return func() {
		<-c.global
		if group != nil {
			<-group
		}
	}, nil
}

// attemptFunc makes one request within ctx (bounded by the attempt timeout).
type attemptFunc func(ctx context.Context, attempt int) error

// callInfo describes a call for errors and events.
type callInfo struct {
	op      string
	label   string
	ep      Endpoint
	timeout time.Duration
	secrets []string
}

// withRetries runs fn until it succeeds, fails in a way that is not retried, runs out of
// attempts, or ctx ends. Every failure comes back as an *APIError.
func (c *Client) withRetries(ctx context.Context, info callInfo, fn attemptFunc) (int, error) {
	for attempt := 1; ; attempt++ {
		release, err := c.acquire(ctx, info.ep)
		if err != nil {
			return attempt - 1, c.canceled(info, attempt-1, err)
		}
		actx, cancel := context.WithTimeout(ctx, info.timeout)
		err = fn(actx, attempt)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		release()
		if err == nil {
			return attempt, nil
		}
		apiErr := c.classify(ctx, timedOut, info, err)
		cause := apiErr.Error() // without the attempt count, for the retry event
		apiErr.Attempts = attempt
		if apiErr.Kind == KindCanceled || !apiErr.Retryable() || attempt >= c.cfg.MaxAttempts {
			return attempt, apiErr
		}
		delay := backoff(attempt, c.cfg.BaseDelay, c.cfg.MaxDelay, c.cfg.Rand)
		var se *statusError
		if errors.As(err, &se) {
			if ra, ok := retryAfter(se.header, time.Now()); ok {
				apiErr.RetryAfter = ra
				if ra > c.cfg.MaxRetryAfter {
					apiErr.Message += fmt.Sprintf(" (the server asks to wait %s, longer than the %s limit)",
						ra.Round(time.Second), c.cfg.MaxRetryAfter)
					return attempt, apiErr
				}
				delay = ra
			}
		}
		c.emit(Event{Kind: EventRetry, Op: info.op, Label: info.label, Host: info.ep.Host(), Model: info.ep.Model,
			Attempt: attempt, Status: apiErr.Status, Delay: delay, Err: cause})
		if err := sleep(ctx, delay); err != nil {
			return attempt, c.canceled(info, attempt, err)
		}
	}
}

func (c *Client) canceled(info callInfo, attempts int, err error) *APIError {
	return &APIError{Op: info.op, Host: info.ep.Host(), Model: info.ep.Model, Kind: KindCanceled,
		Message: "canceled: " + err.Error(), Attempts: attempts, err: err}
}

// classify turns an attempt's error into an *APIError (Attempts is set by the caller).
func (c *Client) classify(ctx context.Context, timedOut bool, info callInfo, err error) *APIError {
	e := &APIError{Op: info.op, Host: info.ep.Host(), Model: info.ep.Model, err: redactErr(err, info.secrets)}
	var se *statusError
	var br *badResponseError
	var ce *connError
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Message, e.err = KindCanceled, "canceled: "+ctx.Err().Error(), ctx.Err()
	case errors.As(err, &se):
		e.Kind, e.Status, e.Message = KindHTTP, se.status, Redact(se.message, info.secrets...)
	case timedOut:
		e.Kind, e.Message = KindTimeout, fmt.Sprintf("no complete reply within %s", info.timeout)
		e.err = context.DeadlineExceeded
	case errors.As(err, &br):
		e.Kind, e.Message = KindBadResponse, Redact(br.msg, info.secrets...)
	case errors.As(err, &ce) || isTransportError(err):
		e.Kind, e.Message = KindConnection, "connection failed: "+Redact(causeText(err), info.secrets...)
	default:
		e.Kind, e.Message = KindRequest, Redact(err.Error(), info.secrets...)
	}
	return e
}

// Request is one chat completion call.
type Request struct {
	// Endpoint is where the call goes (base URL, key, model, headers, limits).
	Endpoint Endpoint
	Messages []Message
	// Schema asks for structured output: response_format json_schema, falling back to
	// json_object and then to plain text (with the schema in the system message) on servers
	// that reject it. Use CompleteJSON to get the JSON out of the reply.
	Schema *Schema
	// JSONMode asks for response_format json_object when there is no Schema.
	JSONMode bool
	// Temperature overrides Endpoint.Temperature for this call.
	Temperature *float64
	// MaxTokens limits the reply (max_tokens); 0 sends no limit.
	MaxTokens int
	// Extra are additional body parameters (e.g. "top_p", "reasoning_effort"); they are part
	// of the cache key.
	Extra map[string]any
	// NoCache skips the cache for this call (neither read nor written).
	NoCache bool
	// Timeout overrides Config.Timeout for each attempt of this call.
	Timeout time.Duration
	// Label says what the call is for, in events (e.g. "Acme.Wordiness docs/a.md").
	Label string
}

// Schema is a JSON schema for structured output.
type Schema struct {
	// Name identifies the schema to the server (letters, digits, '_' and '-'; default
	// "response").
	Name        string
	Description string
	// Strict asks the server to follow the schema exactly (OpenAI strict mode: every property
	// required, additionalProperties false).
	Strict bool
	// Schema is the JSON schema: a map, a struct or a json.RawMessage.
	Schema any
}

// Response is a chat completion reply.
type Response struct {
	// Content is the assistant message's text as the model wrote it.
	Content string
	// JSON is the JSON extracted from Content (set by CompleteJSON and DecodeJSON).
	JSON string
	// Model is the model the server says answered (may differ from the requested id).
	Model        string
	FinishReason string
	// Refusal is the model's refusal message, when it refused (Content is then empty).
	Refusal string
	Tokens  TokenUsage
	// Cached reports that the reply came from the cache (no request was made).
	Cached bool
	// Format is the response format the reply was produced with.
	Format Format
	// Attempts is the number of HTTP requests made for this reply (0 when cached).
	Attempts int
	// Messages are the messages exactly as sent, including any schema instruction added by a
	// format fallback and, after a rejected reply, the retry turns (for --show-prompt).
	Messages []Message
}

// statusError is an HTTP error status captured from the response.
type statusError struct {
	status  int
	header  http.Header
	message string // the server's error message, or the start of the body
	param   string // OpenAI's error.param, when given
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.message) }

// badResponseError is a 2xx reply whose body is unusable.
type badResponseError struct{ msg string }

func (e *badResponseError) Error() string { return e.msg }

// connError is a failure while reading the body.
type connError struct{ err error }

func (e *connError) Error() string { return e.err.Error() }
func (e *connError) Unwrap() error { return e.err }

// cloneMessages copies a message slice so callers' slices are never appended to.
func cloneMessages(m []Message) []Message { return slices.Clone(m) }
