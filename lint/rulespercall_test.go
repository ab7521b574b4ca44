package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// rpcSentences make up rpcDocument; the rules' fake answers quote them.
var rpcSentences = []string{
	"We met in order to plan the release of the tool.",
	"The file was saved by the build before the tests ran.",
	"Configuration lives in a single file at the root of the repository.",
	"Run the command with the verbose flag to see each request and its reply.",
}

// rpcDocument is an 800-word document: a heading, then the sentences in turn, a blank line
// every fifth line (the last line cut to make the count).
func rpcDocument() string {
	var b strings.Builder
	b.WriteString("# Guide\n\n")
	n := 2
	for i := 0; n < 800; i++ {
		words := strings.Fields(rpcSentences[i%len(rpcSentences)])
		words = words[:min(len(words), 800-n)]
		b.WriteString(strings.Join(words, " ") + "\n")
		n += len(words)
		if i%5 == 4 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// rpcProject is a project of three semi-objective rules (Wordy, Passive, Plain) on docs/a.md,
// the 800-word document; ini holds the global keys, extra adds files.
func rpcProject(ini string, extra map[string]string) map[string]string {
	files := map[string]string{
		"vectorlint.ini":        "RulesPath = rules\n" + ini + "[docs/**]\nRunRules = Acme\n",
		"rules/Acme/wordy.md":   "---\nid: Wordy\nname: Wordy\nseverity: error\n---\nFind wordy phrases.\n",
		"rules/Acme/passive.md": "---\nid: Passive\nname: Passive\nseverity: warning\n---\nFind passive voice.\n",
		"rules/Acme/plain.md":   "---\nid: Plain\nname: Plain\nseverity: suggestion\n---\nFind jargon.\n",
		"docs/a.md":             rpcDocument(),
	}
	for k, v := range extra {
		files[k] = v
	}
	return files
}

func rpcPlan(t *testing.T, files map[string]string, in PlanInput) *Plan {
	t.Helper()
	dir, proj := loadTestProject(t, files)
	in.Dir, in.Paths = dir, []string{"docs"}
	plan, err := BuildPlan(proj.Config, proj.Packs, in)
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// rpcAnswer answers each rule the same way alone or with others: Wordy flags "in order to" on
// lines 3 and 8, Passive "was saved" on line 4, Plain nothing; skip names rules left out of a
// grouped reply.
func rpcAnswer(skip ...string) llmtest.Reply {
	v := func(quote string, line int) any {
		return map[string]any{"quoted_text": quote, "line": line, "context_before": "", "context_after": "", "analysis": "",
			"message": "Avoid " + quote + ".", "suggestion": "", "fix": "", "confidence": 0.9}
	}
	return llmtest.PerRule(func(rule string) ([]any, bool) {
		for _, s := range skip {
			if strings.Contains(rule, `id="Acme.`+s+`"`) {
				return nil, false
			}
		}
		switch {
		case strings.Contains(rule, "Find wordy phrases."):
			return []any{v("in order to", 3), v("in order to", 8)}, true
		case strings.Contains(rule, "Find passive voice."):
			return []any{v("was saved", 4)}, true
		}
		return nil, true
	})
}

// rpcRun evaluates plan against a new fake server answering with reply, and returns the
// results as JSON, the server, the client's usage and the warnings.
func rpcRun(t *testing.T, plan *Plan, reply llmtest.Reply, opts EvalOptions) (string, *llmtest.Server, llm.Usage, []string) {
	t.Helper()
	srv := llmtest.Start(t, llmtest.WithDefault(reply))
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu    sync.Mutex
		warns []string
	)
	opts.Client = client
	opts.Endpoint.BaseURL, opts.Endpoint.Model, opts.Endpoint.APIKey = srv.URL, "test-model", "sk-test"
	opts.ConfidenceThreshold, opts.Concurrency = 0.75, 2
	opts.Warn = func(s string) { mu.Lock(); warns = append(warns, s); mu.Unlock() }
	var out []finding.FileResult
	if _, err := Evaluate(context.Background(), plan, opts, func(fr finding.FileResult) error {
		out = append(out, fr)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return string(js), srv, client.Usage(), warns
}

// TestRulesPerCallOneRequest: three semi-objective rules on one 800-word document make one
// request with RulesPerCall = 3 (the input tokens of the fake's counter, exactly), two with 2,
// three with 1; the results are the same JSON in every case. The plan, the cost estimate and
// the batch's requests count the same requests, labelled with the rules.
func TestRulesPerCallOneRequest(t *testing.T) {
	t.Parallel()
	var base string
	for _, tt := range []struct {
		n, calls int
		tokens   int64
		labels   []string
	}{
		{1, 3, 3916, []string{"docs/a.md Acme.Passive", "docs/a.md Acme.Plain", "docs/a.md Acme.Wordy"}},
		{2, 2, 2673, []string{"docs/a.md Acme.Passive+Acme.Plain", "docs/a.md Acme.Wordy"}},
		{3, 1, 1383, []string{"docs/a.md Acme.Passive+Acme.Plain+Acme.Wordy"}},
	} {
		plan := rpcPlan(t, rpcProject(fmt.Sprintf("RulesPerCall = %d\n", tt.n), nil), PlanInput{})
		if got := plan.Calls(); got != tt.calls {
			t.Errorf("N=%d: the plan counts %d calls, want %d", tt.n, got, tt.calls)
		}
		reqs, deferred := PlanRequests(plan, EvalOptions{})
		var labels []string
		for _, r := range reqs {
			labels = append(labels, r.Label)
		}
		if deferred != 0 || !slices.Equal(labels, tt.labels) {
			t.Errorf("N=%d: requests %q, %d deferred", tt.n, labels, deferred)
		}
		if c := EstimateCost(plan, EvalOptions{}, nil); c.Calls != tt.calls {
			t.Errorf("N=%d: the estimate counts %d calls", tt.n, c.Calls)
		}
		js, srv, usage, warns := rpcRun(t, plan, rpcAnswer(), EvalOptions{})
		var tokens int64
		for _, r := range srv.Requests() {
			for _, m := range r.Messages {
				tokens += llmtest.EstimateTokens(m.Content) + 4
			}
		}
		if srv.Calls() != tt.calls || tokens != tt.tokens || usage.InputTokens != tt.tokens || usage.Calls != tt.calls {
			t.Errorf("N=%d: %d calls, %d input tokens (usage %+v); want %d calls, %d tokens", tt.n, srv.Calls(), tokens, usage, tt.calls, tt.tokens)
		}
		if len(warns) != 0 {
			t.Errorf("N=%d: warnings %q", tt.n, warns)
		}
		if tt.n == 1 {
			base = js
			if !strings.Contains(js, `"rule":"Acme.Wordy"`) || !strings.Contains(js, `"rule":"Acme.Passive"`) {
				t.Fatalf("the results lack findings: %s", js)
			}
			continue
		}
		if js != base {
			t.Errorf("N=%d: results differ from separate calls:\n%s\nwant\n%s", tt.n, js, base)
		}
	}
}

// TestRulesPerCallNotGrouped: a rule with a target (another chunk) and a subjective rule are
// never grouped; a group of one sends, byte for byte, the request of RulesPerCall = 1.
func TestRulesPerCallNotGrouped(t *testing.T) {
	t.Parallel()
	extra := map[string]string{
		"rules/Acme/plain.md": "---\nid: Plain\nname: Plain\ntarget: {regex: '^#\\s+(.+)$', group: 1}\n---\nFind jargon.\n",
		"rules/Acme/tone.md":  "---\nid: Tone\nname: Tone\ntype: subjective\ncriteria: [{id: Clear, name: Clear}]\n---\nRate the tone.\n",
	}
	tone := llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.System(), "Rate the tone.") {
			return llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Clear", "score": 3, "summary": "Fine."}}})
		}
		return rpcAnswer().Func(r)
	})
	bodies := map[int][]string{}
	results := map[int]string{}
	for _, n := range []int{1, 3} {
		plan := rpcPlan(t, rpcProject("", extra), PlanInput{RulesPerCall: n})
		js, srv, _, _ := rpcRun(t, plan, tone, EvalOptions{Concurrency: 1})
		for _, r := range srv.Requests() {
			bodies[n] = append(bodies[n], string(r.Body))
		}
		slices.Sort(bodies[n])
		results[n] = js
	}
	// Passive+Wordy share one request; Plain (its title) and Tone are alone.
	if len(bodies[1]) != 4 || len(bodies[3]) != 3 {
		t.Fatalf("%d and %d requests, want 4 and 3", len(bodies[1]), len(bodies[3]))
	}
	same := 0
	for _, b := range bodies[3] {
		if slices.Contains(bodies[1], b) {
			same++
		}
	}
	if same != 2 || results[1] != results[3] {
		t.Errorf("%d of the ungrouped requests are byte-identical to RulesPerCall = 1's, want 2; results equal: %v", same, results[1] == results[3])
	}
	var grouped int
	for _, b := range bodies[3] {
		if strings.Contains(b, `\u003crule id=\"Acme.Passive\"`) || strings.Contains(b, `<rule id=\"Acme.Passive\"`) {
			grouped++
			if !strings.Contains(b, `"enum":["Acme.Passive","Acme.Wordy"]`) {
				t.Errorf("the grouped request's schema: %s", b)
			}
		}
	}
	if grouped != 1 {
		t.Errorf("%d grouped requests, want 1", grouped)
	}
}

// TestRulesPerCallSamples: with Samples = 3 a group of three rules is three requests, one a
// sample, and the vote gives the results of separate calls.
func TestRulesPerCallSamples(t *testing.T) {
	t.Parallel()
	one := rpcPlan(t, rpcProject("Samples = 3\n", nil), PlanInput{})
	three := rpcPlan(t, rpcProject("Samples = 3\nRulesPerCall = 3\n", nil), PlanInput{})
	base, srv1, _, _ := rpcRun(t, one, rpcAnswer(), EvalOptions{})
	js, srv3, _, _ := rpcRun(t, three, rpcAnswer(), EvalOptions{})
	if srv1.Calls() != 9 || srv3.Calls() != 3 || three.Calls() != 3 {
		t.Errorf("%d and %d calls (the plan counts %d), want 9 and 3", srv1.Calls(), srv3.Calls(), three.Calls())
	}
	if js != base {
		t.Errorf("results differ:\n%s\n%s", js, base)
	}
	reqs, _ := PlanRequests(three, EvalOptions{})
	if len(reqs) != 3 || reqs[2].Label != "docs/a.md Acme.Passive+Acme.Plain+Acme.Wordy sample 3/3" || reqs[2].Sample != 2 {
		t.Errorf("requests %+v", reqs)
	}
}

// TestRulesPerCallMissingRule: a reply that leaves a rule out is that rule's error on the
// file; the other rules keep their findings and scores.
func TestRulesPerCallMissingRule(t *testing.T) {
	t.Parallel()
	plan := rpcPlan(t, rpcProject("RulesPerCall = 3\n", nil), PlanInput{})
	js, srv, _, _ := rpcRun(t, plan, rpcAnswer("Passive"), EvalOptions{})
	var frs []finding.FileResult
	if err := json.Unmarshal([]byte(js), &frs); err != nil {
		t.Fatal(err)
	}
	if srv.Calls() != 1 || len(frs) != 1 {
		t.Fatalf("%d calls, %d results", srv.Calls(), len(frs))
	}
	fr := frs[0]
	want := []finding.RuleError{{Rule: "Acme.Passive", Message: "the model's reply has no entry for rule Acme.Passive (asked about Acme.Passive, Acme.Plain, Acme.Wordy in one call; RulesPerCall)"}}
	if !slices.Equal(fr.Errors, want) {
		t.Errorf("errors %+v", fr.Errors)
	}
	wordy := `{"rule":"Acme.Wordy","severity":"error","message":"Avoid in order to.","match":"in order to","line":`
	if fs := findingsOf(frs, "Acme.Wordy"); len(fs) != 2 || !strings.Contains(js, wordy+"3,") || !strings.Contains(js, wordy+"7,") {
		t.Errorf("Wordy's findings: %s", js)
	}
	var scored []string
	for _, s := range fr.Scores {
		scored = append(scored, s.Rule)
	}
	if !slices.Equal(scored, []string{"Acme.Plain", "Acme.Wordy"}) {
		t.Errorf("scores of %q", scored)
	}
}

// TestRulesPerCallUnknownRule: an entry naming a rule not asked about is dropped with a
// warning; the rules asked about keep their findings.
func TestRulesPerCallUnknownRule(t *testing.T) {
	t.Parallel()
	plan := rpcPlan(t, rpcProject("RulesPerCall = 3\n", nil), PlanInput{})
	base := rpcAnswer()
	reply := llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		rep := base.Func(r)
		var body map[string][]any
		_ = json.Unmarshal([]byte(rep.Content), &body)
		body["rules"] = append(body["rules"], map[string]any{"rule": "Acme.Other", "violations": []any{
			map[string]any{"quoted_text": "tool", "message": "No."}}})
		return llmtest.JSON(body)
	})
	js, srv, _, warns := rpcRun(t, plan, reply, EvalOptions{})
	want := []string{`docs/a.md: Acme.Passive (lines 1-82): the reply names a rule that was not asked about ("Acme.Other"); its 1 violation(s) dropped`}
	if srv.Calls() != 1 || !slices.Equal(warns, want) {
		t.Errorf("%d calls, warnings %q", srv.Calls(), warns)
	}
	if strings.Contains(js, "Acme.Other") || !strings.Contains(js, `"rule":"Acme.Wordy"`) {
		t.Errorf("results %s", js)
	}
}

