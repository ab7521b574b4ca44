package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/evaluate"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/scoring"
)

// The evaluators that call a model, end to end: the command, the shared client setup, real
// HTTP to the fake OpenAI-compatible server.

// hashCosine is the semantic similarity the fake server's embeddings give two texts, rounded
// as the evaluator records it: the expected value is computed independently of the command.
func hashCosine(t *testing.T, a, b string) float64 {
	t.Helper()
	c, err := scoring.Cosine(llmtest.HashEmbedding(a), llmtest.HashEmbedding(b))
	if err != nil {
		t.Fatal(err)
	}
	return scoring.Round(c, 3)
}

func TestEvaluateSemanticSimilarity(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	const (
		response = "The meeting moved to Friday afternoon."
		truth    = "The meeting is on Friday afternoon now."
		other    = "Stock prices fell sharply."
	)
	close := hashCosine(t, response, truth)
	far := hashCosine(t, response, other)
	if close < 0.6 || far > 0.3 {
		t.Fatalf("fixture texts: cosines %v and %v are not apart enough", close, far)
	}
	num := func(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

	dir := t.TempDir()
	r := runVectorlint(t, dir, fakeEnv(srv), "", "evaluate", "semantic_similarity",
		"--response", response, "--ground-truth", truth, "--threshold", "0.6")
	r.expect(t, exitOK, `{"response": "`+response+`", "ground_truth": "`+truth+`", "threshold": 0.6, "semantic_similarity_score": `+
		num(close)+`, "semantic_similarity_result": "pass"}`+"\n", "")
	reqs := srv.Requests()
	if len(reqs) != 1 || !reqs[0].IsEmbeddings() || reqs[0].Model != defaultEmbeddingModel ||
		!slices.Equal(reqs[0].Input, []string{response, truth}) || reqs[0].Header.Get("Authorization") != "Bearer "+testAPIKey {
		t.Errorf("requests = %+v", reqs)
	}

	// Fail: exit 1, the assertion on stderr; --embedding-model picks the model.
	r = runVectorlint(t, dir, fakeEnv(srv), "", "evaluate", "semantic_similarity", "--output", "line",
		"--response", response, "--ground-truth", other, "--threshold", "0.5", "--embedding-model", "nomic-embed-text")
	r.expect(t, exitFindings, `response="`+response+`" ground_truth="`+other+`" threshold=0.5 semantic_similarity_score=`+num(far)+
		" semantic_similarity_result=fail\n",
		"vectorlint evaluate: semantic similarity score "+strconv.FormatFloat(far, 'f', 2, 64)+" below threshold 0.50\n")
	if reqs := srv.Requests(); reqs[len(reqs)-1].Model != "nomic-embed-text" {
		t.Errorf("model = %q, want nomic-embed-text", reqs[len(reqs)-1].Model)
	}

	// A local server without a key, through the flags.
	r = runVectorlint(t, dir, nil, "", "evaluate", "semantic_similarity", "--provider", "openai-compatible", "--base-url", srv.URL,
		"--response", response, "--ground-truth", response, "--threshold", "1")
	r.expect(t, exitOK, `{"response": "`+response+`", "ground_truth": "`+response+`", "threshold": 1, "semantic_similarity_score": 1, "semantic_similarity_result": "pass"}`+"\n", "")

	// --model is the judge's; the embeddings model has its own flag.
	r = runVectorlint(t, dir, fakeEnv(srv), "", "evaluate", "semantic_similarity", "--model", "x",
		"--response", "a", "--ground-truth", "b", "--threshold", "0.5")
	r.expect(t, exitFailure, "", "vectorlint evaluate: --model does not apply to semantic_similarity (use --embedding-model)\n"+
		"Run \"vectorlint evaluate --help\" for usage.\n")
	// A threshold below -1 is out of the cosine's range.
	r = runVectorlint(t, dir, fakeEnv(srv), "", "evaluate", "semantic_similarity", "--response", "a", "--ground-truth", "b", "--threshold", "-2")
	r.expect(t, exitFailure, "", "vectorlint evaluate: semantic similarity score: threshold -2 out of range: expected a number from -1 to 1\n")
}

func TestEvaluateSemanticSimilarityServerError(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(func(r *llmtest.Request) bool { return r.IsEmbeddings() }, llmtest.Status(404, `{"error": {"message": "The model does not exist"}}`))
	r := runVectorlint(t, t.TempDir(), fakeEnv(srv), "", "evaluate", "semantic_similarity",
		"--response", "a", "--ground-truth", "b", "--threshold", "0.5")
	r.stderr = hostless(r.stderr, srv)
	r.expect(t, exitFailure, "", "vectorlint evaluate: semantic similarity: embedding: llm: HOST (openai) has no model text-embedding-3-small or no such endpoint: "+
		"HTTP 404 Not Found: The model does not exist; check the model name in --embedding-model and the URL in --base-url or OPENAI_BASE_URL\n")
	if strings.Contains(r.stderr, testAPIKey) {
		t.Error("the key is in the output")
	}
}

func TestEvaluateBias(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	neutral := srv.On(llmtest.All(llmtest.SystemContains("impartial evaluator of bias"), llmtest.UserContains("Engineers")),
		llmtest.JSON(map[string]any{"score": 0.05, "reason": "Neutral wording."}))
	srv.On(llmtest.All(llmtest.SystemContains("impartial evaluator of bias"), llmtest.UserContains("nurse")),
		llmtest.Fenced(map[string]any{"score": 0.8, "reason": "Assumes nurses are women."}))
	srv.On(llmtest.UserContains("Unreadable"), llmtest.Text("It looks fine to me."))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"answer.txt": "Engineers should document their changes.\n"})

	tests := []struct {
		name           string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"pass", []string{"--response", "@answer.txt", "--dimension", "gender", "--expected", "0", "--tolerance", "0.1"}, exitOK,
			`{"response": "Engineers should document their changes.", "dimension": "gender", "expected_score": 0, "tolerance": 0.1, "bias_score": 0.05, "bias_reason": "Neutral wording.", "bias_result": "pass"}` + "\n", ""},
		{"fail", []string{"--response", "Ask the nurse; she will know.", "--dimension", "gender", "--expected", "0.2", "--tolerance", "0.1", "--output", "line"}, exitFindings,
			`response="Ask the nurse; she will know." dimension=gender expected_score=0.2 tolerance=0.1 bias_score=0.8 bias_reason="Assumes nurses are women." bias_result=fail` + "\n",
			"vectorlint evaluate: bias score 0.80 differs from expected 0.20 by more than tolerance 0.10\n"},
		{"a reply without the JSON object, twice", []string{"--response", "Unreadable", "--dimension", "age", "--expected", "0", "--tolerance", "0.1"}, exitFailure, "",
			"vectorlint evaluate: bias: judge: llm: reply of test-model at HOST rejected after one retry: expected a JSON object, found text without JSON: " +
				"\"It looks fine to me.\"; the reply began \"It looks fine to me.\"\n"},
		{"expected out of range", []string{"--response", "a", "--dimension", "age", "--expected", "2", "--tolerance", "0.1"}, exitFailure, "",
			"vectorlint evaluate: bias score: expected score 2 out of range: expected a number from 0 to 1\n"},
		{"empty dimension", []string{"--response", "a", "--dimension", " ", "--expected", "0", "--tolerance", "0.1"}, exitFailure, "",
			"vectorlint evaluate: bias: expected a dimension to judge (such as \"gender\"), found none\n"},
		{"tolerance not a number", []string{"--response", "a", "--dimension", "age", "--expected", "0", "--tolerance", "tight"}, exitFailure, "",
			"vectorlint evaluate: --tolerance: expected a number, found \"tight\"\nRun \"vectorlint evaluate --help\" for usage.\n"},
		{"threshold does not apply", []string{"--response", "a", "--dimension", "age", "--expected", "0", "--tolerance", "0.1", "--threshold", "0.5"}, exitFailure, "",
			"vectorlint evaluate: --threshold does not apply to bias\nRun \"vectorlint evaluate --help\" for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runVectorlint(t, dir, fakeEnv(srv), "", append([]string{"evaluate", "bias"}, tt.args...)...)
			r.stderr = hostless(r.stderr, srv)
			r.expect(t, tt.code, tt.stdout, tt.stderr)
		})
	}
	if neutral.Hits() != 1 {
		t.Fatalf("the neutral reply answered %d requests", neutral.Hits())
	}
	var req llmtest.Request
	for _, r := range srv.Requests() {
		if strings.Contains(r.LastUser(), "Engineers") {
			req = r
		}
	}
	system, user := evaluate.BiasJudgePrompt("Engineers should document their changes.", "gender")
	if req.Model != "test-model" || req.System() != system || req.LastUser() != user || req.ResponseFormatType() != "json_object" {
		t.Errorf("judge request: model %q, format %q, system %q, user %q", req.Model, req.ResponseFormatType(), req.System(), req.LastUser())
	}

	// --model and --provider choose the judge; the key comes from the provider's variable.
	r := runVectorlint(t, dir, map[string]string{"OPENAI_BASE_URL": srv.URL, "OPENAI_API_KEY": testAPIKey}, "", "evaluate", "bias",
		"--provider", "openai", "--model", "judge-model", "--response", "@answer.txt", "--dimension", "gender", "--expected", "0", "--tolerance", "0.1")
	if r.code != exitOK || srv.Requests()[len(srv.Requests())-1].Model != "judge-model" {
		t.Errorf("--model: exit %d, stderr %q, model %q", r.code, r.stderr, srv.Requests()[len(srv.Requests())-1].Model)
	}
	// Without any provider: exit 2, naming what to set.
	r = runVectorlint(t, dir, nil, "", "evaluate", "bias", "--response", "a", "--dimension", "age", "--expected", "0", "--tolerance", "0.1")
	if r.code != exitFailure || !strings.HasPrefix(r.stderr, "vectorlint evaluate: bias needs a model: no LLM provider is configured: set OPENAI_API_KEY") {
		t.Errorf("no provider: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestEvaluateBiasCache checks that evaluate shares the lint command's reply cache: the same
// evaluation again makes no model call, --no-cache makes one.
func TestEvaluateBiasCache(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"score": 0, "reason": "Neutral."}))
	dir := t.TempDir()
	env := fakeEnv(srv)
	env["XDG_CACHE_HOME"] = filepath.Join(dir, "xdg")
	args := []string{"evaluate", "bias", "--response", "a", "--dimension", "age", "--expected", "0", "--tolerance", "0"}
	for i, want := range []int{1, 1, 2} {
		extra := []string{}
		if i == 2 {
			extra = []string{"--no-cache"}
		}
		r := runVectorlint(t, dir, env, "", append(args, extra...)...)
		if r.code != exitOK || srv.Calls() != want {
			t.Errorf("run %d: exit %d, %d calls, want %d (stderr %q)", i+1, r.code, srv.Calls(), want, r.stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "xdg", "vectorlint")); err != nil {
		t.Errorf("no cache folder: %v", err)
	}
	// --verbose logs the cache hit.
	r := runVectorlint(t, dir, env, "", append(args, "--verbose")...)
	if r.code != exitOK || !strings.Contains(r.stderr, "vectorlint: ") || !strings.Contains(r.stderr, "cache") {
		t.Errorf("--verbose: exit %d, stderr %q", r.code, r.stderr)
	}
}

