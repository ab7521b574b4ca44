package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// cacheNow is the clock of the cache command tests.
var cacheNow = time.Date(2025, 7, 5, 12, 0, 0, 0, time.UTC)

// runCacheApp runs vectorlint in dir with env and the fixed clock.
func runCacheApp(t *testing.T, dir string, env map[string]string, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		now:       func() time.Time { return cacheNow }}
	code := a.run(context.Background(), args)
	return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// fakeCacheEntry writes an entry of size bytes last used at used.
func fakeCacheEntry(t *testing.T, cache string, c byte, size int, used time.Time) {
	t.Helper()
	key := strings.Repeat(string(c), 64)
	path := filepath.Join(cache, "llm-v1", key[:2], key+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, bytes.Repeat([]byte("x"), size), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, used, used); err != nil {
		t.Fatal(err)
	}
}

// TestCacheCommand runs cache info, prune and clear on a cache of four entries of known sizes
// and last uses, and checks their exact output.
func TestCacheCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cache := filepath.Join(dir, "cache")
	fakeCacheEntry(t, cache, 'a', 1_000, cacheNow.Add(-60*24*time.Hour))
	fakeCacheEntry(t, cache, 'b', 2_000, cacheNow.Add(-40*24*time.Hour))
	fakeCacheEntry(t, cache, 'c', 300_000, cacheNow.Add(-2*time.Hour))
	fakeCacheEntry(t, cache, 'd', 400_000, cacheNow.Add(-time.Minute))
	foreign := filepath.Join(cache, "keep.txt")
	if err := os.WriteFile(foreign, []byte("not an entry"), 0o644); err != nil {
		t.Fatal(err)
	}
	home := map[string]string{"HOME": dir}
	steps := []struct {
		args   []string
		env    map[string]string
		stdout string
	}{
		{[]string{"cache", "info", "--cache-dir", "cache"}, home, "Folder:   " + cache + "\n" +
			"Entries:  4\n" +
			"Size:     703 kB (703000 bytes)\n" +
			"Cap:      1 GB (default)\n" +
			"Oldest:   2025-05-06 12:00:00 UTC (least recently used)\n" +
			"Newest:   2025-07-05 11:59:00 UTC (most recently used)\n"},
		{[]string{"cache", "info", "--cache-dir", "cache"}, map[string]string{"VECTORLINT_CACHE_MAX_SIZE": "2GiB"}, ""},
		{[]string{"cache", "prune", "--cache-dir", "cache", "--older-than", "30d"}, home,
			"Removed 2 entries (3 kB) from " + cache + "; 2 entries (700 kB) remain.\n"},
		{[]string{"cache", "prune", "--cache-dir", "cache", "--max-size", "500kB"}, home,
			"Removed 1 entry (300 kB) from " + cache + "; 1 entry (400 kB) remain.\n"},
		{[]string{"cache", "clear", "--cache-dir", "cache"}, home,
			"Removed 1 entry (400 kB) from " + cache + "; 0 entries (0 B) remain.\n"},
		{[]string{"cache", "info", "--cache-dir", "cache", "--cache-max-size", "0"}, home, "Folder:   " + cache + "\n" +
			"Entries:  0\n" +
			"Size:     0 B (0 bytes)\n" +
			"Cap:      none (--cache-max-size)\n"},
	}
	for _, st := range steps {
		r := runCacheApp(t, dir, st.env, st.args...)
		if st.stdout == "" { // only the cap line matters
			if r.code != exitOK || !strings.Contains(r.stdout, "\nCap:      2.1 GB (VECTORLINT_CACHE_MAX_SIZE)\n") {
				t.Errorf("%v: exit %d\n%s%s", st.args, r.code, r.stdout, r.stderr)
			}
			continue
		}
		r.expect(t, exitOK, st.stdout, "")
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("clear removed a file that is not an entry: %v", err)
	}

	// The user cache folder is the default; its cap can come from vectorlint.ini.
	writeTestTree(t, dir, map[string]string{"vectorlint.ini": "CacheMaxSize = 500MB\n"})
	r := runCacheApp(t, dir, map[string]string{"XDG_CACHE_HOME": filepath.Join(dir, "xdg")}, "cache", "info")
	r.expect(t, exitOK, "Folder:   "+filepath.Join(dir, "xdg", "vectorlint")+"\nEntries:  0\nSize:     0 B (0 bytes)\n"+
		"Cap:      500 MB (CacheMaxSize in "+filepath.Join(dir, "vectorlint.ini")+")\n", "")
}

