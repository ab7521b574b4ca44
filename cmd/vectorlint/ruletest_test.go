package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The `vectorlint test` tests run rule examples against a fake model whose mistakes are
// scripted, so the counts it must report are known in advance (spec/linter.md §12).

// ruleTestProject has a model-evaluated rule with four examples and a deterministic checklist
// rule with two.
func ruleTestProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nexamples:\n" +
			"  - text: \"We met {==in order to==} plan the release.\"\n" +
			"  - text: \"We met to plan the release.\"\n" +
			"  - text: \"The team will {==leverage==} the tool.\"\n" +
			"  - text: \"Ship it today.\"\n" +
			"---\nFlag wordy phrases that have a shorter equivalent.\n",
		"rules/Acme/email.md": "---\nid: Email\nname: Email\nshould:\n  - $not_icontains: e-mail\nexamples:\n" +
			"  - text: \"Send us an {==e-mail==} today.\"\n" +
			"  - text: \"Send us an email today.\"\n" +
			"---\nSay email.\n",
	}
}

// violation is a reply's violation quoting q on line 1.
func violation(q, msg string) map[string]any {
	return map[string]any{"quoted_text": q, "line": 1, "message": msg, "confidence": 0.9}
}

func violations(vs ...map[string]any) llmtest.Reply {
	list := []any{}
	for _, v := range vs {
		list = append(list, v)
	}
	return llmtest.JSON(map[string]any{"violations": list})
}

// scriptRuleTest scripts model: the first example's span is missed in the second of three
// repeats; the second example gets an invented finding in the first repeat; the third's span
// is always found, and the third repeat adds a quote that is not in the text (unverified);
// the fourth never gets anything. Over 3 repeats: TP 5, FP 2, FN 1; 3 flaky, 1 passed all.
func scriptRuleTest(srv *llmtest.Server, model string) {
	m := llmtest.ModelIs(model)
	found := violations(violation("in order to", `Say "to".`))
	srv.On(llmtest.All(m, llmtest.UserContains("in order to plan")), found, violations(), found)
	srv.On(llmtest.All(m, llmtest.UserContains("met to plan")), violations(violation("to plan", "Wordy.")), violations())
	lev := violations(violation("leverage", `Say "use".`))
	srv.On(llmtest.All(m, llmtest.UserContains("leverage the tool")), lev, lev,
		violations(violation("leverage", `Say "use".`), violation("synergy", "Jargon.")))
}

// scriptPerfect makes model find exactly the marked spans.
func scriptPerfect(srv *llmtest.Server, model string) {
	m := llmtest.ModelIs(model)
	srv.On(llmtest.All(m, llmtest.UserContains("in order to plan")), violations(violation("in order to", `Say "to".`)))
	srv.On(llmtest.All(m, llmtest.UserContains("leverage the tool")), violations(violation("leverage", `Say "use".`)))
}

func startRuleTest(t *testing.T) (*llmtest.Server, string, map[string]string) {
	t.Helper()
	srv := llmtest.Start(t)
	srv.SetDefault(violations())
	scriptRuleTest(srv, "test-model")
	dir := t.TempDir()
	writeTestTree(t, dir, ruleTestProject())
	return srv, dir, fakeEnv(srv)
}

// ruleTestJSON is the JSON output's shape.
type ruleTestJSON struct {
	Rules []struct {
		Rule, Model                                                      string
		Examples, Repeats, TruePositives, FalsePositives, FalseNegatives int
		Precision, Recall                                                float64
		Flaky, PassedAll                                                 int
		Cases                                                            []struct {
			Example       string
			Flaky         bool
			PassedAll     bool
			Deterministic bool
			Repeats       []struct {
				TruePositives, FalsePositives, FalseNegatives int
				Pass                                          bool
			}
		}
	}
	Summary struct {
		Examples, TruePositives, FalsePositives, FalseNegatives, Flaky, PassedAll int
		Precision, Recall                                                         float64
		BelowGates                                                                []string
	}
}

