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

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"golang.org/x/sync/semaphore"
	"golang.org/x/sync/singleflight"

	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/llm/internal/anthropic"
	"github.com/vectorlint/vectorlint/llm/internal/batchwire"
)

// Defaults of Config's zero fields (spec/linter.md §6, spec/trust.md §5); the retry settings'
// are retry's (retry.DefaultTimeout, retry.DefaultMaxAttempts…). DefaultConcurrency is also
// vectorlint.ini's (config.DefaultConcurrency refers to it).
const (
	DefaultConcurrency = 8
	// defaultStallInterval is how long no call may finish before Config.OnStall hears of the
	// calls in flight.
	defaultStallInterval = 30 * time.Second
)

// MaxConcurrency is the most requests in flight any setting may ask for (vectorlint.ini's
// Concurrency, a blueprint's concurrency, --concurrency): a file in a repository must not be able
// to make the tool start a billion workers (spec/trust.md §8). ConcurrencyRange describes the
// accepted values for messages.
const (
	MaxConcurrency   = 256
	ConcurrencyRange = "a whole number from 1 to 256"
)

// Config configures a Client. Zero fields take the defaults above, so Config{} is usable
// (without a cache).
type Config struct {
	// Concurrency is the most requests in flight at once across every call of the client
	// (vectorlint.ini's Concurrency; default 8).
	Concurrency int
	// Timeout bounds each attempt, reply body included (default 60 s). A call, with all its
	// retries and waits, is bounded by retry.CallTimeoutFactor × Timeout.
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
	// CacheOnly answers chat calls from the cache only: a call the cache cannot answer fails
	// at once, sending nothing (an *APIError of KindRequest). A run that collected a provider
	// batch uses it to make no live call (vectorlint batch collect --no-live, docs/batch.md).
	CacheOnly bool
	// CacheMaxSize caps the cache in bytes: past it, least recently used entries are removed
	// (default replycache.DefaultCap, 1 GB; replycache.NoCap for none).
	CacheMaxSize int64
	// Prices, when set, make Usage report a cost (see ResolvePrices).
	Prices *Prices
	// HTTPClient replaces the client's own HTTP client (its Timeout should be 0: attempts are
	// bounded by Timeout through their context). The client uses a copy with the redirect,
	// Referer and proxy rules of docs/security.md (safehttp.Guard); the one given is not changed.
	HTTPClient *http.Client
	// Proxy selects the proxy of the client's own HTTP transport; nil means none. The command
	// passes http.ProxyFromEnvironment (this package never reads the environment). A loopback
	// host (safehttp.IsLoopback, the trust rule's test) is never sent through it.
	Proxy func(*http.Request) (*url.URL, error)
	// OnEvent receives request/response metadata (--verbose, --show-prompt). It is called from
	// the goroutines making calls, so it must be safe for concurrent use, and it should be fast.
	OnEvent func(Event)
	// UserAgent is the User-Agent header of every request (default "vectorlint"; the command
	// passes "vectorlint/<version>").
	UserAgent string
	// Rand returns uniform numbers in [0, 1) for backoff jitter; nil uses math/rand/v2.
	Rand func() float64
	// Trust, when set, refuses every call whose endpoint it does not allow (trust.Rule.Check
	// of the base URL and where it and the key came from), before the cache or the network is
	// touched; nil allows every endpoint.
	Trust *trust.Rule
	// OnStall, when set, is told about the calls in flight when none has finished for
	// StallInterval, and again at most every StallInterval while that lasts: a run whose
	// server hangs says so instead of going silent (the command prints it when standard
	// error is not a terminal, where no progress bar shows that the run is alive). It is
	// called from a timer goroutine, before any call in flight can finish: it must be quick
	// and must not call the client.
	OnStall func(Stall)
	// StallInterval is that interval (default 30 s).
	StallInterval time.Duration
	// Batch, when set, is filled by New with the client's batch functions: package llm/batch
	// sets it (docs/batch.md). Other callers leave it nil.
	Batch *batchwire.Hook[Request]
}

// Client calls OpenAI-compatible Chat Completions and Embeddings endpoints with retries, a
// global concurrency limit, optional per-endpoint limits, a content-addressed cache and usage
// accounting. It is safe for concurrent use; one client serves a whole run and any number of
// endpoints (each Request names its own).
type Client struct {
	cfg   Config
	retry retry.Policy
	http  *http.Client
	// chat and embeddings are openai-go's services, on http with the SDK's own retries off
	// (withRetries does them); each request gives its endpoint's options (requestOptions).
	chat       openai.ChatCompletionService
	embeddings openai.EmbeddingService
	// messages is anthropic-sdk-go's Messages service, set up the same way, for the endpoints
	// of a provider whose wire is wireAnthropic (messages.go).
	messages anthropic.Service
	global   *semaphore.Weighted
	cache    *replycache.Store
	usage    usageMeter

	// stops are the endpoints no call may be started for any more (Stopped).
	stops stopBoard
	// flight tracks the calls in flight for stall reports.
	flight flightBoard
	// flights makes identical requests in flight at the same time one request (Client.call).
	flights singleflight.Group
	// joining, when set, is called as a call with a key is about to join (or lead) its flight.
	// Tests set it (export_test.go) to know that their calls have reached the flight rather
	// than give them a fixed time; production leaves it nil.
	joining func()

	mu      sync.Mutex
	groups  map[string]*semaphore.Weighted
	formats map[string]Format // per endpoint and model: the best format the server accepted
	// noTemperature holds the endpoints and models that refused a temperature (temperature.go),
	// noCacheKey those that refused prompt_cache_key (cacheprefix.go).
	noTemperature, noCacheKey map[string]bool
}

