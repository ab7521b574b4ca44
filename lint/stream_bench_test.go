package lint

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// BenchmarkEvaluateManyFiles lints 20,000 small documents of a lazy plan against the fake
// server (no latency) and reports the live heap that the plan keeps per file (plan-B/file) and
// the live heap above Evaluate's start after 2,000 files and after the last one (KB): flat when
// documents are released as their results are emitted. The fake server's request log is
// cleared as the run goes, so only the linter's memory is counted.
//
//	go test -run '^$' -bench EvaluateManyFiles -benchtime 1x ./lint
func BenchmarkEvaluateManyFiles(b *testing.B) {
	const n = 20000
	dir := b.TempDir()
	files := streamProject(0)
	for i := range n {
		files[fmt.Sprintf("d/f%05d.md", i)] = fmt.Sprintf("File %05d says hello in order to test.\n", i)
	}
	testutil.WriteFiles(b, dir, files)
	proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err != nil {
		b.Fatal(err)
	}
	srv := llmtest.NewServer(llmtest.WithDefault(violationsOf()))
	defer srv.Close()
	client := testClient(b, srv, EvalOptions{Concurrency: 16})
	heap := func() int64 {
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	for b.Loop() {
		start := heap()
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"d"}, Lazy: true})
		if err != nil {
			b.Fatal(err)
		}
		planned := heap()
		var early, emitted int64
		k := 0
		_, err = Evaluate(context.Background(), plan, client, func(finding.FileResult) error {
			k++
			if k%100 == 0 {
				srv.Reset()
			}
			switch k {
			case n / 10:
				early = heap() - planned
			case n:
				emitted = heap() - planned
			}
			return nil
		})
		if err != nil || k != n {
			b.Fatalf("%d files emitted: %v", k, err)
		}
		b.ReportMetric(float64(planned-start)/n, "plan-B/file")
		b.ReportMetric(float64(early)/1024, "heap-KB-after-2000")
		b.ReportMetric(float64(emitted)/1024, "heap-KB-after-20000")
		runtime.KeepAlive(plan)
	}
}
