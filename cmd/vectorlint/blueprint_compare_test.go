package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
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