// TestParseGroupReply: the grouped reply's contract.
func TestParseGroupReply(t *testing.T) {
	t.Parallel()
	ids := []string{"A", "B"}
	v := `{"quoted_text":"x","message":"m"}`
	for _, tt := range []struct {
		name, js string
		counts   []int
		found    []bool
		warnings int
		err      string
	}{
		{"both", `{"rules":[{"rule":"A","violations":[` + v + `]},{"rule":"B","violations":[]}]}`, []int{1, 0}, []bool{true, true}, 0, ""},
		{"duplicate concatenated", `{"rules":[{"rule":"A","violations":[` + v + `]},{"rule":"A","violations":[` + v + `]}]}`, []int{2, 0}, []bool{true, false}, 0, ""},
		{"unknown dropped", `{"rules":[{"rule":"C","violations":[` + v + `]},{"rule":"B","violations":[]}]}`, []int{0, 0}, []bool{false, true}, 1, ""},
		{"not an object", `[]`, nil, nil, 0, "expected a JSON object, found an array []"},
		{"no rules", `{"violations":[]}`, nil, nil, 0, `rules: expected a "rules" array, found no such field (fields: "violations")`},
		{"rules not an array", `{"rules":{}}`, nil, nil, 0, "rules: expected an array, found an object {}"},
		{"entry without id", `{"rules":[{"violations":[]}]}`, nil, nil, 0, `rules[0].rule: expected the id of a rule asked about (A, B), found no rule (fields: "violations")`},
		{"entry without violations", `{"rules":[{"rule":"A"}]}`, nil, nil, 0, `rules[0].violations: expected an array, found nothing (fields: "rule")`},
		{"bad violation", `{"rules":[{"rule":"B","violations":[{"quoted_text":"x"}]}]}`, nil, nil, 0, `rules[0].violations[0].message: expected a sentence saying what is wrong, found no message (fields: "quoted_text")`},
	} {
		gr, err := parseGroupReply(tt.js, ids)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%s: error %v, want %s", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		counts := []int{len(gr.violations[0]), len(gr.violations[1])}
		if !slices.Equal(counts, tt.counts) || !slices.Equal(gr.found, tt.found) || len(gr.warnings) != tt.warnings {
			t.Errorf("%s: counts %v, found %v, warnings %q", tt.name, counts, gr.found, gr.warnings)
		}
	}
}

