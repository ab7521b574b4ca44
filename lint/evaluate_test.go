package lint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/rules"
)

// evaluate runs Evaluate against srv and returns the emitted results.
func evaluate(t *testing.T, srv *llmtest.Server, plan *Plan, opts EvalOptions) ([]finding.FileResult, EvalStats, error) {
	t.Helper()
	if srv != nil {
		client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, Concurrency: opts.Concurrency})
		if err != nil {
			t.Fatal(err)
		}
		opts.Client = client
		opts.Endpoint = llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}
	}
	var out []finding.FileResult
	stats, err := Evaluate(context.Background(), plan, opts, func(fr finding.FileResult) error {
		out = append(out, fr)
		return nil
	})
	return out, stats, err
}

// renderResults prints results compactly for comparison.
func renderResults(frs []finding.FileResult) string {
	var lines []string
	for _, fr := range frs {
		lines = append(lines, fr.Path)
		for _, f := range fr.Findings {
			lines = append(lines, fmt.Sprintf("  %d:%d-%d:%d %s %s %q %q", f.Start.Line, f.Start.Column, f.End.Line, f.End.Column,
				f.Severity, f.Rule, f.Match, f.Message))
		}
		for _, s := range fr.Scores {
			l := fmt.Sprintf("  score %s %s %.1f", s.Rule, s.Type, scoringRound(float64(s.Score)))
			if s.Violations != nil {
				l += fmt.Sprintf(" (%d in %d words, strictness %g)", *s.Violations, *s.Words, *s.Strictness)
			}
			for _, c := range s.Criteria {
				l += fmt.Sprintf(" %s=%d/%.1f×%g", c.ID, c.Rating, float64(c.Score), c.Weight)
			}
			lines = append(lines, l)
		}
		for _, u := range fr.Unverified {
			lines = append(lines, fmt.Sprintf("  unverified %s line %d %q", u.Rule, u.Line, u.Quote))
		}
		for _, e := range fr.Errors {
			lines = append(lines, fmt.Sprintf("  error %s: %s", e.Rule, e.Message))
		}
	}
	return strings.Join(lines, "\n")
}

func scoringRound(x float64) float64 { return float64(int(x*10+0.5)) / 10 }

func violationsOf(vs ...map[string]any) llmtest.Reply {
	items := make([]any, len(vs))
	for i, v := range vs {
		items[i] = v
	}
	return llmtest.JSON(map[string]any{"violations": items})
}

// TestEvaluatePlan evaluates the plan of plan_test.go: criteria with their own targets (one
// missing, rated 0), criteria sharing a call, a rule-level missing target with other criteria
// still rated, a rule that cannot run, an unreadable file, severity overrides.
func TestEvaluatePlan(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Headline">`), llmtest.SystemContains("- id: Clarity")),
		llmtest.JSON(map[string]any{"criteria": []any{
			map[string]any{"id": "Clarity", "score": 3}, map[string]any{"id": "Same", "score": 4}}}))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Headline">`), llmtest.UserContains("No headline")),
		llmtest.JSON(map[string]any{"criteria": []any{
			map[string]any{"id": "Tone", "score": 2, "summary": "Flat."},
			map[string]any{"id": "Same", "score": 2, "violations": []any{map[string]any{"quoted_text": "headline", "line": 1, "message": "No title."}}}}}))
	srv.On(llmtest.SystemContains(`<rule name="Headline">`),
		llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Tone", "score": 1, "summary": "Cold.", "reasoning": "No warmth."}}}))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("All good")),
		violationsOf(map[string]any{"quoted_text": "All good", "line": 7, "message": "Vague."}))
	srv.SetDefault(violationsOf())
	got, stats, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 2})
	if err != nil || stats.NotRun != 0 || len(stats.Incomplete) != 0 {
		t.Fatalf("err %v, stats %+v", err, stats)
	}
	// Acme.Facts cannot run without a search model: said once for the run, counted per file.
	if want := []finding.RunError{{Cause: "no search model is configured", Message: rules.ErrNoSearchModel.Error(), NotRun: 2}}; fmt.Sprint(stats.RunErrors) != fmt.Sprint(want) {
		t.Errorf("run errors %+v, want %+v", stats.RunErrors, want)
	}
	want := `docs/a.md
  1:1-1:1 error Acme.Headline.Intro "" "target not found"
  4:1-4:17 warning Acme.Headline.Tone "# Héllo 👋🏽 wörld" "Cold."
  7:1-7:9 warning Acme.Wordiness "All good" "Vague."
  score Acme.Headline subjective 5.0 Clarity=3/7.0×2 Intro=0/0.0×1 Tone=1/1.0×1 Same=4/10.0×1
  score Acme.Summary semi-objective 10.0 (0 in 2 words, strictness 10)
  score Acme.Wordiness semi-objective 0.0 (1 in 8 words, strictness 10)
docs/b.md
  1:1-1:1 error Acme.Headline "" "target not found"
  1:1-1:1 error Acme.Headline.Intro "" "target not found"
  1:1-1:18 warning Acme.Headline.Tone "No headline here." "Flat."
  1:1-1:1 error Acme.Summary "" "target not found"
  1:4-1:12 warning Acme.Headline.Same "headline" "No title."
  score Acme.Headline subjective 1.6 Clarity=0/0.0×2 Intro=0/0.0×1 Tone=2/4.0×1 Same=2/4.0×1
  score Acme.Summary semi-objective 0.0
  score Acme.Wordiness semi-objective 10.0 (0 in 3 words, strictness 20)
docs/bad.md
  error vectorlint: 1:7: expected UTF-8 text, found a byte that is not UTF-8 (offset 6)`
	if g := renderResults(got); g != want {
		t.Errorf("results:\n%s\nwant:\n%s", g, want)
	}
	if srv.Calls() != plan.Calls() {
		t.Errorf("%d calls, the plan needs %d", srv.Calls(), plan.Calls())
	}
}

