package lint

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// samplesProject is a project with one semi-objective rule (Words) and one subjective rule
// (Title) on docs/a.md; ini holds the global keys.
func samplesProject(ini string) map[string]string {
	return map[string]string{
		"vectorlint.ini":      "RulesPath = rules\n" + ini + "[docs/**]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\nseverity: error\n---\nFind wordy phrases.\n",
		"rules/Acme/title.md": "---\nid: Title\nname: Title\ntype: subjective\ncriteria: [{id: Clear, name: Clear}]\n---\nRate the title.\n",
		"docs/a.md":           "# Plan\n\nWe met in order to plan the release, then we utilize the tool.\n",
	}
}

// samplesPlan is the plan of samplesProject over docs with in's Samples.
func samplesPlan(t *testing.T, ini string, in PlanInput) *Plan {
	t.Helper()
	dir, proj := loadTestProject(t, samplesProject(ini))
	in.Dir, in.Paths = dir, []string{"docs"}
	plan, err := BuildPlan(proj.Config, proj.Packs, in)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func wordsRule() llmtest.Matcher { return llmtest.SystemContains(`<rule name="Words">`) }
func titleRule() llmtest.Matcher { return llmtest.SystemContains(`<rule name="Title">`) }

func rating(score int) llmtest.Reply {
	return llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Clear", "score": score, "summary": "Rated " + string(rune('0'+score)) + "."}}})
}

func wordy(quote string, confidence float64) map[string]any {
	return map[string]any{"quoted_text": quote, "line": 3, "message": "Wordy: " + quote + ".", "confidence": confidence}
}

// findingsOf returns the findings of rule in the results.
func findingsOf(frs []finding.FileResult, rule string) []finding.Finding {
	var out []finding.Finding
	for _, fr := range frs {
		for _, f := range fr.Findings {
			if f.Rule == rule {
				out = append(out, f)
			}
		}
	}
	return out
}

// scoreOf returns the score of rule in the first result.
func scoreOf(t *testing.T, frs []finding.FileResult, rule string) finding.Score {
	t.Helper()
	for _, s := range frs[0].Scores {
		if s.Rule == rule {
			return s
		}
	}
	t.Fatalf("no score of %s in %+v", rule, frs)
	return finding.Score{}
}

// TestSamplesMajority: with Samples = 3, a violation two samples report (with overlapping but
// different quotes) is kept once, with votes 2 of 3, the more confident report standing; one
// that a single sample reports is dropped; the score counts the kept one and carries samples.
func TestSamplesMajority(t *testing.T) {
	t.Parallel()
	plan := samplesPlan(t, "Samples = 3\n", PlanInput{})
	srv := llmtest.Start(t)
	srv.On(wordsRule(),
		violationsOf(wordy("in order to", 0.9), wordy("utilize", 1)),
		violationsOf(wordy("met in order", 0.8)),
		violationsOf())
	srv.On(titleRule(), rating(4))
	got, stats, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 1})
	if err != nil || stats.NotRun != 0 {
		t.Fatalf("err %v, stats %+v", err, stats)
	}
	fs := findingsOf(got, "Acme.Words")
	if len(fs) != 1 || fs[0].Match != "in order to" || fs[0].Message != "Wordy: in order to." || fs[0].Votes == nil ||
		*fs[0].Votes != (finding.Votes{For: 2, Of: 3}) {
		t.Fatalf("findings %+v", fs)
	}
	s := scoreOf(t, got, "Acme.Words")
	if s.Samples != 3 || *s.Violations != 1 {
		t.Errorf("score %+v", s)
	}
	if srv.Calls() != 6 || plan.Calls() != 6 {
		t.Errorf("%d calls, the plan counts %d; want 3 per rule", srv.Calls(), plan.Calls())
	}
	// The three requests of a rule are the same prompt: only the cache key tells them apart.
	var bodies []string
	for _, r := range srv.Requests() {
		if wordsRule()(&r) {
			bodies = append(bodies, r.System()+r.LastUser())
		}
	}
	if len(bodies) != 3 || bodies[0] != bodies[1] || bodies[1] != bodies[2] {
		t.Errorf("%d requests of Words, or their prompts differ", len(bodies))
	}
}