// TestGroupSchemaEscapes: rule ids are JSON-encoded in the schema and attribute-escaped in
// the prompt, never spliced raw.
func TestGroupSchemaEscapes(t *testing.T) {
	t.Parallel()
	s := groupSchema([]string{`A"}],"x":{`, "B"}).Schema.(json.RawMessage)
	var v any
	if err := json.Unmarshal(s, &v); err != nil {
		t.Fatalf("schema is not JSON: %v\n%s", err, s)
	}
	if !strings.Contains(string(s), `"enum":["A\"}],\"x\":{","B"]`) {
		t.Errorf("schema %s", s)
	}
}

// TestRulesPerCallDebugAndNoProse: --debug-json gives each rule of a shared request the raw
// reply; a document with no prose makes no call and a document above MaxDocumentWords is
// skipped, as with separate calls.
func TestRulesPerCallDebugAndNoProse(t *testing.T) {
	t.Parallel()
	extra := map[string]string{
		"docs/b.md": "```go\nfunc main() {}\n```\n",
		"docs/c.md": strings.Repeat("word ", 2000),
	}
	plan := rpcPlan(t, rpcProject("RulesPerCall = 3\nMaxDocumentWords = 1000\n", extra), PlanInput{})
	var recs []DebugRecord
	js, srv, _, _ := rpcRun(t, plan, rpcAnswer(), EvalOptions{Debug: func(r DebugRecord) { recs = append(recs, r) }})
	if srv.Calls() != 1 {
		t.Errorf("%d calls, want 1", srv.Calls())
	}
	if !strings.Contains(js, `"path":"docs/b.md"`) || strings.Contains(js, `"path":"docs/c.md"`) || strings.Count(js, `"skipped":"no prose"`) != 3 {
		t.Errorf("results %s", js)
	}
	raw := map[string]string{}
	for _, r := range recs {
		if r.File == "docs/a.md" && len(r.RawModelOutput) == 1 {
			raw[r.Prompt.ID] = string(r.RawModelOutput[0].Output)
		}
	}
	if len(raw) != 3 || raw["Wordy"] != raw["Passive"] || raw["Wordy"] != raw["Plain"] || !strings.HasPrefix(raw["Wordy"], `{"rules":[`) {
		t.Errorf("raw outputs %q", raw)
	}
}

