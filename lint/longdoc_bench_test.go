package lint

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// BenchmarkEvaluateLongDocument measures the linter's own cost on one 20,000-word document with
// a semi-objective and a subjective rule, against the fake server with no latency: planning,
// chunking, prompts, local HTTP, reply parsing, locating and scoring of every chunk.
func BenchmarkEvaluateLongDocument(b *testing.B) {
	dir := b.TempDir()
	files := map[string]string{
		"vectorlint.ini":     "RulesPath = rules\n[docs/*.md]\nRunRules = Acme\n",
		"rules/Acme/a.md":    "---\nid: A\nname: A\n---\nFind wordy phrases.\n",
		"rules/Acme/tone.md": "---\nid: Tone\nname: Tone\ntype: subjective\ncriteria: [{id: Warmth, name: Warmth}]\n---\nRate the tone.\n",
		"docs/long.md":       testutil.LongText(20000),
	}
	testutil.WriteFiles(b, dir, files)
	srv := llmtest.Start(b)
	srv.On(llmtest.SystemContains(`<rule name="Tone">`), llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Warmth", "score": 3}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "plans the calls", "line": 3, "message": "Wordy."}}}))
	client, err := llm.New(llm.Config{Concurrency: 16})
	if err != nil {
		b.Fatal(err)
	}
	defer client.Close()
	b.ReportAllocs()
	for b.Loop() {
		proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
		if err != nil {
			b.Fatal(err)
		}
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
		if err != nil {
			b.Fatal(err)
		}
		var findings int
		_, err = Evaluate(context.Background(), plan, EvalOptions{Client: client, Concurrency: 16,
			Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "m"}, ConfidenceThreshold: 0},
			func(fr finding.FileResult) error { findings += len(fr.Findings); return nil })
		if err != nil || findings == 0 {
			b.Fatalf("%v, %d findings", err, findings)
		}
	}
	b.ReportMetric(float64(srv.Calls())/float64(b.N), "calls/op")
}
