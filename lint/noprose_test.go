package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// noProseProject has a semi-objective rule, a subjective one and a checklist with one
// deterministic point, over documents with nothing to say (empty, front matter only, code
// only, an HTML comment only), one with prose, and one above MaxDocumentWords (100 here).
func noProseProject() map[string]string {
	return map[string]string{
		"vectorlint.ini":      "RulesPath = rules\nMaxDocumentWords = 100\n[docs/**]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\n---\nFind wordy phrases.\n",
		"rules/Acme/tone.md": "---\nid: Tone\nname: Tone\ntype: subjective\n" +
			"criteria: [{id: Warmth, name: Warmth}]\n---\nRate the tone.\n",
		"rules/Acme/plain.md": "---\nid: Plain\nname: Plain\nshould:\n  - $not_icontains: utilize\n---\nPlain words.\n",
		"docs/empty.md":       "",
		"docs/front.md":       "---\ntitle: Only front matter\n---\n",
		"docs/code.md":        "```sh\nacme deploy --prod\nacme status\n```\n",
		"docs/comment.md":     "<!-- a comment, not prose -->\n",
		"docs/prose.md":       "# Hello\n\nSome prose here.\n",
		"docs/big.md":         "# Big\n\n" + strings.Repeat("word ", 150) + "\n",
	}
}

// noProseWant is what Run reports on noProseProject: the files with no prose pass every rule
// that calls the model, marked "no prose", with no call; the checklist's deterministic point
// still scores them; big.md is skipped, not a result.
const noProseWant = `docs/code.md
  score Acme.Plain semi-objective 10.0
  score Acme.Tone subjective 10.0 skipped=no prose
  score Acme.Words semi-objective 10.0 (0 in 0 words, strictness 10) skipped=no prose
docs/comment.md
  score Acme.Plain semi-objective 10.0
  score Acme.Tone subjective 10.0 skipped=no prose
  score Acme.Words semi-objective 10.0 (0 in 0 words, strictness 10) skipped=no prose
docs/empty.md
  score Acme.Plain semi-objective 10.0
  score Acme.Tone subjective 10.0 skipped=no prose
  score Acme.Words semi-objective 10.0 (0 in 0 words, strictness 10) skipped=no prose
docs/front.md
  score Acme.Plain semi-objective 10.0
  score Acme.Tone subjective 10.0 skipped=no prose
  score Acme.Words semi-objective 10.0 (0 in 0 words, strictness 10) skipped=no prose
docs/prose.md
  score Acme.Plain semi-objective 10.0
  score Acme.Tone subjective 10.0 Warmth=4/10.0×1
  score Acme.Words semi-objective 10.0 (0 in 5 words, strictness 10)`

// noProseReason is big.md's skip reason.
const noProseReason = "too large to send: 152 words of prose, above MaxDocumentWords = 100 (raise MaxDocumentWords in vectorlint.ini to lint it)"

