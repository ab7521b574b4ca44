package llm_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

func TestParseSize(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1048576", 1048576}, {"500MB", 500_000_000}, {"2GB", 2_000_000_000}, {"1GiB", 1 << 30},
		{"1 gb", 1_000_000_000}, {"1.5GiB", 3 << 29}, {"10kb", 10_000}, {"64 MiB", 64 << 20}, {" 3TB ", 3_000_000_000_000},
		{"12B", 12}, {"2tib", 2 << 40},
	} {
		got, err := llm.ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "MB", "-1", "1 XB", "1e3", "one GB", "NaN", "1..2GB", "9999999EB", "99999999999TiB"} {
		if _, err := llm.ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	_, err := llm.ParseSize("lots")
	if err == nil || err.Error() != `expected a size such as 500MB, 2GB, 1GiB or a number of bytes (0: no limit), found "lots"` {
		t.Errorf("error %v", err)
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1 kB", 56_712_345: "56.7 MB", 1_000_000_000: "1 GB", 1 << 30: "1.1 GB"} {
		if got := llm.FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

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
	info, err := llm.ReadCacheInfo(dir)
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
	after, _ := llm.ReadCacheInfo(dir)
	want := "llm: cache-pruned: removed 1 entry (" + llm.FormatSize(fiB.Size()) + "), the least recently used, to stay under the cap of " +
		llm.FormatSize(cfg.CacheMaxSize) + "; 3 entries (" + llm.FormatSize(after.Size) + ") remain"
	if len(pruned) != 1 || pruned[0] != want {
		t.Errorf("events %q\nwant %q", pruned, want)
	}
	// B is a miss now: asked again, it is a call.
	step(texts[1])
	if s.Calls() != 5 {
		t.Errorf("%d calls, want 5", s.Calls())
	}
}

// writeEntry writes a fake cache entry with the given key, size and last use.
func writeEntry(t *testing.T, dir, key string, size int, used time.Time) string {
	t.Helper()
	path := filepath.Join(dir, "llm-v1", key[:2], key+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("x", size)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, used, used); err != nil {
		t.Fatal(err)
	}
	return path
}

func key(c byte) string { return strings.Repeat(string(c), 64) }

// TestPruneAndClearCache prunes by size and by age, and clears, touching nothing in the folder
// that is not a cache entry.
func TestPruneAndClearCache(t *testing.T) {
	now := time.Date(2025, 7, 5, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	writeEntry(t, dir, key('a'), 100, now.Add(-72*time.Hour))
	writeEntry(t, dir, key('b'), 200, now.Add(-48*time.Hour))
	writeEntry(t, dir, key('c'), 300, now.Add(-2*time.Hour))
	writeEntry(t, dir, key('d'), 400, now.Add(-time.Minute))
	tmpOld := filepath.Join(dir, "llm-v1", "aa", ".tmp-123")
	tmpNew := filepath.Join(dir, "llm-v1", "aa", ".tmp-456")
	foreign := []string{filepath.Join(dir, "notes.txt"), filepath.Join(dir, "llm-v1", "README"), filepath.Join(dir, "llm-v1", "aa", "other.json"),
		filepath.Join(dir, "llm-v1", "zz", key('z')+".json")}
	for _, p := range append([]string{tmpOld, tmpNew}, foreign...) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chtimes(tmpOld, now.Add(-2*time.Hour), now.Add(-2*time.Hour))
	_ = os.Chtimes(tmpNew, now.Add(-time.Minute), now.Add(-time.Minute))

	info, err := llm.ReadCacheInfo(dir)
	if err != nil || info.Entries != 4 || info.Size != 1000 || !info.Oldest.Equal(now.Add(-72*time.Hour)) || !info.Newest.Equal(now.Add(-time.Minute)) {
		t.Fatalf("info %+v, %v", info, err)
	}
	res, err := llm.PruneCache(dir, llm.PruneOptions{OlderThan: 24 * time.Hour, Now: now})
	if err != nil || res != (llm.PruneResult{Removed: 2, RemovedBytes: 300, Remaining: 2, RemainingBytes: 700}) {
		t.Errorf("prune --older-than 24h: %+v, %v", res, err)
	}
	res, err = llm.PruneCache(dir, llm.PruneOptions{MaxSize: 500, Now: now})
	if err != nil || res != (llm.PruneResult{Removed: 1, RemovedBytes: 300, Remaining: 1, RemainingBytes: 400}) {
		t.Errorf("prune --max-size 500: %+v, %v", res, err)
	}
	if got := entryFiles(t, dir); !slices.Equal(got, []string{key('d'), "other", key('z')}) {
		t.Errorf("left %v", got)
	}
	if _, err := os.Stat(tmpOld); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a temporary file two hours old was kept")
	}
	if _, err := os.Stat(tmpNew); err != nil {
		t.Errorf("a temporary file a minute old (a writer may still rename it) was removed")
	}
	res, err = llm.ClearCache(dir)
	if err != nil || res != (llm.PruneResult{Removed: 1, RemovedBytes: 400}) {
		t.Errorf("clear: %+v, %v", res, err)
	}
	for _, p := range foreign {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("clear removed %s, which is not a cache entry", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "llm-v1", "dd")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the emptied entry folder dd was kept")
	}
}

// TestCacheCommandsRefuseOtherFolders points the cache functions at a folder that is not a
// cache (a home folder given by mistake): nothing is removed.
func TestCacheCommandsRefuseOtherFolders(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "thesis.json")
	if err := os.WriteFile(doc, []byte("years of work"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := dir + " does not look like a vectorlint cache (it has no llm-v1 folder of entries); nothing was removed"
	for name, f := range map[string]func() error{
		"info":  func() error { _, err := llm.ReadCacheInfo(dir); return err },
		"prune": func() error { _, err := llm.PruneCache(dir, llm.PruneOptions{MaxSize: 1}); return err },
		"clear": func() error { _, err := llm.ClearCache(dir); return err },
	} {
		var nc *llm.NotACacheError
		if err := f(); !errors.As(err, &nc) || err.Error() != want {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(doc); err != nil {
		t.Fatal("the file was removed")
	}
	// A missing folder is an empty cache.
	info, err := llm.ReadCacheInfo(filepath.Join(dir, "missing"))
	if err != nil || info.Entries != 0 {
		t.Errorf("missing folder: %+v, %v", info, err)
	}
}

// FuzzParseSize checks that any text is a size or an error, never a panic or a negative size,
// and that a plain number of bytes reads as itself.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "500MB", "2 GB", "1.5GiB", "1048576", "-1", "1e9", "NaN", "Inf", "9223372036854775807", "18446744073709551616", ".", "1.", ".5kb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := llm.ParseSize(s)
		if err == nil && n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if err == nil {
			if back, err := llm.ParseSize(strconv.FormatInt(n, 10)); err != nil || back != n {
				t.Fatalf("%d bytes read back as %d, %v", n, back, err)
			}
		}
	})
}
