package blueprint

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// batchClasses is what each fake judge answers for each criterion, whether asked alone or in a
// batch: the same classifications both ways, so the scores must be the same.
var batchClasses = map[string]map[string]string{
	"judge-1": {"Names Paris": "CLASS_FULLY_PRESENT", "Is concise": "CLASS_MOSTLY_PRESENT", "Is rude": "CLASS_ABSENT",
		"Names the Seine": "CLASS_PARTIALLY_PRESENT"},
	"judge-2": {"Names Paris": "CLASS_FULLY_PRESENT", "Is concise": "CLASS_SLIGHTLY_PRESENT", "Is rude": "CLASS_SLIGHTLY_PRESENT",
		"Names the Seine": "CLASS_FULLY_PRESENT"},
}

// batchJudgeServer answers single-point requests (<CRITERION>) and batched ones (<criterion
// index="N">) from batchClasses. reply, when set, may replace a batched reply (given the
// request and the criteria in order).
func batchJudgeServer(t *testing.T, reply func(r *llmtest.Request, criteria []string) (string, bool)) *llmtest.Server {
	t.Helper()
	single := regexp.MustCompile(`(?s)<CRITERION>\n(.*?)\n</CRITERION>`)
	batch := regexp.MustCompile(`<criterion index="(\d+)">(.*?)</criterion>`)
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		classes := batchClasses[r.Model]
		if m := single.FindStringSubmatch(r.LastUser()); m != nil {
			return llmtest.Text("<reflection>" + r.Model + " on " + m[1] + "</reflection><classification>" + classes[m[1]] + "</classification>")
		}
		var criteria []string
		for _, m := range batch.FindAllStringSubmatch(r.LastUser(), -1) {
			criteria = append(criteria, m[2])
		}
		if reply != nil {
			if text, ok := reply(r, criteria); ok {
				return llmtest.Text(text)
			}
		}
		var b strings.Builder
		for i, c := range criteria {
			fmt.Fprintf(&b, "<judgement index=\"%d\"><reflection>%s on %s</reflection><classification>%s</classification></judgement>\n", i+1, r.Model, c, classes[c])
		}
		return llmtest.Text(b.String())
	}))
	return srv
}

// batchBlueprint has prompts with three text points each (and one function point, never sent
// to a judge), two models and two judges.
func batchBlueprint(prompts int, models []string, header string) string {
	var b strings.Builder
	b.WriteString("models: [" + strings.Join(models, ", ") + "]\nevaluationConfig:\n  llm-coverage:\n" + header +
		"    judges:\n      - {id: j1, model: \"openrouter:judge-1\", approach: standard}\n      - {id: j2, model: \"openrouter:judge-2\", approach: holistic}\n---\n")
	for i := range prompts {
		if i%2 == 0 {
			fmt.Fprintf(&b, "- id: capital-%d\n  prompt: What is the capital of France? (%d)\n  should: [Names Paris, Is concise]\n  should_not: [Is rude]\n", i, i)
		} else {
			fmt.Fprintf(&b, "- id: river-%d\n  prompt: Which river flows through Paris? (%d)\n  should: [Names the Seine, Is concise, {$contains: Seine}]\n  should_not: [Is rude]\n", i, i)
		}
	}
	return b.String()
}

// batchRun runs a blueprint with generation at one fake server and the judges at another, and
// returns the result, both servers and the client's usage per model.
func batchRun(t *testing.T, src string, batch bool, reply func(*llmtest.Request, []string) (string, bool)) (*Result, *llmtest.Server, *llmtest.Server, map[string]llm.Usage) {
	t.Helper()
	gen := llmtest.Start(t)
	gen.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		return llmtest.Text("Model " + r.Model + " says: Paris, on the Seine.")
	}))
	judges := batchJudgeServer(t, reply)
	env := envOf(map[string]string{"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": gen.URL, "OPENROUTER_API_KEY": "k", "OPENROUTER_BASE_URL": judges.URL})
	client := newRunClient(t, nil)
	res, err := Run(context.Background(), Options{Blueprint: parseTestBlueprint(t, src), Client: client, LookupEnv: env,
		Methods: Methods{Coverage: true}, JudgeBatch: batch, RunLabel: "batch", Now: fixedClock, ProviderConcurrency: 8})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Complete() {
		t.Fatalf("the run is not complete: %v", res.Failures())
	}
	return res, gen, judges, client.UsageByModel()
}

