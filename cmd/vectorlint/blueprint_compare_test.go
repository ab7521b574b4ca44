package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// exampleRun runs the bundled example blueprint on responses (a file under dir, or the
// example's) and returns the result document's path.
func exampleRun(t *testing.T, responses, label string, extra ...string) (code int, stderr, result string) {
	t.Helper()
	root := testutil.RepoRoot(t)
	out := t.TempDir()
	args := append([]string{"blueprint", "run", "examples/blueprints/capitals.yml", "--responses", responses,
		"--out-dir", out, "--run-label", label, "--output", "json"}, extra...)
	code, _, stderr = runBlueprintApp(t, root, nil, args...)
	m := regexp.MustCompile(`result written to (.*)\n`).FindStringSubmatch(stderr)
	if m == nil {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	return code, strings.Replace(stderr, m[0], "", 1), m[1]
}

func TestBlueprintRunFailUnder(t *testing.T) {
	t.Parallel()
	// The example's averages: openai:gpt-4o-mini 1.00, anthropic:claude-3-5-haiku 0.32.
	responses := "examples/blueprints/capitals.responses.jsonl"
	tests := []struct {
		gate   string
		code   int
		stderr string
	}{
		{"0.3", exitOK, ""},
		{"0.32", exitOK, ""},
		{"0.5", exitFindings, "vectorlint blueprint run: --fail-under 0.5: anthropic:claude-3-5-haiku averages 0.32\n"},
		{"1", exitFindings, "vectorlint blueprint run: --fail-under 1: anthropic:claude-3-5-haiku averages 0.32\n"},
	}
	for _, tt := range tests {
		code, stderr, _ := exampleRun(t, responses, "gate", "--fail-under", tt.gate)
		if code != tt.code || stderr != tt.stderr {
			t.Errorf("--fail-under %s: exit %d, stderr %q; want %d, %q", tt.gate, code, stderr, tt.code, tt.stderr)
		}
	}
	root := testutil.RepoRoot(t)
	for _, bad := range []string{"1.5", "-0.1", "high", "NaN"} {
		code, _, stderr := runBlueprintApp(t, root, nil, "blueprint", "run", "examples/blueprints/capitals.yml", "--responses", responses,
			"--out-dir", t.TempDir(), "--fail-under", bad)
		want := "vectorlint blueprint run: --fail-under: expected a score from 0 to 1 such as 0.8, found \"" + bad + "\"\n"
		if code != exitFailure || stderr != want {
			t.Errorf("--fail-under %s: exit %d, stderr %q", bad, code, stderr)
		}
	}
}

// TestBlueprintCompareCommand runs the example twice, the second time with gpt-4o-mini's
// answer to one prompt made worse, and compares the two result documents.
func TestBlueprintCompareCommand(t *testing.T) {
	t.Parallel()
	_, _, base := exampleRun(t, "examples/blueprints/capitals.responses.jsonl", "base")
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "examples", "blueprints", "capitals.responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	worse := strings.Replace(string(data), `"The capital of France is Paris."`, `"As an AI, I think it is Lyon."`, 1)
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"worse.jsonl": worse})
	_, _, next := exampleRun(t, filepath.Join(dir, "worse.jsonl"), "new")
	writeTestTree(t, dir, map[string]string{"base.json": mustRead(t, base), "new.json": mustRead(t, next), "lint.json": `{"version": "1", "files": []}`})

	tests := []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		golden string
		stderr string
	}{
		{name: "a regression: exit 1", args: []string{"base.json", "new.json"}, code: exitFindings, golden: "compare.txt"},
		{name: "the other way: an improvement", args: []string{"new.json", "base.json"}, code: exitOK, golden: "compare-improved.txt"},
		{name: "a tolerance that lets it through", args: []string{"base.json", "new.json", "--tolerance", "0.7"}, code: exitOK, golden: "compare-tolerant.txt"},
		{name: "json", args: []string{"base.json", "new.json", "--output", "json"}, code: exitFindings, golden: "compare.json"},
		{name: "github", args: []string{"base.json", "new.json", "--output", "github"}, env: map[string]string{"GITHUB_ACTIONS": "true"},
			code: exitFindings, golden: "compare-github.txt"},
		{name: "html", args: []string{"base.json", "new.json", "--output", "html"}, code: exitFindings, golden: "compare.html"},
		{name: "one file", args: []string{"base.json"}, code: exitFailure,
			stderr: "vectorlint blueprint compare: expected two result documents, BASE.json and NEW.json, found 1 arguments\n"},
		{name: "not a blueprint result", args: []string{"base.json", "lint.json"}, code: exitFailure,
			stderr: "vectorlint blueprint compare: lint.json: configId: expected the blueprint's id (a result document of blueprint run), found nothing\n"},
		{name: "a missing file", args: []string{"base.json", "none.json"}, code: exitFailure,
			stderr: "vectorlint blueprint compare: cannot read none.json: no such file or directory\n"},
		{name: "a bad format", args: []string{"base.json", "new.json", "--output", "xml"}, code: exitFailure,
			stderr: "vectorlint blueprint compare: --output: expected one of line, json, github, html, found \"xml\"\n"},
		{name: "a negative tolerance", args: []string{"base.json", "new.json", "--tolerance", "-1"}, code: exitFailure,
			stderr: "vectorlint blueprint compare: --tolerance: expected a number of 0 or more such as 0.05, found -1\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			summary := filepath.Join(t.TempDir(), "summary.md")
			env := map[string]string{"GITHUB_STEP_SUMMARY": summary}
			for k, v := range tt.env {
				env[k] = v
			}
			code, stdout, stderr := runBlueprintApp(t, dir, env, append([]string{"blueprint", "compare"}, tt.args...)...)
			if code != tt.code || stderr != tt.stderr {
				t.Fatalf("exit %d, stderr %q; want %d, %q\n%s", code, stderr, tt.code, tt.stderr, stdout)
			}
			if tt.golden != "" {
				checkBlueprintGolden(t, tt.golden, blueprintTimestampRe.ReplaceAllString(stdout, "TIMESTAMP"))
			}
			if tt.golden == "compare-github.txt" {
				s, err := os.ReadFile(summary)
				if err != nil || !strings.Contains(string(s), "| capital-france | openai:gpt-4o-mini | 1.00 | 0.33 | -0.67 REGRESSED |") {
					t.Errorf("step summary: %v\n%s", err, s)
				}
			}
		})
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// statsBlueprint has eight prompts of four deterministic points each: a response naming all
// four colours scores 1, one naming two scores 0.5.
func statsBlueprint() string {
	var b strings.Builder
	b.WriteString("title: Colours\n---\n")
	for i := 1; i <= 8; i++ {
		fmt.Fprintf(&b, "- id: p%d\n  prompt: Name four colours (%d).\n  should:\n", i, i)
		for _, c := range []string{"red", "blue", "green", "yellow"} {
			fmt.Fprintf(&b, "    - $icontains: %s\n", c)
		}
	}
	return b.String()
}