// New returns a client. It fails only on an invalid Config (a negative limit or duration, or a
// Concurrency above MaxConcurrency).
func New(cfg Config) (*Client, error) {
	for _, f := range []struct {
		name string
		bad  bool
	}{
		{"Concurrency", cfg.Concurrency < 0}, {"Timeout", cfg.Timeout < 0}, {"MaxAttempts", cfg.MaxAttempts < 0},
		{"BaseDelay", cfg.BaseDelay < 0}, {"MaxDelay", cfg.MaxDelay < 0}, {"MaxRetryAfter", cfg.MaxRetryAfter < 0},
		{"StallInterval", cfg.StallInterval < 0},
	} {
		if f.bad {
			return nil, fmt.Errorf("llm: Config.%s: expected a value ≥ 0, found a negative one", f.name)
		}
	}
	if cfg.Concurrency > MaxConcurrency {
		return nil, fmt.Errorf("llm: Config.Concurrency: expected at most %d, found %d", MaxConcurrency, cfg.Concurrency)
	}
	setDefault(&cfg.Concurrency, DefaultConcurrency)
	setDefault(&cfg.StallInterval, defaultStallInterval)
	policy := retry.Policy{MaxAttempts: cfg.MaxAttempts, Timeout: cfg.Timeout, BaseDelay: cfg.BaseDelay,
		MaxDelay: cfg.MaxDelay, MaxRetryAfter: cfg.MaxRetryAfter, Rand: cfg.Rand}.WithDefaults()
	cfg.MaxAttempts, cfg.Timeout, cfg.BaseDelay, cfg.MaxDelay, cfg.MaxRetryAfter, cfg.Rand =
		policy.MaxAttempts, policy.Timeout, policy.BaseDelay, policy.MaxDelay, policy.MaxRetryAfter, policy.Rand
	// Every request may carry a key: redirects stay within one origin, no Referer is sent, and
	// a loopback host never goes through the proxy (docs/security.md), whoever made the client.
	hc := cfg.HTTPClient
	if hc != nil {
		hc = safehttp.Guard(hc)
	} else {
		t := safehttp.NewTransport(cfg.Proxy, nil)
		// Keep a connection per concurrent request alive between calls; the default of 2 per
		// host would reconnect constantly at higher concurrency.
		t.MaxIdleConnsPerHost = max(cfg.Concurrency, 16)
		t.MaxIdleConns = max(cfg.Concurrency*4, 100)
		hc = safehttp.NewClient(t)
	}
	setDefault(&cfg.UserAgent, "vectorlint")
	// The services are built directly, not with openai.NewClient, so that the SDK reads no
	// environment variable (this package never does); its retries are off because withRetries
	// makes them, with the stops, limits and events around them.
	sdk := []option.RequestOption{option.WithHTTPClient(hc), option.WithMaxRetries(0), option.WithMiddleware(onTheWire)}
	c := &Client{
		cfg:        cfg,
		retry:      policy,
		http:       hc,
		chat:       openai.NewChatCompletionService(sdk...),
		embeddings: openai.NewEmbeddingService(sdk...),
		messages:   anthropic.NewService(hc, onTheWire),
		global:     semaphore.NewWeighted(int64(cfg.Concurrency)),
		groups:     make(map[string]*semaphore.Weighted),
		formats:    make(map[string]Format),

		noTemperature: make(map[string]bool),
		noCacheKey:    make(map[string]bool),
	}
	c.flight.interval, c.flight.report = cfg.StallInterval, cfg.OnStall
	if cfg.Batch != nil {
		c.hookBatch(cfg.Batch)
	}
	if cfg.CacheDir != "" {
		limit := cfg.CacheMaxSize
		if limit == 0 {
			limit = replycache.DefaultCap
		}
		c.cache = replycache.Open(cfg.CacheDir, limit, func(res replycache.PruneResult, err error) {
			e := Event{Kind: EventCachePruned, Detail: fmt.Sprintf("removed %s (%s), the least recently used, to stay under the cap of %s; %s (%s) remain",
				replycache.CountEntries(res.Removed), replycache.FormatSize(res.RemovedBytes), replycache.FormatSize(limit),
				replycache.CountEntries(res.Remaining), replycache.FormatSize(res.RemainingBytes))}
			if err != nil {
				e.Err = "cache " + cfg.CacheDir + " could not be pruned: " + err.Error()
			}
			c.emit(e)
		})
	}
	return c, nil
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}

