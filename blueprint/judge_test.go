package blueprint

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/points"
)

func envOf(m map[string]string) envsource.LookupFunc {
	return func(k string) (string, bool) {
		v, ok := m[k]
		return v, ok
	}
}

func testClient(t *testing.T) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseDelay: time.Millisecond, MaxDelay: 2 * time.Millisecond, Rand: func() float64 { return 0 }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// judgeServer answers judge requests with the class the table gives for the criterion.
func judgeServer(t *testing.T, classes map[string]string) *llmtest.Server {
	t.Helper()
	s := llmtest.Start(t)
	re := regexp.MustCompile(`(?s)<CRITERION>\n(.*?)\n</CRITERION>`)
	s.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		m := re.FindStringSubmatch(r.LastUser())
		if m == nil {
			return llmtest.Text("no criterion")
		}
		class, ok := classes[m[1]]
		if !ok {
			return llmtest.Status(400, `{"error":{"message":"unexpected criterion"}}`)
		}
		return llmtest.Text("<reflection>" + r.Model + " on " + m[1] + "</reflection><classification>" + class + "</classification>")
	}))
	return s
}

// TestLLMJudgeConsensus runs three judges at three providers on the 9-point scale: 0.875, 1
// and 1 give 0.96, and the same judgement on a should_not point scores 0.04.
func TestLLMJudgeConsensus(t *testing.T) {
	t.Parallel()
	a := judgeServer(t, map[string]string{"Names Paris": "CLASS_VERY_NEARLY", "Is rude": "CLASS_VERY_NEARLY"})
	b := judgeServer(t, map[string]string{"Names Paris": "CLASS_EXACT", "Is rude": "exact"})
	c := judgeServer(t, map[string]string{"Names Paris": "CLASS_FULLY_PRESENT", "Is rude": "CLASS_EXACTLY_MET"})
	env := envOf(map[string]string{"GROQ_API_KEY": "k1", "GROQ_BASE_URL": a.URL, "XAI_API_KEY": "k2", "XAI_BASE_URL": b.URL,
		"MISTRAL_API_KEY": "k3", "MISTRAL_BASE_URL": c.URL})
	bp := &Blueprint{Evaluation: &EvalCfg{LLMCoverage: &LLMCoverageCfg{UseExperimentalScale: true, Judges: []JudgeSpec{
		{ID: "j1", Model: "groq:g", Approach: points.ApproachStandard}, {Model: "xai:x", Approach: points.ApproachPromptAware}, {ID: "j3", Model: "mistral:m", Approach: points.ApproachHolistic}}}}}
	judge, err := NewLLMJudge(bp, JudgeOptions{Client: testClient(t), LookupEnv: env})
	if err != nil {
		t.Fatal(err)
	}
	if judge.backupSpec() != nil || !judge.isExperimental() || len(judge.unavailableJudges()) != 0 {
		t.Fatalf("backup %v experimental %v unavailable %v", judge.backupSpec(), judge.isExperimental(), judge.unavailableJudges())
	}
	r := rubricFromYAML(t, `["Names Paris", {$contains: "Paris"}]`, `["Is rude"]`)
	cov := points.ScoreRubric(context.Background(), r, points.Subject{Text: "Paris.", PromptID: "p", ModelID: "m"}, points.Env{Judge: judge})
	got := []any{deref(cov.PointAssessments[0].CoverageExtent), deref(cov.PointAssessments[2].CoverageExtent), deref(cov.AvgCoverageExtent)}
	if want := []any{0.96, 0.04, 0.67}; !reflect.DeepEqual(got, want) {
		t.Fatalf("scores %v, want %v", got, want)
	}
	pa := cov.PointAssessments[0]
	wantInd := []points.IndividualJudgement{
		{JudgeModelID: "j1(groq:g)", CoverageExtent: 0.875, Reflection: "g on Names Paris"},
		{JudgeModelID: "prompt-aware(xai:x)", CoverageExtent: 1, Reflection: "x on Names Paris"},
		{JudgeModelID: "j3(mistral:m)", CoverageExtent: 1, Reflection: "m on Names Paris"},
	}
	if !reflect.DeepEqual(pa.IndividualJudgements, wantInd) || pa.JudgeModelID != "consensus(j1(groq:g), prompt-aware(xai:x), j3(mistral:m))" ||
		pa.Reflection != "Consensus of 3 judges: 0.875, 1, 1 → 0.96. Each judge's reflection is in individualJudgements." || pa.Warning != "" {
		t.Errorf("assessment %+v", pa)
	}
	// The should_not point keeps the judges' presence scores; only the point is inverted.
	if inv := cov.PointAssessments[2]; !inv.IsInverted || inv.IndividualJudgements[0].CoverageExtent != 0.875 {
		t.Errorf("inverted assessment %+v", inv)
	}
	// Every judge was called with temperature 0 and its own approach.
	for _, srv := range []*llmtest.Server{a, b, c} {
		for _, req := range srv.Requests() {
			if req.Temperature == nil || *req.Temperature != 0 || *req.MaxTokens != defaultJudgeMaxTokens {
				t.Errorf("judge request temperature %v max_tokens %v", req.Temperature, req.MaxTokens)
			}
		}
	}
	if u := a.Requests()[0].LastUser(); strings.Contains(u, "<PROMPT>") || strings.Contains(u, "<CRITERIA_LIST>") {
		t.Errorf("the standard judge was shown the prompt or the criteria:\n%s", u)
	}
	if u := c.Requests()[0].LastUser(); !strings.Contains(u, "<CRITERIA_LIST>\n- [should] Names Paris\n- [should] Function: contains(\"Paris\")\n- [should not] Is rude\n</CRITERIA_LIST>") {
		t.Errorf("the holistic judge was not shown the criteria:\n%s", u)
	}
}

