package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// e2eNow is the injected clock of the end-to-end runs.
var e2eNow = time.Date(2025, 7, 5, 10, 20, 30, 123_000_000, time.UTC)

// runBlueprintAt runs the command in-process in dir with the given environment and clock, under
// calmJSLimit.
func runBlueprintAt(t *testing.T, dir string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir,
		lookupEnv: func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		},
		now: func() time.Time { return e2eNow }, jsTimeout: calmJSLimit}
	code = a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

// e2eGenerate answers generation requests of every shape from the last user message, so each
// model's responses are known: the temperature changes the capital answer.
func e2eGenerate(r *llmtest.Request) llmtest.Reply {
	last := r.LastUser()
	switch {
	case strings.Contains(last, "capital of France"):
		if r.Temperature != nil && *r.Temperature > 0.5 {
			return llmtest.Text("The capital of France is Paris, of course.")
		}
		return llmtest.Text("Paris is the capital of France.")
	case strings.Contains(last, "Two weeks in Japan"):
		return llmtest.Text("Kyoto and Tokyo are lovely in April. What is your budget?")
	case strings.Contains(last, "planning a trip"):
		return llmtest.Text("Where would you like to go?")
	case strings.Contains(last, "Say something"):
		return llmtest.Text("Something.")
	}
	return llmtest.Status(400, `{"error":{"message":"unexpected prompt"}}`)
}

var criterionRe = regexp.MustCompile(`(?s)<CRITERION>\n(.*?)\n</CRITERION>`)

// e2eJudge answers judge requests from a table: criterion → the judge's reply (a class name
// becomes a well-formed reply; "garbage" an unparseable one; "400" an HTTP error).
func e2eJudge(name string, table map[string]string) func(*llmtest.Request) llmtest.Reply {
	return func(r *llmtest.Request) llmtest.Reply {
		var criterion string
		for _, m := range r.Messages {
			if c := criterionRe.FindStringSubmatch(m.Content); m.Role == "user" && c != nil {
				criterion = c[1]
				break
			}
		}
		switch v := table[criterion]; v {
		case "":
			return llmtest.Status(400, `{"error":{"message":"unexpected criterion"}}`)
		case "garbage":
			return llmtest.Text("I would say it is fine.")
		case "400":
			return llmtest.Status(400, `{"error":{"message":"`+name+` cannot judge this"}}`)
		default:
			return llmtest.Text("<reflection>" + name + " on " + criterion + ".</reflection>\n<classification>" + v + "</classification>")
		}
	}
}

// e2eServers are the fake providers of the end-to-end blueprint.
type e2eServers struct {
	gen, gone, custom, judgeA, judgeB, judgeC *llmtest.Server
}

func startE2EServers(t *testing.T) *e2eServers {
	s := &e2eServers{gen: llmtest.Start(t), gone: llmtest.Start(t), custom: llmtest.Start(t, llmtest.RequireAPIKey("proxy-SECRET-abcdef123")),
		judgeA: llmtest.Start(t), judgeB: llmtest.Start(t), judgeC: llmtest.Start(t)}
	s.gen.SetDefault(llmtest.Dynamic(e2eGenerate))
	s.custom.SetDefault(llmtest.Dynamic(e2eGenerate))
	// The failing provider echoes the key it was sent, as some do: it must not reach the result.
	s.gone.SetDefault(llmtest.Status(404, `{"error":{"message":"The model gone does not exist for key mistral-SECRET-0987654321"}}`))
	// Names Paris and Is rude: 0.875, 1 and 1 → 0.96 (inverted: 0.04). Mentions the budget:
	// judge C cannot be parsed twice, so 0.75 and 0.625 → 0.69. Is untestable: every judge fails.
	s.judgeA.SetDefault(llmtest.Dynamic(e2eJudge("judge-a", map[string]string{"Names Paris": "CLASS_VERY_NEARLY", "Is rude": "CLASS_VERY_NEARLY",
		"Asks a clarifying question": "CLASS_EXACT", "Mentions the budget": "CLASS_MAJOR", "Is untestable": "400"})))
	s.judgeB.SetDefault(llmtest.Dynamic(e2eJudge("judge-b", map[string]string{"Names Paris": "exact", "Is rude": "CLASS_EXACT",
		"Asks a clarifying question": "CLASS_EXACT", "Mentions the budget": "CLASS_SUBSTANTIAL", "Is untestable": "garbage"})))
	s.judgeC.SetDefault(llmtest.Dynamic(e2eJudge("judge-c", map[string]string{"Names Paris": "CLASS_FULLY_PRESENT", "Is rude": "fully present",
		"Asks a clarifying question": "CLASS_EXACT", "Mentions the budget": "garbage", "Is untestable": "400"})))
	return s
}

