package lint

import (
	"fmt"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/lint/selection"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
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
	eachCallUnit(plan, func(_ *FilePlan, pr *PlannedRule, u *Unit) { addUnit(&c, pr, u, opts) })
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

// cacheRequest is the request the call stage sends for a chunk of a semi-objective or
// subjective rule (runChunk, then the kind's call): the same messages and schema, so the same
// cache key. It is the one builder of a plan's request: the call stage's prompt is chunkPrompt
// too.
//
// With samples it is sample i of n: the model and sample number of sampleRequest.
func cacheRequest(pr *PlannedRule, u *Unit, ch document.Chunk, opts EvalOptions, n, i int) llm.Request {
	in := chunkPrompt(pr, u, ch, opts)
	ep, sample := sampleRequest(opts, n, i)
	return llm.Request{Endpoint: ep, Messages: pr.Kind.prompt(in), Schema: requestSchema(pr, u), Sample: sample}
}

// requestSchema is the response schema a call of a unit sends: the criteria's for a subjective
// rule (also one with a technical-accuracy evaluator), else the violations' (nil for a
// checklist, whose judge calls carry their own).
func requestSchema(pr *PlannedRule, u *Unit) *llm.Schema {
	switch pr.Rule.Kind() {
	case rules.KindSubjective:
		return criteriaSchema(u.Criteria)
	case rules.KindChecklist:
		return nil
	}
	return violationsSchema()
}

// chunkPrompt is what the call for one chunk of a unit evaluates: the chunk as the model is
// shown it (skipped scopes left out, Document.ModelText; lines wholly inside them not sent,
// Document.HiddenLines), numbered from 1 whatever its place in
// the document (spec/linter.md §13: a chunk's request does not depend on its position; the
// call stage adds the chunk's first line to the model's line hints, shiftLines), with the
// style guide and the file's directive.
func chunkPrompt(pr *PlannedRule, u *Unit, ch document.Chunk, opts EvalOptions) PromptInput {
	text, placeholders := u.doc.ModelText(ch.Text, ch.Offset)
	path := ""
	if u.doc != nil {
		path = u.doc.Path
	}
	return PromptInput{Rule: pr.Rule, Criteria: u.Criteria, Text: text, Line: 1, Hidden: u.doc.HiddenLines(ch.Text, ch.Offset), Placeholders: placeholders,
		StyleGuide: opts.StyleGuide, Directive: directiveFor(opts.Directive, path)}
}

// PlanRequests returns the requests of plan's calls that can be made ahead of the run, as a
// provider batch (docs/batch.md): one per chunk of every semi-objective and subjective rule's
// unit that needs a call, built exactly as the call stage builds it and labelled as it labels
// them ("docs/a.md Acme.Tone lines 12-40"), in the plan's order.
// Deferred counts the calls that cannot (checklists' judged points, technical-accuracy rules:
// their requests depend on earlier replies); the run makes them live. Every file is prepared,
// and a lazy plan's file released again, except standard input.
func PlanRequests(plan *Plan, opts EvalOptions) (reqs []llm.Request, deferred int) {
	eachCallUnit(plan, func(fp *FilePlan, pr *PlannedRule, u *Unit) {
		if !cacheable(pr.Kind) {
			deferred += pr.Kind.Estimate(pr, u).Calls
			return
		}
		chunks := u.Chunks()
		n := pr.samples()
		for _, ch := range chunks {
			for i := range n {
				r := cacheRequest(pr, u, ch, opts, n, i)
				r.Label = fp.Path + " " + pr.ID // as the call stage labels it (workItem.label, sampled)
				if len(pr.Units) > 1 || len(chunks) > 1 {
					r.Label += " " + lineRange(ch)
				}
				if n > 1 {
					r.Label += fmt.Sprintf(" sample %d/%d", i+1, n)
				}
				reqs = append(reqs, r)
			}
		}
	})
	return reqs, deferred
}

// eachCallUnit calls fn with every unit of the plan that needs a model call (of a rule with no
// error), file by file: each file is prepared, and a lazy plan's file released again after
// its units, except standard input, which can be read only once. EstimateCost and
// PlanRequests walk the plan with it.
func eachCallUnit(plan *Plan, fn func(fp *FilePlan, pr *PlannedRule, u *Unit)) {
	for _, fp := range plan.Files {
		release := !fp.Prepared() && !fp.stdin
		fp.Prepare()
		for _, pr := range fp.Rules {
			if pr.Err != nil {
				continue
			}
			for _, u := range pr.Units {
				if u.NeedsCall() {
					fn(fp, pr, u)
				}
			}
		}
		if release {
			fp.release()
		}
	}
}
