package llm_test

import (
	"context"
	"os"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestCached checks the look-up a budget check makes: false before the reply is stored, true
// after, with no call and no usage counted, and false whenever a call would be made anyway.
func TestCached(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("answer"))
	dir := t.TempDir()
	cfg := fastConfig()
	cfg.CacheDir = dir
	c := newClient(t, cfg)
	req := userRequest(s, "Is this cached?")
	other := userRequest(s, "And this?")
	if c.Cached(req) {
		t.Fatal("Cached before any call")
	}
	if _, err := c.Complete(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	before := c.Usage()
	if !c.Cached(req) || c.Cached(other) {
		t.Errorf("Cached(req) = %v, Cached(other) = %v; want true, false", c.Cached(req), c.Cached(other))
	}
	if s.Calls() != 1 || c.Usage() != before {
		t.Errorf("the look-up made %d calls and changed usage %+v → %+v", s.Calls()-1, before, c.Usage())
	}
	noCacheReq := req
	noCacheReq.NoCache = true
	if c.Cached(noCacheReq) {
		t.Error("Cached with Request.NoCache")
	}

	cfg.NoCache = true
	if newClient(t, cfg).Cached(req) {
		t.Error("Cached with Config.NoCache")
	}
	cfg.NoCache, cfg.CacheDir = false, ""
	if newClient(t, cfg).Cached(req) {
		t.Error("Cached without a cache folder")
	}

	// A corrupt entry is a miss: the call would be made.
	for _, f := range cacheFiles(t, dir) {
		if err := os.WriteFile(f, []byte("{not json"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if c.Cached(req) {
		t.Error("Cached with a corrupt entry")
	}
}
