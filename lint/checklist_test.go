package lint

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// checklistFiles is a project whose Acme pack has checklist rules (rules with `should`).
var checklistFiles = map[string]string{
	"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
	"rules/Acme/plain.md": `---
id: Plain
name: Plain words
severity: error
should:
  - $not_icontains_any_of: ["in order to", "utilize"]
  - $not_matches: "!{2,}"
  - $contains: "Acme Corp"
---
Banned phrases.
`,
	"rules/Acme/intro.md": `---
id: Intro
name: Introduction
target:
  regex: '^## Intro\n([\s\S]*?)(?=^## |(?![\s\S]))'
  flags: m
  group: 1
  required: true
should:
  - $word_count_between: [3, 50]
  - says who the page is for
---
The introduction states its audience.
`,
	"docs/a.md": "---\ntitle: A\n---\n# Café ☕ guide\n\nIn order to brew, utilize the grinder!!\n\n<!-- vectorlint-disable-next-line Acme.Plain -->\nSuppressed: in order to.\n\n## Intro\nFor baristas who are new.\n",
	"docs/b.md": "# No intro here\n\nAll fine. Acme Corp.\n",
}

func TestChecklistRules(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, checklistFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := plan.Calls(); got != 1 {
		t.Errorf("plan.Calls() = %d, want 1 (only Intro's judged point on a.md; b.md's target is missing)", got)
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("says who the page is for"),
		llmtest.Text("<reflection>It names baristas, new ones.</reflection><classification>CLASS_MOSTLY_PRESENT</classification>"))
	got, stats, err := evaluate(t, srv, plan, EvalOptions{Judge: nil})
	if err != nil {
		t.Fatal(err)
	}
	// The helper sets the client; the command also sets the judge. Without a judge the text
	// point is not evaluated and counted as a call not made.
	if stats.NotRun != 1 {
		t.Errorf("NotRun = %d, want 1", stats.NotRun)
	}
	// ... and its text point makes the rule run incomplete, counted under the run error.
	if want := "[{no LLM provider is configured no LLM provider is configured 1}]"; fmt.Sprint(stats.RunErrors) != want || got[0].NotRun != 1 {
		t.Errorf("run errors %v, want %s; a.md not run %d", stats.RunErrors, want, got[0].NotRun)
	}
	want := strings.Join([]string{
		"docs/a.md",
		// A point that finds nothing to point at spans the first line of the evaluated text.
		`  4:1-4:15 error Acme.Plain "# Café ☕ guide" "Not met: $contains: \"Acme Corp\""`,
		// "Must not" points are placed at each occurrence; the one on line 9 is suppressed.
		`  6:1-6:12 error Acme.Plain "In order to" "Avoid \"In order to\"."`,
		`  6:19-6:26 error Acme.Plain "utilize" "Avoid \"utilize\"."`,
		`  6:38-6:40 error Acme.Plain "!!" "Avoid \"!!\"."`,
		// Without a judge, Intro is scored on its deterministic point alone.
		`  score Acme.Intro semi-objective 10.0`,
		`  score Acme.Plain semi-objective 0.0`,
		"docs/b.md",
		`  1:1-1:1 warning Acme.Intro "" "target not found"`,
		`  score Acme.Intro semi-objective 0.0`,
		`  score Acme.Plain semi-objective 10.0`,
	}, "\n")
	if r := renderResults(got); r != want {
		t.Errorf("results without a judge:\n%s\nwant:\n%s", r, want)
	}
	if srv.Calls() != 0 {
		t.Errorf("calls = %d without a judge, want 0", srv.Calls())
	}

	// With the model as judge: CLASS_MOSTLY_PRESENT = 0.75 for the text point, the word count
	// is met (1): Intro's coverage is 0.875 → 8.8, with one finding at the start of its text.
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ep := llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}
	got, stats, err = evaluate(t, nil, plan, EvalOptions{Client: client, Endpoint: ep, Judge: ModelJudge{Client: client, Endpoint: ep}})
	if err != nil || stats.NotRun != 0 {
		t.Fatalf("err = %v, NotRun = %d", err, stats.NotRun)
	}
	r := renderResults(got)
	for _, w := range []string{
		`  12:1-12:26 warning Acme.Intro "For baristas who are new." "Not met: says who the page is for (met 75%)"`,
		`  score Acme.Intro semi-objective 8.8`,
	} {
		if !strings.Contains(r, w+"\n") {
			t.Errorf("results with a judge:\n%s\nwant a line %q", r, w)
		}
	}
	if srv.Calls() != 1 {
		t.Errorf("judge calls = %d, want 1", srv.Calls())
	}
	req := srv.Requests()[0]
	if user := req.LastUser(); !strings.Contains(user, "<TEXT>") || !strings.Contains(user, "For baristas who are new.") ||
		!strings.Contains(user, "<CRITERION>\nsays who the page is for\n</CRITERION>") {
		t.Errorf("judge prompt lacks the text or criterion:\n%s", user)
	}
	for _, fr := range got {
		if fr.Path == "docs/a.md" {
			for _, s := range fr.Scores {
				if s.Rule == "Acme.Intro" && (s.Coverage == nil || *s.Coverage != 0.88) {
					t.Errorf("Intro coverage = %v, want 0.88 (rounded to 2 decimals)", s.Coverage)
				}
			}
		}
	}
}