// TestSamplesMinority: a violation one sample of three reports is not reported at all, nor
// counted in the score; nor is an unlocated quote only one sample gives.
func TestSamplesMinority(t *testing.T) {
	t.Parallel()
	plan := samplesPlan(t, "Samples = 3\n", PlanInput{})
	srv := llmtest.Start(t)
	srv.On(wordsRule(), violationsOf(), violationsOf(wordy("utilize", 1), wordy("not in the text", 1)), violationsOf())
	srv.On(titleRule(), rating(4))
	got, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	if fs := findingsOf(got, "Acme.Words"); len(fs) != 0 || len(got[0].Unverified) != 0 {
		t.Errorf("findings %+v, unverified %+v", fs, got[0].Unverified)
	}
	if s := scoreOf(t, got, "Acme.Words"); *s.Violations != 0 || s.Score != 10 || s.Samples != 3 {
		t.Errorf("score %+v", s)
	}
}

// TestSamplesModels: Models = A, B, C without Samples takes three samples, one per model in
// turn (the request bodies' model); the majority is counted across models.
func TestSamplesModels(t *testing.T) {
	t.Parallel()
	plan := samplesPlan(t, "Models = model-a, model-b, model-c\n", PlanInput{})
	srv := llmtest.Start(t)
	srv.On(llmtest.All(wordsRule(), llmtest.ModelIs("model-b")), violationsOf())
	srv.On(wordsRule(), violationsOf(wordy("utilize", 1)))
	srv.On(titleRule(), rating(3))
	got, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 1,
		Models: plan.Config.Models})
	if err != nil {
		t.Fatal(err)
	}
	var models []string
	for _, r := range srv.Requests() {
		if wordsRule()(&r) {
			models = append(models, r.Model)
		}
	}
	if want := []string{"model-a", "model-b", "model-c"}; !slices.Equal(models, want) {
		t.Errorf("models %q, want %q", models, want)
	}
	if fs := findingsOf(got, "Acme.Words"); len(fs) != 1 || fs[0].Match != "utilize" || *fs[0].Votes != (finding.Votes{For: 2, Of: 3}) {
		t.Errorf("findings %+v", fs)
	}
}

// TestSamplesSubjectiveMedian: a criterion's rating is the median of its samples' (1, 4, 3
// gives 3); with an even count (--samples 2 over the ini's 3) the lower of the two middle
// ones (4 and 2 give 2), its summary that of the sample that gave it.
func TestSamplesSubjectiveMedian(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		flag    int
		ratings []llmtest.Reply
		want    int
		summary string
	}{
		{"odd", 0, []llmtest.Reply{rating(1), rating(4), rating(3)}, 3, ""},
		{"even", 2, []llmtest.Reply{rating(4), rating(2)}, 2, "Rated 2."},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			plan := samplesPlan(t, "Samples = 3\n", PlanInput{Samples: tt.flag})
			srv := llmtest.Start(t)
			srv.On(titleRule(), tt.ratings...)
			srv.On(wordsRule(), violationsOf())
			got, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 1})
			if err != nil {
				t.Fatal(err)
			}
			s := scoreOf(t, got, "Acme.Title")
			if len(s.Criteria) != 1 || s.Criteria[0].Rating != tt.want || s.Samples != len(tt.ratings) {
				t.Errorf("score %+v", s)
			}
			if srv.Calls() != 2*len(tt.ratings) {
				t.Errorf("%d calls, want %d", srv.Calls(), 2*len(tt.ratings))
			}
			fs := findingsOf(got, "Acme.Title.Clear")
			if tt.summary == "" && len(fs) != 0 || tt.summary != "" && (len(fs) != 1 || fs[0].Message != tt.summary) {
				t.Errorf("findings %+v", fs)
			}
		})
	}
}