func TestLLMJudgeFailures(t *testing.T) {
	ok := `<reflection>fine</reflection><classification>CLASS_MOSTLY_PRESENT</classification>`
	// Both default judges ask at once and the 401 takes 50 ms, so both requests are in flight
	// when it comes (a stop refuses new requests; it does not cancel those in flight).
	slow401 := llmtest.Status(401, "")
	slow401.Latency = 50 * time.Millisecond
	tests := []struct {
		name      string
		custom    bool // judges set by the blueprint (no backup)
		primary   []llmtest.Reply
		secondary []llmtest.Reply
		backup    []llmtest.Reply
		score     float64
		err       string
		warning   string
		calls     [3]int
	}{
		{name: "one judge unparseable twice", custom: true,
			primary: []llmtest.Reply{llmtest.Text("I think it is mostly there.")}, secondary: []llmtest.Reply{llmtest.Text(ok)},
			score: 0.75, calls: [3]int{2, 1, 0},
			warning: `1 of 2 judges failed (judge-a(openrouter:a): llm: reply of a at HOST_A rejected after one retry: expected the reply to hold <classification>CLASS_…</classification>, found "I think it is mostly there."; the reply began "I think it is mostly there."); the score is the consensus of the others`},
		{name: "unparseable then fixed", custom: true,
			primary: []llmtest.Reply{llmtest.Text("Mostly."), llmtest.Text("<classification>CLASS_ABSENT</classification>")}, secondary: []llmtest.Reply{llmtest.Text(ok)},
			score: 0.38, calls: [3]int{2, 1, 0}},
		{name: "custom judges all fail: no backup", custom: true,
			primary: []llmtest.Reply{llmtest.Status(400, `{"error":{"message":"bad model"}}`)}, secondary: []llmtest.Reply{llmtest.Status(404, "")},
			calls: [3]int{1, 1, 0},
			err:   "all 2 judges failed: judge-a(openrouter:a): llm: chat completion with a at HOST_A: HTTP 400 Bad Request: bad model; judge-b(openrouter:b): llm: HOST_A (openrouter) has no model b or no such endpoint: HTTP 404 Not Found: Not Found; check the model name in the judge id openrouter:b (--judge, or the blueprint's judges) and the URL in OPENROUTER_BASE_URL"},
		{name: "default judges all fail: backup scores",
			primary: []llmtest.Reply{slow401}, backup: []llmtest.Reply{llmtest.Text(`<classification>CLASS_FULLY_PRESENT</classification>`)},
			score: 1, calls: [3]int{2, 0, 1},
			// A 401 stops the key at that host: both judges report the same error, together.
			warning: "every configured judge failed (holistic-qwen3-30b-a3b-instruct-2507(openrouter:qwen/qwen3-30b-a3b-instruct-2507), holistic-openai-gpt-oss-120b(openrouter:openai/gpt-oss-120b): llm: HOST_A (openrouter) rejected the API key: HTTP 401 Unauthorized: Unauthorized; set OPENROUTER_API_KEY to a valid key); the backup judge backup-claude-3-5-haiku(anthropic:claude-3.5-haiku) scored this point"},
		{name: "default judges and backup fail",
			primary: []llmtest.Reply{slow401}, backup: []llmtest.Reply{llmtest.Text("no idea")},
			calls: [3]int{2, 0, 2},
			err:   `all 3 judges failed: holistic-qwen3-30b-a3b-instruct-2507(openrouter:qwen/qwen3-30b-a3b-instruct-2507), holistic-openai-gpt-oss-120b(openrouter:openai/gpt-oss-120b): llm: HOST_A (openrouter) rejected the API key: HTTP 401 Unauthorized: Unauthorized; set OPENROUTER_API_KEY to a valid key; backup-claude-3-5-haiku(anthropic:claude-3.5-haiku): llm: reply of claude-3.5-haiku at HOST_B rejected after one retry: expected the reply to hold <classification>CLASS_…</classification>, found "no idea"; the reply began "no idea"`},
		{name: "one default judge fails: no backup",
			primary: []llmtest.Reply{llmtest.Text(ok)}, backup: []llmtest.Reply{llmtest.Text(ok)},
			score: 0.75, calls: [3]int{2, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			router := llmtest.Start(t)
			backup := llmtest.Start(t)
			if tt.custom {
				router.On(llmtest.ModelIs("a"), tt.primary...)
				router.On(llmtest.ModelIs("b"), tt.secondary...)
			} else {
				router.On(llmtest.Any(), tt.primary...)
			}
			if tt.backup != nil {
				backup.On(llmtest.Any(), tt.backup...)
			}
			if tt.name == "one default judge fails: no backup" {
				router.On(llmtest.ModelIs("openai/gpt-oss-120b"), llmtest.Status(500, ""))
			}
			env := envOf(map[string]string{"OPENROUTER_API_KEY": "k", "OPENROUTER_BASE_URL": router.URL,
				"ANTHROPIC_API_KEY": "k", "ANTHROPIC_BASE_URL": backup.URL})
			bp := &Blueprint{}
			if tt.custom {
				bp.Evaluation = &EvalCfg{LLMCoverage: &LLMCoverageCfg{Judges: []JudgeSpec{
					{ID: "judge-a", Model: "openrouter:a", Approach: points.ApproachStandard}, {ID: "judge-b", Model: "openrouter:b", Approach: points.ApproachStandard}}}}
			}
			judge, err := NewLLMJudge(bp, JudgeOptions{Client: testClient(t), LookupEnv: env})
			if err != nil {
				t.Fatal(err)
			}
			res, err := judge.JudgeText(context.Background(), points.JudgeRequest{Criterion: "Is helpful", Subject: &points.Subject{Text: "Sure."}})
			hosts := strings.NewReplacer(strings.TrimPrefix(strings.TrimSuffix(router.URL, "/v1"), "http://"), "HOST_A",
				strings.TrimPrefix(strings.TrimSuffix(backup.URL, "/v1"), "http://"), "HOST_B")
			if tt.err != "" {
				if err == nil || hosts.Replace(err.Error()) != tt.err {
					t.Errorf("error\n got %v\nwant %s", err, tt.err)
				}
			} else if err != nil {
				t.Fatal(err)
			} else if res.Score != tt.score || hosts.Replace(res.Warning) != tt.warning {
				t.Errorf("score %v warning\n got %s\nwant %s", res.Score, hosts.Replace(res.Warning), tt.warning)
			}
			primaryCalls := 0
			for _, r := range router.Requests() {
				if tt.custom && r.Model == "a" || !tt.custom {
					primaryCalls++
				}
			}
			secondaryCalls := 0
			if tt.custom {
				secondaryCalls = router.Calls() - primaryCalls
			}
			if got := [3]int{primaryCalls, secondaryCalls, backup.Calls()}; got != tt.calls {
				t.Errorf("calls (primary, secondary, backup) %v, want %v", got, tt.calls)
			}
		})
	}
}

func TestJudgesOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		bp     *Blueprint
		want   []JudgeSpec
		custom bool
	}{
		{"defaults", &Blueprint{}, defaultJudges(), false},
		{"judges", &Blueprint{Evaluation: &EvalCfg{LLMCoverage: &LLMCoverageCfg{Judges: []JudgeSpec{{Model: "openai:gpt-4o", Approach: "standard"}}}}},
			[]JudgeSpec{{Model: "openai:gpt-4o", Approach: "standard"}}, true},
		{"legacy judgeModels", &Blueprint{Evaluation: &EvalCfg{LLMCoverage: &LLMCoverageCfg{JudgeModels: []string{"openai : gpt-4o", "xai:grok"}}}},
			[]JudgeSpec{{Model: "openai:gpt-4o", Approach: "holistic"}, {Model: "xai:grok", Approach: "holistic"}}, true},
		{"scale only", &Blueprint{Evaluation: &EvalCfg{LLMCoverage: &LLMCoverageCfg{UseExperimentalScale: true}}}, defaultJudges(), false},
	}
	for _, tt := range tests {
		got, custom := judgesOf(tt.bp)
		if !reflect.DeepEqual(got, tt.want) || custom != tt.custom {
			t.Errorf("%s: %+v %v", tt.name, got, custom)
		}
	}
	// --judge replaces the blueprint's judges and turns the backup off.
	j, err := NewLLMJudge(&Blueprint{}, JudgeOptions{Client: testClient(t), Judges: []JudgeSpec{{Model: "ollama:llama3"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := j.judgeSpecs(); !reflect.DeepEqual(got, []JudgeSpec{{Model: "ollama:llama3", Approach: points.ApproachHolistic}}) || j.backupSpec() != nil {
		t.Errorf("judges %+v backup %v", got, j.backupSpec())
	}
	// Judges that cannot be called are reported once, by name, with the variable to set.
	j, _ = NewLLMJudge(&Blueprint{}, JudgeOptions{Client: testClient(t), LookupEnv: envOf(nil)})
	var msgs []string
	for _, e := range j.unavailableJudges() {
		msgs = append(msgs, e.Error())
	}
	want := []string{
		"judge holistic-qwen3-30b-a3b-instruct-2507(openrouter:qwen/qwen3-30b-a3b-instruct-2507) cannot be used: LLM provider openrouter is not fully configured: set OPENROUTER_API_KEY",
		"judge holistic-openai-gpt-oss-120b(openrouter:openai/gpt-oss-120b) cannot be used: LLM provider openrouter is not fully configured: set OPENROUTER_API_KEY",
		"judge backup-claude-3-5-haiku(anthropic:claude-3.5-haiku) cannot be used: LLM provider anthropic is not fully configured: set ANTHROPIC_API_KEY",
	}
	if !reflect.DeepEqual(msgs, want) {
		t.Errorf("unavailable %q", msgs)
	}
	if _, err := NewLLMJudge(&Blueprint{}, JudgeOptions{}); err == nil {
		t.Error("a judge without a client was accepted")
	}
}
