package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"strings"
)

// Provider prompt caching (docs/providers.md, "Prompt caching"). The calls of a run share long
// prefixes: every call of a rule starts with the same instructions, rule and style guide. The
// providers keep a prefix they have seen for a few minutes and charge less for it (OpenAI from
// 1,024 tokens on, by itself; Anthropic where the request marks it with cache_control). The
// client finds the shared prefix of a request (sharedPrefix) and, when it is long enough to be
// cached, marks it: Anthropic's Messages API gets a cache_control breakpoint on its last block;
// OpenAI-compatible requests to a provider that routes on it get a prompt_cache_key hashed
// from it, so that requests sharing it reach the same cache.

// minCachedPrefix is the shortest prefix, in estimated tokens, the providers cache (OpenAI's
// minimum, and Anthropic's for its Sonnet and Opus models). A shorter one is not marked.
const minCachedPrefix = 1024

// sharedPrefix is the number of leading messages that form the prefix msgs shares with other
// requests: up to the last message marked SharedPrefix, else the leading system messages.
func sharedPrefix(msgs []Message) int {
	n := 0
	for i, m := range msgs {
		if m.SharedPrefix {
			n = i + 1
		}
	}
	if n > 0 {
		return n
	}
	for n < len(msgs) && msgs[n].Role == RoleSystem {
		n++
	}
	return n
}

// cachedPrefix is the number of leading messages of msgs to mark for the provider's cache: the
// shared prefix when it is long enough to be cached (an estimate, as EstimateInputTokens
// counts), else 0.
func cachedPrefix(msgs []Message) int {
	n := sharedPrefix(msgs)
	if n == 0 || EstimateInputTokens(msgs[:n]) < minCachedPrefix {
		return 0
	}
	return n
}

// promptCacheKey is the prompt_cache_key of a request whose first n messages are its cached
// prefix: a hash of their roles and texts ("" when n is 0).
func promptCacheKey(msgs []Message, n int) string {
	if n == 0 {
		return ""
	}
	h := sha256.New()
	for _, m := range msgs[:n] {
		h.Write([]byte(m.Role))
		h.Write([]byte{0})
		h.Write([]byte(m.Content))
		h.Write([]byte{0})
	}
	return "vectorlint-" + hex.EncodeToString(h.Sum(nil))[:32]
}

// sendsCacheKey reports whether chat requests to ep carry prompt_cache_key (the provider
// table's cacheKey column).
func sendsCacheKey(ep Endpoint) bool {
	p, ok := providerNamed(ep.Provider)
	return ok && p.cacheKey
}

// isCacheKeyRejection reports whether err is a server refusing the prompt_cache_key parameter
// (an OpenAI-compatible server that does not know it and rejects unknown fields).
func isCacheKeyRejection(err error) bool {
	var se *statusError
	if !errors.As(err, &se) || (se.status != http.StatusBadRequest && se.status != http.StatusUnprocessableEntity) {
		return false
	}
	return se.param == "prompt_cache_key" || strings.Contains(strings.ToLower(se.message), "prompt_cache_key")
}

// cacheKeyRejected reports whether the endpoint and model behind key refused prompt_cache_key
// earlier in the run; rejectCacheKey records that they did.
func (c *Client) cacheKeyRejected(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.noCacheKey[key]
}

func (c *Client) rejectCacheKey(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.noCacheKey[key] = true
}