func TestRuleTestCountsScriptedErrors(t *testing.T) {
	t.Parallel()
	srv, dir, env := startRuleTest(t)
	r := runVectorlint(t, dir, env, "", "test", "--output", "json", "--cache-dir", t.TempDir())
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var got ruleTestJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil {
		t.Fatalf("%v\n%s", err, r.stdout)
	}
	if len(got.Rules) != 2 {
		t.Fatalf("rules: %+v", got.Rules)
	}
	w := got.Rules[1]
	if w.Rule != "Acme.Wordiness" || w.Model != "test-model" || w.Examples != 4 || w.Repeats != 3 ||
		w.TruePositives != 5 || w.FalsePositives != 2 || w.FalseNegatives != 1 ||
		w.Precision != 5.0/7 || w.Recall != 5.0/6 || w.Flaky != 3 || w.PassedAll != 1 {
		t.Errorf("Wordiness: %+v\nwant TP 5, FP 2, FN 1, precision 5/7, recall 5/6, 3 flaky, 1 passed all", w)
	}
	passes := func(i int) []bool {
		var out []bool
		for _, rep := range w.Cases[i].Repeats {
			out = append(out, rep.Pass)
		}
		return out
	}
	for i, want := range [][]bool{{true, false, true}, {false, true, true}, {true, true, false}, {true, true, true}} {
		if g := passes(i); len(g) != 3 || g[0] != want[0] || g[1] != want[1] || g[2] != want[2] {
			t.Errorf("examples[%d] passes %v, want %v", i, g, want)
		}
	}
	// The checklist's $ point is checked with no model call, once for every repeat.
	e := got.Rules[0]
	if e.Rule != "Acme.Email" || e.TruePositives != 3 || e.FalsePositives != 0 || e.FalseNegatives != 0 ||
		e.PassedAll != 2 || !e.Cases[0].Deterministic || len(e.Cases[0].Repeats) != 3 {
		t.Errorf("Email: %+v", e)
	}
	if n := srv.Calls(); n != 12 {
		t.Errorf("%d model calls, want 12 (4 examples × 3 repeats, none for the checklist)", n)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(string(req.Body), "{==") {
			t.Errorf("a marker reached the model: %s", req.Body)
		}
	}
	r.noKey(t)
}

// TestRuleTestOutputs: a golden file per format, two models side by side.
func TestRuleTestOutputs(t *testing.T) {
	t.Parallel()
	srv, dir, env := startRuleTest(t)
	scriptPerfect(srv, "model-b")
	cache := t.TempDir()
	for _, format := range []string{"line", "json", "junit"} {
		r := runVectorlint(t, dir, env, "", "test", "--output", format, "--cache-dir", cache,
			"--model", "test-model", "--model", "model-b")
		if r.code != 0 {
			t.Fatalf("%s: exit %d\n%s%s", format, r.code, r.stdout, r.stderr)
		}
		testutil.Golden(t, "testdata/ruletest/two-models."+format, r.stdout)
	}
	// The first format's run made the calls; the others came from the cache.
	if n := srv.Calls(); n != 24 {
		t.Errorf("%d model calls, want 24 (4 examples × 3 repeats × 2 models, once)", n)
	}
}

// TestRuleTestCache: an unchanged suite runs again from the cache; a fourth repeat makes only
// the new calls.
func TestRuleTestCache(t *testing.T) {
	t.Parallel()
	srv, dir, env := startRuleTest(t)
	cache := t.TempDir()
	for i, c := range []struct {
		repeat string
		calls  int
	}{{"3", 12}, {"3", 12}, {"4", 16}} {
		r := runVectorlint(t, dir, env, "", "test", "--repeat", c.repeat, "--cache-dir", cache)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s%s", i+1, r.code, r.stdout, r.stderr)
		}
		if n := srv.Calls(); n != c.calls {
			t.Errorf("after run %d (--repeat %s): %d calls, want %d", i+1, c.repeat, n, c.calls)
		}
	}
}