func TestChecklistPointErrorIsReported(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"vectorlint.ini":   "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/js.md": "---\nid: Js\nname: Js\nshould:\n  - $js: \"throw new Error('boom')\"\n  - $contains: fine\n---\nx\n",
		"a.md":             "All fine.\n",
	}
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"a.md"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := evaluate(t, nil, plan, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := renderResults(got)
	// The broken point scores 0 (spec: errors count, never hidden) and is an operational error.
	for _, w := range []string{"score Acme.Js semi-objective 5.0", "error Acme.Js: checklist points could not be evaluated: $js: \"throw new Error('boom')\": "} {
		if !strings.Contains(r, w) {
			t.Errorf("results:\n%s\nwant %q", r, w)
		}
	}
}

// TestChecklistJSMemory lints three files with a checklist whose $js point exhausts memory on
// one of them (its text says so): that file's point fails with the budget's message, and the
// others, scored by the same run's pool, keep their scores.
func TestChecklistJSMemory(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/js.md": "---\nid: Js\nname: Js\nshould:\n" +
			"  - $js: \"if (r.includes('GROW')) { const a = []; for (;;) a.push(new ArrayBuffer(60e6)) }; true\"\n  - $contains: fine\n---\nx\n",
		"a.md": "All fine.\n", "b.md": "All fine. GROW\n", "c.md": "All fine.\n",
	}
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"a.md", "b.md", "c.md"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := evaluate(t, nil, plan, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := renderResults(got)
	for _, w := range []string{"a.md\n  score Acme.Js semi-objective 10.0", "c.md\n  score Acme.Js semi-objective 10.0",
		"error Acme.Js: checklist points could not be evaluated: $js: \"if (r.includes('GROW'))"} {
		if !strings.Contains(r, w) {
			t.Errorf("results:\n%s\nwant %q", r, w)
		}
	}
	// The script grows by 60 MB a step: on a quiet machine the memory budget stops it, on a
	// starved one the 100 ms time limit may come first (points.TestJSMemoryGrowth, with the
	// time limit far off, pins the budget's message). Either way the point fails alone.
	if !strings.Contains(r, "JavaScript used more than 64 MiB of memory and was stopped") &&
		!strings.Contains(r, "JavaScript ran longer than 100ms and was stopped") {
		t.Errorf("results:\n%s\nwant the memory budget's message (or, on a loaded machine, the time limit's)", r)
	}
}

// TestChecklistPunctuatedItemLocated: a forbidden item with punctuation ("e-mail") is placed
// where it occurs, not at the start of the text (issue 32: its escaped regex was invalid under
// the u flag, so the finding fell back to the first line).
func TestChecklistPunctuatedItemLocated(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, map[string]string{
		"vectorlint.ini":      "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/email.md": "---\nid: Email\nname: Email\nshould:\n  - $not_icontains: e-mail\n  - $not_contains_any_of: [\"a/b\", \"x: y\"]\n---\nSay email.\n",
		"docs/a.md":           "# Contact\n\nSend us an E-mail (or an e-mail) about a/b.\n",
	})
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := evaluate(t, nil, plan, EvalOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		"docs/a.md",
		`  3:12-3:18 warning Acme.Email "E-mail" "Avoid \"E-mail\"."`,
		`  3:26-3:32 warning Acme.Email "e-mail" "Avoid \"e-mail\"."`,
		`  3:40-3:43 warning Acme.Email "a/b" "Avoid \"a/b\"."`,
		`  score Acme.Email semi-objective 0.0`,
	}, "\n")
	if r := renderResults(got); r != want {
		t.Errorf("results:\n%s\nwant:\n%s", r, want)
	}
}
