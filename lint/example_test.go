package lint_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/report"
)

// A Go program lints a folder as the vectorlint command does: it finds the configuration, loads
// the project, plans the run, and calls Run with a model client. Here the model is the fake
// server of llm/llmtest; a real program resolves its endpoint from the environment with llm.Resolve.
func ExampleRun() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	for name, text := range map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordy.md":     "---\nid: Wordy\nname: Wordy\nseverity: error\n---\nFlag wordy phrases.\n",
		"docs/getting-started.md": "# Getting started\n\nIn order to begin, install the tool.\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(path), 0o755)
		os.WriteFile(path, []byte(text), 0o644)
	}

	srv := llmtest.NewServer(llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to", "line": 3, "message": "Say 'to'.", "fix": "To"}}})))
	defer srv.Close()
	client, _ := llm.New(llm.Config{})
	defer client.Close()

	found, err := config.FindProject(dir, "", "")
	if err != nil {
		fmt.Println(err)
		return
	}
	proj, err := config.LoadProject(found)
	if err != nil {
		fmt.Println(err)
		return
	}
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{Dir: dir, Paths: []string{"docs"}, Lazy: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := lint.Run(context.Background(), plan, lint.RunOptions{EvalOptions: lint.EvalOptions{
		Client:              client,
		Endpoint:            llm.Endpoint{BaseURL: srv.URL, Model: "test-model"},
		ConfidenceThreshold: config.DefaultConfidenceThreshold,
	}})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, fr := range res.Files {
		for _, f := range fr.Findings {
			fix, _ := f.Replacement() // the text that replaces the match
			fmt.Printf("%s:%d:%d %s %s (%s → %q)\n", fr.Path, f.Start.Line, f.Start.Column, f.Severity, f.Message, f.Match, fix)
		}
	}
	fmt.Printf("%d call, complete: %v\n", res.Usage.Calls, res.Complete())
	// The command prints the same result with report.Write (or streams it: RunOptions.File).
	report.Write(report.FormatLine, os.Stdout, report.Options{}, *res)
	// Output:
	// docs/getting-started.md:3:1 error Say 'to'. (In order to → "To")
	// 1 call, complete: true
	// docs/getting-started.md
	//   3:1  error  Say 'to'.  Acme.Wordy
	//   Scores below 10.0:
	//     Acme.Wordy   0.0  1 violation in 10 words, strictness 10
	//
	// LLM usage: 1 call, 244 input and 22 output tokens
	// ✖ 1 error and 0 warnings in 1 file.
}