// TestEvaluateNotConfigured: without a client nothing is sent; deterministic findings and
// scores are still produced, the calls not made are counted, and the rules that needed the
// model (or a search model) are counted under one run error each, not listed per file.
func TestEvaluateNotConfigured(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs/a.md", "docs/b.md"}})
	if err != nil {
		t.Fatal(err)
	}
	got, stats, err := evaluate(t, nil, plan, EvalOptions{})
	if err != nil || stats.NotRun != plan.Calls() {
		t.Fatalf("err %v, stats %+v, plan calls %d", err, stats, plan.Calls())
	}
	want := `docs/b.md
  1:1-1:1 error Acme.Headline "" "target not found"
  1:1-1:1 error Acme.Headline.Intro "" "target not found"
  1:1-1:1 error Acme.Summary "" "target not found"
  score Acme.Summary semi-objective 0.0`
	if g := renderResults(got[1:]); g != want {
		t.Errorf("results:\n%s\nwant:\n%s", g, want)
	}
	// Facts (no search model) comes first: rules run in id order.
	wantErrs := []finding.RunError{
		{Cause: "no search model is configured", Message: rules.ErrNoSearchModel.Error(), NotRun: 2},
		{Cause: "no LLM provider is configured", Message: "no LLM provider is configured", NotRun: 5},
	}
	if fmt.Sprint(stats.RunErrors) != fmt.Sprint(wantErrs) || got[0].NotRun != 4 || got[1].NotRun != 3 {
		t.Errorf("run errors %+v, want %+v; not run per file %d, %d", stats.RunErrors, wantErrs, got[0].NotRun, got[1].NotRun)
	}
	for _, fr := range got {
		if len(fr.Errors) != 0 {
			t.Errorf("%s: errors %v: run errors are not listed per file", fr.Path, fr.Errors)
		}
	}
	// The command passes the *llm.NotConfiguredError, naming what to set.
	_, stats, err = evaluate(t, nil, plan, EvalOptions{NotConfigured: &llm.NotConfiguredError{Provider: "anthropic", Missing: []string{"ANTHROPIC_MODEL"}}})
	if err != nil || len(stats.RunErrors) != 2 || stats.RunErrors[1].Cause != "LLM provider anthropic is not fully configured" ||
		stats.RunErrors[1].Message != "LLM provider anthropic is not fully configured: set ANTHROPIC_MODEL" {
		t.Errorf("with a reason: %v, %+v", err, stats.RunErrors)
	}
}

// chunkProject is a project with one semi-objective and one subjective rule on a document long
// enough to be split into chunks.
func chunkProject(doc string) map[string]string {
	return map[string]string{
		"vectorlint.ini":      "RulesPath = rules\nChunkWords = 500\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\nseverity: error\n---\nFind wordy phrases.\n",
		"rules/Acme/tone.md": "---\nid: Tone\nname: Tone\ntype: subjective\n" +
			"criteria: [{id: Warmth, name: Warmth, weight: 2}, {id: Clarity, name: Clarity}]\n---\nRate the tone.\n",
		"doc.md": doc,
	}
}