func TestRuleTestGatesAndFailures(t *testing.T) {
	t.Parallel()
	srv, dir, env := startRuleTest(t)
	cache := t.TempDir()
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"gates pass", []string{"--min-precision", "0.7", "--min-recall", "0.8", "--min-pass-rate", "0.25"}, 0, ""},
		{"precision gate", []string{"--min-precision", "0.75"}, 1,
			"vectorlint test: Acme.Wordiness (test-model): precision 0.71 below --min-precision 0.75\n"},
		{"every gate", []string{"--min-precision", "0.9", "--min-recall", "0.9", "--min-pass-rate", "0.5"}, 1,
			"vectorlint test: Acme.Wordiness (test-model): precision 0.71 below --min-precision 0.9\n" +
				"vectorlint test: Acme.Wordiness (test-model): recall 0.83 below --min-recall 0.9\n" +
				"vectorlint test: Acme.Wordiness (test-model): pass rate 0.25 (1 of 4 examples passed every repeat) below --min-pass-rate 0.5\n"},
		{"one rule file", []string{"rules/Acme/email.md", "--min-precision", "1"}, 0, ""},
		{"a pack folder", []string{"rules/Acme", "--min-precision", "0.7"}, 0, ""},
		{"bad gate", []string{"--min-recall", "1.5"}, 2,
			"vectorlint test: --min-recall: expected a number from 0 to 1, found 1.5\nRun \"vectorlint test --help\" for usage.\n"},
		{"bad repeat", []string{"--repeat", "0"}, 2,
			"vectorlint test: --repeat: expected 1 to 100, found 0\nRun \"vectorlint test --help\" for usage.\n"},
		{"bad output", []string{"--output", "sarif"}, 2,
			"vectorlint test: --output: expected one of line, json, junit, found \"sarif\"\nRun \"vectorlint test --help\" for usage.\n"},
		{"no rule there", []string{"docs"}, 2,
			"vectorlint test: docs: no rule the configuration loads is there (expected a rule file or a pack folder of RulesPath)\n"},
	} {
		args := append([]string{"test", "--cache-dir", cache}, c.args...)
		r := runVectorlint(t, dir, env, "", args...)
		if r.code != c.code || r.stderr != c.stderr {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", c.name, r.code, r.stderr, c.code, c.stderr)
		}
	}
	if n := srv.Calls(); n != 12 {
		t.Errorf("%d calls, want 12 (the first run's; the others from the cache or none)", n)
	}
}

// TestRuleTestNoModel: examples that need a model stop the run before any call, naming the
// variables to set (exit 2); a suite of deterministic examples runs without one.
func TestRuleTestNoModel(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, ruleTestProject())
	r := runVectorlint(t, dir, map[string]string{}, "", "test", "--cache-dir", t.TempDir())
	if r.code != 2 || r.stdout != "" || !strings.HasPrefix(r.stderr, "vectorlint test: no LLM provider is configured: set OPENAI_API_KEY for OpenAI") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	r = runVectorlint(t, dir, map[string]string{}, "", "test", "--cache-dir", t.TempDir(), "rules/Acme/email.md")
	want := "RULE        MODEL  EXAMPLES  TP  FP  FN  PRECISION  RECALL  FLAKY  PASSED ALL\n" +
		"Acme.Email  -      2         3   0   0   1.00       1.00    0      2/2\n\n" +
		"2 examples × 3 repeats: precision 1.00, recall 1.00, 0 flaky, 2 of 2 passed every repeat\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d\nstdout:\n%s\nwant:\n%s\nstderr:\n%s", r.code, r.stdout, want, r.stderr)
	}
}