// TestRulesPerCallAnthropic: through the Anthropic Messages API the grouped request is one
// call, the cache breakpoint still after the chunk, and the results are those of separate
// calls.
func TestRulesPerCallAnthropic(t *testing.T) {
	t.Parallel()
	opts := EvalOptions{Endpoint: llm.Endpoint{Provider: "anthropic", MaxTokens: 4096}}
	base, srv1, _, _ := rpcRun(t, rpcPlan(t, rpcProject("", nil), PlanInput{}), rpcAnswer(), opts)
	js, srv3, _, _ := rpcRun(t, rpcPlan(t, rpcProject("", nil), PlanInput{RulesPerCall: 3}), rpcAnswer(), opts)
	if srv1.Calls() != 3 || srv3.Calls() != 1 || js != base {
		t.Fatalf("%d and %d calls; results equal: %v\n%s\n%s", srv1.Calls(), srv3.Calls(), js == base, js, base)
	}
	r := srv3.Requests()[0]
	if r.API != "anthropic" || !slices.Equal(r.CacheBreakpoints, []int{1}) || len(llmtest.RuleBlocks(r.Messages[len(r.Messages)-1].Content)) != 3 {
		t.Errorf("request %s: breakpoints %v", r.API, r.CacheBreakpoints)
	}
}