// TestSamplesCache: each sample is cached under its own key: the cost estimate finds none
// cached before the first run and all of them before the second, which makes no call and
// gives the same results.
func TestSamplesCache(t *testing.T) {
	t.Parallel()
	cache := t.TempDir()
	srv := llmtest.Start(t)
	srv.On(wordsRule(), violationsOf(wordy("utilize", 1)), violationsOf(wordy("utilize", 1)), violationsOf())
	srv.On(titleRule(), rating(2), rating(3), rating(4))
	var results []string
	for run := range 2 {
		plan := samplesPlan(t, "Samples = 3\n", PlanInput{})
		client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, CacheDir: cache})
		if err != nil {
			t.Fatal(err)
		}
		opts := EvalOptions{Client: client, Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"},
			ConfidenceThreshold: 0.75, Concurrency: 1}
		cost := EstimateCost(plan, opts, nil)
		if cost.Calls != 6 || cost.Cached != 6*run {
			t.Errorf("run %d: estimate %d calls, %d cached", run+1, cost.Calls, cost.Cached)
		}
		before := srv.Calls()
		var out []finding.FileResult
		if _, err := Evaluate(context.Background(), plan, opts, func(fr finding.FileResult) error {
			out = append(out, fr)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if made := srv.Calls() - before; made != 6*(1-run) {
			t.Errorf("run %d made %d calls", run+1, made)
		}
		results = append(results, renderResults(out))
	}
	if results[0] != results[1] || !strings.Contains(results[0], `error Acme.Words "utilize"`) || !strings.Contains(results[0], "Clear=3/") {
		t.Errorf("results differ or are wrong:\n%s\n%s", results[0], results[1])
	}
}

// TestSamplesEstimate: the dry run's estimate counts a call per sample.
func TestSamplesEstimate(t *testing.T) {
	t.Parallel()
	one := samplesPlan(t, "", PlanInput{})
	three := samplesPlan(t, "", PlanInput{Samples: 3})
	for i, pr := range three.Files[0].Rules {
		u := pr.Units[0]
		e1, e3 := one.Files[0].Rules[i].Kind.Estimate(one.Files[0].Rules[i], one.Files[0].Rules[i].Units[0]), pr.Kind.Estimate(pr, u)
		if e1.Calls != 1 || e3.Calls != 3 || e3.Tokens != 3*e1.Tokens {
			t.Errorf("%s: %+v and %+v", pr.ID, e1, e3)
		}
		want := "3 LLM calls (3 samples), ~" + strings.TrimPrefix(e3.Lines[0], "3 LLM calls (3 samples), ~")
		if len(e3.Lines) != 1 || e3.Lines[0] != want || !strings.HasPrefix(e1.Lines[0], "1 LLM call, ~") {
			t.Errorf("%s: lines %q and %q", pr.ID, e1.Lines, e3.Lines)
		}
	}
	if one.Calls() != 2 || three.Calls() != 6 {
		t.Errorf("plans count %d and %d calls", one.Calls(), three.Calls())
	}
}

// TestSampleRequest: sample i of n is Request.Sample FirstSample×n+i on the i-th model in
// turn; one sample without models is the request without samples.
func TestSampleRequest(t *testing.T) {
	t.Parallel()
	base := EvalOptions{Endpoint: llm.Endpoint{Model: "m"}}
	for _, tt := range []struct {
		first, n, i int
		models      []string
		model       string
		sample      int
	}{
		{0, 1, 0, nil, "m", 0},
		{4, 1, 0, nil, "m", 4},
		{0, 3, 2, nil, "m", 2},
		{2, 3, 1, []string{"a", "b"}, "b", 7},
		{1, 5, 4, []string{"a", "b"}, "a", 9},
	} {
		opts := base
		opts.FirstSample, opts.Models = tt.first, tt.models
		ep, sample := sampleRequest(opts, tt.n, tt.i)
		if ep.Model != tt.model || sample != tt.sample {
			t.Errorf("first %d, sample %d of %d, models %q: %s, %d; want %s, %d", tt.first, tt.i, tt.n, tt.models, ep.Model, sample, tt.model, tt.sample)
		}
	}
}

