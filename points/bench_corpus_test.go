package points_test

import (
	"context"
	"testing"

	"github.com/vectorlint/vectorlint/internal/corpusbench"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// BenchmarkScoreCorpusFunctionPoints scores every function point of the corpus against a
// synthetic response per prompt (spec/quality.md: ≤ 1 s in total); corpusbench builds the
// same work for the benchmark program.
func BenchmarkScoreCorpusFunctionPoints(b *testing.B) {
	var files []corpusbench.File
	for _, f := range testutil.SharedFiles(b, "corpus/weval-configs/blueprints", 1<<30, ".yml", ".yaml", ".json") {
		files = append(files, corpusbench.File{Path: f.Path, Data: f.Data})
	}
	if len(files) == 0 {
		b.Skip("the shared corpus is not here (set VECTORLINT_SHARED)")
	}
	work := corpusbench.FunctionPoints(files)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		work.Score(ctx)
	}
	b.ReportMetric(float64(work.Points), "points/op")
}
