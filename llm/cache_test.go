package llm_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// cacheFiles lists the regular files under dir.
func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() {
			files = append(files, p)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return files
}

func TestCacheHit(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("cached answer"))
	dir := t.TempDir()
	cfg := fastConfig()
	cfg.CacheDir = dir
	var log eventLog
	cfg.OnEvent = log.add
	c := newClient(t, cfg)
	req := userRequest(s, "We did this in order to win.")
	first, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if s.Calls() != 1 {
		t.Fatalf("server calls = %d, want 1: the second identical request must come from the cache", s.Calls())
	}
	want := *first
	want.Cached, want.Attempts = true, 0
	if !reflect.DeepEqual(*second, want) {
		t.Fatalf("cached response:\n got %+v\nwant %+v", *second, want)
	}
	if u := c.Usage(); !reflect.DeepEqual(u, llm.Usage{Calls: 1, CachedCalls: 1, InputTokens: first.Tokens.Input, OutputTokens: first.Tokens.Output}) {
		t.Fatalf("usage %+v", u)
	}
	if got := log.kinds(); !reflect.DeepEqual(got, []string{"request", "response", "cache-hit"}) {
		t.Fatalf("events %v", got)
	}
	if hit := log.events[2]; !reflect.DeepEqual(hit.Messages, req.Messages) {
		t.Fatalf("cache-hit event messages %+v (--show-prompt needs them)", hit.Messages)
	}

	// A new client over the same directory (the next run) makes no call either.
	c2 := newClient(t, cfg)
	if _, err := c2.Complete(context.Background(), req); err != nil || s.Calls() != 1 {
		t.Fatalf("second run: %v, %d calls", err, s.Calls())
	}

	files := cacheFiles(t, dir)
	if len(files) != 1 {
		t.Fatalf("cache files %v, want one entry", files)
	}
	data, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "in order to") || strings.Contains(string(data), s.URL) {
		t.Fatalf("the cache entry stores the request: %s", data)
	}
	info, _ := os.Stat(files[0])
	if perm := info.Mode().Perm(); perm != 0o600 {
		t.Fatalf("cache entry permissions %v, want 0600", perm)
	}
}

func TestCacheKey(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	other := llmtest.Start(t)
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	base := userRequest(s, "text")
	if _, err := c.Complete(context.Background(), base); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		edit func(*llm.Request)
		hit  bool
	}{
		{"identical", func(*llm.Request) {}, true},
		{"another API key", func(r *llm.Request) { r.Endpoint.APIKey = "sk-other-key-0123456789" }, true},
		{"other header values", func(r *llm.Request) { r.Endpoint.Headers = map[string]string{"X-Title": "x"} }, true},
		{"a label", func(r *llm.Request) { r.Label = "Acme.Rule a.md" }, true},
		{"temperature", func(r *llm.Request) { r.Temperature = ptr(0.0) }, false},
		{"no temperature", func(r *llm.Request) { r.Endpoint.Temperature = nil }, false},
		{"model", func(r *llm.Request) { r.Endpoint.Model = "other-model" }, false},
		{"a message", func(r *llm.Request) { r.Messages = withText(*r, 1).Messages }, false},
		{"a role", func(r *llm.Request) {
			r.Messages = append([]llm.Message(nil), r.Messages...)
			r.Messages[0].Role = llm.RoleUser
		}, false},
		{"schema", func(r *llm.Request) { r.Schema = &llm.Schema{Schema: map[string]any{"type": "object"}} }, false},
		{"JSON mode", func(r *llm.Request) { r.JSONMode = true }, false},
		{"max tokens", func(r *llm.Request) { r.MaxTokens = 10 }, false},
		{"extra parameters", func(r *llm.Request) { r.Extra = map[string]any{"seed": 1} }, false},
		{"endpoint URL", func(r *llm.Request) { r.Endpoint.BaseURL = other.URL }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := base
			tt.edit(&req)
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if resp.Cached != tt.hit {
				t.Fatalf("cached = %v, want %v", resp.Cached, tt.hit)
			}
		})
	}
}

