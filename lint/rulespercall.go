package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
)

// Several rules in one call (docs/configuration.md, "RulesPerCall"; spec/linter.md §13): up to
// FilePlan.RulesPerCall semi-objective rules that evaluate the same chunk of a file, with the
// same number of samples, are evaluated in one request. Its messages are a single rule's first
// two (the instructions, directive and style guide, then the numbered chunk) followed by every
// rule with its id; its reply lists each rule's violations under the rule's id (groupSchema,
// parseGroupReply). Each rule's findings and score are then made from its own violations, as
// if it had been called alone. A group of one is the single rule's request, byte for byte.

// instructionsGroup replaces instructionsSemiObjective in a request that evaluates several
// rules. Like the other instructions it is part of the reply cache key.
const instructionsGroup = `Report, for each rule below, every passage of the text that breaks it, and nothing it does not ask for. Answer {"rules": [...]} with one entry per rule, in the order given: rule, the rule's id as given, and violations, that rule's violations ([] if none). List every rule, even one without a violation.`

// groupable tells whether a rule's chunk evaluations may share a request with other rules':
// a plain semi-objective rule (not the base of a technical-accuracy rule) that can run and
// has prose to send.
func groupable(pr *PlannedRule) bool {
	_, semi := pr.Kind.(semiObjective)
	return semi && pr.Err == nil && !pr.NoProse
}

// callKey is what the chunk evaluations of one request share: the chunk (its place and text)
// and the number of samples, so the same sample requests.
type callKey struct {
	offset  int
	text    string
	samples int
}

// groupCall is one chunk evaluation of a unit, in plan order, as callGroups sees it.
type groupCall struct {
	// grouped tells whether it may share a request (groupable); key is then what it shares.
	grouped bool
	key     callKey
}

// groupCallOf is the groupCall of chunk ch of a unit of pr.
func groupCallOf(pr *PlannedRule, ch document.Chunk) groupCall {
	return groupCall{grouped: groupable(pr), key: callKey{offset: ch.Offset, text: ch.Text, samples: pr.samples()}}
}

// callGroups is the requests of a file's chunk evaluations, given in plan order (the file's
// rules by id, their units, their chunks): each group lists the indexes of calls evaluated in
// one request, in plan order, the groups ordered by their first call. Groupable calls with the
// same key join the first group of that key that has fewer than n calls (greedy in plan
// order); every other call is a group of its own. n ≤ 1 gives one group per call. Evaluate's
// pool and the plan's requests (PlanRequests, EstimateCost) both use it, so a batch holds the
// requests the run sends.
func callGroups(n int, calls []groupCall) [][]int {
	groups := make([][]int, 0, len(calls))
	open := map[callKey]int{} // key → its group still taking calls
	for i, c := range calls {
		if n > 1 && c.grouped {
			if g, ok := open[c.key]; ok {
				groups[g] = append(groups[g], i)
				if len(groups[g]) == n {
					delete(open, c.key)
				}
				continue
			}
			open[c.key] = len(groups)
		}
		groups = append(groups, []int{i})
	}
	return groups
}

// groupLabel names a request of several rules in events and --show-prompt:
// "docs/a.md Acme.A+Acme.B lines 1-40" (lines when any of the rules would name them alone).
func groupLabel(path string, ids []string, ch document.Chunk, lines bool) string {
	l := path + " " + strings.Join(ids, "+")
	if lines {
		l += " " + lineRange(ch)
	}
	return l
}

// groupMessages are the messages of a request that evaluates the rules ids (the chunk prompts
// of each in ins, for one chunk): the first prompt's shared messages, then every rule with its
// id (as the reply names it: PlannedRule.ID) and name (attribute values escaped), in order.
func groupMessages(ins []PromptInput, ids []string) []llm.Message {
	var b strings.Builder
	b.WriteString(instructionsGroup)
	for k, in := range ins {
		writeRule(&b, in, "\n\n<rule id=\""+attrEscape(ids[k])+"\" name=\""+attrEscape(in.Rule.Name)+"\">\n", "\n</rule>")
	}
	return append(sharedMessages(ins[0]), llm.Message{Role: llm.RoleSystem, Content: b.String()})
}

