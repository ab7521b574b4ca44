package llm_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// entryFiles lists the entries under a cache folder by key.
func entryFiles(t *testing.T, dir string) []string {
	t.Helper()
	var keys []string
	for _, f := range cacheFiles(t, dir) {
		if k, ok := strings.CutSuffix(filepath.Base(f), ".json"); ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// TestCacheCapEvictsLeastRecentlyUsed fills a capped cache through the client: when a write
// passes the cap, the least recently used entries go, and an entry read from the cache counts
// as used.
func TestCacheCapEvictsLeastRecentlyUsed(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	s.SetDefault(llmtest.Text("the same reply for every text"))
	dir := t.TempDir()
	texts := []string{"text A", "text B", "text C", "text D"}

	// One entry first, to learn an entry's size.
	cfg := fastConfig()
	cfg.CacheDir = dir
	c := newClient(t, cfg)
	if _, err := c.Complete(context.Background(), userRequest(s, texts[0])); err != nil {
		t.Fatal(err)
	}
	keyA := entryFiles(t, dir)[0]
	info, err := replycache.ReadInfo(dir)
	if err != nil || info.Entries != 1 {
		t.Fatal(info, err)
	}
	size := info.Size

	cfg.CacheMaxSize = size*3 + size/2 // room for three entries
	var log eventLog
	cfg.OnEvent = log.add
	c = newClient(t, cfg)
	step := func(text string) {
		t.Helper()
		time.Sleep(5 * time.Millisecond) // distinct times on any file system
		if _, err := c.Complete(context.Background(), userRequest(s, text)); err != nil {
			t.Fatal(err)
		}
	}
	step(texts[1])
	keys := entryFiles(t, dir)
	keyB := keys[0]
	if keyB == keyA {
		keyB = keys[1]
	}
	step(texts[2])
	step(texts[0]) // a hit: A is now the most recently used
	if s.Calls() != 3 {
		t.Fatalf("%d calls; A was not answered from the cache", s.Calls())
	}
	if len(entryFiles(t, dir)) != 3 {
		t.Fatalf("entries %v before the cap is passed", entryFiles(t, dir))
	}
	fiB, err := os.Stat(filepath.Join(dir, "llm-v1", keyB[:2], keyB+".json"))
	if err != nil {
		t.Fatal(err)
	}
	step(texts[3]) // four entries pass the cap: B, the least recently used, goes
	got := entryFiles(t, dir)
	if len(got) != 3 || slices.Contains(got, keyB) || !slices.Contains(got, keyA) {
		t.Errorf("entries after the cap %v: want A kept and B (%s) removed", got, keyB)
	}
	var pruned []string
	for _, e := range log.events {
		if e.Kind == llm.EventCachePruned {
			pruned = append(pruned, e.String())
		}
	}
	after, _ := replycache.ReadInfo(dir)
	want := "llm: cache-pruned: removed 1 entry (" + replycache.FormatSize(fiB.Size()) + "), the least recently used, to stay under the cap of " +
		replycache.FormatSize(cfg.CacheMaxSize) + "; 3 entries (" + replycache.FormatSize(after.Size) + ") remain"
	if len(pruned) != 1 || pruned[0] != want {
		t.Errorf("events %q\nwant %q", pruned, want)
	}
	// B is a miss now: asked again, it is a call.
	step(texts[1])
	if s.Calls() != 5 {
		t.Errorf("%d calls, want 5", s.Calls())
	}
}