func TestNoCache(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	dir := t.TempDir()
	cfg := fastConfig()
	cfg.CacheDir = dir
	cfg.NoCache = true
	c := newClient(t, cfg)
	req := userRequest(s, "x")
	for i := 0; i < 2; i++ {
		if resp, err := c.Complete(context.Background(), req); err != nil || resp.Cached {
			t.Fatalf("call %d: %v cached=%v", i, err, resp != nil && resp.Cached)
		}
	}
	if s.Calls() != 2 || len(cacheFiles(t, dir)) != 0 {
		t.Fatalf("global NoCache: %d calls, files %v", s.Calls(), cacheFiles(t, dir))
	}

	cfg.NoCache = false
	c = newClient(t, cfg)
	req.NoCache = true
	for i := 0; i < 2; i++ {
		if _, err := c.Complete(context.Background(), req); err != nil {
			t.Fatal(err)
		}
	}
	if s.Calls() != 4 || len(cacheFiles(t, dir)) != 0 {
		t.Fatalf("per-call NoCache: %d calls, files %v", s.Calls(), cacheFiles(t, dir))
	}
}

func TestCorruptCacheEntry(t *testing.T) {
	t.Parallel()
	corruptions := []struct {
		name string
		data func(valid []byte, other []byte) []byte
	}{
		{"garbage", func([]byte, []byte) []byte { return []byte("{garbage") }},
		{"truncated", func(v []byte, _ []byte) []byte { return v[:len(v)/2] }},
		{"empty", func([]byte, []byte) []byte { return nil }},
		{"another entry's content", func(_ []byte, o []byte) []byte { return o }},
		{"unknown version", func(v []byte, _ []byte) []byte {
			return []byte(strings.Replace(string(v), `"version":1`, `"version":99`, 1))
		}},
	}
	for _, tt := range corruptions {
		t.Run(tt.name, func(t *testing.T) {
			s := llmtest.Start(t)
			s.On(llmtest.UserContains("other"), llmtest.Text("other answer"))
			s.SetDefault(llmtest.Text("the answer"))
			dir := t.TempDir()
			cfg := fastConfig()
			cfg.CacheDir = dir
			var log eventLog
			cfg.OnEvent = log.add
			c := newClient(t, cfg)
			req := userRequest(s, "text")
			if _, err := c.Complete(context.Background(), req); err != nil {
				t.Fatal(err)
			}
			entry := cacheFiles(t, dir)[0]
			valid, _ := os.ReadFile(entry)
			if _, err := c.Complete(context.Background(), userRequest(s, "other")); err != nil {
				t.Fatal(err)
			}
			var otherData []byte
			for _, f := range cacheFiles(t, dir) {
				if f != entry {
					otherData, _ = os.ReadFile(f)
				}
			}
			if err := os.WriteFile(entry, tt.data(valid, otherData), 0o600); err != nil {
				t.Fatal(err)
			}
			resp, err := c.Complete(context.Background(), req)
			if err != nil || resp.Cached || resp.Content != "the answer" || s.Calls() != 3 {
				t.Fatalf("after corruption: %v cached=%v content=%q calls=%d", err, resp.Cached, resp.Content, s.Calls())
			}
			if !strings.Contains(log.text(), "treated as a miss") {
				t.Fatalf("no cache-error event:\n%s", log.text())
			}
			// The entry was replaced: the next call is a hit.
			resp, err = c.Complete(context.Background(), req)
			if err != nil || !resp.Cached || s.Calls() != 3 {
				t.Fatalf("after replacement: %v cached=%v calls=%d", err, resp.Cached, s.Calls())
			}
		})
	}
}

func TestUnwritableCache(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	file := filepath.Join(t.TempDir(), "not-a-directory")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := fastConfig()
	cfg.CacheDir = file
	var log eventLog
	cfg.OnEvent = log.add
	c := newClient(t, cfg)
	resp, err := c.Complete(context.Background(), userRequest(s, "x"))
	if err != nil || resp.Content != "ok" {
		t.Fatalf("a cache that cannot be written must not fail the call: %v", err)
	}
	if got := log.kinds(); !reflect.DeepEqual(got, []string{"cache-error", "request", "response", "cache-error"}) {
		t.Fatalf("events %v", got)
	}
}

