package lint

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/internal/numfmt"
	"github.com/vectorlint/vectorlint/llm"
)

// A budget (spec/linter.md §11, --max-calls and --max-cost) is checked against the plan
// before any call: the plan's calls as --dry-run counts them, less those the reply cache
// already answers, and their estimated cost.

// EstimateOutputTokens is the allowance of output tokens for each call in a cost estimate: a
// reply lists a few violations or rates a few criteria, each with a sentence or two. Input
// tokens are estimated from the prompt itself (EstimateInstructionChars).
const EstimateOutputTokens = 300

// PlanCost is what a plan is expected to cost, worked out before any call.
type PlanCost struct {
	// Calls counts the plan's model calls (as Plan.Calls and --dry-run count them); Cached
	// those the reply cache already answers, which cost nothing.
	Calls, Cached int
	// InputTokens and OutputTokens are estimated for the calls to make (Calls − Cached):
	// input from the prompts, output EstimateOutputTokens per call.
	InputTokens, OutputTokens int64
	// Cost is the estimated cost of those tokens at the prices given (nil without prices).
	Cost *float64
}

// ToMake is the number of calls the plan makes: those not answered by the cache.
func (c PlanCost) ToMake() int { return c.Calls - c.Cached }

// EstimateCost works out what running plan with opts will cost: every file is prepared (and a
// file of a lazy plan released again, except standard input, which can be read only once),
// each chunk's call is estimated as the dry run does, and with opts.Client and opts.Endpoint
// set, each call of a semi-objective or subjective rule is looked up in the reply cache
// (llm.Client.Cached), exactly as the run would send it. The calls of checklists and of
// technical-accuracy rules are counted as not cached, and the claim checks of the latter not
// at all (as --dry-run does). prices may be nil.
func EstimateCost(plan *Plan, opts EvalOptions, prices *llm.Prices) PlanCost {
	var c PlanCost
	for _, fp := range plan.Files {
		release := !fp.Prepared() && !fp.stdin
		fp.Prepare()
		for _, pr := range fp.Rules {
			if pr.Err != nil {
				continue
			}
			for _, u := range pr.Units {
				if !u.NeedsCall() {
					continue
				}
				c.addUnit(pr, u, opts)
			}
		}
		if release {
			fp.release()
		}
	}
	c.OutputTokens = int64(c.ToMake()) * EstimateOutputTokens
	if prices != nil {
		cost := prices.Cost(c.InputTokens, c.OutputTokens)
		c.Cost = &cost
	}
	return c
}

// addUnit counts one unit's calls.
func (c *PlanCost) addUnit(pr *PlannedRule, u *Unit, opts EvalOptions) {
	if opts.Client == nil || !cacheable(pr.Kind) {
		est := pr.Kind.Estimate(pr, u)
		c.Calls += est.Calls
		c.InputTokens += int64(est.Tokens)
		return
	}
	for _, ch := range u.Chunks() {
		c.Calls++
		if opts.Client.Cached(cacheRequest(pr, u, ch, opts)) {
			c.Cached++
			continue
		}
		c.InputTokens += int64(callTokens(pr, u, ch))
	}
}

// cacheable tells whether the calls of a kind can be looked up in the cache before the run:
// those whose request is known from the plan alone (one call per chunk, its prompt and schema
// fixed).
func cacheable(k Kind) bool {
	switch k.(type) {
	case semiObjective, subjective:
		return true
	}
	return false
}

// cacheRequest is the request the call stage sends for a chunk of a semi-objective or
// subjective rule (runChunk, then the kind's call): the same messages and schema, so the same
// cache key.
func cacheRequest(pr *PlannedRule, u *Unit, ch Chunk, opts EvalOptions) llm.Request {
	in := PromptInput{Rule: pr.Rule, Criteria: u.Criteria, Text: ch.Text, Line: ch.Line, StyleGuide: opts.StyleGuide}
	schema := ViolationsSchema()
	if _, ok := pr.Kind.(subjective); ok {
		schema = CriteriaSchema(u.Criteria)
	}
	return llm.Request{Endpoint: opts.Endpoint, Messages: pr.Kind.prompt(in), Schema: schema}
}

// Budget is the most a run may cost. A nil limit is no limit.
type Budget struct {
	// MaxCalls is the most calls to make (cached calls do not count).
	MaxCalls *int
	// MaxCost is the most the calls to make may cost, in the prices' currency.
	MaxCost *float64
}

// Check returns a *BudgetError when cost is over the budget. A MaxCost with no Cost (no prices
// given) is an error too: the cost cannot be checked.
func (b Budget) Check(cost PlanCost) error {
	e := &BudgetError{Budget: b, Cost: cost}
	if b.MaxCalls != nil && cost.ToMake() > *b.MaxCalls {
		e.Calls = true
	}
	if b.MaxCost != nil {
		if cost.Cost == nil {
			return ErrNoPrices
		}
		if *cost.Cost > *b.MaxCost {
			e.Money = true
		}
	}
	if e.Calls || e.Money {
		return e
	}
	return nil
}

// ErrNoPrices is a cost limit without prices to estimate the cost with.
var ErrNoPrices = errors.New("a cost limit needs prices: set INPUT_PRICE_PER_MILLION and OUTPUT_PRICE_PER_MILLION (what a million input and output tokens cost)")

// BudgetError is a plan that costs more than the budget allows.
type BudgetError struct {
	Budget Budget
	Cost   PlanCost
	// Calls and Money tell which limit is passed.
	Calls, Money bool
}

// Error reads like "over budget: 380 LLM calls to make, at most 100 allowed; estimated cost
// $1.2345, at most $1.0000 allowed".
func (e *BudgetError) Error() string {
	var parts []string
	if e.Calls {
		parts = append(parts, fmt.Sprintf("%s to make, at most %s allowed", numfmt.Count(e.Cost.ToMake(), "LLM call"), numfmt.Thousands(int64(*e.Budget.MaxCalls))))
	}
	if e.Money {
		parts = append(parts, fmt.Sprintf("estimated cost $%.4f, at most $%.4f allowed", *e.Cost.Cost, *e.Budget.MaxCost))
	}
	return "over budget: " + strings.Join(parts, "; ")
}

// Describe is the cost in one sentence: "412 LLM calls, 32 of them cached: 380 to make, ~1,234,567
// input and ~114,000 output tokens (estimated), $1.2345".
func (c PlanCost) Describe() string {
	s := numfmt.Count(c.Calls, "LLM call")
	if c.Cached > 0 {
		s += fmt.Sprintf(", %s of them cached", numfmt.Thousands(int64(c.Cached)))
	}
	s += fmt.Sprintf(": %s to make, ~%s input and ~%s output tokens (estimated)", numfmt.Thousands(int64(c.ToMake())),
		numfmt.Thousands(c.InputTokens), numfmt.Thousands(c.OutputTokens))
	if c.Cost != nil {
		s += fmt.Sprintf(", $%.4f", *c.Cost)
	}
	return s
}
