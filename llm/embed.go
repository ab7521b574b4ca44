package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/replycache"
)

const opEmbed = "embeddings"

// embedBatchSize is the most texts sent in one embeddings request; longer lists are split into
// several requests (each cached on its own).
const embedBatchSize = 128

// Embed returns one embedding vector per text, in order, from the endpoint's /embeddings
// operation (Endpoint.Model is the embedding model). Calls share the client's retries,
// concurrency limits, cache, flights and usage accounting with chat completions.
func (c *Client) Embed(ctx context.Context, ep Endpoint, texts []string) ([][]float64, error) {
	if err := c.CheckTrust(ep); err != nil {
		return nil, err
	}
	if err := checkBaseURL(ep.BaseURL); err != nil {
		return nil, &APIError{Op: opEmbed, Host: ep.Host(), Model: ep.Model, Kind: KindRequest,
			Message: fmt.Sprintf("expected an http(s) base URL, found %q", redact.Text(ep.BaseURL, ep.secrets()...))}
	}
	if ep.Model == "" {
		return nil, &APIError{Op: opEmbed, Host: ep.Host(), Model: ep.Model, Kind: KindRequest, Message: "no model given"}
	}
	out := make([][]float64, 0, len(texts))
	for start := 0; start < len(texts); start += embedBatchSize {
		batch := texts[start:min(start+embedBatchSize, len(texts))]
		vecs, err := c.embedBatch(ctx, ep, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, ep Endpoint, texts []string) ([][]float64, error) {
	kind := &embedKind{c: c, ep: ep, texts: texts}
	s := newCallSpec(opEmbed, "", ep, c.retry.Timeout, 0, kind)
	s.cache, s.entryOp = c.useCache(false), "embeddings"
	if s.cache {
		key, err := hashKey(keyInput{Op: "embeddings", URL: ep.operationURL("embeddings"), Model: ep.Model, Input: texts})
		if err != nil {
			return nil, err
		}
		s.key = key
	}
	s.fits = func(e *replycache.Entry) bool { return len(e.Embeddings) == len(texts) }
	r, err := c.call(ctx, s)
	if err != nil {
		return nil, err
	}
	return r.vectors, nil
}

// embedKind sends an embeddings batch through openai-go's embeddings service (its request
// types, the endpoint's options); the reply is read from the raw body (parseEmbeddings).
type embedKind struct {
	c     *Client
	ep    Endpoint
	texts []string
	opts  []option.RequestOption
}

func (k *embedKind) round() (Format, []Message, error) {
	k.opts = k.c.requestOptions(k.ep) // made here: a reply from the cache needs none
	return "", nil, nil
}

func (k *embedKind) send(ctx context.Context) (*http.Response, error) {
	var res *http.Response
	opts := append(slices.Clip(k.opts), option.WithResponseBodyInto(&res))
	params := openai.EmbeddingNewParams{Model: k.ep.Model, Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: k.texts},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat}
	if _, err := k.c.embeddings.New(ctx, params, opts...); err != nil {
		return nil, err
	}
	if res == nil {
		return nil, &badResponseError{msg: "the server sent no reply"}
	}
	return res, nil
}

func (k *embedKind) decode(body []byte) (*reply, error) {
	v, t, err := parseEmbeddings(body, len(k.texts))
	if err != nil {
		return nil, err
	}
	if t == (TokenUsage{}) {
		for _, s := range k.texts {
			t.Input += EstimateTokens(s)
		}
	}
	// The entry names the model asked for: an embeddings reply is read without its model.
	return &reply{Response: Response{Model: k.ep.Model, Tokens: t}, vectors: v}, nil
}

func (k *embedKind) again(error) bool { return false }

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
