package main

import (
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Limits through the commands: a pathological regex or script is an error naming its rule
// or point, not a hang, and the rest of the run goes on.

// backtracker is a string on which (a+)+$ backtracks for ever (2^40 ways to fail).
var backtracker = strings.Repeat("a", 40) + "b"

// TestLintPathologicalTarget gives a rule a target regex that backtracks catastrophically on
// the document: the rule fails with an error naming its target, the other rule still runs.
func TestLintPathologicalTarget(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":       "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/slow.md":   "---\nid: Slow\nname: Slow\ntarget: {regex: '(a+)+$', required: true}\n---\nCheck.\n",
		"rules/Acme/steady.md": "---\nid: Steady\nname: Steady\n---\nCheck.\n",
		"docs/a.md":            backtracker + "\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	if r.code != exitFailure {
		t.Errorf("exit %d, want 2", r.code)
	}
	f := decodeJSON(t, r.stdout).Files[0]
	if len(f.Errors) != 1 || f.Errors[0].Rule != "Acme.Slow" ||
		f.Errors[0].Message != "target /(a+)+$/mu: regular expression took too long to match (catastrophic backtracking?)" {
		t.Errorf("errors %+v", f.Errors)
	}
	if len(f.Scores) != 1 || f.Scores[0].Rule != "Acme.Steady" || f.Scores[0].Score != 10 {
		t.Errorf("scores %+v", f.Scores)
	}
}

// TestBlueprintLimits runs point functions that hit every limit: regexes that backtrack
// catastrophically, scripts that loop, build huge strings or look for modules, and network
// functions without --allow-net. Each is a failure naming its point; the other points score.
// The $js limit is attackJSLimit: the endless loop reaches it, the scripts that throw at once
// do not, however loaded the machine.
func TestBlueprintLimits(t *testing.T) {
	t.Parallel()
	dir := writeBlueprintFiles(t, map[string]string{
		"limits.yml": `- id: p
  prompt: Q
  should:
    - $matches: "(a+)+$"
    - $imatches_all_of: ["a", "(a|aa)+$"]
    - $js: "while (true) {}"
    - $js: "'x'.repeat(2**29).length > 0"
    - $js: "require('fs').readFileSync('/etc/passwd')"
    - $call: {url: "http://127.0.0.1:9/check"}
    - $factcheck: dates
    - $contains: "aaa"
`,
		"r.jsonl": `{"promptId": "p", "model": "m:a", "response": "` + backtracker + `"}`,
	})
	code, stdout, stderr := runBlueprintJS(t, dir, map[string]string{"FACTCHECK_ENDPOINT_URL": "http://127.0.0.1:9/factcheck"}, attackJSLimit,
		"blueprint", "run", "limits.yml", "--responses", "r.jsonl", "--run-label", "L")
	if code != exitFailure || stderr != "" {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	for _, want := range []string{
		"p        0.13\n",
		"7 failures:\n",
		`  p × m:a: Function: matches("(a+)+$"): regular expression took too long to match (catastrophic backtracking?)` + "\n",
		`  p × m:a: Function: imatches_all_of(["a","(a|aa)+$"]): regular expression took too long to match (catastrophic backtracking?)` + "\n",
		`  p × m:a: Function: js("while (true) {}"): JavaScript ran longer than 500ms and was stopped` + "\n",
		`  p × m:a: Function: js("'x'.repeat(2**29).length > 0"): JavaScript threw: RangeError: String.prototype.repeat: the result would have more than 4194304 characters, the $js limit` + "\n",
		`  p × m:a: Function: js("require('fs').readFileSync('/etc/passwd')"): JavaScript threw: ReferenceError: require is not defined` + "\n",
		`  p × m:a: Function: call({"url":"http://127.0.0.1:9/check"}): network access is off: run with --allow-net`,
		`  p × m:a: Function: factcheck("dates"): network access is off: run with --allow-net`,
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
}