// TestCacheCommandErrors covers what the cache commands refuse: a folder that is not a cache,
// bad sizes and durations, no cache folder at all.
func TestCacheCommandErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"home/thesis.md": "Years of work.\n"})
	home := filepath.Join(dir, "home")
	for _, tt := range []struct {
		args   []string
		env    map[string]string
		stderr string
	}{
		{[]string{"cache", "clear", "--cache-dir", "home"}, nil,
			"vectorlint cache clear: " + home + " does not look like a vectorlint cache (it has no llm-v1 folder of entries); nothing was removed\n"},
		{[]string{"cache", "prune", "--cache-dir", "home", "--max-size", "1"}, nil,
			"vectorlint cache prune: " + home + " does not look like a vectorlint cache (it has no llm-v1 folder of entries); nothing was removed\n"},
		{[]string{"cache", "prune", "--cache-dir", "c", "--max-size", "lots"}, nil,
			"vectorlint cache prune: --max-size: expected a size such as 500MB, 2GB, 1GiB or a number of bytes (0: no limit), found \"lots\"\n"},
		{[]string{"cache", "prune", "--cache-dir", "c", "--older-than", "a while"}, nil,
			"vectorlint cache prune: --older-than: expected a duration such as 30d, 12h or 90m, found \"a while\"\n"},
		{[]string{"cache", "info", "--cache-dir", "c"}, map[string]string{"VECTORLINT_CACHE_MAX_SIZE": "big"}, "vectorlint cache info: VECTORLINT_CACHE_MAX_SIZE: " +
			"expected a size such as 500MB, 2GB, 1GiB or a number of bytes (0: no limit), found \"big\"\n"},
		{[]string{"cache", "info"}, nil, "vectorlint cache info: no user cache folder (HOME and XDG_CACHE_HOME are unset): give --cache-dir\n"},
		{[]string{"cache", "purge"}, nil, "vectorlint cache: unknown command \"purge\" (expected info, prune, clear or key)\n\n" + cacheUsage},
	} {
		r := runCacheApp(t, dir, tt.env, tt.args...)
		r.expect(t, exitFailure, "", tt.stderr)
	}
	if _, err := os.Stat(filepath.Join(home, "thesis.md")); err != nil {
		t.Fatal("a file outside any cache was removed")
	}
}

// TestLintCacheCap lints with a cap far below what the run writes: least recently used replies
// are pruned as the run goes (--verbose says so), and the cache ends within the cap.
func TestLintCacheCap(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	dir := t.TempDir()
	writeTestTree(t, dir, faultProject())
	cache := filepath.Join(dir, "cache")
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--cache-dir", "cache", "--cache-max-size", "1kB", "--verbose", "docs")
	if r.code != exitFindings || !strings.Contains(r.stderr, "vectorlint: llm: cache-pruned: removed ") {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	info, err := replycache.ReadInfo(cache)
	if err != nil || info.Size > 1000 || info.Entries == 0 {
		t.Errorf("cache after the run: %+v, %v", info, err)
	}
	// The ini's CacheMaxSize applies when no flag or variable is given; a bad value is a
	// configuration error naming the line.
	files := faultProject()
	files["vectorlint.ini"] = "CacheMaxSize = half\n" + files["vectorlint.ini"]
	writeTestTree(t, dir, files)
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--cache-dir", "cache", "docs")
	want := `vectorlint.ini:1: CacheMaxSize: expected 0 (no cap) or a size from 1MB to 100TB, such as 500MB, 2GB or 1GiB, found "half"`
	if r.code != exitFailure || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d\n%s", r.code, r.stderr)
	}
}