// CheckTrust is Config.Trust's check of ep (trust.Rule.Check of its base URL, key and base
// URL sources): nil when the client may call it. Every call (Complete, Generate, Embed) makes
// this check first; a command calls it for each endpoint before the run starts, so a refusal
// is one error before any call rather than one per call.
func (c *Client) CheckTrust(ep Endpoint) error {
	return c.cfg.Trust.Check(ep.BaseURL, ep.KeySource, ep.BaseURLSource)
}

// Close releases idle connections. The client stays usable.
func (c *Client) Close() { c.http.CloseIdleConnections() }

// Usage returns the totals so far. Safe to call while calls are running.
func (c *Client) Usage() Usage { return c.usage.snapshot() }

// UsageByModel returns the totals so far per requested model id.
func (c *Client) UsageByModel() map[string]Usage { return c.usage.snapshotByModel() }

// listening reports whether anyone hears events: the frequent ones (a request, a response, a
// cache hit) are not even built otherwise, since building one parses the endpoint's URL and
// redacts its messages.
func (c *Client) listening() bool { return c.cfg.OnEvent != nil }

// emit passes an event to Config.OnEvent.
func (c *Client) emit(e Event) {
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(e)
	}
}

// acquire takes a slot of the endpoint's group (when it has a limit), then a global slot. The
// group comes first so that a call waiting for its provider holds no global slot other
// providers could use. It returns when ctx ends, and with the scope's *StopError, at once and
// without a slot, when the call's endpoint is stopped (before or while it waits). A fresh call
// (no attempt made yet) to a host under suspicion waits for the verdict first, holding no slot
// (stopBoard), so that the calls retrying can always get theirs.
func (c *Client) acquire(ctx context.Context, info callInfo, fresh bool) (release func(), err error) {
	var group *semaphore.Weighted
	if info.ep.MaxConcurrency > 0 {
		c.mu.Lock()
		key := info.ep.limitKey()
		group = c.groups[key]
		if group == nil {
			group = semaphore.NewWeighted(int64(info.ep.MaxConcurrency))
			c.groups[key] = group
		}
		c.mu.Unlock()
	}
	// blocked returns the scope's stop, or errWait when a fresh call must wait for a verdict.
	blocked := func() error {
		if se := c.stops.check(info.scopes); se != nil {
			return se
		}
		if fresh && c.stops.isSuspect(info.scopes) {
			return errWait
		}
		return nil
	}
	// take waits for a slot of sem; it returns errWait, without the slot, when the call must
	// wait for a verdict. A change on the stop board (wake) interrupts the wait to check again.
	take := func(sem *semaphore.Weighted, wake context.Context) error {
		for {
			if !sem.TryAcquire(1) {
				wctx, cancel := context.WithCancel(ctx)
				stop := context.AfterFunc(wake, cancel)
				err := sem.Acquire(wctx, 1)
				stop()
				cancel()
				if err != nil {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					// A scope stopped or a host was cleared: check again.
					if err := blocked(); err != nil {
						return err
					}
					wake = c.stops.wait()
					continue
				}
			}
			// Check again with the slot held: a call that stops a scope records it before it
			// releases its slot, so no call starts a request after that.
			if err := blocked(); err != nil {
				sem.Release(1)
				return err
			}
			return nil
		}
	}
	for {
		wake := c.stops.wait()
		err := blocked()
		if err == nil && group != nil {
			err = take(group, wake)
		}
		if err == nil {
			if err = take(c.global, wake); err != nil && group != nil {
				group.Release(1)
			}
		}
		if err == nil {
			return func() {
				c.global.Release(1)
				if group != nil {
					group.Release(1)
				}
			}, nil
		}
		if err != errWait {
			return nil, err
		}
		select { // wait for the verdict on the suspect host
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-wake.Done():
		}
	}
}

// errWait tells acquire's loop that a fresh call must wait for the verdict on its host.
var errWait = errors.New("wait for the verdict on the host")

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
	// MaxAttempts overrides Config.MaxAttempts for this call (blueprint generation's
	// --gen-retries); 0 keeps the client's.
	MaxAttempts int
	// Label says what the call is for, in events (e.g. "Acme.Wordiness docs/a.md").
	Label string
	// Sample numbers distinct samples of the same request (spec/linter.md §12: samples and
	// majority, the repeats of `vectorlint test`). It is part of the cache key, so each sample
	// is its own call and its own cached reply; 0, the first sample, leaves the key as it was
	// before samples existed. It is not sent.
	Sample int
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
	// JSON is the JSON extracted from Content (set by CompleteJSON and decodeJSON).
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
