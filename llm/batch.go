package llm

import (
	"encoding/json"
	"fmt"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/llm/internal/batchwire"
)

// The client's side of provider batches (package llm/batch, docs/batch.md): a batch line is
// the body the live call's first attempt would send, and a batch's reply is stored under the
// live call's cache key, so that the run after a collect is answered from the cache.

// hookBatch fills h with the client's batch functions (Config.Batch).
func (c *Client) hookBatch(h *batchwire.Hook[Request]) {
	h.Prepare = c.prepareBatch
	h.Store = c.storeBatch
}

// prepareBatch is the live call of req: its trust check, request check, cache key and body.
func (c *Client) prepareBatch(req Request) (batchwire.Call, error) {
	s, err := c.chatSpec(req)
	if err != nil {
		return batchwire.Call{}, err
	}
	if !s.cache || s.key == "" {
		return batchwire.Call{}, &APIError{Op: opChat, Host: req.Endpoint.Host(), Model: req.Endpoint.Model, Kind: KindRequest,
			Message: "a batch needs the reply cache (its replies reach the run through it), and the cache is off for this request"}
	}
	k := s.kind.(*chatKind)
	format, _, err := k.round()
	if err != nil {
		return batchwire.Call{}, err
	}
	call := batchwire.Call{Key: s.key, Format: string(format), Wire: batchwire.WireOpenAI, URL: req.Endpoint.operationURL("chat/completions")}
	var body []byte
	if k.native {
		call.Wire, call.URL = batchwire.WireAnthropic, req.Endpoint.operationURL("messages")
		p, perr := k.messagesParams()
		if perr != nil {
			return batchwire.Call{}, &APIError{Op: opChat, Host: req.Endpoint.Host(), Model: req.Endpoint.Model, Kind: KindRequest,
				Message: redact.Text(perr.Error(), req.Endpoint.secrets()...)}
		}
		body, err = json.Marshal(p)
	} else {
		body, err = json.Marshal(k.chatParams())
	}
	if err != nil {
		return batchwire.Call{}, &APIError{Op: opChat, Host: req.Endpoint.Host(), Model: req.Endpoint.Model, Kind: KindRequest,
			Message: "encoding the request body: " + redact.Text(err.Error(), req.Endpoint.secrets()...)}
	}
	call.Body = body
	return call, nil
}

// storeBatch reads a batch's reply to req (body: a chat completion object, or a Messages reply
// for the native wire), redacts it, stores it in the cache under call.Key and counts it as a
// call at the prices times priceFactor.
func (c *Client) storeBatch(req Request, call batchwire.Call, body []byte, priceFactor float64) error {
	if c.cache == nil || c.cfg.NoCache {
		return fmt.Errorf("llm: a batch's replies are stored in the reply cache, and the client has none")
	}
	parse := parseChat
	if call.Wire == batchwire.WireAnthropic {
		parse = parseAnthropic
	}
	resp, err := parse(body)
	if err != nil {
		return &APIError{Op: opChat, Host: req.Endpoint.Host(), Model: req.Endpoint.Model, Kind: KindBadResponse,
			Message: redact.Text(err.Error(), req.Endpoint.secrets()...)}
	}
	r := &reply{Response: *resp}
	if r.Tokens == (TokenUsage{}) {
		r.Tokens = TokenUsage{Input: EstimateInputTokens(messagesFor(req, Format(call.Format))), Output: EstimateTokens(r.Content)}
	}
	r.redact(req.Endpoint.replySecrets())
	err = c.cache.Put(call.Key, &replycache.Entry{Op: "chat", Model: r.Model, Content: r.Content, FinishReason: r.FinishReason,
		Format: call.Format, Usage: replycache.Tokens{Input: r.Tokens.Input, Output: r.Tokens.Output}})
	if err != nil {
		return fmt.Errorf("llm: storing a batch reply: %s", redact.Text(err.Error(), req.Endpoint.secrets()...))
	}
	var prices *Prices
	if p := c.prices(req.Endpoint); p != nil {
		prices = p.scaled(priceFactor)
	}
	c.usage.add(req.Endpoint.Model, req.Endpoint.Provider, r.Tokens, false, prices)
	return nil
}

// scaled returns p with every price multiplied by f (a batch's discount).
func (p Prices) scaled(f float64) *Prices {
	out := Prices{InputPerMillion: p.InputPerMillion * f, OutputPerMillion: p.OutputPerMillion * f}
	if p.CachedInputPerMillion != nil {
		v := *p.CachedInputPerMillion * f
		out.CachedInputPerMillion = &v
	}
	if p.CacheWritePerMillion != nil {
		v := *p.CacheWritePerMillion * f
		out.CacheWritePerMillion = &v
	}
	return &out
}
