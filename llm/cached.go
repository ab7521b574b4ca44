package llm

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
	return c.cache.Has(s.key, "chat")
}