// TestRulesPerCallFlag: --rules-per-call (PlanInput.RulesPerCall) wins over the configuration.
func TestRulesPerCallFlag(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		ini        string
		flag, want int
	}{
		{"RulesPerCall = 3\n", 0, 1}, {"RulesPerCall = 3\n", 1, 3}, {"", 2, 2}, {"RulesPerCall = 2\n", 3, 1},
	} {
		plan := rpcPlan(t, rpcProject(tt.ini, nil), PlanInput{RulesPerCall: tt.flag})
		if got := plan.Calls(); got != tt.want {
			t.Errorf("%q, flag %d: %d calls, want %d", tt.ini, tt.flag, got, tt.want)
		}
	}
}

// TestRulesPerCallNotRun: without a model, the calls not made are counted as the shared
// requests they would have been.
func TestRulesPerCallNotRun(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ n, want int }{{1, 3}, {2, 2}, {3, 1}} {
		plan := rpcPlan(t, rpcProject("", nil), PlanInput{RulesPerCall: tt.n})
		_, stats, err := evaluate(t, nil, plan, EvalOptions{})
		if err != nil || stats.NotRun != tt.want {
			t.Errorf("RulesPerCall %d: %d calls not made, want %d (%v)", tt.n, stats.NotRun, tt.want, err)
		}
	}
}
