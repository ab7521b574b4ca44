package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"time"
)

const opEmbed = "embeddings"

// EmbedBatchSize is the most texts sent in one embeddings request; longer lists are split into
// several requests (each cached on its own).
const EmbedBatchSize = 128

// Embed returns one embedding vector per text, in order, from the endpoint's /embeddings
// operation (Endpoint.Model is the embedding model). Calls share the client's retries,
// concurrency limits, cache and usage accounting with chat completions.
func (c *Client) Embed(ctx context.Context, ep Endpoint, texts []string) ([][]float64, error) {
	if err := c.CheckTrust(ep); err != nil {
		return nil, err
	}
	if err := checkBaseURL(ep.BaseURL); err != nil {
		return nil, &APIError{Op: opEmbed, Host: ep.Host(), Model: ep.Model, Kind: KindRequest,
			Message: fmt.Sprintf("expected an http(s) base URL, found %q", Redact(ep.BaseURL, ep.secrets()...))}
	}
	if ep.Model == "" {
		return nil, &APIError{Op: opEmbed, Host: ep.Host(), Model: ep.Model, Kind: KindRequest, Message: "no model given"}
	}
	out := make([][]float64, 0, len(texts))
	for start := 0; start < len(texts); start += EmbedBatchSize {
		batch := texts[start:min(start+EmbedBatchSize, len(texts))]
		vecs, err := c.embedBatch(ctx, ep, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, ep Endpoint, texts []string) ([][]float64, error) {
	secrets := ep.secrets()
	key := ""
	if c.cache != nil && !c.cfg.NoCache {
		k, err := hashKey(keyInput{Op: "embeddings", URL: ep.operationURL("embeddings"), Model: ep.Model, Input: texts})
		if err != nil {
			return nil, err
		}
		key = k
		entry, err := c.cache.get(key, "embeddings")
		if err != nil {
			c.emit(Event{Kind: EventCacheError, Op: opEmbed, Host: ep.Host(), Model: ep.Model, Err: err.Error()})
		}
		if entry != nil && len(entry.Embeddings) == len(texts) {
			c.usage.add(ep.Model, entry.Usage, true, c.prices(ep))
			c.emit(Event{Kind: EventCacheHit, Op: opEmbed, Host: ep.Host(), Model: ep.Model})
			return entry.Embeddings, nil
		}
	}
	info := callInfo{op: opEmbed, ep: ep, timeout: c.cfg.Timeout, secrets: secrets}
	body, err := json.Marshal(embeddingsBody{Model: ep.Model, Input: texts, EncodingFormat: "float"})
	if err != nil {
		return nil, &APIError{Op: opEmbed, Host: ep.Host(), Model: ep.Model, Kind: KindRequest, Message: err.Error()}
	}
	var vecs [][]float64
	var tokens TokenUsage
	attempts, err := c.withRetries(ctx, info, func(actx context.Context, attempt int) error {
		c.emit(Event{Kind: EventRequest, Op: opEmbed, Host: ep.Host(), Model: ep.Model, Attempt: attempt})
		start := time.Now()
		res, err := c.post(actx, ep, "embeddings", body)
		if err != nil {
			return err
		}
		reply, err := readBody(res)
		if err != nil {
			return err
		}
		v, t, err := parseEmbeddings(reply, len(texts))
		if err != nil {
			return err
		}
		if t == (TokenUsage{}) {
			for _, s := range texts {
				t.Input += EstimateTokens(s)
			}
		}
		c.emit(Event{Kind: EventResponse, Op: opEmbed, Host: ep.Host(), Model: ep.Model, Attempt: attempt,
			Status: res.StatusCode, Duration: time.Since(start), Tokens: t})
		vecs, tokens = v, t
		return nil
	})
	if err != nil {
		if attempts > 0 || !errors.Is(err, ErrStopped) { // a call stopped before any request is no event
			c.emit(Event{Kind: EventFailure, Op: opEmbed, Host: ep.Host(), Model: ep.Model, Err: err.Error()})
		}
		return nil, err
	}
	c.usage.add(ep.Model, tokens, false, c.prices(ep))
	if key != "" {
		if err := c.cache.put(key, &cacheEntry{Op: "embeddings", Model: ep.Model, Embeddings: vecs, Usage: tokens}); err != nil {
			c.emit(Event{Kind: EventCacheError, Op: opEmbed, Host: ep.Host(), Model: ep.Model, Err: Redact(err.Error(), secrets...)})
		}
	}
	return vecs, nil
}

// embeddingsBody is the JSON body of an embeddings request. TestEmbeddingsBodyMatchesSDK
// checks it against openai-go's encoding.
type embeddingsBody struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

// parseEmbeddings decodes an embeddings body with exactly n vectors, ordered by their index.
func parseEmbeddings(body []byte, n int) ([][]float64, TokenUsage, error) {
	var w struct {
		Data []struct {
			Index     int       `json:"index"`
			Embedding []float64 `json:"embedding"`
		} `json:"data"`
		Usage *struct {
			PromptTokens int64 `json:"prompt_tokens"`
		} `json:"usage"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, TokenUsage{}, &badResponseError{msg: describeBadJSON(body, err)}
	}
	if len(w.Data) != n {
		return nil, TokenUsage{}, &badResponseError{msg: fmt.Sprintf("expected %d embeddings, found %d", n, len(w.Data))}
	}
	sort.SliceStable(w.Data, func(i, j int) bool { return w.Data[i].Index < w.Data[j].Index })
	out := make([][]float64, n)
	for i, d := range w.Data {
		if d.Index != i {
			return nil, TokenUsage{}, &badResponseError{msg: fmt.Sprintf("expected embedding indexes 0 to %d, found %d", n-1, d.Index)}
		}
		if len(d.Embedding) == 0 {
			return nil, TokenUsage{}, &badResponseError{msg: fmt.Sprintf("embedding %d is empty", i)}
		}
		out[i] = d.Embedding
	}
	var t TokenUsage
	if w.Usage != nil {
		t.Input = w.Usage.PromptTokens
	}
	return out, t, nil
}
