package selection

import (
	"errors"
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/internal/numfmt"
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