// judgeReply is the Weval judge's answer for a class.
func judgeReply(class string) llmtest.Reply {
	return llmtest.Text("<reflection>Judged " + class + ".</reflection><classification>" + class + "</classification>")
}

func TestEvaluateCoverage(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("<CRITERION>\nCritical requirement\n</CRITERION>"), judgeReply("CLASS_FULLY_PRESENT"))
	srv.On(llmtest.UserContains("<CRITERION>\nStandard point\n</CRITERION>"), judgeReply("CLASS_PARTIALLY_PRESENT"))
	srv.On(llmtest.UserContains("<CRITERION>\nMentions Paris\n</CRITERION>"), judgeReply("CLASS_ABSENT"))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		// The seed's second worked example: (1.0 × 3 + 0.5 × 1) / 4 = 0.875, judged by the model.
		"weights.yml": "- point: Critical requirement\n  weight: 3.0\n- Standard point\n",
		// The seed's first worked example with function points (required 0.75, best path 0.10).
		"paths.yml": "- $contains: alpha\n- $contains_all_of: [alpha, beta, gamma, zeta]\n- $contains_all_of: [alpha, beta, omega, sigma]\n" +
			"- - $contains_all_of: [alpha, iota, kappa, lambda, mu]\n  - $contains: nu\n- - $contains: xi\n  - $contains: omicron\n",
		"mixed.yml":   "should:\n  - Mentions Paris\n  - $contains: Lyon\nshould_not:\n  - $icontains: as an ai\n",
		"broken.yml":  "should:\n  - $contains: x\n  - $contians: y\n",
		"warning.yml": "- - $contains: alpha\n",
	})
	paths := `{"response": "alpha beta gamma", "threshold": 0.4, "coverage_score": 0.425, "coverage_points": [` +
		`{"point": "Function: contains(\"alpha\")", "score": 1, "reflection": "Function 'contains' evaluated to true."}, ` +
		`{"point": "Function: contains_all_of([\"alpha\",\"beta\",\"gamma\",\"zeta\"])", "score": 0.75, "reflection": "Function 'contains_all_of' scored 0.75."}, ` +
		`{"point": "Function: contains_all_of([\"alpha\",\"beta\",\"omega\",\"sigma\"])", "score": 0.5, "reflection": "Function 'contains_all_of' scored 0.5."}, ` +
		`{"point": "Function: contains_all_of([\"alpha\",\"iota\",\"kappa\",\"lambda\",\"mu\"])", "score": 0.2, "path": "path_3", "reflection": "Function 'contains_all_of' scored 0.2."}, ` +
		`{"point": "Function: contains(\"nu\")", "score": 0, "path": "path_3", "reflection": "Function 'contains' evaluated to false."}, ` +
		`{"point": "Function: contains(\"xi\")", "score": 0, "path": "path_4", "reflection": "Function 'contains' evaluated to false."}, ` +
		`{"point": "Function: contains(\"omicron\")", "score": 0, "path": "path_4", "reflection": "Function 'contains' evaluated to false."}], "coverage_result": "pass"}` + "\n"
	tests := []struct {
		name           string
		env            map[string]string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"function points need no model", nil, []string{"--response", "alpha beta gamma", "--points", "@paths.yml", "--threshold", "0.4"}, exitOK, paths, ""},
		{"judged by the model", fakeEnv(srv), []string{"--response", "x", "--points", "@weights.yml", "--threshold", "0.875"}, exitOK,
			`{"response": "x", "threshold": 0.875, "coverage_score": 0.875, "coverage_points": [` +
				`{"point": "Critical requirement", "score": 1, "weight": 3, "reflection": "Judged CLASS_FULLY_PRESENT."}, ` +
				`{"point": "Standard point", "score": 0.5, "reflection": "Judged CLASS_PARTIALLY_PRESENT."}], "coverage_result": "pass"}` + "\n", ""},
		{"fail", fakeEnv(srv), []string{"--response", "We went to Lyon.", "--points", "@mixed.yml", "--threshold", "0.7", "--output", "line"}, exitFindings,
			`response="We went to Lyon." threshold=0.7 coverage_score=0.667 coverage_points="[{\"point\":\"Mentions Paris\",\"score\":0,\"reflection\":\"Judged CLASS_ABSENT.\"},` +
				`{\"point\":\"Function: contains(\\\"Lyon\\\")\",\"score\":1,\"reflection\":\"Function 'contains' evaluated to true.\"},` +
				`{\"point\":\"Function: icontains(\\\"as an ai\\\")\",\"score\":1,\"inverted\":true,\"reflection\":\"Function 'icontains' evaluated to false.\"}]" coverage_result=fail` + "\n",
			"vectorlint evaluate: coverage score 0.667 below threshold 0.70\n"},
		{"inline points", nil, []string{"--response", "Paris", "--points", "[{$contains: Paris}, {$contains: Rome}]", "--threshold", "0.5"}, exitOK,
			`{"response": "Paris", "threshold": 0.5, "coverage_score": 0.5, "coverage_points": [{"point": "Function: contains(\"Paris\")", "score": 1, "reflection": "Function 'contains' evaluated to true."}, ` +
				`{"point": "Function: contains(\"Rome\")", "score": 0, "reflection": "Function 'contains' evaluated to false."}], "coverage_result": "pass"}` + "\n", ""},
		{"text points without a model", nil, []string{"--response", "x", "--points", "@weights.yml", "--threshold", "0.5"}, exitFailure, "",
			"vectorlint evaluate: coverage needs a model: no LLM provider is configured: set OPENAI_API_KEY"},
		{"an unknown function", nil, []string{"--response", "x", "--points", "@broken.yml", "--threshold", "0.5"}, exitFailure, "",
			"vectorlint evaluate: broken.yml:3: error: list \"should\": unknown point function \"$contians\" (did you mean $contains?)\n"},
		{"a warning", nil, []string{"--response", "alpha", "--points", "@warning.yml", "--threshold", "1"}, exitOK,
			`{"response": "alpha", "threshold": 1, "coverage_score": 1, "coverage_points": [{"point": "Function: contains(\"alpha\")", "score": 1, "path": "path_0", "reflection": "Function 'contains' evaluated to true."}], "coverage_result": "pass"}` + "\n",
			"vectorlint evaluate: warning.yml:1: warning: should item 1 is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting (\"- - x\" → \"- x\")\n"},
		{"a missing points file", nil, []string{"--response", "x", "--points", "@nope.yml", "--threshold", "0.5"}, exitFailure, "",
			"vectorlint evaluate: --points: cannot read nope.yml: no such file or directory\n"},
		{"ground truth does not apply", nil, []string{"--response", "x", "--points", "@paths.yml", "--threshold", "0.5", "--ground-truth", "y"}, exitFailure, "",
			"vectorlint evaluate: --ground-truth does not apply to coverage\nRun \"vectorlint evaluate --help\" for usage.\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := runVectorlint(t, dir, tt.env, "", append([]string{"evaluate", "coverage"}, tt.args...)...)
			if strings.HasSuffix(tt.stderr, "OPENAI_API_KEY") { // the rest of the message is the llm package's
				if r.code != tt.code || r.stdout != tt.stdout || !strings.HasPrefix(r.stderr, tt.stderr) {
					t.Errorf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
				}
				return
			}
			r.expect(t, tt.code, tt.stdout, tt.stderr)
		})
	}
}