// TestVoteOverlap: reports of the same rule whose spans overlap, transitively, are one
// violation; the same sample reporting twice is one vote; the majority is strict.
func TestVoteOverlap(t *testing.T) {
	t.Parallel()
	v := func(rule string, sample, start, end int, conf float64) proposal {
		return proposal{rule: rule, sample: sample, located: true, span: spanOf(start, end),
			violation: &Violation{QuotedText: "q", Confidence: conf}}
	}
	props := []proposal{
		v("A", 0, 0, 5, 0.5), v("A", 0, 3, 8, 0.6), v("A", 1, 7, 9, 0.9), // one violation, samples 0 and 1
		v("B", 0, 0, 5, 1), v("B", 0, 20, 25, 1), // B: each by one sample only
		v("A", 2, 30, 35, 1), v("A", 3, 34, 40, 1), // two of four: no strict majority
	}
	got := vote(props, 4)
	if len(got) != 0 {
		t.Errorf("of four samples, two votes kept %+v", got)
	}
	got = vote(props, 3)
	if len(got) != 2 || got[0].span != spanOf(7, 9) || *got[0].finding.Votes != (finding.Votes{For: 2, Of: 3}) ||
		got[1].span != spanOf(30, 35) {
		t.Errorf("kept %+v", got)
	}
	if one := vote(props, 1); len(one) != len(props) || &one[0] != &props[0] {
		t.Error("one sample changed the proposals")
	}
}

func spanOf(start, end int) document.Span { return document.Span{Start: start, End: end} }

// TestSamplesDebug: --debug-json records each sample's reply, numbered from 1, and the
// decisions on the violations the vote kept.
func TestSamplesDebug(t *testing.T) {
	t.Parallel()
	plan := samplesPlan(t, "Samples = 3\n", PlanInput{})
	srv := llmtest.Start(t)
	srv.On(wordsRule(), violationsOf(wordy("utilize", 1)), violationsOf(wordy("utilize", 1)), violationsOf(wordy("in order to", 1)))
	srv.On(titleRule(), rating(4))
	var recs []DebugRecord
	if _, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 1,
		Debug: func(r DebugRecord) { recs = append(recs, r) }}); err != nil {
		t.Fatal(err)
	}
	var words *DebugRecord
	for i := range recs {
		if recs[i].Prompt.ID == "Words" {
			words = &recs[i]
		}
	}
	if words == nil || len(words.RawModelOutput) != 3 {
		t.Fatalf("records %+v", recs)
	}
	for i, o := range words.RawModelOutput {
		if o.Sample != i+1 || o.Lines != "1-3" || len(o.Output) == 0 {
			t.Errorf("output %d: %+v", i, o)
		}
	}
	if len(words.FilterDecisions) != 1 || words.FilterDecisions[0].QuotedText != "utilize" || !words.FilterDecisions[0].Surface {
		t.Errorf("decisions %+v", words.FilterDecisions)
	}
}

// TestSamplesInParallel: the samples of one chunk are calls of their own in the pool, made at
// once like the chunks of different rules: the server answers only once all six calls (three
// samples of each of two rules on the one chunk) are in flight together, which a run that
// made a chunk's samples one after the other never reaches (it would stop at its deadline).
func TestSamplesInParallel(t *testing.T) {
	t.Parallel()
	plan := samplesPlan(t, "Samples = 3\n", PlanInput{})
	srv := llmtest.Start(t, llmtest.WithGate(6))
	srv.On(wordsRule(), violationsOf(wordy("utilize", 1)))
	srv.On(titleRule(), rating(3))
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, Concurrency: 6})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var got []finding.FileResult
	_, err = Evaluate(ctx, plan, EvalOptions{Client: client, Concurrency: 6, ConfidenceThreshold: 0.75,
		Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}}, func(fr finding.FileResult) error {
		got = append(got, fr)
		return nil
	})
	if err != nil {
		t.Fatalf("%v (%d of 6 calls in flight at most)", err, srv.MaxInFlight())
	}
	if srv.Calls() != 6 || srv.MaxInFlight() != 6 {
		t.Errorf("%d calls, %d in flight at most; want 6 and 6", srv.Calls(), srv.MaxInFlight())
	}
	fs := findingsOf(got, "Acme.Words")
	if len(fs) != 1 || fs[0].Match != "utilize" || fs[0].Votes == nil || *fs[0].Votes != (finding.Votes{For: 3, Of: 3}) {
		t.Errorf("findings %+v", fs)
	}
	if s := scoreOf(t, got, "Acme.Title"); s.Samples != 3 || s.Score != 7 {
		t.Errorf("Title's score %+v", s)
	}
}
