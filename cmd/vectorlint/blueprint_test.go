package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// The $js time limits of the in-process runs. The production limit (100 ms) is within reach of a
// legitimate script on a loaded CI machine (two cores, several test binaries under -race), where a
// goroutine may wait that long for a CPU; a test whose legitimate script was stopped then failed
// though the code was right. calmJSLimit is the runs' limit: no legitimate test script reaches
// it. attackJSLimit is the limit of the runs that show an attack stopped at its limit: only a
// script that never ends (an endless loop, a loop of catastrophic regular expression scans)
// reaches it, and a legitimate script run beside the attack has five times the production
// margin. Both are injected through app.jsTimeout; the default limit itself is
// points.DefaultJSTimeout, tested in the points package.
const (
	calmJSLimit   = time.Minute
	attackJSLimit = 500 * time.Millisecond
)

// runBlueprintApp runs the command in-process in dir with the given environment, under
// calmJSLimit.
func runBlueprintApp(t *testing.T, dir string, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runBlueprintJS(t, dir, env, calmJSLimit, args...)
}

// runBlueprintJS is runBlueprintApp with the given $js time limit.
func runBlueprintJS(t *testing.T, dir string, env map[string]string, jsLimit time.Duration, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	a := &app{
		stdin:  strings.NewReader(""),
		stdout: &out,
		stderr: &errOut,
		dir:    dir,
		lookupEnv: func(k string) (string, bool) {
			v, ok := env[k]
			return v, ok
		},
		jsTimeout: jsLimit,
	}
	code = a.run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func writeBlueprintFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func checkBlueprintGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "blueprint", name), got)
}

const checkFixture = `title: Mistakes
models: [CORE]
---
- id: quoted
  prompt: "Q"
  should:
    - "$icontains: 'war of northern aggression'"
    - - $contains: "only one"
    - $matches: "(oops"
- id: unknown
  prompt: "Q"
  should: ["$is_jsn"]
  expect: ["ignored"]
`

func TestBlueprintCheck(t *testing.T) {
	t.Parallel()
	dir := writeBlueprintFiles(t, map[string]string{
		"good.yml":         "- id: a\n  prompt: Q\n  should: [{$contains: x}]\n",
		"mistakes.yml":     checkFixture,
		"broken.yml":       "title: x\nfoo: bar: baz\n",
		"models/CORE.json": `["openai:gpt-4o-mini"]`,
	})
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string
		stderrRe string
	}{
		{"clean", []string{"good.yml"}, exitOK, "checked 1 blueprint: 0 invalid, 0 warnings\n", "^$"},
		{"warnings only", []string{"mistakes.yml"}, exitOK, `mistakes.yml:7: warning: prompt "quoted": "$icontains: 'war of northern aggression'" is a quoted function call: the quotes make it one string, which names a function "icontains: 'war of northern aggression'" that does not exist (the point scores 0); write it as a mapping without the outer quotes
mistakes.yml:8: warning: prompt "quoted": should item 2 is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting ("- - x" → "- x")
mistakes.yml:9: warning: prompt "quoted": $matches: invalid regular expression /(oops/: missing closing )
mistakes.yml:12: warning: prompt "unknown": unknown point function "$is_jsn" (did you mean $is_json?)
mistakes.yml:13: warning: prompt "unknown": both "should" and "expect" are given; only "should" is used
checked 1 blueprint: 0 invalid, 5 warnings
`, "^$"},
		{"errors", []string{"good.yml", "broken.yml", "missing.yml"}, exitFailure, `broken.yml:2: error: invalid YAML: mapping values are not allowed in this context
missing.yml: error: cannot read the file: no such file or directory
checked 3 blueprints: 2 invalid, 0 warnings
`, "^$"},
		{"collections resolve", []string{"--collections", ".", "good.yml"}, exitOK, "checked 1 blueprint: 0 invalid, 0 warnings\n", "^$"},
		{"collections folder given directly", []string{"--collections", "models", "good.yml"}, exitOK, "checked 1 blueprint: 0 invalid, 0 warnings\n", "^$"},
		{"no files", nil, exitFailure, "", "^vectorlint blueprint check: expected one or more blueprint files, found none\n$"},
		{"bad flag", []string{"--nope", "good.yml"}, exitFailure, "", "^vectorlint blueprint check: unknown flag: --nope \\(see --help\\)\n$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runBlueprintApp(t, dir, nil, append([]string{"blueprint", "check"}, tt.args...)...)
			if code != tt.code {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", code, tt.code, stdout, stderr)
			}
			if tt.stdout != "" && stdout != tt.stdout {
				t.Errorf("stdout\n got %s\nwant %s", stdout, tt.stdout)
			}
			if !regexp.MustCompile(tt.stderrRe).MatchString(stderr) {
				t.Errorf("stderr %q does not match %q", stderr, tt.stderrRe)
			}
		})
	}
	// Unresolvable placeholders are errors only with --collections.
	dir2 := writeBlueprintFiles(t, map[string]string{"c.yml": "models: [CORE, FRONTIER]\n---\n- {id: a, prompt: Q}\n", "models/CORE.json": `["a:b"]`})
	code, stdout, _ := runBlueprintApp(t, dir2, nil, "blueprint", "check", "--collections", ".", "c.yml")
	want := "c.yml: error: model collection \"FRONTIER\" not found (defined: CORE); pass --collections DIR with NAME.json files, or list model ids\nchecked 1 blueprint: 1 invalid, 0 warnings\n"
	if code != exitFailure || stdout != want {
		t.Errorf("exit %d stdout\n%s\nwant\n%s", code, stdout, want)
	}
	if code, _, _ := runBlueprintApp(t, dir2, nil, "blueprint", "check", "c.yml"); code != exitOK {
		t.Errorf("without --collections: exit %d, want 0", code)
	}
}

