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
				addUnit(&c, fp, pr, u, opts)
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
func addUnit(c *selection.PlanCost, fp *FilePlan, pr *PlannedRule, u *Unit, opts EvalOptions) {
	if opts.Client == nil || !cacheable(pr.Kind) {
		est := pr.Kind.Estimate(pr, u)
		c.Calls += est.Calls
		c.InputTokens += int64(est.Tokens)
		return
	}
	for _, ch := range u.Chunks() {
		c.Calls++
		if opts.Client.Cached(cacheRequest(fp, pr, u, ch, opts)) {
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
// cache key, and the same body in a provider batch.
func cacheRequest(fp *FilePlan, pr *PlannedRule, u *Unit, ch document.Chunk, opts EvalOptions) llm.Request {
	schema := violationsSchema()
	if _, ok := pr.Kind.(subjective); ok {
		schema = criteriaSchema(u.Criteria)
	}
	return llm.Request{Endpoint: opts.Endpoint, Messages: pr.Kind.prompt(chunkPrompt(pr, u, ch, fp, opts)), Schema: schema, Sample: opts.FirstSample}
}

// PlanRequests returns the requests of plan's calls that can be made ahead of the run, as a
// provider batch (docs/batch.md): one per chunk of every semi-objective and subjective rule's
// unit that needs a call, built exactly as the call stage builds it and labelled as it labels
// them ("docs/a.md Acme.Tone lines 12-40"), in the plan's order.
// Deferred counts the calls that cannot (checklists' judged points, technical-accuracy rules:
// their requests depend on earlier replies); the run makes them live. Every file is prepared,
// and a lazy plan's file released again, except standard input.
func PlanRequests(plan *Plan, opts EvalOptions) (reqs []llm.Request, deferred int) {
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
				if !cacheable(pr.Kind) {
					deferred += pr.Kind.Estimate(pr, u).Calls
					continue
				}
				chunks := u.Chunks()
				for _, ch := range chunks {
					r := cacheRequest(fp, pr, u, ch, opts)
					r.Label = fp.Path + " " + pr.ID // as the call stage labels it (workItem.label)
					if len(pr.Units) > 1 || len(chunks) > 1 {
						r.Label += " " + lineRange(ch)
					}
					reqs = append(reqs, r)
				}
			}
		}
		if release {
			fp.release()
		}
	}
	return reqs, deferred
}