// TestRuleTestCallFails: a call that still fails after its retries is exit 2, naming the
// example; what was counted is printed.
func TestRuleTestCallFails(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(violations())
	srv.On(llmtest.UserContains("Ship it today"), llmtest.Status(400, `{"error":{"message":"bad request"}}`))
	dir := t.TempDir()
	writeTestTree(t, dir, ruleTestProject())
	r := runVectorlint(t, dir, fakeEnv(srv), "", "test", "--repeat", "1", "--cache-dir", t.TempDir(), "rules/Acme/wordiness.md")
	if r.code != 2 || !strings.Contains(r.stderr, "vectorlint test: Acme.Wordiness examples[3] (line 8): ") ||
		!strings.Contains(r.stdout, "Acme.Wordiness  test-model  4") {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestRuleTestSubjectiveRanges: a subjective example passes a repeat when its score and each
// listed criterion's rating are inside their ranges, and (no marker) no finding lands.
func TestRuleTestSubjectiveRanges(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	rated := func(value, tone int, vs ...any) llmtest.Reply {
		if vs == nil {
			vs = []any{}
		}
		return llmtest.JSON(map[string]any{"criteria": []any{
			map[string]any{"id": "Value", "name": "Value", "score": value, "summary": "s", "reasoning": "r", "violations": vs},
			map[string]any{"id": "Tone", "name": "Tone", "score": tone, "summary": "s", "reasoning": "r", "violations": []any{}},
		}})
	}
	// Repeat 1: both 4 (score 10); repeat 2: Value 2, out of its range; repeat 3: both 4 and
	// a finding where none is marked.
	srv.On(llmtest.UserContains("small pull requests"), rated(4, 4), rated(2, 4), rated(4, 4, violation("Ship", "Vague.")))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\n" +
			"criteria:\n  - {id: Value, name: Value, weight: 1}\n  - {id: Tone, name: Tone, weight: 1}\n" +
			"examples:\n  - text: \"# Ship faster with small pull requests\"\n    score: [7, 10]\n    criteria: {Value: [3, 4]}\n" +
			"---\nRate the headline.\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "test", "--output", "json", "--cache-dir", t.TempDir())
	var got ruleTestJSON
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != 0 {
		t.Fatalf("exit %d, %v\n%s%s", r.code, err, r.stdout, r.stderr)
	}
	h := got.Rules[0]
	var passes []bool
	for _, rep := range h.Cases[0].Repeats {
		passes = append(passes, rep.Pass)
	}
	if h.FalsePositives != 2 || h.Flaky != 1 || h.PassedAll != 0 || len(passes) != 3 || !passes[0] || passes[1] || passes[2] {
		t.Errorf("Headline: %+v, passes %v; want repeat 2 failed (Value rated 2), with the finding of its low rating, repeat 3 with a false positive", h, passes)
	}
	if !strings.Contains(r.stdout, `"criterion Value rated 2, outside [3, 4]"`) {
		t.Errorf("the failed repeat does not say why:\n%s", r.stdout)
	}
}

// TestRuleTestJudgeSamples: a checklist's LLM-judged point is judged once per repeat, each a
// distinct sample, and from the cache when the suite runs again.
func TestRuleTestJudgeSamples(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("<reflection>Met.</reflection><classification>CLASS_FULLY_PRESENT</classification>"))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/deadline.md": "---\nid: Deadline\nname: Deadline\nshould:\n  - Mentions the deadline\n" +
			"examples:\n  - text: \"Send it by Friday, the deadline.\"\n---\nx\n",
	})
	cache := t.TempDir()
	for i, want := range []int{2, 2} {
		r := runVectorlint(t, dir, fakeEnv(srv), "", "test", "--repeat", "2", "--cache-dir", cache)
		if r.code != 0 || !strings.Contains(r.stdout, "Acme.Deadline  test-model  1         0   0   0   1.00       1.00    0      1/1") {
			t.Errorf("run %d: exit %d\n%s%s", i+1, r.code, r.stdout, r.stderr)
		}
		if n := srv.Calls(); n != want {
			t.Errorf("after run %d: %d judge calls, want %d", i+1, n, want)
		}
	}
}

// TestRuleTestHelpAndNoExamples: --help prints the usage; rules without examples are nothing
// to test (exit 2, saying so).
func TestRuleTestHelpAndNoExamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
	})
	r := runVectorlint(t, dir, map[string]string{}, "", "test", "--help")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: vectorlint test [flags] [PATH...]\n") || !strings.Contains(r.stdout, "--min-pass-rate F") {
		t.Errorf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runVectorlint(t, dir, map[string]string{}, "", "test")
	want := "vectorlint test: no rule to test: none of the selected rules has examples (docs/rules.md, \"Examples\")\n"
	if r.code != 2 || r.stdout != "" || r.stderr != want {
		t.Errorf("exit %d\nstdout:\n%s\nstderr:\n%s\nwant:\n%s", r.code, r.stdout, r.stderr, want)
	}
}
