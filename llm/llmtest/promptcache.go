package llmtest

import (
	"encoding/json"
	"strings"
)

// The server's prompt cache models the providers' deterministically, at message boundaries
// (docs/providers.md, "Prompt caching"):
//
//   - OpenAI-shaped chat requests: the longest run of leading messages that an earlier request
//     to the same model, with the same prompt_cache_key, began with is read from the cache when
//     it counts at least MinCachedPrompt tokens; cached_tokens is its count rounded down to
//     MinCachedPrompt plus a multiple of 128 tokens, as OpenAI reports it;
//   - Anthropic Messages requests: the messages up to the last block marked cache_control are
//     the prefix; when it counts at least MinCachedPrompt tokens it is written to the cache the
//     first time (cache_creation_input_tokens) and read from it every later time
//     (cache_read_input_tokens); a shorter one, or a request with no mark, is not cached.
//
// Tokens are counted as promptTokens counts them. The first request with a prefix writes it
// and every later one reads it, in the order the server answers them.

// MinCachedPrompt is the shortest prefix, in tokens, the server caches (OpenAI's minimum).
const MinCachedPrompt = 1024

// promptCache is the prefixes the server has seen, by model and prefix.
type promptCache map[string]bool

// cacheUsage works out the cached and written prompt tokens of req and remembers its
// prefixes. It is called once per answered chat or Messages request.
func (s *Server) cacheUsage(req *Request) Usage {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prompts == nil {
		s.prompts = promptCache{}
	}
	switch req.API {
	case "anthropic":
		if len(req.CacheBreakpoints) == 0 {
			return Usage{}
		}
		n := req.CacheBreakpoints[len(req.CacheBreakpoints)-1] + 1
		tokens := promptTokens(req.Messages[:n])
		if tokens < MinCachedPrompt {
			return Usage{}
		}
		key := prefixKey(req.API, req.Model, "", req.Messages[:n])
		if s.prompts[key] {
			return Usage{CachedTokens: tokens}
		}
		s.prompts[key] = true
		return Usage{CacheWriteTokens: tokens}
	case "chat":
		var cached int64
		for n := 1; n <= len(req.Messages); n++ {
			key := prefixKey(req.API, req.Model, req.PromptCacheKey, req.Messages[:n])
			if s.prompts[key] {
				cached = promptTokens(req.Messages[:n])
			}
			s.prompts[key] = true
		}
		if cached < MinCachedPrompt {
			return Usage{}
		}
		return Usage{CachedTokens: MinCachedPrompt + (cached-MinCachedPrompt)/128*128}
	}
	return Usage{}
}

// prefixKey identifies a prefix of one API and model (and prompt_cache_key).
func prefixKey(api, model, cacheKey string, msgs []Message) string {
	b, _ := json.Marshal(msgs)
	return strings.Join([]string{api, model, cacheKey, string(b)}, "\x00")
}