// groupSchema is the structured-output schema of a request that evaluates the rules ids:
// {"rules": [{"rule": one of ids, "violations": [...]}]}. The ids are JSON-encoded, never
// spliced raw. A strict schema cannot require each id to appear; the instructions ask for
// every rule, and a rule the reply leaves out is that rule's error (RuleMissingError).
func groupSchema(ids []string) *llm.Schema {
	enum, _ := json.Marshal(ids)
	return &llm.Schema{Name: "rules", Strict: true, Schema: json.RawMessage(
		`{"type":"object","properties":{"rules":{"type":"array","items":{"type":"object","properties":{` +
			`"rule":{"type":"string","enum":` + string(enum) + `},` +
			`"violations":{"type":"array","items":` + violationSchema + `}},` +
			`"required":["rule","violations"],"additionalProperties":false}}},` +
			`"required":["rules"],"additionalProperties":false}`)}
}

// RuleMissingError is the error of a rule evaluated with others in one request (RulesPerCall)
// whose reply has no entry for it: the other rules of the request keep their findings.
type RuleMissingError struct {
	// Rule is the rule left out; Rules every rule the request asked about.
	Rule  string
	Rules []string
}

func (e *RuleMissingError) Error() string {
	return fmt.Sprintf("the model's reply has no entry for rule %s (asked about %s in one call; RulesPerCall)",
		e.Rule, strings.Join(e.Rules, ", "))
}

// groupReply is a reply to a request that evaluated several rules, read by parseGroupReply.
type groupReply struct {
	// violations are each asked rule's violations, in the order of the ids asked about;
	// found tells which rules the reply has an entry for.
	violations [][]Violation
	found      []bool
	// warnings name the entries dropped for naming no rule asked about.
	warnings []string
}