// env gives each provider its server and a key; the keys are what must never leak.
func (s *e2eServers) env() map[string]string {
	return map[string]string{
		"OPENAI_API_KEY": "sk-e2e-openai-SECRET1234567890", "OPENAI_BASE_URL": s.gen.URL,
		"MISTRAL_API_KEY": "mistral-SECRET-0987654321", "MISTRAL_BASE_URL": s.gone.URL,
		"OPENROUTER_API_KEY": "sk-or-e2e-SECRET-aaaaaaaaaa", "OPENROUTER_BASE_URL": s.judgeA.URL,
		"XAI_API_KEY": "xai-SECRET-bbbbbbbbbbbb", "XAI_BASE_URL": s.judgeB.URL,
		"GROQ_API_KEY": "gsk_SECRET_cccccccccccc", "GROQ_BASE_URL": s.judgeC.URL,
		"PROXY_KEY": "proxy-SECRET-abcdef123",
	}
}

func (s *e2eServers) secrets() []string {
	var out []string
	for k, v := range s.env() {
		if strings.HasSuffix(k, "_KEY") {
			out = append(out, v)
		}
	}
	sort.Strings(out)
	return out
}

// hosts replaces each server's address with its name, so outputs can be compared.
func (s *e2eServers) hosts(text string) string {
	for name, srv := range map[string]*llmtest.Server{"GEN": s.gen, "GONE": s.gone, "CUSTOM": s.custom, "JUDGE_A": s.judgeA, "JUDGE_B": s.judgeB, "JUDGE_C": s.judgeC} {
		text = strings.ReplaceAll(text, strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://"), name)
	}
	return text
}

func (s *e2eServers) calls() [6]int {
	return [6]int{s.gen.Calls(), s.gone.Calls(), s.custom.Calls(), s.judgeA.Calls(), s.judgeB.Calls(), s.judgeC.Calls()}
}

// e2eBlueprint has three models reached four ways (OpenAI chat, a provider that fails, and
// custom models speaking Anthropic's, Gemini's and the completions API), two temperatures,
// three judges on the 9-point scale, a multi-turn prompt and function and judged points.
func e2eBlueprint(s *e2eServers) string {
	root := strings.TrimSuffix(s.custom.URL, "/v1")
	return `title: End to end
description: Generation, judging and scoring against fake providers.
models:
  - openai:gpt-test
  - mistral:gone
  - id: proxy:claude
    url: ` + root + `/v1/messages
    modelName: claude-test
    inherit: anthropic
    headers: {x-api-key: "${PROXY_KEY}"}
  - id: proxy:gemini
    url: ` + root + `/v1beta/models/gemini-test:generateContent
    modelName: gemini-test
    inherit: google
    headers: {x-goog-api-key: "${PROXY_KEY}"}
  - id: local:llama
    url: ` + root + `/v1/completions
    modelName: llama-test
    inherit: openai
    format: completions
    headers: {Authorization: "Bearer ${PROXY_KEY}"}
    parameters: {stream: null, max_tokens: 200}
temperatures: [0, 0.7]
evaluationConfig:
  llm-coverage:
    useExperimentalScale: true
    judges:
      - {id: judge-a, model: "openrouter:judge-a", approach: standard}
      - {id: judge-b, model: "xai:judge-b", approach: prompt-aware}
      - {id: judge-c, model: "groq:judge-c", approach: holistic}
---
- id: capital
  prompt: What is the capital of France?
  ideal: Paris is the capital of France.
  should:
    - Names Paris
    - $contains: Paris
  should_not:
    - Is rude
- id: trip
  messages:
    - user: I need help planning a trip.
    - assistant: null
    - user: Two weeks in Japan in April.
  should:
    - Asks a clarifying question
    - $contains: "?"
    - Mentions the budget
- id: doomed
  prompt: Say something.
  should:
    - Is untestable
    - $word_count_between: [1, 100]
`
}

// TestBlueprintRunEndToEnd is the "done when": a multi-model, multi-temperature,
// multi-turn blueprint with function and judged points, generated and judged against fake
// providers over real HTTP, with exact consensus scores (0.875, 1 and 1 → 0.96; inverted
// 0.04), failing judges, a failing model, and the written result compared byte for byte.
func TestBlueprintRunEndToEnd(t *testing.T) {
	t.Parallel()
	s := startE2EServers(t)
	dir := writeBlueprintFiles(t, map[string]string{"e2e.yml": e2eBlueprint(s)})
	cache := filepath.Join(dir, "cache")
	args := []string{"blueprint", "run", "e2e.yml", "--run-label", "e2e", "--cache-dir", cache, "--html", "report/e2e.html", "--allow-env", "PROXY_KEY"}
	code, stdout, stderr := runBlueprintAt(t, dir, s.env(), args...)
	if code != exitFailure {
		t.Errorf("exit %d, want 2 (a model and a point failed)\nstderr %s", code, stderr)
	}
	checkBlueprintGolden(t, "e2e.run.txt", s.hosts(stdout))

	// The result document: its folder and name from the clock, its content byte for byte.
	path := filepath.Join(dir, ".results", "e2e", "e2e_2025-07-05T10-20-30-123Z_comparison.json")
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The version is this binary's (it changes with each release), written as VERSION; the
	// blueprint's hash covers the fake servers' addresses, which change from run to run: it
	// is checked against the blueprint file, written as HASH.
	data, err := os.ReadFile(filepath.Join(dir, "e2e.yml"))
	if err != nil {
		t.Fatal(err)
	}
	bp, err := blueprint.Parse(data, blueprint.ParseOptions{File: "e2e.yml"})
	if err != nil {
		t.Fatal(err)
	}
	stable := strings.Replace(string(doc), `"version": "`+versionString()+`"`, `"version": "VERSION"`, 1)
	stable = strings.Replace(stable, `"blueprintSha256": "`+blueprint.BlueprintSHA256(bp)+`"`, `"blueprintSha256": "HASH"`, 1)
	checkBlueprintGolden(t, "e2e.result.json", s.hosts(stable))
	var res map[string]any
	if err := json.Unmarshal(doc, &res); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"configId", "configTitle", "runLabel", "timestamp", "description", "config", "evalMethodsUsed", "effectiveModels",
		"promptIds", "promptContexts", "allFinalAssistantResponses", "fullConversationHistories", "errors", "evaluationResults"} {
		if _, ok := res[key]; !ok {
			t.Errorf("the result has no %q (spec §7)", key)
		}
	}
	er := res["evaluationResults"].(map[string]any)
	for _, key := range []string{"llmCoverageScores", "perModelScores", "similarity"} {
		if _, ok := er[key]; !ok {
			t.Errorf("evaluationResults has no %q", key)
		}
	}
	cell := er["llmCoverageScores"].(map[string]any)["capital"].(map[string]any)["openai:gpt-test[temp:0]"].(map[string]any)
	pas := cell["pointAssessments"].([]any)
	if pas[0].(map[string]any)["coverageExtent"] != 0.96 || pas[2].(map[string]any)["coverageExtent"] != 0.04 || cell["avgCoverageExtent"] != 0.67 {
		t.Errorf("capital × openai:gpt-test[temp:0]: %v", cell)
	}

	// What the providers received: the second turn carries the first, judges their context.
	var turn2 *llmtest.Request
	for _, r := range s.gen.Requests() {
		if strings.Contains(r.LastUser(), "Two weeks in Japan") && *r.Temperature == 0.7 {
			turn2 = &r
		}
	}
	if turn2 == nil || len(turn2.Messages) != 3 || turn2.Messages[1].Content != "Where would you like to go?" || *turn2.MaxTokens != 1500 {
		t.Errorf("second turn request %+v", turn2)
	}
	for _, r := range s.judgeC.Requests() {
		u := r.Messages[1].Content
		if strings.Contains(u, "<CRITERION>\nAsks a clarifying question\n") &&
			(!strings.Contains(u, "[ASSISTANT (generated)]\nWhere would you like to go?") || !strings.Contains(u, "- [should] Mentions the budget")) {
			t.Errorf("the holistic judge's prompt lacks the transcript or the criteria:\n%s", u)
		}
	}

	// The HTML report is written and names the models and a point.
	html, err := os.ReadFile(filepath.Join(dir, "report", "e2e.html"))
	if err != nil || !strings.Contains(string(html), "proxy:gemini[temp:0.7]") || !strings.Contains(string(html), "Mentions the budget") {
		t.Errorf("report: %v", err)
	}

	// Secrets: no key reaches the result, the report, the output or the cache.
	files := map[string]string{"stdout": stdout, "stderr": stderr, "result": string(doc), "report": string(html)}
	_ = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(p)
			files[p] = string(data)
		}
		return nil
	})
	if len(files) < 10 {
		t.Errorf("only %d cache files", len(files)-4)
	}
	for name, text := range files {
		for _, secret := range s.secrets() {
			if strings.Contains(text, secret) {
				t.Errorf("%s contains the secret %q", name, secret)
			}
		}
	}

	// A second identical run is answered from the cache: only what failed is asked again
	// (the missing model, and the judges that failed on a point).
	before := s.calls()
	code2, stdout2, _ := runBlueprintAt(t, dir, s.env(), args...)
	after := s.calls()
	doc2, _ := os.ReadFile(path)
	if code2 != code || stdout2 != stdout || !bytes.Equal(doc2, doc) {
		t.Error("the cached run differs from the first")
	}
	if after[0] != before[0] || after[2] != before[2] || after[1] == before[1] {
		t.Errorf("calls before %v after %v: generation should come from the cache", before, after)
	}
	// --no-cache asks every model again.
	runBlueprintAt(t, dir, s.env(), append(args, "--no-cache")...)
	if s.gen.Calls() == after[0] {
		t.Error("--no-cache did not call the models")
	}
}