// TestEvaluateChunks checks merging across chunks: each chunk's violations are located in that
// chunk, duplicates are dropped, the density counts the whole text, and subjective ratings are
// averaged over chunks weighted by words, with the summary of the lowest-rated chunk.
func TestEvaluateChunks(t *testing.T) {
	t.Parallel()
	var doc strings.Builder
	for i := range 14 { // 14 paragraphs of 50 words: 700 words, two chunks of at most ChunkWords = 500 (lines 1-19, 21-27)
		fmt.Fprintf(&doc, "Para %d in order to%s\n\n", i+1, strings.Repeat(" w", 45))
	}
	dir, proj := loadTestProject(t, chunkProject(doc.String()))
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"doc.md"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	// Each chunk is numbered from 1 (spec/linter.md §13); its line hints are moved back by the
	// chunk's first line: line 5 of the second chunk is the document's line 25.
	first, second := llmtest.UserContains("1\tPara 1 "), llmtest.UserContains("1\tPara 11 ")
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Words">`), first), violationsOf(
		map[string]any{"quoted_text": "in order to", "line": 3, "message": "Wordy."},
		map[string]any{"quoted_text": "in order to", "line": 3, "message": "Wordy again."}, // duplicate
		map[string]any{"quoted_text": "in order to", "line": 21, "message": "Not in this chunk."},
	))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Words">`), second), violationsOf(
		map[string]any{"quoted_text": "in order to", "line": 5, "message": "Wordy."},
		map[string]any{"quoted_text": "Para 13", "line": 5, "message": "Unsure.", "confidence": 0.7},
	))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Tone">`), first), llmtest.JSON(map[string]any{"criteria": []any{
		map[string]any{"id": "Warmth", "score": 3, "summary": "Fine."}, map[string]any{"id": "Clarity", "score": 2, "summary": "Muddled start."}}}))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Tone">`), second), llmtest.JSON(map[string]any{"criteria": []any{
		map[string]any{"id": "Warmth", "score": 1, "summary": "Cold end."}, map[string]any{"id": "Clarity", "score": 2, "summary": "Muddled end."}}}))
	got, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75})
	if err != nil {
		t.Fatal(err)
	}
	// Words: 3 located in 700 words → 100 − 3/7 = 95.7… → 9.6. The line-21 quote is searched
	// in the first chunk only (the model saw only that chunk) and found there, on line 1.
	// Warmth: 3 on 500 words and 1 on 200 → (1500+200)/700 = 2.43 → 2; Clarity 2 → 2.
	want := `doc.md
  1:1-1:109 warning Acme.Tone.Clarity "Para 1 in order to w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w" "Muddled start."
  1:1-1:109 warning Acme.Tone.Warmth "Para 1 in order to w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w w" "Cold end."
  1:8-1:19 error Acme.Words "in order to" "Not in this chunk."
  3:8-3:19 error Acme.Words "in order to" "Wordy."
  25:9-25:20 error Acme.Words "in order to" "Wordy."
  score Acme.Tone subjective 4.0 Warmth=2/4.0×2 Clarity=2/4.0×1
  score Acme.Words semi-objective 9.6 (3 in 700 words, strictness 10)`
	if g := renderResults(got); g != want {
		t.Errorf("results:\n%s\nwant:\n%s", g, want)
	}
}

// TestEvaluateOrder checks that results are emitted in path order whatever order the calls
// finish in, and that an error from emit stops the run.
func TestEvaluateOrder(t *testing.T) {
	t.Parallel()
	files := chunkProject("x")
	delete(files, "rules/Acme/tone.md")
	for i := range 6 {
		files[fmt.Sprintf("d/f%d.md", i)] = fmt.Sprintf("File %d.\n", i)
	}
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"d"}})
	if err != nil {
		t.Fatal(err)
	}
	// Answered once all 6 are in flight, the first files last.
	srv := llmtest.Start(t, llmtest.WithGate(6))
	for i := range 6 {
		srv.On(llmtest.UserContains(fmt.Sprintf("File %d.", i)), violationsOf()).WithLatency(time.Duration(6-i) * 15 * time.Millisecond)
	}
	got, _, err := evaluate(t, srv, plan, EvalOptions{Concurrency: 6})
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, fr := range got {
		paths = append(paths, fr.Path)
	}
	if strings.Join(paths, " ") != "d/f0.md d/f1.md d/f2.md d/f3.md d/f4.md d/f5.md" {
		t.Errorf("emitted %v", paths)
	}
	if srv.MaxInFlight() != 6 {
		t.Errorf("max in flight %d, want 6", srv.MaxInFlight())
	}

	client, _ := llm.New(llm.Config{})
	stop := errors.New("disk full")
	emitted := 0
	_, err = Evaluate(context.Background(), plan, EvalOptions{Client: client, Concurrency: 2,
		Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "m"}}, func(finding.FileResult) error {
		emitted++
		if emitted == 2 {
			return stop
		}
		return nil
	})
	if !errors.Is(err, stop) || emitted != 2 {
		t.Errorf("emit error: %v after %d files", err, emitted)
	}
}

