package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The run-level Weval behaviours of spec/blueprints.md §6–7 (issue 20), through the command.
// Each test names the file of weval-org/app it follows.

// TestBlueprintRunReadsOnlyNamedCollections: --collections reads the collections the blueprint
// names and no other (Weval: resolveModelCollections, src/cli/commands/run-config.ts), so a
// broken collection beside it stops neither run nor check; and the document's perModelScores
// average is the exact mean while the table shows 2 decimals (spec §7).
func TestBlueprintRunReadsOnlyNamedCollections(t *testing.T) {
	srv := llmtest.Start(t)
	srv.On(llmtest.LastUserContains("one"), llmtest.Text("yes"))
	srv.SetDefault(llmtest.Text("no"))
	dir := writeBlueprintFiles(t, map[string]string{
		"c.yml": "models: [CORE]\n---\n- {id: p1, prompt: one, should: [{$contains: yes}]}\n" +
			"- {id: p2, prompt: two, should: [{$contains: yes}]}\n- {id: p3, prompt: three, should: [{$contains: yes}]}\n",
		"models/CORE.json":   `["openai:one"]`,
		"models/BROKEN.json": `{"not": "a list"}`,
	})
	env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
	code, stdout, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--collections", ".", "--no-cache", "--output", "json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var res struct {
		EffectiveModels   []string `json:"effectiveModels"`
		EvaluationResults struct {
			PerModelScores map[string]struct {
				Average     float64 `json:"average"`
				PromptCount int     `json:"promptCount"`
			} `json:"perModelScores"`
		} `json:"evaluationResults"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	if s := res.EvaluationResults.PerModelScores["openai:one"]; strings.Join(res.EffectiveModels, ",") != "openai:one" || s.Average != 1.0/3 || s.PromptCount != 3 {
		t.Errorf("models %v, scores %+v", res.EffectiveModels, res.EvaluationResults.PerModelScores)
	}
	if !strings.Contains(stdout, `"average": 0.3333333333333333,`) {
		t.Errorf("the document does not hold the exact average:\n%s", stdout)
	}
	code, stdout, _ = runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--collections", ".", "--no-cache")
	if code != exitOK || !strings.Contains(stdout, "\nAVERAGE  0.33\n") {
		t.Errorf("exit %d, table:\n%s", code, stdout)
	}
	if code, stdout, stderr := runBlueprintAt(t, dir, nil, "blueprint", "check", "--collections", ".", "c.yml"); code != exitOK {
		t.Errorf("check: exit %d\n%s%s", code, stdout, stderr)
	}
	// A blueprint that names the broken collection fails on it, naming the file.
	dir2 := writeBlueprintFiles(t, map[string]string{"b.yml": "models: [BROKEN]\n---\n- {id: p, prompt: one}\n", "models/BROKEN.json": `{}`})
	code, _, stderr = runBlueprintAt(t, dir2, env, "blueprint", "run", "b.yml", "--collections", ".")
	if want := "models/BROKEN.json: expected a JSON list of model ids: json: cannot unmarshal object into Go value of type []string\n"; code != exitFailure || !strings.HasSuffix(stderr, want) {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	if srv.Calls() != 6 {
		t.Errorf("%d calls, want 6", srv.Calls())
	}
}
