package llm

import (
	"maps"
	"sync"
	"unicode/utf8"
)

// Prices are what a million tokens cost, in any currency (INPUT_PRICE_PER_MILLION,
// OUTPUT_PRICE_PER_MILLION, CACHED_INPUT_PRICE_PER_MILLION, CACHE_WRITE_PRICE_PER_MILLION).
type Prices struct {
	InputPerMillion  float64
	OutputPerMillion float64
	// CachedInputPerMillion prices the input tokens the provider read from its prompt cache,
	// CacheWritePerMillion those it wrote to it (Anthropic); nil prices them at the provider's
	// share of InputPerMillion, from the provider table (docs/providers.md, "Prompt caching").
	CachedInputPerMillion, CacheWritePerMillion *float64
}

// Cost is the price of the given token counts, every input token at the input price (an
// estimate before the run, when nothing is known to be cached).
func (p Prices) Cost(input, output int64) float64 {
	return float64(input)*p.InputPerMillion/1e6 + float64(output)*p.OutputPerMillion/1e6
}

// costOf is the price of a call's tokens at an endpoint of provider: the input tokens read
// from or written to the provider's prompt cache at their own prices (Prices' own, else the
// provider table's share of the input price), the rest at the input price.
func (p Prices) costOf(t TokenUsage, provider Provider) float64 {
	read, write := cacheShares(provider)
	cachedPrice, writePrice := p.InputPerMillion*read, p.InputPerMillion*write
	if p.CachedInputPerMillion != nil {
		cachedPrice = *p.CachedInputPerMillion
	}
	if p.CacheWritePerMillion != nil {
		writePrice = *p.CacheWritePerMillion
	}
	plain := max(t.Input-t.Cached-t.CacheWrite, 0)
	return (float64(plain)*p.InputPerMillion + float64(t.Cached)*cachedPrice + float64(t.CacheWrite)*writePrice +
		float64(t.Output)*p.OutputPerMillion) / 1e6
}

// TokenUsage is the token count of one call, from the server's usage object (or estimated with
// EstimateTokens when the server sends none). Input counts every prompt token; Cached and
// CacheWrite are the part of them the provider read from its prompt cache and wrote to it
// (OpenAI's prompt_tokens_details.cached_tokens; Anthropic's cache_read_input_tokens and
// cache_creation_input_tokens, which Anthropic counts apart from its input_tokens and Input
// adds in).
type TokenUsage struct {
	Input      int64 `json:"input"`
	Output     int64 `json:"output"`
	Cached     int64 `json:"cached,omitempty"`
	CacheWrite int64 `json:"cacheWrite,omitempty"`
}

// Usage totals a client's calls; a lint run's usage (finding.Usage) converts from it, as the JSON output
// writes it. Calls counts replies the server produced (retried failures are not calls);
// CachedCalls counts replies served from the cache, or shared by an identical call in flight
// at the same time, which cost no tokens and are not in the token counts. CachedInputTokens and
// CacheWriteTokens are the part of InputTokens the provider read from its prompt cache and
// wrote to it (absent when none). Cost is nil unless prices are configured; it prices the
// cached tokens at their own prices (Prices).
type Usage struct {
	Calls             int      `json:"calls"`
	CachedCalls       int      `json:"cachedCalls"`
	InputTokens       int64    `json:"inputTokens"`
	OutputTokens      int64    `json:"outputTokens"`
	CachedInputTokens int64    `json:"cachedInputTokens,omitempty"`
	CacheWriteTokens  int64    `json:"cacheWriteTokens,omitempty"`
	Cost              *float64 `json:"cost"`
	// CachedPriceAssumed is set when Cost priced cached input tokens at the provider table's
	// share of the input price because CACHED_INPUT_PRICE_PER_MILLION is not set
	// (docs/providers.md, "Prompt caching"); the line footer says so. Not in the JSON output.
	CachedPriceAssumed bool `json:"-"`
}

// usageMeter accumulates usage, overall and per model, safely for concurrent use.
type usageMeter struct {
	mu      sync.Mutex
	total   Usage
	byModel map[string]Usage
}

func (m *usageMeter) add(model string, provider Provider, tokens TokenUsage, cached bool, prices *Prices) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.byModel == nil {
		m.byModel = make(map[string]Usage)
	}
	per := m.byModel[model]
	for _, u := range []*Usage{&m.total, &per} {
		if cached {
			u.CachedCalls++
		} else {
			u.Calls++
			u.InputTokens += tokens.Input
			u.OutputTokens += tokens.Output
			u.CachedInputTokens += tokens.Cached
			u.CacheWriteTokens += tokens.CacheWrite
		}
		if prices != nil {
			c := 0.0
			if u.Cost != nil {
				c = *u.Cost
			}
			if !cached {
				c += prices.costOf(tokens, provider)
				u.CachedPriceAssumed = u.CachedPriceAssumed || tokens.Cached > 0 && prices.CachedInputPerMillion == nil
			}
			u.Cost = &c
		}
	}
	m.byModel[model] = per
}

func (m *usageMeter) snapshot() Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	return copyUsage(m.total)
}

func (m *usageMeter) snapshotByModel() map[string]Usage {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := maps.Clone(m.byModel)
	if out == nil {
		out = map[string]Usage{}
	}
	for k, v := range out {
		out[k] = copyUsage(v)
	}
	return out
}

// copyUsage detaches the Cost pointer so callers cannot race with later updates.
func copyUsage(u Usage) Usage {
	if u.Cost != nil {
		c := *u.Cost
		u.Cost = &c
	}
	return u
}

// EstimateTokens estimates the tokens of a text as one per four characters (rounded up): the
// usual rule of thumb for English with OpenAI tokenizers. It is used for --dry-run estimates and
// when a server reports no usage. llmtest's fake server reports the same numbers.
func EstimateTokens(text string) int64 {
	return int64(utf8.RuneCountInString(text)+3) / 4
}

// EstimateInputTokens estimates the prompt tokens of messages: each message's text plus four
// tokens of per-message overhead.
func EstimateInputTokens(messages []Message) int64 {
	var n int64
	for _, m := range messages {
		n += EstimateTokens(m.Content) + 4
	}
	return n
}
