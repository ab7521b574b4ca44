// Package batch submits a run's model requests as provider batches and collects their replies
// into the reply cache (docs/batch.md): OpenAI's Batch API (a JSONL file uploaded with
// purpose=batch, then a batch on /v1/chat/completions) and Anthropic's Message Batches. Each
// line is the body a live call would send, made by the model client itself (package llm), and
// each reply is stored under the key the live call would use, so that the same run afterwards
// is answered from the cache with no live call. The batch's state is saved in the project tree
// under .vectorlint/batches/<id>.json.
//
// The package is public because the command (vectorlint batch) and programs driving the linter
// call it; it holds no package-level state.
package batch

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/internal/batchwire"
)

// PriceFactorVar is the variable that sets the share of the live price a batch's tokens cost.
const PriceFactorVar = "BATCH_PRICE_FACTOR"

// DefaultPriceFactor is the price factor without BATCH_PRICE_FACTOR: OpenAI and Anthropic both
// charge half the live price for batches.
const DefaultPriceFactor = 0.5

// DefaultPollInterval is how often Collect asks for a batch's state while it waits.
const DefaultPollInterval = 30 * time.Second

// PriceFactor reads BATCH_PRICE_FACTOR from env: DefaultPriceFactor when unset or empty, else
// a number above 0 and at most 1; anything else is an *envsource.SettingError naming the variable and
// the value found.
func PriceFactor(env envsource.LookupFunc) (float64, error) {
	if env == nil {
		return DefaultPriceFactor, nil
	}
	v, ok := env(PriceFactorVar)
	v = strings.TrimSpace(v)
	if !ok || v == "" {
		return DefaultPriceFactor, nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0 && f <= 1) {
		return 0, &envsource.SettingError{Source: PriceFactorVar, Expected: "a number above 0 and at most 1 (the share of the live price a batch costs)", Found: v}
	}
	return f, nil
}

// UnsupportedError says that an endpoint's provider has no batch API vectorlint can use.
type UnsupportedError struct {
	Provider llm.Provider
}

// Error names the provider and what to use instead.
func (e *UnsupportedError) Error() string {
	name := string(e.Provider)
	if name == "" {
		name = "(none)"
	}
	return fmt.Sprintf("provider %s has no batch API vectorlint can use (batches work with openai and anthropic): run the lint live instead", name)
}

// Config configures a Batcher.
type Config struct {
	// Client configures the model client whose request bodies, cache keys, trust rule and
	// reply cache the batches use (its CacheDir is required; its Batch field is set by New).
	Client llm.Config
	// Root is the project tree; the state files are under .vectorlint/batches in it.
	Root *tree.Root
	// PriceFactor multiplies the prices of the batch replies' tokens (PriceFactor reads it);
	// 0 means DefaultPriceFactor.
	PriceFactor float64
	// PollInterval is the wait between two state requests while Collect waits (default
	// DefaultPollInterval).
	PollInterval time.Duration
}

// Batcher submits, follows and collects batches. It is safe for concurrent use.
type Batcher struct {
	client *llm.Client
	hook   *batchwire.Hook[llm.Request]
	http   *http.Client
	root   *tree.Root
	factor float64
	poll   time.Duration
	agent  string
	// limits are the providers' limits per provider batch (tests lower them).
	limits map[string]limit
}

// limit is the most requests and bytes one provider batch may hold.
type limit struct {
	requests int
	bytes    int64
}

// providerLimits are the documented limits: OpenAI 50,000 requests or 200 MB per input file,
// Anthropic 100,000 requests or 256 MB per batch.
func providerLimits() map[string]limit {
	return map[string]limit{
		batchwire.WireOpenAI:    {50_000, 200 << 20},
		batchwire.WireAnthropic: {100_000, 256 << 20},
	}
}

// New returns a Batcher, with its own model client made from cfg.Client.
func New(cfg Config) (*Batcher, error) {
	if cfg.Root == nil {
		return nil, errors.New("batch: Config.Root: expected the project tree, found none")
	}
	if cfg.Client.CacheDir == "" || cfg.Client.NoCache {
		return nil, errors.New("batch: a batch's replies reach the run through the reply cache, and the cache is off (--no-cache or no cache folder)")
	}
	if cfg.PriceFactor < 0 || cfg.PriceFactor > 1 {
		return nil, fmt.Errorf("batch: Config.PriceFactor: expected a number above 0 and at most 1, found %g", cfg.PriceFactor)
	}
	if cfg.PollInterval < 0 {
		return nil, errors.New("batch: Config.PollInterval: expected a value ≥ 0, found a negative one")
	}
	hook := &batchwire.Hook[llm.Request]{}
	cc := cfg.Client
	cc.Batch = hook
	client, err := llm.New(cc)
	if err != nil {
		return nil, err
	}
	hc := cfg.Client.HTTPClient
	if hc != nil {
		hc = safehttp.Guard(hc)
	} else {
		hc = safehttp.NewClient(safehttp.NewTransport(cfg.Client.Proxy, nil))
	}
	factor := cfg.PriceFactor
	if factor == 0 {
		factor = DefaultPriceFactor
	}
	return &Batcher{client: client, hook: hook, http: hc, root: cfg.Root, factor: factor,
		poll: cmp.Or(cfg.PollInterval, DefaultPollInterval), agent: cmp.Or(cfg.Client.UserAgent, "vectorlint"),
		limits: providerLimits()}, nil
}

// Usage is the usage of the replies collected so far, priced at the batch price.
func (b *Batcher) Usage() llm.Usage { return b.client.Usage() }

// PriceFactorUsed is the share of the live price the collected replies are priced at.
func (b *Batcher) PriceFactorUsed() float64 { return b.factor }

// Close releases idle connections.
func (b *Batcher) Close() {
	b.client.Close()
	b.http.CloseIdleConnections()
}

// wireOf is the batch API of an endpoint's provider, or an *UnsupportedError.
func wireOf(p llm.Provider) (string, error) {
	switch p {
	case "openai":
		return batchwire.WireOpenAI, nil
	case "anthropic":
		return batchwire.WireAnthropic, nil
	}
	return "", &UnsupportedError{Provider: p}
}

// newID returns a fresh id of ours: "vl-" and 16 hex digits.
func newID() (string, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "vl-" + hex.EncodeToString(b[:]), nil
}

// baseOf is the endpoint's base URL without user info, query or trailing slash: what the state
// file records and what a later status or collect must match.
func baseOf(ep llm.Endpoint) string {
	u, err := url.Parse(ep.BaseURL)
	if err != nil {
		return ""
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return strings.TrimRight(u.String(), "/")
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error { return retry.Sleep(ctx, d) }
