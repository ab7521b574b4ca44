package lint

import (
	"context"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// semiObjective is the kind of a rule whose model lists the passages that break it
// (spec/linter.md §5): each located violation is a finding at the rule's severity, and the
// score falls with the violations' density over the whole evaluated text, scaled by strictness.
type semiObjective struct{}

func (semiObjective) Name() string { return rules.KindSemiObjective.String() }

func (k semiObjective) Describe(pr *PlannedRule) string {
	parts := []string{k.Name(), pr.Severity.String(), "strictness " + strconv.FormatFloat(pr.Strictness, 'f', -1, 64)}
	if pr.Rule.EvaluateAs == rules.EvaluateDocument {
		parts = append(parts, "evaluateAs document")
	}
	return strings.Join(parts, ", ")
}

func (semiObjective) Estimate(pr *PlannedRule, u *Unit) Estimate { return chunkEstimate(pr, u) }

func (semiObjective) layout(r *rules.Rule) layout { return ruleLayout(r) }

func (semiObjective) modelCalls(u *Unit) int { return len(u.Chunks()) * max(1, u.samples) }

func (semiObjective) runnable(u *Unit, opts EvalOptions) (bool, int) { return modelRunnable(u, opts) }

func (semiObjective) prompt(in PromptInput) []llm.Message {
	return buildMessages(instructionsSemiObjective, in)
}

// call asks for the chunk's violations ({"violations": [...]}), once per sample.
func (k semiObjective) call(ctx context.Context, e *evaluator, j job) reply {
	return e.sampled(ctx, j, func(j job) reply { return k.callOne(ctx, e, j) })
}

// callOne is one sample's call.
func (k semiObjective) callOne(ctx context.Context, e *evaluator, j job) reply {
	var res reply
	raw, err := e.complete(ctx, j, k.prompt(j.prompt), violationsSchema(), func(js string) error {
		vs, err := parseViolationsReply(js)
		if err != nil {
			return err
		}
		res.violations = vs
		return nil
	})
	if err != nil {
		return failed(ctx, err)
	}
	res.raw = raw
	return res
}

// propose proposes every violation of every sample of every chunk, at the rule's severity.
func (semiObjective) propose(_ *document.Document, r *ruleRun) ([]proposal, issues) {
	var props []proposal
	for _, u := range r.units {
		for i, c := range u.chunks {
			for s, sr := range u.results[i].sampleReplies() {
				vs := sr.violations
				for k := range vs {
					p := violationProposal(r.pr.ID, 0, r.pr.Severity, c, &vs[k])
					p.sample = s
					props = append(props, p)
				}
			}
		}
	}
	return props, issues{}
}

// score is the density of the violations reported (a suppressed one does not count) over the
// words of every evaluated text; 0 when a required target is missing.
func (semiObjective) score(r *ruleRun, props []proposal) (*finding.Score, error) {
	pr := r.pr
	strictness := pr.Strictness
	if r.missingTarget() {
		return &finding.Score{Rule: pr.ID, Type: finding.SemiObjective, Score: 0, Strictness: &strictness}, nil
	}
	count, words := reportedViolations(props), 0
	for _, u := range r.units {
		if u.unit.only == nil {
			words += u.unit.Words() // the words the model is sent: skipped scopes do not count
			continue
		}
		for _, c := range u.chunks { // --changed-lines: only the chunks sent count
			shown, _ := u.unit.doc.ModelText(c.Text, c.Offset)
			words += document.CountWords(shown)
		}
	}
	d, err := scoring.ScoreDensity(count, words, scoring.Strictness(strictness))
	if err != nil {
		return nil, err
	}
	return &finding.Score{Rule: pr.ID, Type: finding.SemiObjective, Score: finding.Rounded1(d.Score),
		Violations: &count, Words: &d.Words, Strictness: &strictness}, nil
}
