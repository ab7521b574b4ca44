package llm_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// BenchmarkComplete measures the client's own cost per call (request building, HTTP to a
// local server with no latency, reply parsing, accounting).
func BenchmarkComplete(b *testing.B) {
	s := llmtest.NewServer(llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{}})))
	defer s.Close()
	c, _ := llm.New(llm.Config{})
	defer c.Close()
	req := userRequest(s, "We did this in order to win.")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := c.CompleteJSON(context.Background(), req, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompleteCached measures a cache hit (key hash, file read, decode).
func BenchmarkCompleteCached(b *testing.B) {
	s := llmtest.NewServer()
	defer s.Close()
	c, _ := llm.New(llm.Config{CacheDir: b.TempDir()})
	defer c.Close()
	req := userRequest(s, "We did this in order to win.")
	if _, err := c.Complete(context.Background(), req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if resp, err := c.Complete(context.Background(), req); err != nil || !resp.Cached {
			b.Fatal(err)
		}
	}
}

// BenchmarkConcurrentCalls runs N calls of latency L with concurrency C and reports the wall
// time's ratio to the physical bound ceil(N/C)·L (spec/quality.md).
func BenchmarkConcurrentCalls(b *testing.B) {
	const n, conc, latency = 96, 16, 50 * time.Millisecond
	s := llmtest.NewServer(llmtest.WithLatency(latency))
	defer s.Close()
	c, _ := llm.New(llm.Config{Concurrency: conc})
	defer c.Close()
	bound := time.Duration((n+conc-1)/conc) * latency
	var total time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		var wg sync.WaitGroup
		for j := 0; j < n; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := c.Complete(context.Background(), userRequest(s, fmt.Sprint(i, "/", j))); err != nil {
					b.Error(err)
				}
			}()
		}
		wg.Wait()
		total += time.Since(start)
	}
	b.ReportMetric(float64(total)/float64(b.N)/float64(bound), "×bound")
	b.ReportMetric(float64(s.MaxInFlight()), "max-in-flight")
}
