package blueprint

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/points"
)

// BenchmarkParseCorpus parses every blueprint of the shared corpus once per iteration
// (spec/quality.md: ≤ 1 s in total).
func BenchmarkParseCorpus(b *testing.B) {
	_, files := corpus(b)
	b.ReportAllocs()
	for b.Loop() {
		for _, f := range files {
			_, _ = Parse(f.data, ParseOptions{File: f.rel})
		}
	}
}

// benchBlueprint is the blueprint of the generation benchmarks: 20 prompts × 2 models × 2
// temperatures, each with two judged points and one function point, and two judges, all
// answered by one fake server (no latency).
func benchBlueprint(b *testing.B) (*Blueprint, *llmtest.Server, envsource.LookupFunc) {
	srv := llmtest.NewServer()
	b.Cleanup(srv.Close)
	srv.On(llmtest.SystemContains("expert examiner"), llmtest.Text("<reflection>ok</reflection><classification>CLASS_MOSTLY_PRESENT</classification>"))
	srv.SetDefault(llmtest.Text("Paris is the capital of France, and the Seine runs through it."))
	var src strings.Builder
	src.WriteString("models: [openai:a, openai:b]\ntemperatures: [0, 1]\nevaluationConfig:\n  llm-coverage:\n    judges:\n" +
		"      - {model: 'openrouter:j1', approach: holistic}\n      - {model: 'openrouter:j2', approach: standard}\n---\n")
	for i := range 20 {
		fmt.Fprintf(&src, "- id: p%d\n  prompt: Question %d?\n  should: [Names Paris, Mentions the Seine, {$contains: Paris}]\n", i, i)
	}
	bp, err := Parse([]byte(src.String()), ParseOptions{File: "bench.yml"})
	if err != nil {
		b.Fatal(err)
	}
	env := envsource.LookupFunc(func(k string) (string, bool) {
		v, ok := map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": srv.URL, "OPENROUTER_API_KEY": "k", "OPENROUTER_BASE_URL": srv.URL}[k]
		return v, ok
	})
	return bp, srv, env
}

// BenchmarkGenerateAndJudge measures the engine's own cost around model calls: the blueprint of
// benchBlueprint generated and judged against the fake server (no cache), so the figure is the
// overhead of 80 generations and 320 judge calls over local HTTP.
func BenchmarkGenerateAndJudge(b *testing.B) {
	bp, _, env := benchBlueprint(b)
	b.ReportAllocs()
	for b.Loop() {
		c, err := llm.New(llm.Config{Concurrency: 16})
		if err != nil {
			b.Fatal(err)
		}
		judge, _ := NewLLMJudge(bp, JudgeOptions{Client: c, LookupEnv: env, ProviderConcurrency: 16})
		resp, err := Generate(context.Background(), bp, bp.Models, GenerateOptions{Client: c, LookupEnv: env, ProviderConcurrency: 16})
		if err != nil {
			b.Fatal(err)
		}
		res, err := Score(context.Background(), bp, resp, ScoreOptions{Env: points.Env{Judge: judge}})
		if err != nil || !res.Complete() {
			b.Fatalf("%v %q", err, res.Failures())
		}
		c.Close()
	}
}

// BenchmarkRun is BenchmarkGenerateAndJudge through Run, as the command calls it (the
// llm-coverage and similarity methods, no file written): the orchestration adds its checks and
// nothing per call.
func BenchmarkRun(b *testing.B) {
	bp, _, env := benchBlueprint(b)
	b.ReportAllocs()
	for b.Loop() {
		c, err := llm.New(llm.Config{Concurrency: 16})
		if err != nil {
			b.Fatal(err)
		}
		res, err := Run(context.Background(), Options{Blueprint: bp, Client: c, LookupEnv: env, ProviderConcurrency: 16,
			Methods: Methods{Coverage: true, Similarity: true}})
		if err != nil || !res.Complete() {
			b.Fatalf("%v %q", err, res.Failures())
		}
		c.Close()
	}
}