func TestBlueprintCheckPrint(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	code, stdout, stderr := runBlueprintApp(t, root, nil, "blueprint", "check", "--print", "examples/blueprints/capitals.yml")
	if code != exitOK || stderr != "checked 1 blueprint: 0 invalid, 0 warnings\n" {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal([]byte(stdout), &v); err != nil {
		t.Fatalf("stdout is not JSON: %v", err)
	}
	checkBlueprintGolden(t, "capitals.print.json", stdout)
}

// blueprintTimestampRe matches the run's timestamp (the real clock) so outputs can be compared.
var blueprintTimestampRe = regexp.MustCompile(`\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z`)

func TestBlueprintRunExample(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	out := t.TempDir()
	code, stdout, stderr := runBlueprintApp(t, root, nil, "blueprint", "run", "examples/blueprints/capitals.yml",
		"--responses", "examples/blueprints/capitals.responses.jsonl", "--out-dir", out, "--run-label", "example")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	stdout = strings.Replace(stdout, out, "OUT", 1)
	checkBlueprintGolden(t, "capitals.run.txt", blueprintTimestampRe.ReplaceAllString(stdout, "TIMESTAMP"))

	code, doc, stderr := runBlueprintApp(t, root, nil, "blueprint", "run", "examples/blueprints/capitals.yml",
		"--responses", "examples/blueprints/capitals.responses.jsonl", "--out-dir", out, "--run-label", "example", "--output", "json")
	if code != exitOK {
		t.Fatalf("exit %d stderr %s", code, stderr)
	}
	m := regexp.MustCompile(`^result written to (.*)\n$`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("stderr = %q", stderr)
	}
	file, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	if string(file) != doc {
		t.Error("--output json differs from the written file")
	}
	if !regexp.MustCompile(`/examples__blueprints__capitals/example_` + blueprintTimestampRe.String() + `_comparison\.json$`).MatchString(m[1]) {
		t.Errorf("result file %s", m[1])
	}
	var res struct {
		ConfigID          string `json:"configId"`
		EvaluationResults struct {
			PerModelScores map[string]struct {
				Average     float64 `json:"average"`
				PromptCount int     `json:"promptCount"`
			} `json:"perModelScores"`
		} `json:"evaluationResults"`
	}
	if err := json.Unmarshal([]byte(doc), &res); err != nil {
		t.Fatal(err)
	}
	if res.ConfigID != "examples__blueprints__capitals" || res.EvaluationResults.PerModelScores["anthropic:claude-3-5-haiku"].Average != 0.32 ||
		res.EvaluationResults.PerModelScores["openai:gpt-4o-mini"].Average != 1 {
		t.Errorf("result = %+v", res)
	}
}

func TestBlueprintRunFailures(t *testing.T) {
	t.Parallel()
	dir := writeBlueprintFiles(t, map[string]string{
		"b.yml": `- id: p
  prompt: Q
  should:
    - $contains: "yes"
    - "Is polite"
- id: q
  prompt: Q2
  should:
    - $call: {url: "http://127.0.0.1:9/check"}
`,
		"r.jsonl":     `{"promptId": "p", "model": "m:a", "response": "yes"}` + "\n" + `{"promptId": "q", "model": "m:a", "response": "x"}`,
		"bad.jsonl":   `{"promptId": "p"}`,
		"invalid.yml": "- id: p\n  should: [x]\n",
	})
	code, stdout, stderr := runBlueprintApp(t, dir, nil, "blueprint", "run", "b.yml", "--responses", "r.jsonl", "--run-label", "L")
	// No key is set: the default judges and the backup judge cannot be called, which the
	// command says once before the run, and every text point is not evaluated.
	wantStderr := `warning: judge holistic-qwen3-30b-a3b-instruct-2507(openrouter:qwen/qwen3-30b-a3b-instruct-2507) cannot be used: LLM provider openrouter is not fully configured: set OPENROUTER_API_KEY
warning: judge holistic-openai-gpt-oss-120b(openrouter:openai/gpt-oss-120b) cannot be used: LLM provider openrouter is not fully configured: set OPENROUTER_API_KEY
warning: judge backup-claude-3-5-haiku(anthropic:claude-3.5-haiku) cannot be used: LLM provider anthropic is not fully configured: set ANTHROPIC_API_KEY
`
	if code != exitFailure || stderr != wantStderr {
		t.Errorf("exit %d, stderr %s", code, stderr)
	}
	checkBlueprintGolden(t, "failures.run.txt", blueprintTimestampRe.ReplaceAllString(stdout, "TIMESTAMP"))
	matches, _ := filepath.Glob(filepath.Join(dir, ".results", "b", "L_*_comparison.json"))
	if len(matches) != 1 {
		t.Errorf("result files: %v (the result is written even when evaluations fail)", matches)
	}

	tests := []struct {
		name   string
		args   []string
		stderr string
	}{
		{"unresolved collection", []string{"b.yml"}, "vectorlint blueprint run: model collection \"CORE\" not found (none are defined); pass --collections DIR with NAME.json files, or list model ids\n"},
		{"bad judge", []string{"b.yml", "--responses", "r.jsonl", "--judge", "gpt-4o"}, "vectorlint blueprint run: --judge: model id: expected \"provider:model\" such as \"openai:gpt-4o\", found \"gpt-4o\"\n"},
		{"eval method", []string{"b.yml", "--responses", "r.jsonl", "--eval-method", "llm-coverage,bogus"}, "vectorlint blueprint run: --eval-method: expected llm-coverage, similarity, embedding, all or none, found \"bogus\"\n"},
		{"provider concurrency", []string{"b.yml", "--provider-concurrency", "0"}, "vectorlint blueprint run: --provider-concurrency: expected a number ≥ 1, found 0\n"},
		{"output", []string{"b.yml", "--responses", "r.jsonl", "--output", "xml"}, "vectorlint blueprint run: --output: expected line or json, found \"xml\"\n"},
		{"two files", []string{"b.yml", "c.yml", "--responses", "r.jsonl"}, "vectorlint blueprint run: expected one blueprint file, found 2 arguments\n"},
		{"bad responses", []string{"b.yml", "--responses", "bad.jsonl"}, "vectorlint blueprint run: bad.jsonl:1: expected \"model\" to be a non-empty string, found nothing\n"},
		{"missing responses", []string{"b.yml", "--responses", "none.jsonl"}, "vectorlint blueprint run: cannot read none.jsonl: no such file or directory\n"},
		{"invalid blueprint", []string{"invalid.yml", "--responses", "r.jsonl"}, "invalid.yml:1: error: prompt \"p\": expected prompt (or promptText) or messages, found neither\nvectorlint blueprint run: invalid.yml is not a valid blueprint\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runBlueprintApp(t, dir, nil, append([]string{"blueprint", "run"}, tt.args...)...)
			if code != exitFailure || stderr != tt.stderr {
				t.Errorf("exit %d stderr\n got %q\nwant %q", code, stderr, tt.stderr)
			}
		})
	}
	if code, _, stderr := runBlueprintApp(t, dir, nil, "blueprint", "frobnicate"); code != exitFailure || !strings.HasPrefix(stderr, `vectorlint blueprint: unknown command "frobnicate"`) {
		t.Errorf("unknown command: exit %d stderr %s", code, stderr)
	}
}

