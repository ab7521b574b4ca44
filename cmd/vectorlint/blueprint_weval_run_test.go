package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// runBlueprintFast runs the command like runBlueprintAt with the client's retry delays cut to
// milliseconds, for runs that retry on purpose.
func runBlueprintFast(t *testing.T, dir string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		now:       func() time.Time { return e2eNow }, jsTimeout: calmJSLimit,
		tuneLLM: func(c *llm.Config) { c.BaseDelay, c.MaxDelay = time.Millisecond, 2*time.Millisecond }}
	code = a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

// The run-level Weval behaviours of spec/blueprints.md §6–7 (issue 20), through the command.
// Each test names the file of weval-org/app it follows.

// TestBlueprintRunReadsOnlyNamedCollections: --collections reads the collections the blueprint
// names and no other (Weval: resolveModelCollections, src/cli/commands/run-config.ts), so a
// broken collection beside it stops neither run nor check; and the document's perModelScores
// average is the exact mean while the table shows 2 decimals (spec §7).
func TestBlueprintRunReadsOnlyNamedCollections(t *testing.T) {
	t.Parallel()
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
	if s := res.EvaluationResults.PerModelScores["openai:one[temp:0]"]; strings.Join(res.EffectiveModels, ",") != "openai:one[temp:0]" || s.Average != 1.0/3 || s.PromptCount != 3 {
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
	t.Parallel()
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

// TestBlueprintRunGenerationLimits: --gen-retries (default 1) and --gen-timeout-ms (default
// 30000) bound each generation call, as Weval's run-config does (src/cli/commands/run-config.ts,
// passed to getModelResponse in src/cli/services/llm-service.ts), while the judges keep the
// client's four attempts and --timeout. Requests are counted on the fake server.
func TestBlueprintRunGenerationLimits(t *testing.T) {
	t.Parallel()
	const bp = "models: [openai:gen]\n---\n- {id: p, prompt: Say hi., should: [Says hi]}\n"
	tests := []struct {
		name      string
		args      []string
		gen       llmtest.Reply
		genCalls  int
		judgeFail bool
		// failure is the one failure listed, or stop the one endpoint that could not be used.
		failure, stop string
	}{
		{name: "default: one retry", gen: llmtest.ServerError(), genCalls: 2,
			failure: "p × openai:gen[temp:0]: llm: chat completion with gen at HOST: HTTP 500 Internal Server Error: The server had an error while processing your request. (2 attempts)"},
		{name: "no retry", args: []string{"--gen-retries", "0"}, gen: llmtest.ServerError(), genCalls: 1,
			failure: "p × openai:gen[temp:0]: llm: chat completion with gen at HOST: HTTP 500 Internal Server Error: The server had an error while processing your request."},
		{name: "three retries", args: []string{"--gen-retries", "3"}, gen: llmtest.ServerError(), genCalls: 4,
			failure: "p × openai:gen[temp:0]: llm: chat completion with gen at HOST: HTTP 500 Internal Server Error: The server had an error while processing your request. (4 attempts)"},
		// A host that never answered is stopped for the run: reported once, naming the flag.
		{name: "a hung generation gives up at --gen-timeout-ms", args: []string{"--gen-timeout-ms", "150"}, gen: llmtest.Hang(), genCalls: 2,
			stop: "llm: HOST (openai) sends no reply: no complete reply within 150ms (2 attempts); check that the server works, or allow more time with --gen-timeout-ms (1 response not generated)"},
		{name: "the judges keep the client's attempts", args: []string{"--gen-retries", "0"}, gen: llmtest.Text("hi"), genCalls: 1, judgeFail: true,
			failure: "p × openai:gen[temp:0]: Says hi: judging failed: all 1 judges failed: holistic(openai:judge): llm: chat completion with judge at HOST: HTTP 500 Internal Server Error: The server had an error while processing your request. (4 attempts)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			judgeReply := llmtest.Text("<reflection>ok</reflection><classification>CLASS_FULLY_PRESENT</classification>")
			if tt.judgeFail {
				judgeReply = llmtest.ServerError()
			}
			judge := srv.On(llmtest.ModelIs("judge"), judgeReply)
			gen := srv.On(llmtest.ModelIs("gen"), tt.gen)
			dir := writeBlueprintFiles(t, map[string]string{"c.yml": bp})
			env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
			code, stdout, stderr := runBlueprintFast(t, dir, env, append([]string{"blueprint", "run", "c.yml", "--no-cache", "--judge", "openai:judge"}, tt.args...)...)
			host := strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://")
			want := "\n1 failure:\n  " + tt.failure + "\n"
			if tt.stop != "" {
				want = "\n1 model endpoint could not be used:\n  " + tt.stop + "\n"
			}
			if want = strings.ReplaceAll(want, "HOST", host); code != exitFailure || !strings.Contains(stdout, want) {
				t.Errorf("exit %d\n%s\nwant %s\n%s", code, stdout, want, stderr)
			}
			judgeCalls := 0
			if tt.judgeFail {
				judgeCalls = 4
			}
			if gen.Hits() != tt.genCalls || judge.Hits() != judgeCalls {
				t.Errorf("%d generation and %d judge requests, want %d and %d", gen.Hits(), judge.Hits(), tt.genCalls, judgeCalls)
			}
		})
	}
	for flag, want := range map[string]string{
		"--gen-timeout-ms=0": "vectorlint blueprint run: --gen-timeout-ms: expected a number of milliseconds ≥ 1, found 0\n",
		"--gen-retries=-1":   "vectorlint blueprint run: --gen-retries: expected a number ≥ 0, found -1\n",
	} {
		if code, _, stderr := runBlueprintAt(t, t.TempDir(), nil, "blueprint", "run", "c.yml", flag); code != exitFailure || stderr != want {
			t.Errorf("%s: exit %d, stderr %q", flag, code, stderr)
		}
	}
}

// TestBlueprintRunCircuitBreaker: a model whose generations fail 10 times in a row is not
// asked again for the rest of the run (Weval's FAILURE_THRESHOLD,
// src/cli/services/comparison-pipeline-service.non-stream.ts): its other cells are errors,
// named once as a run failure in the table and on stderr, and the other model is unaffected.
// Every variant of a model counts toward one breaker; rate limits do not count.
func TestBlueprintRunCircuitBreaker(t *testing.T) {
	t.Parallel()
	var bp strings.Builder
	bp.WriteString("models: [openai:steady, openai:probe]\ntemperatures: [0, 1]\n---\n")
	for i := range 6 {
		fmt.Fprintf(&bp, "- {id: p%d, prompt: Q%d, should: [{$contains: fine}]}\n", i, i)
	}
	tests := []struct {
		name       string
		probe      llmtest.Reply
		probeCalls int
		stop       string
	}{
		{name: "always 500", probe: llmtest.ServerError(), probeCalls: 10,
			stop: "circuit breaker: openai:probe failed 10 generations in a row, so it was not asked for the rest of the run"},
		{name: "always rate limited", probe: llmtest.RateLimited(""), probeCalls: 12},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			probe := srv.On(llmtest.ModelIs("probe"), tt.probe)
			srv.SetDefault(llmtest.Text("fine"))
			dir := writeBlueprintFiles(t, map[string]string{"c.yml": bp.String()})
			env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
			// One call in flight per provider, so "in a row" is exact; no retry, so one request
			// per generation.
			code, stdout, stderr := runBlueprintFast(t, dir, env, "blueprint", "run", "c.yml", "--no-cache", "--provider-concurrency", "1",
				"--gen-retries", "0", "--output", "json")
			if probe.Hits() != tt.probeCalls || srv.Calls() != tt.probeCalls+12 || code != exitFailure {
				t.Errorf("exit %d, %d probe requests, %d in all; want %d and %d", code, probe.Hits(), srv.Calls(), tt.probeCalls, tt.probeCalls+12)
			}
			var res struct {
				Errors map[string]map[string]string `json:"errors"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatal(err)
			}
			skipped, failed := 0, 0
			for _, byModel := range res.Errors {
				for m, msg := range byModel {
					if !strings.HasPrefix(m, "openai:probe[") {
						t.Errorf("%s failed: %s", m, msg)
					}
					if msg == tt.stop {
						skipped++
					} else {
						failed++
					}
				}
			}
			wantSkipped := 12 - tt.probeCalls
			if skipped != wantSkipped || failed != tt.probeCalls {
				t.Errorf("%d cells skipped by the breaker, %d failed; want %d and %d", skipped, failed, wantSkipped, tt.probeCalls)
			}
			if tt.stop == "" {
				return
			}
			if want := "vectorlint blueprint run: " + tt.stop + "\n"; strings.Count(stderr, want) != 1 {
				t.Errorf("stderr %q, want the breaker once", stderr)
			}
			_, stdout, _ = runBlueprintFast(t, dir, env, "blueprint", "run", "c.yml", "--no-cache", "--provider-concurrency", "1", "--gen-retries", "0")
			if want := "\n1 model endpoint could not be used:\n  " + tt.stop + " (2 responses not generated)\n"; !strings.Contains(stdout, want) || strings.Count(stdout, "HTTP 500") != 10 {
				t.Errorf("table:\n%s\nwant %q and 10 failures", stdout, want)
			}
		})
	}
}

// TestBlueprintRunFixtures: --fixtures uses the responses of a Weval fixtures file where they
// apply and generates the others; --fixtures-strict makes the others errors, and no model is
// called (run-config's --fixtures and --fixtures-strict, src/cli/commands/run-config.ts).
func TestBlueprintRunFixtures(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("generated yes"))
	dir := writeBlueprintFiles(t, map[string]string{
		"c.yml":  "models: [openai:a]\n---\n- {id: p1, prompt: Q1, should: [{$contains: yes}]}\n- {id: p2, prompt: Q2, should: [{$contains: yes}]}\n",
		"f.json": `{"version": 1, "strategy": "first", "responses": {"p1": {"default": {"turns": ["fixture yes"]}, "notes": "from a run"}}}`,
	})
	env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
	code, stdout, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--no-cache", "--fixtures", "f.json", "--output", "json")
	var res struct {
		Final  map[string]map[string]string `json:"allFinalAssistantResponses"`
		Errors map[string]map[string]string `json:"errors"`
	}
	if err := json.Unmarshal([]byte(stdout), &res); err != nil || code != exitOK {
		t.Fatalf("exit %d: %v\n%s", code, err, stderr)
	}
	if res.Final["p1"]["openai:a[temp:0]"] != "fixture yes" || res.Final["p2"]["openai:a[temp:0]"] != "generated yes" || srv.Calls() != 1 {
		t.Errorf("responses %v, %d calls; want the fixture for p1 and one generation", res.Final, srv.Calls())
	}

	// Strict: p2 has no fixture, so it is an error, and nothing is generated.
	code, stdout, _ = runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--no-cache", "--fixtures", "f.json", "--fixtures-strict", "--run-label", "S")
	want := "Blueprint c\nRun S at 2025-07-05T10-20-30-123Z: 2 prompts × 1 model\n\nPROMPT   openai:a[temp:0]\np1       1.00\np2       —\nAVERAGE  1.00\n\n" +
		"1 failure:\n  p2 × openai:a[temp:0]: no fixture response for this prompt and model in f.json (--fixtures-strict)\n\n" +
		"Result written to .results/c/S_2025-07-05T10-20-30-123Z_comparison.json\n"
	if code != exitFailure || stdout != want || srv.Calls() != 1 {
		t.Errorf("exit %d, %d calls\n%s\nwant\n%s", code, srv.Calls(), stdout, want)
	}

	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--fixtures-strict"}, "vectorlint blueprint run: --fixtures-strict: expected --fixtures FILE, found none\n"},
		{[]string{"--fixtures", "f.json", "--responses", "f.json"}, "vectorlint blueprint run: --responses and --fixtures: expected one of them, found both (--responses generates nothing, --fixtures generates what the fixtures lack)\n"},
		{[]string{"--fixtures", "none.json"}, "vectorlint blueprint run: cannot read none.json: no such file or directory\n"},
	} {
		if code, _, stderr := runBlueprintAt(t, dir, env, append([]string{"blueprint", "run", "c.yml"}, tt.args...)...); code != exitFailure || stderr != tt.want {
			t.Errorf("%v: exit %d, stderr %q", tt.args, code, stderr)
		}
	}
}

// TestBlueprintRunExtractsKeyPoints: a prompt with an ideal response and no points is scored
// against key points a model extracts from the ideal, once per prompt, and the result lists
// them in extractedKeyPoints (Weval's LLMCoverageEvaluator, src/cli/evaluators/
// llm-coverage-evaluator.ts, with extractKeyPoints of src/cli/services/llm-evaluation-service.ts).
// When no model can extract them the prompt has no score and the run says why (exit 2).
func TestBlueprintRunExtractsKeyPoints(t *testing.T) {
	t.Parallel()
	const bp = "models: [openai:a, openai:b]\n---\n" +
		"- id: ideal-only\n  prompt: \"Capital of France?\"\n  ideal: \"Paris is the capital; the Seine runs through it.\"\n" +
		"- id: with-points\n  prompt: \"Say hi.\"\n  ideal: \"Hi.\"\n  should: [{$contains: Paris}]\n"
	tests := []struct {
		name          string
		extraction    llmtest.Reply
		extractCalls  int
		judgeCalls    int
		code          int
		wantExtracted string
		tableRow      string
		failure       string
	}{
		{name: "extracted", extraction: llmtest.Text("<key_point>Names Paris</key_point>\n<key_point>Mentions the Seine</key_point>"),
			extractCalls: 1, judgeCalls: 4, code: exitOK, wantExtracted: `{"ideal-only":["Names Paris","Mentions the Seine"]}`,
			tableRow: "ideal-only   0.75              0.75\n"},
		{name: "no key points", extraction: llmtest.Text("Paris, mostly."), extractCalls: 2, code: exitFailure, wantExtracted: "null",
			tableRow: "ideal-only   —                 —\n",
			failure:  `ideal-only: key points could not be extracted from the ideal response: openai:judge: llm: reply of judge at HOST rejected after one retry: expected key points in <key_point>…</key_point> tags, found "Paris, mostly."; the reply began "Paris, mostly."`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			extract := srv.On(llmtest.SystemContains("Your role is to extract"), tt.extraction)
			judge := srv.On(llmtest.SystemContains("expert examiner"), llmtest.Text("<reflection>ok</reflection><classification>CLASS_MOSTLY_PRESENT</classification>"))
			srv.SetDefault(llmtest.Text("Paris."))
			dir := writeBlueprintFiles(t, map[string]string{"c.yml": bp})
			env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
			args := []string{"blueprint", "run", "c.yml", "--no-cache", "--judge", "openai:judge", "--eval-method", "llm-coverage"}
			code, stdout, stderr := runBlueprintAt(t, dir, env, append(args, "--output", "json")...)
			var res struct {
				Extracted json.RawMessage `json:"extractedKeyPoints"`
				Results   struct {
					Coverage map[string]map[string]struct {
						KeyPointsCount int `json:"keyPointsCount"`
					} `json:"llmCoverageScores"`
				} `json:"evaluationResults"`
			}
			if err := json.Unmarshal([]byte(stdout), &res); err != nil {
				t.Fatalf("%v\n%s", err, stderr)
			}
			var compact bytes.Buffer
			_ = json.Compact(&compact, res.Extracted)
			extracted := compact.String()
			if extracted == "" {
				extracted = "null"
			}
			if code != tt.code || extracted != tt.wantExtracted || extract.Hits() != tt.extractCalls || judge.Hits() != tt.judgeCalls {
				t.Errorf("exit %d, extracted %s, %d extraction and %d judge requests; want %d, %s, %d, %d",
					code, extracted, extract.Hits(), judge.Hits(), tt.code, tt.wantExtracted, tt.extractCalls, tt.judgeCalls)
			}
			if tt.code == exitOK && res.Results.Coverage["ideal-only"]["openai:b[temp:0]"].KeyPointsCount != 2 {
				t.Errorf("coverage %+v", res.Results.Coverage)
			}
			// The table, from the cache: the same answers.
			_, stdout, _ = runBlueprintAt(t, dir, env, args...)
			host := strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://")
			if !strings.Contains(stdout, "\n"+tt.tableRow) || (tt.failure != "" && !strings.Contains(stdout, "\n  "+strings.ReplaceAll(tt.failure, "HOST", host)+"\n")) {
				t.Errorf("table:\n%s\nwant row %q and failure %q", stdout, tt.tableRow, tt.failure)
			}
		})
	}
}