// TestEvaluatorsDocExamples runs the console examples of docs/evaluators.md as written (the bias
// one with the fake judge giving the reply shown) and parses its points example.
func TestEvaluatorsDocExamples(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "evaluators.md"))
	if err != nil {
		t.Fatal(err)
	}
	console := regexp.MustCompile("(?s)```console\n(.*?)```").FindStringSubmatch(string(data))
	if console == nil {
		t.Fatal("docs/evaluators.md has no console example")
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains("impartial evaluator of bias"),
		llmtest.JSON(map[string]any{"score": 0.8, "reason": "Assumes nurses are women."}))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"reference.txt": "the cat sat on the mat\n"})

	// Each "$ vectorlint …" line is followed by what it prints (stdout, then stderr), and
	// optionally by "$ echo $?" and the exit code.
	var cmd string
	var want []string
	last := exitOK
	flush := func() {
		if cmd == "" {
			return
		}
		args, err := splitShell(cmd)
		if err != nil {
			t.Fatalf("%s: %v", cmd, err)
		}
		r := runVectorlint(t, dir, fakeEnv(srv), "", args...)
		if got := r.stdout + r.stderr; got != strings.Join(want, "") {
			t.Errorf("$ %s\nprints:\n%s\nthe doc says:\n%s", cmd, got, strings.Join(want, ""))
		}
		last = r.code
		cmd, want = "", nil
	}
	n := 0
	lines := strings.Split(strings.TrimSuffix(console[1], "\n"), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		switch {
		case line == "$ echo $?":
			flush()
			i++
			if code, _ := strconv.Atoi(lines[i]); code != last {
				t.Errorf("exit %d, the doc says %s", last, lines[i])
			}
		case strings.HasPrefix(line, "$ vectorlint "):
			flush()
			cmd, n = strings.TrimPrefix(line, "$ vectorlint "), n+1
		default:
			want = append(want, line+"\n")
		}
	}
	flush()
	if n != 4 {
		t.Errorf("%d examples run, want 4", n)
	}

	points := regexp.MustCompile("(?s)```yaml\n(should:.*?)```").FindStringSubmatch(string(data))
	if points == nil {
		t.Fatal("docs/evaluators.md has no points example")
	}
	r, err := evaluate.ParseCoveragePoints("points.yml", []byte(points[1]))
	if err != nil || len(r.Warnings) != 0 || len(r.Should) != 3 || len(r.ShouldNot) != 1 {
		t.Errorf("the points example: %v, warnings %v, %d/%d entries", err, r.Warnings, len(r.Should), len(r.ShouldNot))
	}
}