// scoresJSON is the llm-coverage scores of a result as JSON.
func scoresJSON(t *testing.T, res *Result) string {
	t.Helper()
	b, err := json.Marshal(res.EvaluationResults)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// judgeUsage is the usage of the two judges together.
func judgeUsage(c map[string]llm.Usage) (calls int, in, out int64) {
	for _, m := range []string{"judge-1", "judge-2"} {
		u := c[m]
		calls += u.Calls
		in += u.InputTokens
		out += u.OutputTokens
	}
	return calls, in, out
}

// TestJudgeBatchEndToEnd: 2 prompts × 2 models × 3 text points × 2 judges make 24 judge calls
// one point at a time and 8 batched (one per response and judge), with the same scores, the
// same individual judgements and fewer tokens; the 4 generations are the same either way.
func TestJudgeBatchEndToEnd(t *testing.T) {
	t.Parallel()
	src := batchBlueprint(2, []string{"openai:a", "openai:b"}, "")
	type counts struct {
		gen, judge int
		in, out    int64
	}
	measure := func(gen, judges *llmtest.Server, byModel map[string]llm.Usage) counts {
		calls, in, out := judgeUsage(byModel)
		if calls != judges.Calls() {
			t.Errorf("the client counted %d judge calls, the server %d", calls, judges.Calls())
		}
		return counts{gen: gen.Calls(), judge: judges.Calls(), in: in, out: out}
	}
	plain, pgen, pjudges, pusage := batchRun(t, src, false, nil)
	batched, bgen, bjudges, busage := batchRun(t, src, true, nil)
	p := measure(pgen, pjudges, pusage)
	b := measure(bgen, bjudges, busage)
	if p != (counts{gen: 4, judge: 24, in: 11942, out: 598}) {
		t.Errorf("one point per call: %+v", p)
	}
	if b != (counts{gen: 4, judge: 8, in: 4766, out: 794}) {
		t.Errorf("batched: %+v", b)
	}
	if scoresJSON(t, plain) != scoresJSON(t, batched) {
		t.Errorf("the scores differ:\none point per call %s\nbatched %s", scoresJSON(t, plain), scoresJSON(t, batched))
	}
	// Each batched request carries the response's three criteria, numbered, and asks for a
	// reply long enough for three.
	for _, r := range bjudges.Requests() {
		u := r.LastUser()
		if strings.Count(u, "<criterion index=") != 3 || !strings.Contains(u, `<criterion index="3">Is rude</criterion>`) || *r.MaxTokens != 3*defaultJudgeMaxTokens {
			t.Errorf("batched request to %s (max_tokens %d):\n%s", r.Model, *r.MaxTokens, u)
		}
	}
	if rep := batched.Reproducibility; !rep.JudgeBatch || rep.Judges[0].BatchSystemPrompt == "" || plain.Reproducibility.JudgeBatch {
		t.Errorf("the result does not record the batching: %+v", rep)
	}
	// The blueprint's own judgeBatch does the same.
	header, _, hjudges, _ := batchRun(t, batchBlueprint(2, []string{"openai:a", "openai:b"}, "    judgeBatch: true\n"), false, nil)
	if hjudges.Calls() != 8 || scoresJSON(t, header) != scoresJSON(t, plain) {
		t.Errorf("judgeBatch: true in the header: %d judge calls", hjudges.Calls())
	}
}

// TestJudgeBatchMissingPoint: a batched reply that misses one point costs exactly one more
// call, for that point alone, and the scores are those of judging one point at a time; a reply
// with nothing usable is asked again once (the problem quoted), then each of its points alone.
func TestJudgeBatchMissingPoint(t *testing.T) {
	t.Parallel()
	src := batchBlueprint(2, []string{"openai:a", "openai:b"}, "")
	plain, _, _, _ := batchRun(t, src, false, nil)
	var mu sync.Mutex
	omitted := 0
	missing, _, judges, _ := batchRun(t, src, true, func(r *llmtest.Request, criteria []string) (string, bool) {
		if r.Model != "judge-1" || !strings.Contains(r.LastUser(), "Model b says") || criteria[0] != "Names Paris" {
			return "", false
		}
		mu.Lock()
		omitted++
		mu.Unlock()
		// The second point ("Is concise") is left out.
		return "<judgement index=\"1\"><reflection>judge-1 on Names Paris</reflection><classification>CLASS_FULLY_PRESENT</classification></judgement>\n" +
			"<judgement index='3'><reflection>judge-1 on Is rude</reflection><classification>absent</classification></judgement>", true
	})
	if judges.Calls() != 9 || omitted != 1 {
		t.Errorf("%d judge calls (%d replies missing a point), want 8 + 1", judges.Calls(), omitted)
	}
	var alone []string
	for _, r := range judges.Requests() {
		if !strings.Contains(r.LastUser(), "<CRITERIA>") {
			alone = append(alone, r.Model+": "+regexp.MustCompile(`(?s)<CRITERION>\n(.*?)\n`).FindStringSubmatch(r.LastUser())[1])
		}
	}
	if fmt.Sprint(alone) != "[judge-1: Is concise]" {
		t.Errorf("asked alone: %v", alone)
	}
	if scoresJSON(t, missing) != scoresJSON(t, plain) {
		t.Errorf("the scores differ from one point per call:\n%s\n%s", scoresJSON(t, missing), scoresJSON(t, plain))
	}

	// Nothing usable, twice: 8 batched calls + 1 asked again + 3 points alone.
	garbled, _, judges, _ := batchRun(t, src, true, func(r *llmtest.Request, criteria []string) (string, bool) {
		if r.Model == "judge-2" && strings.Contains(r.LastUser(), "Model a says") && criteria[0] == "Names the Seine" {
			return "I would rather not say.", true
		}
		return "", false
	})
	if judges.Calls() != 12 {
		t.Errorf("garbled reply: %d judge calls, want 12", judges.Calls())
	}
	var retry *llmtest.Request
	for _, r := range judges.Requests() {
		if len(r.Messages) == 4 {
			retry = &r
		}
	}
	if retry == nil || !strings.Contains(retry.LastUser(), "Your previous reply could not be used: expected a <judgement index=\"N\"> with a <classification> for each of the 3 criteria, found none usable") {
		t.Errorf("the garbled reply was not asked again with the problem: %+v", retry)
	}
	if scoresJSON(t, garbled) != scoresJSON(t, plain) {
		t.Errorf("garbled: the scores differ from one point per call")
	}
}

// TestJudgeBatchScenario measures the spec's scenario (docs/benchmarks.md, "Judging several
// points in one call"): 50 prompts × 4 models × 3 text points with 2 judges make 200
// generations and 1,200 judge calls one point at a time, 200 and 400 batched, with the same
// scores.
func TestJudgeBatchScenario(t *testing.T) {
	if testing.Short() {
		t.Skip("1,800 calls to the fake servers")
	}
	t.Parallel()
	src := batchBlueprint(50, []string{"openai:a", "openai:b", "openai:c", "openai:d"}, "")
	for _, tt := range []struct {
		batch          bool
		gen, judge     int
		judgeIn, genIn int64
		judgeOut       int64
	}{
		{false, 200, 1200, 597340, 2680, 29900},
		{true, 200, 400, 238380, 2680, 39700},
	} {
		_, gen, judges, usage := batchRun(t, src, tt.batch, nil)
		calls, in, out := judgeUsage(usage)
		var genIn int64
		for _, m := range []string{"a", "b", "c", "d"} {
			genIn += usage[m].InputTokens
		}
		t.Logf("judge-batch %v: %d generations (%d input tokens), %d judge calls, %d input and %d output tokens", tt.batch, gen.Calls(), genIn,
			judges.Calls(), in, out)
		if gen.Calls() != tt.gen || judges.Calls() != tt.judge || calls != tt.judge || in != tt.judgeIn || out != tt.judgeOut || genIn != tt.genIn {
			t.Errorf("judge-batch %v: %d generations (%d input tokens), %d judge calls, %d input and %d output tokens; want %+v", tt.batch,
				gen.Calls(), genIn, judges.Calls(), in, out, tt)
		}
	}
}

// TestJudgeBatchHeader: evaluationConfig.llm-coverage.judgeBatch is a boolean of the header,
// kept in the normalised blueprint.
func TestJudgeBatchHeader(t *testing.T) {
	t.Parallel()
	bp := parseTestBlueprint(t, "evaluationConfig:\n  llm-coverage:\n    judgeBatch: true\n---\n- {id: p, prompt: Q, should: [A, B]}\n")
	if !bp.Evaluation.LLMCoverage.JudgeBatch {
		t.Fatal("judgeBatch: true was not read")
	}
	if b, _ := json.Marshal(bp.Evaluation); string(b) != `{"llm-coverage":{"judgeBatch":true}}` {
		t.Errorf("normalised: %s", b)
	}
	_, err := Parse([]byte("evaluationConfig:\n  llm-coverage:\n    judgeBatch: \"yes\"\n---\n- {id: p, prompt: Q, should: [A]}\n"), ParseOptions{File: "b.yml"})
	if err == nil || !strings.Contains(err.Error(), `b.yml:3: error: expected judgeBatch to be true or false, found the string "yes"`) {
		t.Errorf("a string: %v", err)
	}
}
