package lint

import (
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
	eachCall(plan, func(_ *FilePlan, pr *PlannedRule, u *Unit) {
		est := pr.Kind.Estimate(pr, u)
		c.Calls += est.Calls
		c.InputTokens += int64(est.Tokens)
	}, func(_ *FilePlan, g callGroup) {
		n := g.prs[0].samples()
		for i := range n { // each sample is a request of its own
			c.Calls++
			if opts.Client != nil && opts.Client.Cached(g.request(opts, n, i)) {
				c.Cached++
				continue
			}
			c.InputTokens += int64(g.tokens())
		}
	})
	c.OutputTokens = int64(c.ToMake()) * selection.EstimateOutputTokens
	if prices != nil {
		cost := prices.Cost(c.InputTokens, c.OutputTokens)
		c.Cost = &cost
	}
	return c
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

// callGroup is one request of a plan's semi-objective or subjective rules: chunk ch of unit
// us[k] of rule prs[k] for each k, one rule alone or several evaluated together
// (RulesPerCall, callGroups); lines tells whether a rule of it makes more than one call on
// the file, so its label names the chunk's lines.
type callGroup struct {
	prs   []*PlannedRule
	us    []*Unit
	ch    document.Chunk
	lines bool
}

// request is sample i of n of the group's request, as the call stage sends it.
func (g callGroup) request(opts EvalOptions, n, i int) llm.Request {
	if len(g.prs) == 1 {
		return cacheRequest(g.prs[0], g.us[0], g.ch, opts, n, i)
	}
	return groupRequest(g.prs, g.us, g.ch, opts, n, i)
}

// tokens estimates the input tokens of one of the group's requests.
func (g callGroup) tokens() int {
	if len(g.prs) == 1 {
		return callTokens(g.prs[0], g.us[0], g.ch)
	}
	return groupTokens(g.prs, g.us, g.ch)
}

// ids are the group's rule ids, in order.
func (g callGroup) ids() []string {
	ids := make([]string, len(g.prs))
	for k, pr := range g.prs {
		ids[k] = pr.ID
	}
	return ids
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
	eachCall(plan, func(_ *FilePlan, pr *PlannedRule, u *Unit) {
		deferred += pr.Kind.Estimate(pr, u).Calls
	}, func(fp *FilePlan, g callGroup) {
		n := g.prs[0].samples()
		for i := range n {
			r := g.request(opts, n, i)
			// as the call stage labels it (workItem.label, sampled)
			r.Label = groupLabel(fp.Path, g.ids(), g.ch, g.lines)
			if n > 1 {
				r.Label = sampleLabel(r.Label, i, n)
			}
			reqs = append(reqs, r)
		}
	})
	return reqs, deferred
}

// eachCall walks the calls of every unit of the plan that needs a model call (of a rule with
// no error), file by file (eachCallFile): a unit of a kind whose requests are not known from
// the plan alone (not cacheable) goes to unit; the chunks of the others go to group as the
// requests Evaluate's pool makes of them (callGroups with the file's RulesPerCall), in plan
// order.
func eachCall(plan *Plan, unit func(fp *FilePlan, pr *PlannedRule, u *Unit), group func(fp *FilePlan, g callGroup)) {
	eachCallFile(plan, func(fp *FilePlan) { fileCalls(fp, unit, group) })
}

// fileCalls walks the calls of a prepared file as eachCall does.
func fileCalls(fp *FilePlan, unit func(fp *FilePlan, pr *PlannedRule, u *Unit), group func(fp *FilePlan, g callGroup)) {
	var (
		all   []callGroup
		calls []groupCall
	)
	fileCallUnits(fp, func(pr *PlannedRule, u *Unit) {
		if !cacheable(pr.Kind) {
			unit(fp, pr, u)
			return
		}
		chunks := u.Chunks()
		for _, ch := range chunks {
			all = append(all, callGroup{prs: []*PlannedRule{pr}, us: []*Unit{u}, ch: ch, lines: len(pr.Units) > 1 || len(chunks) > 1})
			calls = append(calls, groupCallOf(pr, ch))
		}
	})
	for _, g := range callGroups(fp.RulesPerCall, calls) {
		cg := callGroup{ch: all[g[0]].ch}
		for _, c := range g {
			cg.prs = append(cg.prs, all[c].prs[0])
			cg.us = append(cg.us, all[c].us[0])
			cg.lines = cg.lines || all[c].lines
		}
		group(fp, cg)
	}
}

// eachCallFile calls fn with every file of the plan, prepared: a lazy plan's file is released
// again after fn, except standard input, which can be read only once. EstimateCost and
// PlanRequests walk the plan with it.
func eachCallFile(plan *Plan, fn func(fp *FilePlan)) {
	for _, fp := range plan.Files {
		release := !fp.Prepared() && !fp.stdin
		fp.Prepare()
		fn(fp)
		if release {
			fp.release()
		}
	}
}

// fileCallUnits calls fn with every unit of a prepared file that needs a model call (of a rule
// with no error), in plan order.
func fileCallUnits(fp *FilePlan, fn func(pr *PlannedRule, u *Unit)) {
	for _, pr := range fp.Rules {
		if pr.Err != nil {
			continue
		}
		for _, u := range pr.Units {
			if u.NeedsCall() {
				fn(pr, u)
			}
		}
	}
}