func TestCacheConcurrentWritersOfOneEntry(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	dir := t.TempDir()
	cfg := fastConfig()
	cfg.CacheDir = dir
	cfg.Concurrency = 16
	// Separate clients, as separate runs would be: each misses and writes the same entry.
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		c := newClient(t, cfg)
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.Complete(context.Background(), userRequest(s, "same")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	files := cacheFiles(t, dir)
	if len(files) != 1 || strings.Contains(files[0], ".tmp-") {
		t.Fatalf("files after concurrent writes: %v", files)
	}
	c := newClient(t, cfg)
	before := s.Calls()
	if resp, err := c.Complete(context.Background(), userRequest(s, "same")); err != nil || !resp.Cached || s.Calls() != before {
		t.Fatalf("entry unusable after concurrent writes: %v", err)
	}
}

func TestCheckedReplyCaching(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.On(llmtest.LastUserContains("could not be used"), llmtest.JSON(map[string]int{"score": 3}))
	s.On(llmtest.Any(), llmtest.Text("no JSON here"))
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	req := userRequest(s, "rate this")
	if _, err := c.CompleteJSON(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	if s.Calls() != 2 {
		t.Fatalf("first run: %d calls", s.Calls())
	}
	// The next run makes no call at all: the corrected reply is stored under the original request.
	c2 := newClient(t, cfg)
	resp, err := c2.CompleteJSON(context.Background(), req, nil)
	if err != nil || !resp.Cached || resp.JSON != `{"score":3}` || s.Calls() != 2 {
		t.Fatalf("second run: %v cached=%v JSON=%q calls=%d", err, resp.Cached, resp.JSON, s.Calls())
	}

	// A reply rejected twice is not cached: the next run asks again.
	s2 := llmtest.Start(t)
	s2.SetDefault(llmtest.Text("never JSON"))
	cfg.CacheDir = t.TempDir()
	c3 := newClient(t, cfg)
	for run := 1; run <= 2; run++ {
		if _, err := c3.CompleteJSON(context.Background(), userRequest(s2, "x"), nil); err == nil {
			t.Fatal("expected a ReplyError")
		}
		if s2.Calls() != 2*run {
			t.Fatalf("run %d: %d calls", run, s2.Calls())
		}
	}
	if files := cacheFiles(t, cfg.CacheDir); len(files) != 0 {
		t.Fatalf("rejected replies were cached: %v", files)
	}
}

// Samples of one request (spec/linter.md §12) are distinct calls with distinct cached replies;
// the first sample keeps the key a request without samples had.
func TestCacheSamples(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("answer"))
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	req := userRequest(s, "We did this in order to win.")
	for _, sample := range []int{0, 1, 2, 1, 0} {
		r := req
		r.Sample = sample
		if _, err := c.Complete(context.Background(), r); err != nil {
			t.Fatal(err)
		}
	}
	if s.Calls() != 3 {
		t.Fatalf("server calls = %d, want 3: samples 0, 1 and 2 once each", s.Calls())
	}
	if n := len(cacheFiles(t, cfg.CacheDir)); n != 3 {
		t.Fatalf("%d cache entries, want 3", n)
	}
	if got := s.Requests()[0].Body; strings.Contains(string(got), `"sample"`) {
		t.Fatalf("the sample number was sent: %s", got)
	}
}

// TestCacheOnly: a cache-only client answers what the cache holds and fails the rest at once,
// sending nothing.
func TestCacheOnly(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("answer"))
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	warm := newClient(t, cfg)
	cached := userRequest(s, "We did this in order to win.")
	if _, err := warm.Complete(context.Background(), cached); err != nil {
		t.Fatal(err)
	}
	cfg.CacheOnly = true
	c := newClient(t, cfg)
	if r, err := c.Complete(context.Background(), cached); err != nil || r.Content != "answer" || !r.Cached {
		t.Fatalf("cached request: %+v, %v", r, err)
	}
	_, err := c.Complete(context.Background(), userRequest(s, "Another text."))
	var ae *llm.APIError
	if !errors.As(err, &ae) || ae.Kind != llm.KindRequest || !strings.Contains(err.Error(), "no reply in the cache for this request, and this run makes no live call") {
		t.Fatalf("uncached request: %v", err)
	}
	if s.Calls() != 1 {
		t.Fatalf("%d server calls, want 1 (the warm-up)", s.Calls())
	}
}