// renderNoProse is renderResults with each score's Skipped, when set, at the end of its line.
func renderNoProse(frs []finding.FileResult) string {
	var lines []string
	for _, fr := range frs {
		scores := fr.Scores
		fr.Scores = nil
		lines = append(lines, renderResults([]finding.FileResult{fr}))
		for _, s := range scores {
			l := strings.SplitN(renderResults([]finding.FileResult{{Path: "-", Scores: []finding.Score{s}}}), "\n", 2)[1]
			if s.Skipped != "" {
				l += " skipped=" + s.Skipped
			}
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n")
}

// TestNothingToSayNothingSent runs noProseProject against the fake server, lazily (as the
// command lints) and eagerly: 2 calls in all (Words and Tone on prose.md), none for the files
// without prose nor for the file above MaxDocumentWords, which is reported once as skipped with
// its word count, the limit and the key; the JSON scores say "skipped": "no prose"; the cost
// estimate agrees with the calls made.
func TestNothingToSayNothingSent(t *testing.T) {
	t.Parallel()
	for _, lazy := range []bool{true, false} {
		dir, proj := loadTestProject(t, noProseProject())
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}, Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		srv := llmtest.Start(t)
		srv.On(llmtest.SystemContains(`<rule name="Tone">`),
			llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Warmth", "score": 4, "summary": "Warm."}}}))
		srv.SetDefault(violationsOf())
		opts := testClient(t, srv, EvalOptions{ConfidenceThreshold: 0.75})
		if est := EstimateCost(plan, opts, nil); est.Calls != 2 {
			t.Errorf("lazy %v: estimate %d calls, want 2", lazy, est.Calls)
		}
		res, err := Run(context.Background(), plan, RunOptions{EvalOptions: opts})
		if err != nil {
			t.Fatal(err)
		}
		if got := renderNoProse(res.Files); got != noProseWant {
			t.Errorf("lazy %v: files:\n%s\nwant:\n%s", lazy, got, noProseWant)
		}
		wantSkipped := []finding.Skipped{{Path: "docs/big.md", Reason: noProseReason, Words: 152, MaxDocumentWords: 100}}
		if !reflect.DeepEqual(res.Skipped, wantSkipped) {
			t.Errorf("lazy %v: skipped %+v, want %+v", lazy, res.Skipped, wantSkipped)
		}
		if srv.Calls() != 2 || res.Usage.Calls != 2 {
			t.Errorf("lazy %v: %d server calls, usage %+v, want 2", lazy, srv.Calls(), res.Usage)
		}
		for _, r := range srv.Requests() {
			if !strings.Contains(r.LastUser(), "Some prose here.") {
				t.Errorf("lazy %v: a call for another document than prose.md:\n%s", lazy, r.LastUser())
			}
		}
		if res.Summary != (finding.Summary{Files: 5}) || !res.Complete() {
			t.Errorf("lazy %v: summary %+v, complete %v", lazy, res.Summary, res.Complete())
		}
		js, err := json.Marshal(res.Files[2])
		if err != nil {
			t.Fatal(err)
		}
		want := `{"rule":"Acme.Words","type":"semi-objective","score":10.0,"violations":0,"words":0,"strictness":10,"skipped":"no prose"}`
		if !bytes.Contains(js, []byte(want)) {
			t.Errorf("lazy %v: JSON of empty.md %s lacks %s", lazy, js, want)
		}
	}
}

// TestNoProseWithoutModel: with no model configured, a file with no prose still passes its
// rules (nothing to send, so nothing is missing), and no run error is counted for it.
func TestNoProseWithoutModel(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, noProseProject())
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs/empty.md"}})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), plan, RunOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `docs/empty.md
  score Acme.Plain semi-objective 10.0
  score Acme.Tone subjective 10.0 skipped=no prose
  score Acme.Words semi-objective 10.0 (0 in 0 words, strictness 10) skipped=no prose`
	if got := renderNoProse(res.Files); got != want || res.RunErrors != nil || res.Files[0].NotRun != 0 {
		t.Errorf("files:\n%s\nwant:\n%s\nrun errors %+v", got, want, res.RunErrors)
	}
}

// TestMaxDocumentWordsDefault: a document of 50,000 words is linted, one of 50,001 is not, by
// the default limit.
func TestMaxDocumentWordsDefault(t *testing.T) {
	t.Parallel()
	files := noProseProject()
	files["vectorlint.ini"] = "RulesPath = rules\n[docs/**]\nRunRules = Acme\n"
	files["docs/big.md"] = strings.Repeat("word ", 50_001)
	files["docs/limit.md"] = strings.Repeat("word ", 50_000)
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs/big.md", "docs/limit.md"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 2 || plan.Files[0].TooLarge == nil || plan.Files[1].TooLarge != nil {
		t.Fatalf("plan %v", renderPlan(plan))
	}
	want := "docs/big.md: too large to send: 50001 words of prose, above MaxDocumentWords = 50000 (raise MaxDocumentWords in vectorlint.ini to lint it)"
	if got := plan.Files[0].TooLarge.Error(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if plan.Files[0].Rules != nil || plan.Files[0].Doc != nil {
		t.Error("a document too large to send has rules planned")
	}
}

// TestMaxDocumentWordsFiveMegabytes: a 5 MB document (1,048,576 words) that would plan
// thousands of calls without the limit is refused by the default one before any call: 0 calls,
// one skipped entry. (docs/benchmarks.md, "Nothing to say, nothing sent".)
func TestMaxDocumentWordsFiveMegabytes(t *testing.T) {
	t.Parallel()
	files := noProseProject()
	big := strings.Repeat(strings.Repeat("word ", 15)+"\n", 1<<20/15+1)
	files["docs/big.md"] = big
	for _, tc := range []struct {
		ini   string
		calls int
	}{
		{"RulesPath = rules\nMaxDocumentWords = 100000000\n[docs/**]\nRunRules = Acme\n", fiveMBCalls},
		{"RulesPath = rules\n[docs/**]\nRunRules = Acme\n", 0},
	} {
		if tc.calls > 0 && testing.Short() {
			continue // planning a million words without the limit takes seconds
		}
		files["vectorlint.ini"] = tc.ini
		dir, proj := loadTestProject(t, files)
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs/big.md"}})
		if err != nil {
			t.Fatal(err)
		}
		if got := plan.Calls(); got != tc.calls {
			t.Errorf("%q: %d calls planned, want %d", tc.ini, got, tc.calls)
		}
		if tc.calls > 0 {
			continue // not run: the point is what it would cost
		}
		srv := llmtest.Start(t)
		res, err := Run(context.Background(), plan, RunOptions{EvalOptions: testClient(t, srv, EvalOptions{})})
		if err != nil {
			t.Fatal(err)
		}
		words := len(strings.Fields(big))
		want := []finding.Skipped{{Path: "docs/big.md", Reason: fmt.Sprintf("too large to send: %d words of prose, above MaxDocumentWords = 50000 (raise MaxDocumentWords in vectorlint.ini to lint it)", words), Words: words, MaxDocumentWords: 50_000}}
		if srv.Calls() != 0 || len(res.Files) != 0 || !reflect.DeepEqual(res.Skipped, want) {
			t.Errorf("%d calls, files %v, skipped %+v, want %+v", srv.Calls(), renderResults(res.Files), res.Skipped, want)
		}
	}
}

// fiveMBCalls is what the 5 MB document of TestMaxDocumentWordsFiveMegabytes plans without the
// limit: Words and Tone, one call per chunk (of at most DefaultChunkWords) each.
const fiveMBCalls = 1400
