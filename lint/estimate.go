package lint

import (
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/lint/selection"
	"github.com/vectorlint/vectorlint/llm"
)

// EstimateCost works out what running plan with opts will cost: every file is prepared (and a
// file of a lazy plan released again, except standard input, which can be read only once),
// each chunk's call is estimated as the dry run does, and with opts.Client and opts.Endpoint
// set, each call of a semi-objective or subjective rule is looked up in the reply cache
// (llm.Client.Cached), exactly as the run would send it. The calls of checklists and of
// technical-accuracy rules are counted as not cached, and the claim checks of the latter not
// at all (as --dry-run does). prices may be nil.
func EstimateCost(plan *Plan, opts EvalOptions, prices *llm.Prices) selection.PlanCost {
	var c selection.PlanCost
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
				addUnit(&c, pr, u, opts)
			}
		}
		if release {
			fp.release()
		}
	}
	c.OutputTokens = int64(c.ToMake()) * selection.EstimateOutputTokens
	if prices != nil {
		cost := prices.Cost(c.InputTokens, c.OutputTokens)
		c.Cost = &cost
	}
	return c
}

// addUnit counts one unit's calls.
func addUnit(c *selection.PlanCost, pr *PlannedRule, u *Unit, opts EvalOptions) {
	if opts.Client == nil || !cacheable(pr.Kind) {
		est := pr.Kind.Estimate(pr, u)
		c.Calls += est.Calls
		c.InputTokens += int64(est.Tokens)
		return
	}
	n := pr.samples()
	for _, ch := range u.Chunks() {
		for i := range n { // each sample is a request of its own
			c.Calls++
			if opts.Client.Cached(cacheRequest(pr, u, ch, opts, n, i)) {
				c.Cached++
				continue
			}
			c.InputTokens += int64(callTokens(pr, u, ch))
		}
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

// cacheRequest is the request the call stage sends for sample i of n of a chunk of a
// semi-objective or subjective rule (runChunk, then the kind's call): the same messages,
// schema, model and sample number, so the same cache key.
func cacheRequest(pr *PlannedRule, u *Unit, ch document.Chunk, opts EvalOptions, n, i int) llm.Request {
	in := PromptInput{Rule: pr.Rule, Criteria: u.Criteria, Text: ch.Text, Line: ch.Line, StyleGuide: opts.StyleGuide}
	schema := violationsSchema()
	if _, ok := pr.Kind.(subjective); ok {
		schema = criteriaSchema(u.Criteria)
	}
	ep, sample := sampleRequest(opts, n, i)
	return llm.Request{Endpoint: ep, Messages: pr.Kind.prompt(in), Schema: schema, Sample: sample}
}