// parseGroupReply reads the reply to a request that evaluated the rules ids: {"rules": [{"rule":
// ID, "violations": [...]}]}, each violation read as parseViolationsReply reads one. An entry
// naming a rule not asked about is dropped with a warning; entries for one rule have their
// violations concatenated; a rule with no entry is not found (its RuleMissingError is the
// caller's). The shape itself (not an object, no "rules" array, an entry without a rule id or
// without a violations array, a bad violation) is a ContractError, which the call retries once.
func parseGroupReply(js string, ids []string) (groupReply, error) {
	obj, err := replyObject(js)
	if err != nil {
		return groupReply{}, err
	}
	raw, ok := obj["rules"]
	if !ok {
		return groupReply{}, &ContractError{Path: "rules", Expected: `a "rules" array`, Found: "no such field" + fieldList(obj)}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || isNull(raw) {
		return groupReply{}, &ContractError{Path: "rules", Expected: "an array", Found: describe(raw)}
	}
	out := groupReply{violations: make([][]Violation, len(ids)), found: make([]bool, len(ids))}
	for i, item := range items {
		path := fmt.Sprintf("rules[%d]", i)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(item, &fields); err != nil || isNull(item) {
			return groupReply{}, &ContractError{Path: path, Expected: "an object", Found: describe(item)}
		}
		id, ok := optionalString(fields["rule"])
		if id = strings.TrimSpace(id); !ok || id == "" {
			return groupReply{}, &ContractError{Path: path + ".rule", Expected: "the id of a rule asked about (" + strings.Join(ids, ", ") + ")",
				Found: describeField(fields, "rule")}
		}
		vr, ok := fields["violations"]
		if !ok {
			return groupReply{}, &ContractError{Path: path + ".violations", Expected: "an array", Found: "nothing" + fieldList(fields)}
		}
		vs, err := parseViolations(path+".violations", vr)
		if err != nil {
			return groupReply{}, err
		}
		k := slices.Index(ids, id)
		if k < 0 {
			out.warnings = append(out.warnings, fmt.Sprintf("the reply names a rule that was not asked about (%s); its %d violation(s) dropped", strconv.Quote(id), len(vs)))
			continue
		}
		out.found[k] = true
		out.violations[k] = append(out.violations[k], vs...)
	}
	return out, nil
}

// member is one rule's chunk evaluation in a work item.
type member struct {
	rule  *ruleRun
	unit  *unitRun
	chunk int
}

// runGroup is the call stage of a work item of several rules: one request (of the item's
// sample, when its rules take several), whose reply is split into each member's reply (line
// hints shifted to the document's lines). A failed call fails every member; a rule the reply
// leaves out fails that member only. The warnings about the reply go with the first member.
func (e *evaluator) runGroup(ctx context.Context, it workItem) []reply {
	out := make([]reply, len(it.members))
	if ctx.Err() != nil {
		for k := range out {
			out[k] = reply{interrupted: true}
		}
		return out
	}
	first := it.members[0]
	pr, u := first.rule.pr, first.unit.unit
	chunk := first.unit.chunks[first.chunk]
	ins := make([]PromptInput, len(it.members))
	ids := make([]string, len(it.members))
	for k, m := range it.members {
		ins[k] = chunkPrompt(m.rule.pr, m.unit.unit, chunk, e.opts)
		ids[k] = m.rule.pr.ID
	}
	j := job{rule: pr, unit: u, chunk: chunk, label: it.label(), samples: 1}
	if it.samples > 0 {
		j.samples, j.sample, j.label = it.samples, it.sample, sampleLabel(j.label, it.sample, it.samples)
	}
	var gr groupReply
	raw, err := e.complete(ctx, j, groupMessages(ins, ids), groupSchema(ids), func(js string) error {
		var err error
		gr, err = parseGroupReply(js, ids)
		return err
	})
	if err != nil {
		r := failed(ctx, err)
		for k := range out {
			out[k] = r
		}
		return out
	}
	for k := range it.members {
		out[k] = reply{raw: raw, violations: gr.violations[k]}
		if !gr.found[k] {
			out[k] = reply{raw: raw, err: &RuleMissingError{Rule: ids[k], Rules: ids}}
		}
		if k == 0 {
			out[k].warnings = gr.warnings
		}
		shiftLines(&out[k], chunk.Line-1)
	}
	return out
}

// groupRequest is the request of sample i of n that evaluates chunk ch for the units us of
// the rules prs (two or more), as runGroup sends it: the same messages and schema, so the same
// cache key.
func groupRequest(prs []*PlannedRule, us []*Unit, ch document.Chunk, opts EvalOptions, n, i int) llm.Request {
	ins := make([]PromptInput, len(prs))
	ids := make([]string, len(prs))
	for k, pr := range prs {
		ins[k] = chunkPrompt(pr, us[k], ch, opts)
		ids[k] = pr.ID
	}
	ep, sample := sampleRequest(opts, n, i)
	return llm.Request{Endpoint: ep, Messages: groupMessages(ins, ids), Schema: groupSchema(ids), Sample: sample}
}

// groupTokens estimates the input tokens of one request that evaluates chunk ch for the units
// us of the rules prs, as callTokens estimates a single rule's.
func groupTokens(prs []*PlannedRule, us []*Unit, ch document.Chunk) int {
	_, placeholders := us[0].doc.ModelText(ch.Text, ch.Offset)
	ins := make([]PromptInput, len(prs))
	ids := make([]string, len(prs))
	for k, pr := range prs {
		ins[k] = PromptInput{Rule: pr.Rule, Criteria: us[k].Criteria, Placeholders: placeholders}
		ids[k] = pr.ID
	}
	return requestTokens(prs[0].SharedChars, groupMessages(ins, ids), groupSchema(ids), us[0], ch)
}

// SharedCall is a request of a file's plan that evaluates several semi-objective rules on one
// chunk (RulesPerCall), as the dry run shows it.
type SharedCall struct {
	// Rules are the rules' ids; Lines names the chunk ("lines 1-82").
	Rules []string
	Lines string
	// Calls and Tokens are its requests (one per sample) and their estimated input tokens;
	// SavedCalls and SavedTokens what the rules' separate calls (Kind.Estimate) would cost more.
	Calls, Tokens           int
	SavedCalls, SavedTokens int
}

// SharedCalls lists the requests of a prepared file that evaluate several rules at once, in
// plan order (none when RulesPerCall is 1).
func (fp *FilePlan) SharedCalls() []SharedCall {
	var out []SharedCall
	fileCalls(fp, func(*FilePlan, *PlannedRule, *Unit) {}, func(_ *FilePlan, g callGroup) {
		if len(g.prs) < 2 {
			return
		}
		n := g.prs[0].samples()
		separate := 0
		for k, pr := range g.prs {
			separate += callTokens(pr, g.us[k], g.ch)
		}
		tokens := g.tokens()
		out = append(out, SharedCall{Rules: g.ids(), Lines: lineRange(g.ch), Calls: n, Tokens: n * tokens,
			SavedCalls: n * (len(g.prs) - 1), SavedTokens: n * (separate - tokens)})
	})
	return out
}
