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

// TestBlueprintRunEvalMethods: --eval-method takes Weval's names (parseEvalMethods,
// src/cli/commands/run-config.ts); the embeddings model is called only with embedding or all,
// the judges only with llm-coverage or all, and none leaves the responses alone. The requests
// each run makes are counted on the fake server.
func TestBlueprintRunEvalMethods(t *testing.T) {
	tests := []struct {
		methods            string
		methodsUsed        string
		judged, embeddings int
		note               string
	}{
		{methods: "", methodsUsed: "llm-coverage,similarity", judged: 1},
		{methods: "all", methodsUsed: "llm-coverage,similarity,embedding", judged: 1, embeddings: 1},
		{methods: "llm-coverage,embedding", methodsUsed: "llm-coverage,embedding", judged: 1, embeddings: 1},
		{methods: "embedding", methodsUsed: "embedding", embeddings: 1,
			note: "· llm-coverage was not run (--eval-method): the result holds the responses and their similarity scores."},
		{methods: "none", methodsUsed: "", note: "· no evaluation was run (--eval-method): the result holds the responses."},
	}
	for _, tt := range tests {
		t.Run("methods "+tt.methods, func(t *testing.T) {
			srv := llmtest.Start(t)
			judge := srv.On(llmtest.SystemContains("expert examiner"), llmtest.Text("<reflection>ok</reflection><classification>CLASS_FULLY_PRESENT</classification>"))
			srv.SetDefault(llmtest.Text("Paris is the capital of France."))
			dir := writeBlueprintFiles(t, map[string]string{
				"c.yml": "models: [openai:one]\n---\n- id: p\n  prompt: Capital?\n  ideal: Paris is the capital of France.\n  should: [Names Paris]\n",
			})
			env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
			args := []string{"blueprint", "run", "c.yml", "--no-cache", "--judge", "openai:judge", "--embedding-model", "openai:embed"}
			if tt.methods != "" {
				args = append(args, "--eval-method", tt.methods)
			}
			code, stdout, stderr := runBlueprintAt(t, dir, env, append(args, "--output", "json")...)
			var res struct {
				EvalMethodsUsed []string `json:"evalMethodsUsed"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != exitOK {
				t.Fatalf("exit %d: %v\n%s", code, err, stderr)
			}
			if got := strings.Join(res.EvalMethodsUsed, ","); got != tt.methodsUsed || judge.Hits() != tt.judged || srv.EmbeddingCalls() != tt.embeddings {
				t.Errorf("methods used %q, %d judge calls, %d embedding calls; want %q, %d, %d", got, judge.Hits(), srv.EmbeddingCalls(), tt.methodsUsed, tt.judged, tt.embeddings)
			}
			if tt.note != "" {
				if _, stdout, _ := runBlueprintAt(t, dir, env, args...); !strings.Contains(stdout, "\n"+tt.note+"\n") {
					t.Errorf("table lacks %q:\n%s", tt.note, stdout)
				}
			}
		})
	}
}
