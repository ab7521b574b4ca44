package llm

import (
	"maps"
	"sync"
	"unicode/utf8"
)

// Prices are what a million tokens cost, in any currency (INPUT_PRICE_PER_MILLION,
// OUTPUT_PRICE_PER_MILLION).
type Prices struct {
	InputPerMillion  float64
	OutputPerMillion float64
}

// Cost is the price of the given token counts.
func (p Prices) Cost(input, output int64) float64 {
	return float64(input)*p.InputPerMillion/1e6 + float64(output)*p.OutputPerMillion/1e6
}

// TokenUsage is the token count of one call, from the server's usage object (or estimated with
// EstimateTokens when the server sends none).
type TokenUsage struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Usage totals a client's calls; a lint run's usage (finding.Usage) converts from it, as the JSON output
// writes it. Calls counts replies the server produced (retried failures are not calls);
// CachedCalls counts replies served from the cache, or shared by an identical call in flight
// at the same time, which cost no tokens and are not in the token counts. Cost is nil unless
// prices are configured.
type Usage struct {
	Calls        int      `json:"calls"`
	CachedCalls  int      `json:"cachedCalls"`
	InputTokens  int64    `json:"inputTokens"`
	OutputTokens int64    `json:"outputTokens"`
	Cost         *float64 `json:"cost"`
}

// usageMeter accumulates usage, overall and per model, safely for concurrent use.
type usageMeter struct {
	mu      sync.Mutex
	total   Usage
	byModel map[string]Usage
}

func (m *usageMeter) add(model string, tokens TokenUsage, cached bool, prices *Prices) {
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
		}
		if prices != nil {
			c := 0.0
			if u.Cost != nil {
				c = *u.Cost
			}
			if !cached {
				c += prices.Cost(tokens.Input, tokens.Output)
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