// TestBlueprintRunOutputs checks --output json, --models with a custom model id, --judge
// replacing the blueprint's judges, and similarity with --eval-method.
func TestBlueprintRunOutputs(t *testing.T) {
	t.Parallel()
	s := startE2EServers(t)
	judge := llmtest.Start(t)
	judge.SetDefault(llmtest.Text("<reflection>ok</reflection><classification>CLASS_MOSTLY_PRESENT</classification>"))
	env := s.env()
	env["TOGETHER_API_KEY"], env["TOGETHER_BASE_URL"] = "tg-SECRET-1234567", judge.URL
	dir := writeBlueprintFiles(t, map[string]string{"e2e.yml": e2eBlueprint(s)})
	code, stdout, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "e2e.yml", "--models", "proxy:claude", "--judge", "together : judge-x",
		"--output", "json", "--no-cache", "--eval-method", "llm-coverage", "--allow-env", "PROXY_KEY")
	if code != exitOK {
		t.Fatalf("exit %d, want 0 (the one judge scores every point)\n%s", code, stderr)
	}
	var res struct {
		EffectiveModels   []string `json:"effectiveModels"`
		EvalMethodsUsed   []string `json:"evalMethodsUsed"`
		EvaluationResults struct {
			LLMCoverageScores map[string]map[string]struct {
				AvgCoverageExtent *float64 `json:"avgCoverageExtent"`
				PointAssessments  []struct {
					JudgeModelID string `json:"judgeModelId"`
				} `json:"pointAssessments"`
			} `json:"llmCoverageScores"`
			Similarity map[string]any `json:"similarity"`
		} `json:"evaluationResults"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatalf("stdout is not the result document: %v\n%s", err, stdout)
	}
	if strings.Join(res.EffectiveModels, ",") != "proxy:claude[temp:0],proxy:claude[temp:0.7]" || strings.Join(res.EvalMethodsUsed, ",") != "llm-coverage" ||
		res.EvaluationResults.Similarity != nil {
		t.Errorf("models %v methods %v similarity %v", res.EffectiveModels, res.EvalMethodsUsed, res.EvaluationResults.Similarity)
	}
	c := res.EvaluationResults.LLMCoverageScores["capital"]["proxy:claude[temp:0]"]
	if *c.AvgCoverageExtent != 0.67 || c.PointAssessments[0].JudgeModelID != "consensus(holistic(together:judge-x))" {
		t.Errorf("capital: %v %+v", *c.AvgCoverageExtent, c.PointAssessments)
	}
	if s.judgeA.Calls()+s.judgeB.Calls()+s.judgeC.Calls() != 0 {
		t.Error("--judge did not replace the blueprint's judges")
	}
	if !regexp.MustCompile(`^result written to \.results/e2e/[0-9a-f]{12}_2025-07-05T10-20-30-123Z_comparison\.json\nmodel calls: `).MatchString(stderr) {
		t.Errorf("stderr %q", stderr)
	}
}

// TestBlueprintRunProviderConcurrency checks the per-provider limit of the command.
func TestBlueprintRunProviderConcurrency(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t, llmtest.WithLatency(15*time.Millisecond))
	srv.SetDefault(llmtest.Text("Fine."))
	var b strings.Builder
	b.WriteString("models: [openai:a, openai:b]\n---\n")
	for i := range 6 {
		b.WriteString("- {id: p" + string(rune('0'+i)) + ", prompt: Q, should: [{$contains: Fine}]}\n")
	}
	dir := writeBlueprintFiles(t, map[string]string{"c.yml": b.String()})
	env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
	code, _, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--provider-concurrency", "2", "--concurrency", "16", "--no-cache")
	if code != exitOK || srv.Calls() != 12 || srv.MaxInFlight() != 2 {
		t.Errorf("exit %d, calls %d, in flight %d (want 2)\n%s", code, srv.Calls(), srv.MaxInFlight(), stderr)
	}
}

// TestBlueprintRunEmbeddingsAndCollections resolves a collection placeholder with
// --collections, compares responses with the ideal by embeddings (--eval-method embedding),
// and reports a report that cannot be written.
func TestBlueprintRunEmbeddingsAndCollections(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("Paris is the capital of France."))
	dir := writeBlueprintFiles(t, map[string]string{
		"c.yml":            "models: [CORE]\n---\n- id: p\n  prompt: Capital?\n  ideal: Paris is the capital of France.\n  should: [{$contains: Paris}]\n",
		"models/CORE.json": `["openai:one"]`,
		"report":           "a file, not a folder",
	})
	env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
	code, stdout, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--collections", ".", "--no-cache", "--output", "json",
		"--eval-method", "llm-coverage,similarity,embedding", "--embedding-model", "openai:embed-test", "--html", "report/r.html")
	if code != exitFailure || !strings.HasPrefix(stderr, "vectorlint blueprint run: cannot write the report report/r.html: ") {
		t.Errorf("exit %d stderr %s", code, stderr)
	}
	var res struct {
		EffectiveModels   []string `json:"effectiveModels"`
		EvalMethodsUsed   []string `json:"evalMethodsUsed"`
		EvaluationResults struct {
			Similarity map[string]map[string]map[string]float64 `json:"similarity"`
		} `json:"evaluationResults"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"bleu": 1, "exact_match": 1, "f1": 1, "rouge_l": 1, "semantic_similarity": 1}
	if got := res.EvaluationResults.Similarity["p"]["openai:one[temp:0]"]; !reflect.DeepEqual(got, want) ||
		strings.Join(res.EvalMethodsUsed, ",") != "llm-coverage,similarity,embedding" || strings.Join(res.EffectiveModels, ",") != "openai:one[temp:0]" {
		t.Errorf("similarity %v methods %v models %v", got, res.EvalMethodsUsed, res.EffectiveModels)
	}
	if srv.EmbeddingCalls() != 1 || srv.Requests()[1].Model != "embed-test" || len(srv.Requests()[1].Input) != 2 {
		t.Errorf("embedding calls %d", srv.EmbeddingCalls())
	}
	// The embeddings model needs its key.
	code, _, stderr = runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--collections", ".", "--eval-method", "embedding", "--embedding-model", "xai:e")
	if code != exitFailure || stderr != "vectorlint blueprint run: --eval-method embedding: the embeddings model xai:e cannot be used: LLM provider xai is not fully configured: set XAI_API_KEY (choose another with --embedding-model)\n" {
		t.Errorf("exit %d stderr %q", code, stderr)
	}
}

