package lint

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// BenchmarkEvaluate measures a lint run against the fake server with a fixed latency L per call
// and concurrency C, against the bound ceil(N/C) × L of spec/quality.md (200 documents × 3
// rules, L = 100 ms, C = 16). It reports the ratio to the bound (target ≤ 1.15) and, for the
// second run over a warm cache, the calls made (target 0) and its wall time.
//
//	go test -run XXX -bench BenchmarkEvaluate -benchtime 1x ./lint
func BenchmarkEvaluate(b *testing.B) {
	const (
		docs        = 200
		latency     = 100 * time.Millisecond
		concurrency = 16
	)
	files := map[string]string{
		"vectorlint.ini":     "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/a.md":    "---\nid: A\nname: A\n---\nFind wordy phrases.\n",
		"rules/Acme/b.md":    "---\nid: B\nname: B\n---\nFind passive voice.\n",
		"rules/Acme/tone.md": "---\nid: Tone\nname: Tone\ntype: subjective\ncriteria: [{id: Warmth, name: Warmth}]\n---\nRate the tone.\n",
	}
	for i := range docs {
		files[fmt.Sprintf("docs/d%03d.md", i)] = fmt.Sprintf("# Document %d\n\nWe act in order to ship the release on time.\n", i)
	}
	dir := b.TempDir()
	testutil.WriteFiles(b, dir, files)
	proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err != nil {
		b.Fatal(err)
	}
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		b.Fatal(err)
	}
	srv := llmtest.Start(b, llmtest.WithLatency(latency))
	srv.On(llmtest.SystemContains(`<rule name="Tone">`), llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Warmth", "score": 3}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "in order to", "line": 3, "message": "Wordy."}}}))
	calls := plan.Calls()
	bound := time.Duration(math.Ceil(float64(calls)/concurrency)) * latency

	run := func(cache string) (time.Duration, int) {
		client, err := llm.New(llm.Config{Concurrency: concurrency, CacheDir: cache})
		if err != nil {
			b.Fatal(err)
		}
		defer client.Close()
		before := srv.Calls()
		start := time.Now()
		_, err = Evaluate(context.Background(), plan, EvalOptions{Client: client, Concurrency: concurrency,
			Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "m"}, ConfidenceThreshold: config.DefaultConfidenceThreshold},
			func(finding.FileResult) error { return nil })
		if err != nil {
			b.Fatal(err)
		}
		return time.Since(start), srv.Calls() - before
	}
	var cold, warm time.Duration
	var warmCalls int
	for range b.N {
		cache := b.TempDir()
		d, n := run(cache)
		if n != calls {
			b.Fatalf("%d calls, want %d", n, calls)
		}
		cold += d
		d, n = run(cache)
		warm += d
		warmCalls += n
	}
	b.ReportMetric(float64(calls), "calls/run")
	b.ReportMetric(cold.Seconds()/float64(b.N)/bound.Seconds(), "ratio-to-bound")
	b.ReportMetric(warm.Seconds()/float64(b.N), "warm-s/run")
	b.ReportMetric(float64(warmCalls)/float64(b.N), "warm-calls/run")
}