// TestEvaluateCancel stops a run while a call hangs: finished files are emitted, the others are
// listed as incomplete, and the error is the context's.
func TestEvaluateCancel(t *testing.T) {
	files := chunkProject("x")
	delete(files, "rules/Acme/tone.md")
	files["d/a.md"], files["d/b.md"], files["d/c.md"] = "Quick.\n", "Hang.\n", "Quick too.\n"
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{filepath.Join(dir, "d")}})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("Hang."), llmtest.Hang())
	srv.SetDefault(violationsOf())
	ctx, cancel := context.WithCancel(context.Background())
	// Cancel once a.md and c.md have their replies and b.md's request hangs at the server.
	replied := make(chan string, 3)
	client, _ := llm.New(llm.Config{OnEvent: func(e llm.Event) {
		if e.Kind == llm.EventResponse {
			replied <- e.Label
		}
	}})
	go func() {
		<-replied
		<-replied
		for {
			for _, r := range srv.Requests() {
				if strings.Contains(r.LastUser(), "Hang.") {
					cancel()
					return
				}
			}
			time.Sleep(time.Millisecond)
		}
	}()
	var paths []string
	stats, err := Evaluate(ctx, plan, EvalOptions{Client: client, Concurrency: 3, Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "m"}},
		func(fr finding.FileResult) error {
			paths = append(paths, fr.Path)
			return nil
		})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
	if strings.Join(paths, " ") != "d/a.md d/c.md" || strings.Join(stats.Incomplete, " ") != "d/b.md" {
		t.Errorf("emitted %v, incomplete %v", paths, stats.Incomplete)
	}
}

// TestEvaluateStoppedEndpoint: the model server rejects the key. The first call stops the
// endpoint; every rule that needed it is counted under one run error naming the cause and the
// fix, no file lists it, deterministic results stay, and the checklist rule's judged point
// (judged by the same endpoint) counts the same way. A 400 for one request stays that rule's
// error on that file.
func TestEvaluateStoppedEndpoint(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for k, v := range checklistFiles {
		files[k] = v
	}
	files["rules/Acme/words.md"] = "---\nid: Words\nname: Words\n---\nFind wordy phrases.\n"
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Status(401, `{"error":{"message":"Incorrect API key provided."}}`))
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	ep := llm.Endpoint{Provider: "openai", BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test-wrong-0123"}
	got, stats, err := evaluate(t, nil, plan, EvalOptions{Client: client, Endpoint: ep, Judge: ModelJudge{Client: client, Endpoint: ep}, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 1 {
		t.Errorf("%d requests, want 1: none after the 401", srv.Calls())
	}
	host := strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://")
	want := []finding.RunError{{Cause: "HTTP 401 Unauthorized from " + host,
		Message: "llm: " + host + " (openai) rejected the API key: HTTP 401 Unauthorized: Incorrect API key provided.; set OPENAI_API_KEY to a valid key",
		NotRun:  3}} // a.md: Intro's judged point and Words; b.md: Words (Intro's target is missing)
	if fmt.Sprint(stats.RunErrors) != fmt.Sprint(want) {
		t.Errorf("run errors\n got %+v\nwant %+v", stats.RunErrors, want)
	}
	r := renderResults(got)
	for _, fr := range got {
		if len(fr.Errors) != 0 {
			t.Errorf("%s lists errors %v", fr.Path, fr.Errors)
		}
	}
	if got[0].NotRun != 2 || got[1].NotRun != 1 {
		t.Errorf("not run per file: %d, %d", got[0].NotRun, got[1].NotRun)
	}
	// The deterministic results are kept: Plain's findings and score, Intro's deterministic point.
	for _, w := range []string{`  6:19-6:26 error Acme.Plain "utilize" "Avoid \"utilize\"."`, "  score Acme.Intro semi-objective 10.0", "  score Acme.Plain semi-objective 0.0"} {
		if !strings.Contains(r, w+"\n") {
			t.Errorf("results:\n%s\nwant a line %q", r, w)
		}
	}

	// A 400 about one request stays that rule's error on that file.
	srv2 := llmtest.Start(t)
	srv2.On(llmtest.All(llmtest.SystemContains(`<rule name="Words">`), llmtest.UserContains("baristas")),
		llmtest.Status(400, `{"error":{"message":"context too long"}}`))
	srv2.SetDefault(violationsOf())
	got, stats, err = evaluate(t, srv2, plan, EvalOptions{Concurrency: 1})
	if err != nil || len(stats.RunErrors) != 1 || stats.RunErrors[0].Cause != "no LLM provider is configured" {
		t.Fatalf("err %v, run errors %+v (only the judge is missing)", err, stats.RunErrors)
	}
	if len(got[0].Errors) != 1 || got[0].Errors[0].Rule != "Acme.Words" || !strings.HasSuffix(got[0].Errors[0].Message, "HTTP 400 Bad Request: context too long") || len(got[1].Errors) != 0 {
		t.Errorf("errors %v / %v", got[0].Errors, got[1].Errors)
	}
}