// TestBlueprintExamples checks every bundled blueprint without a warning, and runs the local
// one against a fake Ollama (its custom model is left out with --models).
func TestBlueprintExamples(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	files, _ := filepath.Glob(filepath.Join(root, "examples", "blueprints", "*.yml"))
	if len(files) < 2 {
		t.Fatalf("examples: %v", files)
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		code, stdout, stderr := runBlueprintAt(t, root, nil, "blueprint", "check", rel)
		if code != exitOK || stdout != "checked 1 blueprint: 0 invalid, 0 warnings\n" {
			t.Errorf("%s: exit %d\n%s%s", rel, code, stdout, stderr)
		}
	}
	// The README's example blueprint is valid and warning-free too.
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	section := string(readme)[strings.Index(string(readme), "## Blueprints"):]
	m := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("no YAML example in the README's Blueprints section")
	}
	dir := writeBlueprintFiles(t, map[string]string{"readme.yml": m[1]})
	if code, stdout, stderr := runBlueprintAt(t, dir, nil, "blueprint", "check", "readme.yml"); code != exitOK || stdout != "checked 1 blueprint: 0 invalid, 0 warnings\n" {
		t.Errorf("README example: exit %d\n%s%s", code, stdout, stderr)
	}

	ollama := llmtest.Start(t)
	ollama.On(llmtest.SystemContains("expert examiner"), llmtest.Text("<reflection>Fine.</reflection><classification>CLASS_MOSTLY_PRESENT</classification>"))
	ollama.SetDefault(llmtest.Text("Paris is the capital of France. Where would you like to go, and when?"))
	out := t.TempDir()
	code, stdout, stderr := runBlueprintAt(t, root, map[string]string{"OLLAMA_BASE_URL": ollama.URL}, "blueprint", "run",
		"examples/blueprints/local-models.yml", "--models", "ollama:llama3.2", "--no-cache", "--out-dir", out, "--run-label", "local")
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	// capital-france: 0.75 (judged), 1, 1 and the inverted 0.75 → 0.75; plan-trip: 0.75, 0.75, 1.
	if !strings.Contains(stdout, "capital-france  0.75                     0.75\nplan-trip       0.83                     0.83\n") {
		t.Errorf("stdout:\n%s", stdout)
	}
}

// TestBlueprintRunProgress checks the status line written to a terminal.
func TestBlueprintRunProgress(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("Fine."))
	dir := writeBlueprintFiles(t, map[string]string{"p.yml": "models: [openai:a, openai:b]\n---\n- {id: p, prompt: Q, should: [{$contains: Fine}]}\n"})
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir, stderrIsTerminal: true, now: func() time.Time { return e2eNow },
		jsTimeout: calmJSLimit, lookupEnv: func(k string) (string, bool) {
			v, ok := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}[k]
			return v, ok
		}}
	if code := a.run(context.Background(), []string{"blueprint", "run", "p.yml", "--no-cache"}); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	got := errOut.String()
	for _, want := range []string{"\r\033[Kgenerating responses: 2/2", "\r\033[Kscoring: 2/2\r\033[K", "model calls: 2 (0 more from the cache)"} {
		if !strings.Contains(got, want) {
			t.Errorf("stderr %q lacks %q", got, want)
		}
	}
}
