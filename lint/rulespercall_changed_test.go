package lint

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/selection"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestRulesPerCallChangedLines: with --changed-lines the rules share the request of the chunk
// holding a changed line, and report what separate calls report (only the changed lines).
func TestRulesPerCallChangedLines(t *testing.T) {
	t.Parallel()
	repo := changedRepo(t, func(dir string) {
		doc := "# A\n\nAlpha.\nWe met in order to plan.\nThe file was saved by the build.\n"
		if err := os.WriteFile(filepath.Join(dir, "docs", "a.md"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	answer := llmtest.PerRule(func(rule string) ([]any, bool) {
		v := func(quote string, line int) []any {
			return []any{map[string]any{"quoted_text": quote, "line": line, "message": "Avoid " + quote + ".", "confidence": 0.9}}
		}
		switch {
		case strings.Contains(rule, "Find wordy phrases."):
			return v("in order to", 4), true
		case strings.Contains(rule, "Find a cold tone."):
			return v("was saved", 5), true
		}
		return nil, true
	})
	results := map[int]string{}
	for _, n := range []int{1, 2} {
		opts, err := config.FindProject(repo, "", "")
		if err != nil {
			t.Fatal(err)
		}
		proj, err := config.LoadProject(opts)
		if err != nil {
			t.Fatal(err)
		}
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: repo, Paths: []string{"docs"}, Lazy: true, RulesPerCall: n})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := SelectChanged(context.Background(), plan, proj, selection.ChangedOptions{Dir: repo, Ref: "main", Lines: true}); err != nil {
			t.Fatal(err)
		}
		js, srv, _, _ := rpcRun(t, plan, answer, EvalOptions{})
		if want := 3 - n; srv.Calls() != want {
			t.Errorf("RulesPerCall %d: %d calls, want %d", n, srv.Calls(), want)
		}
		results[n] = js
	}
	if results[1] != results[2] || !strings.Contains(results[1], `"rule":"Acme.Tone"`) || !strings.Contains(results[1], `"rule":"Acme.Wordiness"`) {
		t.Errorf("results differ or lack findings:\n%s\n%s", results[1], results[2])
	}
}