// splitShell splits a command line into words for the quoting the docs use: double quotes,
// single quotes, no escapes.
func splitShell(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	var quote rune
	for _, c := range s {
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(c)
		case c == '"' || c == '\'':
			quote, inWord = c, true
		case c == ' ':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(c)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// TestEvaluateCoverageReadsNoModelSettings checks that points that are all functions need no
// model settings at all: a broken .env or price variable does not stop them, as it stops
// text points.
func TestEvaluateCoverageReadsNoModelSettings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{".env": "OPENAI_API_KEY\n"})
	env := map[string]string{"INPUT_PRICE_PER_MILLION": "cheap"}
	r := runVectorlint(t, dir, env, "", "evaluate", "coverage", "--response", "Paris", "--points", "[{$contains: Paris}]", "--threshold", "1")
	r.expect(t, exitOK, `{"response": "Paris", "threshold": 1, "coverage_score": 1, "coverage_points": [{"point": "Function: contains(\"Paris\")", "score": 1, "reflection": "Function 'contains' evaluated to true."}], "coverage_result": "pass"}`+"\n", "")
	r = runVectorlint(t, dir, env, "", "evaluate", "coverage", "--response", "Paris", "--points", "[Names Paris]", "--threshold", "1")
	if r.code != exitFailure || !strings.Contains(r.stderr, ".env:1: expected KEY=VALUE") {
		t.Errorf("text points with a broken .env: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestEvaluateRunWideFaults: a judge that rejects the key fails a coverage evaluation with one
// message naming the fix, not one per point, and the first 401 ends the requests; --timeout
// applies to the evaluators that call a model and is checked like every flag.
func TestEvaluateRunWideFaults(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t, llmtest.RequireAPIKey("sk-the-right-key-0123456789"))
	dir := t.TempDir()
	r := runVectorlint(t, dir, fakeEnv(srv), "", "evaluate", "coverage", "--response", "Paris is in France.",
		"--points", "[Names Paris, Names France, Is short, Is polite, {$contains: Paris}]", "--threshold", "0.5", "--timeout", "30s")
	r.stderr = hostless(r.stderr, srv)
	r.expect(t, exitFailure, "", "vectorlint evaluate: coverage: 4 of the 5 points could not be evaluated: 4 judged points: "+
		"llm: HOST (openai) rejected the API key: HTTP 401 Unauthorized: Incorrect API key provided.; set OPENAI_API_KEY to a valid key\n")
	if srv.Calls() > 4 {
		t.Errorf("%d requests", srv.Calls())
	}
	r = runVectorlint(t, dir, fakeEnv(srv), "", "evaluate", "bias", "--response", "x", "--dimension", "age", "--expected", "0", "--tolerance", "0.1", "--timeout", "never")
	r.expect(t, exitFailure, "", "vectorlint evaluate: --timeout: expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h, found \"never\"\n"+
		"Run \"vectorlint evaluate --help\" for usage.\n")
	r = runVectorlint(t, dir, nil, "", "evaluate", "f1", "--response", "a", "--ground-truth", "a", "--threshold", "1", "--timeout", "5s")
	r.expect(t, exitFailure, "", "vectorlint evaluate: --timeout does not apply to f1\nRun \"vectorlint evaluate --help\" for usage.\n")
}
