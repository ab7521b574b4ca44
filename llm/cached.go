package llm

import (
	"encoding/json"
	"os"
)

// Cached reports whether the reply to req is in the reply cache, so that a call would make no
// request: what a budget check before a run counts (spec/linter.md §11). It makes no call,
// counts no usage and does not mark the entry as used. It is false when the cache is off (no
// cache folder, NoCache on the client or the request), when req could not be sent (its
// endpoint not trusted, a malformed request) and when the entry is missing or unreadable (a
// call would then be made).
func (c *Client) Cached(req Request) bool {
	s, err := c.chatSpec(req)
	if err != nil || !s.cache || s.key == "" {
		return false
	}
	key := s.key
	data, err := os.ReadFile(c.cache.path(key))
	if err != nil {
		return false
	}
	var e cacheEntry
	return json.Unmarshal(data, &e) == nil && e.Version == cacheVersion && e.Key == key && e.Op == "chat"
}
