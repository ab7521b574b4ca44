package lint

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/selection"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// budgetProject has a semi-objective and a subjective rule, a checklist with one judged point,
// a short document (one chunk per rule) and a long one (five chunks per rule).
func budgetProject() map[string]string {
	return map[string]string{
		"vectorlint.ini":      "RulesPath = rules\nChunkWords = 500\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\n---\nFind wordy phrases.\n",
		"rules/Acme/tone.md": "---\nid: Tone\nname: Tone\ntype: subjective\n" +
			"criteria: [{id: Warmth, name: Warmth}]\n---\nRate the tone.\n",
		"rules/Acme/check.md": "---\nid: Check\nname: Check\nshould: [The text names a product.]\n---\nCheck.\n",
		"docs/short.md":       "# Short\n\nA short text.\n",
		"docs/long.md":        longDoc(20, nil),
	}
}

// TestEstimateCost estimates a plan, runs it against the fake server with a cache, and
// estimates again: every call the run made is then known to be cached (the look-up sends
// exactly what the run sends), except the checklist's judge call, which is never looked up.
func TestEstimateCost(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, budgetProject())
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Tone">`), llmtest.JSON(map[string]any{"criteria": []any{
		map[string]any{"id": "Warmth", "score": 3, "summary": "Fine."}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	opts := EvalOptions{Client: client, Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"},
		StyleGuide: "Be brief."}
	prices := &llm.Prices{InputPerMillion: 2, OutputPerMillion: 8}
	newPlan := func() *Plan {
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}, Lazy: true})
		if err != nil {
			t.Fatal(err)
		}
		return plan
	}

	plan := newPlan()
	before := EstimateCost(plan, opts, prices)
	for _, f := range plan.Files {
		if f.Prepared() {
			t.Errorf("%s is still prepared: a lazy plan's files are released after the estimate", f.Path)
		}
	}
	// 2 × (1 + 5) chunks for Words and Tone, and one judge call per file for Check.
	if before.Calls != 14 || before.Cached != 0 || srv.Calls() != 0 {
		t.Fatalf("before the run: %+v, %d server calls", before, srv.Calls())
	}
	if before.OutputTokens != 14*selection.EstimateOutputTokens {
		t.Errorf("output tokens %d, want %d", before.OutputTokens, 14*selection.EstimateOutputTokens)
	}
	if want := float64(before.InputTokens)*2/1e6 + float64(before.OutputTokens)*8/1e6; before.Cost == nil || *before.Cost != want {
		t.Errorf("cost %v, want %v", before.Cost, want)
	}
	plan.Prepare()
	if plan.Calls() != before.Calls {
		t.Errorf("the estimate counts %d calls, the plan %d", before.Calls, plan.Calls())
	}

	opts.Judge = ModelJudge{Client: client, Endpoint: opts.Endpoint}
	if _, err := Run(context.Background(), newPlan(), RunOptions{EvalOptions: opts}); err != nil {
		t.Fatal(err)
	}
	after := EstimateCost(newPlan(), opts, prices)
	if after.Calls != 14 || after.Cached != 12 || after.ToMake() != 2 {
		t.Errorf("after the run: %+v, want 14 calls, 12 cached", after)
	}
	if after.InputTokens >= before.InputTokens || after.OutputTokens != 2*selection.EstimateOutputTokens {
		t.Errorf("after the run: tokens %d/%d, before %d", after.InputTokens, after.OutputTokens, before.InputTokens)
	}
	noPrices := EstimateCost(newPlan(), opts, nil)
	if noPrices.Cost != nil {
		t.Errorf("cost without prices: %v", *noPrices.Cost)
	}
	if got := after.Describe(); !strings.HasPrefix(got, "14 LLM calls, 12 of them cached: 2 to make, ~") || !strings.Contains(got, "~600 output tokens (estimated), $0.") {
		t.Errorf("Describe() = %q", got)
	}

	// A changed document misses the cache for its own calls only.
	testutil.WriteFiles(t, dir, map[string]string{"docs/short.md": "# Short\n\nA changed text.\n"})
	if got := EstimateCost(newPlan(), opts, prices); got.Cached != 10 {
		t.Errorf("after an edit: %+v, want 10 cached (the long file's)", got)
	}
	// Without a client nothing is looked up.
	opts.Client = nil
	if got := EstimateCost(newPlan(), opts, prices); got.Cached != 0 || got.Calls != 14 {
		t.Errorf("without a client: %+v", got)
	}
}

func TestBudgetCheck(t *testing.T) {
	t.Parallel()
	calls := func(n int) *int { return &n }
	money := func(f float64) *float64 { return &f }
	cost := selection.PlanCost{Calls: 120, Cached: 20, InputTokens: 100000, OutputTokens: 30000, Cost: money(0.5)}
	tests := []struct {
		name   string
		budget selection.Budget
		cost   selection.PlanCost
		err    string
	}{
		{name: "no limit", budget: selection.Budget{}, cost: cost},
		{name: "calls at the limit", budget: selection.Budget{MaxCalls: calls(100)}, cost: cost},
		{name: "cached calls do not count", budget: selection.Budget{MaxCalls: calls(100)}, cost: selection.PlanCost{Calls: 500, Cached: 400}},
		{name: "over the calls", budget: selection.Budget{MaxCalls: calls(99)}, cost: cost, err: "over budget: 100 LLM calls to make, at most 99 allowed"},
		{name: "zero calls allowed", budget: selection.Budget{MaxCalls: calls(0)}, cost: selection.PlanCost{Calls: 3, Cached: 2}, err: "over budget: 1 LLM call to make, at most 0 allowed"},
		{name: "cost at the limit", budget: selection.Budget{MaxCost: money(0.5)}, cost: cost},
		{name: "over the cost", budget: selection.Budget{MaxCost: money(0.25)}, cost: cost, err: "over budget: estimated cost $0.5000, at most $0.2500 allowed"},
		{name: "over both", budget: selection.Budget{MaxCalls: calls(10), MaxCost: money(0.1)}, cost: cost,
			err: "over budget: 100 LLM calls to make, at most 10 allowed; estimated cost $0.5000, at most $0.1000 allowed"},
		{name: "a cost limit without prices", budget: selection.Budget{MaxCost: money(1)}, cost: selection.PlanCost{Calls: 1},
			err: "a cost limit needs prices: set INPUT_PRICE_PER_MILLION and OUTPUT_PRICE_PER_MILLION (what a million input and output tokens cost)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.budget.Check(tt.cost)
			if tt.err == "" {
				if err != nil {
					t.Fatalf("Check = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tt.err {
				t.Fatalf("Check = %v, want %q", err, tt.err)
			}
			var be *selection.BudgetError
			if !errors.As(err, &be) && !errors.Is(err, selection.ErrNoPrices) {
				t.Errorf("%T is neither a *BudgetError nor ErrNoPrices", err)
			}
		})
	}
}
