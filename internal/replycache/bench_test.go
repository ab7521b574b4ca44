package replycache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bigCache writes n entries of about 700 bytes (a typical lint reply) under dir, with distinct
// last-use times, as a cache of that size would hold.
func bigCache(b *testing.B, dir string, n int) int64 {
	b.Helper()
	content := strings.Repeat("x", 700)
	base := time.Now().Add(-time.Duration(n) * time.Second)
	var total int64
	for i := range n {
		sum := sha256.Sum256([]byte(strconv.Itoa(i))) // keys are hashes: spread over the 256 folders
		key := hex.EncodeToString(sum[:])
		path := filepath.Join(dir, subdir, key[:2], key+".json")
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
				b.Fatal(err)
			}
		}
		t := base.Add(time.Duration(i) * time.Second)
		if err := os.Chtimes(path, t, t); err != nil {
			b.Fatal(err)
		}
		total += int64(len(content))
	}
	return total
}

// BenchmarkCacheListing100k measures listing a cache of 100,000 entries with their sizes and
// times (ReadCacheInfo): what `vectorlint cache info` costs, and the listing a prune starts with.
// Run: go test -run XXX -bench BenchmarkCacheListing100k -benchtime 5x ./internal/replycache
func BenchmarkCacheListing100k(b *testing.B) {
	dir := b.TempDir()
	bigCache(b, dir, 100_000)
	b.ResetTimer()
	for range b.N {
		info, err := ReadInfo(dir)
		if err != nil || info.Entries != 100_000 {
			b.Fatal(info.Entries, err)
		}
	}
}

// BenchmarkCacheEstimate100k measures the estimate of a cache of 100,000 entries that the first
// write of a process with a cap makes (estimateSize).
// Run: go test -run XXX -bench BenchmarkCacheEstimate100k -benchtime 20x ./internal/replycache
func BenchmarkCacheEstimate100k(b *testing.B) {
	dir := b.TempDir()
	total := bigCache(b, dir, 100_000)
	b.ResetTimer()
	for range b.N {
		est, err := estimateSize(dir)
		if err != nil || est < total*9/10 || est > total*11/10 {
			b.Fatalf("estimate %d for %d bytes, %v", est, total, err)
		}
	}
}

// BenchmarkCachePutCapped100k measures a write to a capped cache of 100,000 entries once the
// process has counted it (every write after the first): the entry's write plus the count.
// Run: go test -run XXX -bench 'BenchmarkCachePut' ./internal/replycache
func BenchmarkCachePutCapped100k(b *testing.B) {
	dir := b.TempDir()
	total := bigCache(b, dir, 100_000)
	c := &Store{dir: dir, maxSize: total * 10}
	c.wrote(0) // the one estimate
	e := &Entry{Op: "chat", Model: "m", Content: strings.Repeat("y", 600)}
	b.ResetTimer()
	for i := range b.N {
		if err := c.Put(fmt.Sprintf("ff%062x", i), e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCachePutUncapped is BenchmarkCachePutCapped100k without a cap, for comparison.
func BenchmarkCachePutUncapped(b *testing.B) {
	c := &Store{dir: b.TempDir()}
	e := &Entry{Op: "chat", Model: "m", Content: strings.Repeat("y", 600)}
	b.ResetTimer()
	for i := range b.N {
		if err := c.Put(fmt.Sprintf("ff%062x", i), e); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCachePrune100k measures the prune a write sets off when a cache of 100,000 entries
// passes its cap: listing, sorting by last use, and removing the oldest 10%.
// Run: go test -run XXX -bench BenchmarkCachePrune100k -benchtime 3x ./internal/replycache
func BenchmarkCachePrune100k(b *testing.B) {
	for range b.N {
		b.StopTimer()
		dir := b.TempDir()
		total := bigCache(b, dir, 100_000)
		b.StartTimer()
		res, err := Prune(dir, PruneOptions{MaxSize: int64(float64(total) * pruneTarget)})
		if err != nil || res.Removed != 10_000 {
			b.Fatal(res, err)
		}
	}
}
