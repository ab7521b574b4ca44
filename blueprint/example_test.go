package blueprint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// A Go program runs a blueprint as "vectorlint blueprint run" does: it parses the blueprint and
// calls Run with a model client. Run generates each model's responses, has the judges score the
// text points, scores the function points, and writes the result document. Here every model is
// the fake server of llm/llmtest, reached through the providers' base URL variables; a real
// program passes its environment (envsource.Load) and sets a progress display (Options.Progress).
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	src := `title: Capitals
models: [openai:gpt-4o-mini]
---
- id: capital-france
  prompt: What is the capital of France?
  should:
    - $contains: Paris
    - Names the river that flows through it
`
	bp, err := blueprint.Parse([]byte(src), blueprint.ParseOptions{File: "capitals.yml"})
	if err != nil {
		fmt.Println(err)
		return
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	// The judge's prompt names its role; everything else is a generation.
	srv.On(llmtest.SystemContains("expert examiner"), llmtest.Text("<reflection>It names the Seine.</reflection><classification>CLASS_MOSTLY_PRESENT</classification>"))
	srv.SetDefault(llmtest.Text("Paris, on the Seine."))
	env := envsource.LookupFunc(func(key string) (string, bool) {
		v, ok := map[string]string{"OPENAI_API_KEY": "sk-example", "OPENAI_BASE_URL": srv.URL}[key]
		return v, ok
	})
	client, _ := llm.New(llm.Config{})
	defer client.Close()

	res, err := blueprint.Run(context.Background(), blueprint.Options{
		Blueprint: bp,
		Client:    client,
		LookupEnv: env,
		Judges:    []blueprint.JudgeSpec{{Model: "openai:judge", Approach: "holistic"}},
		Methods:   blueprint.Methods{Coverage: true},
		RunLabel:  "example",
		Now:       func() time.Time { return time.Date(2025, 7, 5, 10, 20, 30, 0, time.UTC) },
		OutDir:    filepath.Join(dir, ".results"),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// Model ids carry their variant: the temperature sent (0 when the blueprint names none).
	cov := res.EvaluationResults.LLMCoverageScores["capital-france"]["openai:gpt-4o-mini[temp:0]"]
	for _, a := range cov.PointAssessments {
		fmt.Printf("%-45s %v\n", a.KeyPointText, *a.CoverageExtent)
	}
	rel, _ := filepath.Rel(dir, res.Path)
	fmt.Printf("%d calls, complete: %v, written to %s\n", res.Usage.Calls, res.Complete(), rel)
	// The command prints the same result with WriteTable (or the document: Result.JSON).
	res.WriteTable(os.Stdout)
	// Output:
	// Function: contains("Paris")                   1
	// Names the river that flows through it         0.75
	// 2 calls, complete: true, written to .results/capitals/example_2025-07-05T10-20-30-000Z_comparison.json
	// Blueprint Capitals (capitals)
	// Run example at 2025-07-05T10-20-30-000Z: 1 prompt × 1 model
	//
	// PROMPT          openai:gpt-4o-mini[temp:0]
	// capital-france  0.88
	// AVERAGE         0.88
}