func TestBlueprintRunAllowNet(t *testing.T) {
	t.Parallel()
	var body map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		data, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(data, &body)
		if r.URL.Path != "/factcheck" && r.Header.Get("X-Key") != "k3y" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		io.WriteString(w, `{"score": 0.9, "explain": "checked"}`)
	}))
	defer srv.Close()
	dir := writeBlueprintFiles(t, map[string]string{
		"n.yml":   "externalServices:\n  checker: {url: \"" + srv.URL + "\", headers: {X-Key: \"${CHECK_KEY}\"}}\n---\n- id: p\n  prompt: Q\n  should:\n    - $call: {service: checker, claim: \"{response}\"}\n    - $factcheck: dates\n",
		"r.jsonl": `{"promptId": "p", "model": "m:a", "response": "In 1948."}`,
	})
	env := map[string]string{"CHECK_KEY": "k3y", "FACTCHECK_ENDPOINT_URL": srv.URL + "/factcheck"}
	code, stdout, _ := runBlueprintApp(t, dir, env, "blueprint", "run", "n.yml", "--responses", "r.jsonl")
	if code != exitFailure || !strings.Contains(stdout, "p × m:a: Function: call({\"claim\":\"{response}\",\"service\":\"checker\"}): network access is off: run with --allow-net") {
		t.Errorf("without --allow-net: exit %d\n%s", code, stdout)
	}
	if body != nil {
		t.Error("a request was made without --allow-net")
	}
	// With the network allowed, ${CHECK_KEY} must be named with --allow-env: nothing is sent
	// before it is.
	code, stdout, stderr := runBlueprintApp(t, dir, env, "blueprint", "run", "n.yml", "--responses", "r.jsonl", "--allow-net", "--output", "json")
	wantErr := "n.yml:2: error: header \"X-Key\" of external service \"checker\" uses ${CHECK_KEY}, which a blueprint may read only when the run names it: " +
		"add --allow-env CHECK_KEY if this blueprint may send that variable to its url\n" +
		"vectorlint blueprint run: n.yml: 1 environment variable reference not allowed (--allow-env): no call made\n"
	if code != exitFailure || stdout != "" || stderr != wantErr || body != nil {
		t.Errorf("without --allow-env: exit %d, body %v\n%s\nstderr:\n%s\nwant:\n%s", code, body, stdout, stderr, wantErr)
	}
	code, stdout, stderr = runBlueprintApp(t, dir, env, "blueprint", "run", "n.yml", "--responses", "r.jsonl", "--allow-net", "--allow-env", "CHECK_KEY", "--output", "json")
	if code != exitOK {
		t.Fatalf("with --allow-net: exit %d\n%s\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, `"avgCoverageExtent": 0.9`) || body["instruction"] != "dates" {
		t.Errorf("result %s\nlast body %v", stdout, body)
	}
	if strings.Contains(stdout, "k3y") {
		t.Error("the service key leaked into the result")
	}
}

func TestBlueprintRunModels(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	code, doc, stderr := runBlueprintApp(t, root, nil, "blueprint", "run", "examples/blueprints/capitals.yml",
		"--responses", "examples/blueprints/capitals.responses.jsonl", "--out-dir", t.TempDir(), "--output", "json", "--models", "anthropic:claude-3-5-haiku,x:none")
	if code != exitFailure {
		t.Fatalf("exit %d, want 2 (x:none has no responses)\n%s", code, stderr)
	}
	var res struct {
		EffectiveModels []string                     `json:"effectiveModels"`
		Errors          map[string]map[string]string `json:"errors"`
	}
	if err := json.Unmarshal([]byte(doc), &res); err != nil {
		t.Fatal(err)
	}
	if strings.Join(res.EffectiveModels, ",") != "anthropic:claude-3-5-haiku,x:none" || len(res.Errors) != 5 ||
		res.Errors["plan-trip"]["x:none"] != "no response for this prompt and model in examples/blueprints/capitals.responses.jsonl" {
		t.Errorf("effective models %v, errors %v", res.EffectiveModels, res.Errors)
	}
}