// statsResponses answers every prompt for models a and b with all four colours, except that
// model a names only two in the prompts of halved.
func statsResponses(halved ...int) string {
	var b strings.Builder
	for i := 1; i <= 8; i++ {
		for _, m := range []string{"openai:a", "openai:b"} {
			text := "Red, blue, green and yellow."
			if m == "openai:a" && slices.Contains(halved, i) {
				text = "Red and blue."
			}
			fmt.Fprintf(&b, `{"promptId": "p%d", "model": %q, "response": %q}`+"\n", i, m, text)
		}
	}
	return b.String()
}

// TestBlueprintCompareFailIfWorse runs a blueprint three times through the command — a
// baseline, a run where model a is worse on every prompt, one where it is worse on one prompt
// only — and compares them: --fail-if-worse exits 1 only for the consistent fall (mean −0.5,
// p = 2/256), while without it any regressed prompt fails.
func TestBlueprintCompareFailIfWorse(t *testing.T) {
	t.Parallel()
	dir := writeBlueprintFiles(t, map[string]string{
		"stats.yml":   statsBlueprint(),
		"base.jsonl":  statsResponses(),
		"worse.jsonl": statsResponses(1, 2, 3, 4, 5, 6, 7, 8),
		"once.jsonl":  statsResponses(3),
	})
	run := func(responses, label string) string {
		code, _, stderr := runBlueprintApp(t, dir, nil, "blueprint", "run", "stats.yml", "--responses", responses, "--out-dir", "out",
			"--run-label", label, "--output", "json")
		m := regexp.MustCompile(`result written to (.*)\n`).FindStringSubmatch(stderr)
		if code != exitOK || m == nil {
			t.Fatalf("blueprint run %s: exit %d, stderr %q", responses, code, stderr)
		}
		return m[1]
	}
	base, worse, once := run("base.jsonl", "base"), run("worse.jsonl", "worse"), run("once.jsonl", "once")
	tests := []struct {
		name   string
		args   []string
		code   int
		last   string
		stderr string
	}{
		{"a consistent fall fails without the flag", []string{base, worse}, exitFindings,
			"✖ 8 regressions: a score fell by more than 0.05, or was lost.", ""},
		{"and with it", []string{base, worse, "--fail-if-worse"}, exitFindings,
			"✖ 1 model worse: the mean fell by more than 0.05 with p below 0.05 (openai:a).", ""},
		{"one prompt fails without the flag", []string{base, once}, exitFindings,
			"✖ 1 regression: a score fell by more than 0.05, or was lost.", ""},
		{"but is not a worse model", []string{base, once, "--fail-if-worse"}, exitOK,
			"✓ No model worse: no mean fell by more than 0.05 with p below 0.05. 1 prompt score regressed (listed above).", ""},
		{"a stricter alpha lets the fall through", []string{base, worse, "--fail-if-worse", "--alpha", "0.005"}, exitOK,
			"✓ No model worse: no mean fell by more than 0.05 with p below 0.005. 8 prompt scores regressed (listed above).", ""},
		{"a larger tolerance too", []string{base, worse, "--fail-if-worse", "--tolerance", "0.5"}, exitOK,
			"✓ No model worse: no mean fell by more than 0.5 with p below 0.05.", ""},
		{"an improvement is not worse", []string{worse, base, "--fail-if-worse"}, exitOK,
			"✓ No model worse: no mean fell by more than 0.05 with p below 0.05.", ""},
		{"alpha 0", []string{base, worse, "--fail-if-worse", "--alpha", "0"}, exitFailure, "",
			"vectorlint blueprint compare: --alpha: expected a significance level above 0 and at most 1 such as 0.05, found 0\n"},
		{"alpha above 1", []string{base, worse, "--alpha", "5"}, exitFailure, "",
			"vectorlint blueprint compare: --alpha: expected a significance level above 0 and at most 1 such as 0.05, found 5\n"},
	}
	for _, tt := range tests {
		code, stdout, stderr := runBlueprintApp(t, dir, nil, append([]string{"blueprint", "compare"}, tt.args...)...)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != tt.code || stderr != tt.stderr || (tt.last != "" && lines[len(lines)-1] != tt.last) {
			t.Errorf("%s: exit %d, stderr %q, last line %q; want %d, %q, %q\n%s", tt.name, code, stderr, lines[len(lines)-1], tt.code, tt.stderr, tt.last, stdout)
		}
	}
	code, stdout, _ := runBlueprintApp(t, dir, nil, "blueprint", "compare", base, worse, "--fail-if-worse")
	if code != exitFindings {
		t.Fatalf("exit %d", code)
	}
	checkBlueprintGolden(t, "compare-worse.txt", strings.NewReplacer(base, "BASE", worse, "NEW").Replace(blueprintTimestampRe.ReplaceAllString(stdout, "TIMESTAMP")))
	code, stdout, _ = runBlueprintApp(t, dir, nil, "blueprint", "compare", base, worse, "--fail-if-worse", "--output", "json")
	var doc struct {
		FailIfWorse bool
		Worse       int
		Verdict     string
		Models      []struct {
			Model          string
			Prompts        int
			MeanDifference float64
			PValue         float64
			PValueMethod   string
			Worse          bool
		}
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil || code != exitFindings {
		t.Fatalf("exit %d, %v\n%s", code, err, stdout)
	}
	got := fmt.Sprintf("%+v", doc)
	want := "{FailIfWorse:true Worse:1 Verdict:fail Models:[{Model:openai:a Prompts:8 MeanDifference:-0.5 PValue:0.007812 PValueMethod:exact Worse:true} " +
		"{Model:openai:b Prompts:8 MeanDifference:0 PValue:1 PValueMethod:exact Worse:false}]}"
	if got != want {
		t.Errorf("json:\n%s\nwant\n%s", got, want)
	}
}

// TestBlueprintRunJudgeBatch: --judge-batch sends the judge both text points of each response
// in one call — 2 calls for 2 responses instead of 4 — with the same scores.
func TestBlueprintRunJudgeBatch(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	single := regexp.MustCompile(`(?s)<CRITERION>\n(.*?)\n</CRITERION>`)
	classes := map[string]string{"Names Paris": "CLASS_FULLY_PRESENT", "Is polite": "CLASS_PARTIALLY_PRESENT"}
	srv.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if m := single.FindStringSubmatch(r.LastUser()); m != nil {
			return llmtest.Text("<reflection>ok</reflection><classification>" + classes[m[1]] + "</classification>")
		}
		var b strings.Builder
		for _, m := range regexp.MustCompile(`<criterion index="(\d+)">(.*?)</criterion>`).FindAllStringSubmatch(r.LastUser(), -1) {
			fmt.Fprintf(&b, `<judgement index="%s"><reflection>ok</reflection><classification>%s</classification></judgement>`, m[1], classes[m[2]])
		}
		return llmtest.Text(b.String())
	}))
	dir := writeBlueprintFiles(t, map[string]string{
		"b.yml": "---\n- {id: p, prompt: \"Capital of France?\", should: [Names Paris, Is polite]}\n",
		"r.jsonl": `{"promptId": "p", "model": "m:a", "response": "Paris."}` + "\n" +
			`{"promptId": "p", "model": "m:b", "response": "It is Paris, of course."}` + "\n",
	})
	env := map[string]string{"OPENROUTER_API_KEY": "k-123456", "OPENROUTER_BASE_URL": srv.URL}
	var scores []string
	for _, batch := range []bool{false, true} {
		args := []string{"blueprint", "run", "b.yml", "--responses", "r.jsonl", "--judge", "openrouter:judge", "--no-cache", "--out-dir", "out", "--output", "json"}
		if batch {
			args = append(args, "--judge-batch")
		}
		before := srv.Calls()
		code, stdout, stderr := runBlueprintApp(t, dir, env, args...)
		if code != exitOK {
			t.Fatalf("--judge-batch %v: exit %d\n%s", batch, code, stderr)
		}
		want := map[bool]int{false: 4, true: 2}[batch]
		if calls := srv.Calls() - before; calls != want {
			t.Errorf("--judge-batch %v: %d judge calls, want %d", batch, calls, want)
		}
		var doc struct {
			EvaluationResults struct{ LLMCoverageScores json.RawMessage } `json:"evaluationResults"`
			Reproducibility   struct{ JudgeBatch bool }                   `json:"reproducibility"`
		}
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil || doc.Reproducibility.JudgeBatch != batch {
			t.Fatalf("--judge-batch %v: %v %+v", batch, err, doc.Reproducibility)
		}
		scores = append(scores, string(doc.EvaluationResults.LLMCoverageScores))
	}
	if scores[0] != scores[1] || !strings.Contains(scores[0], `"avgCoverageExtent": 0.75`) {
		t.Errorf("scores differ:\n%s\n%s", scores[0], scores[1])
	}
}
