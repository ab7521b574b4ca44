package lint

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// subjective is the kind of a rule whose model rates weighted criteria from 1 to 4
// (spec/linter.md §5). Criteria with their own targets are evaluated on their own texts; those
// that select the same text share a call. A criterion's rating over the chunks of a long text
// is their word-weighted average; its findings carry the id Pack.Rule.Criterion, at a severity
// that follows the rating; and the rule's score is the weighted average of the normalised
// ratings.
type subjective struct{}

func (subjective) Name() string { return rules.KindSubjective.String() }

func (k subjective) Describe(pr *PlannedRule) string {
	parts := []string{k.Name(), pr.Severity.String()}
	if pr.Rule.EvaluateAs == rules.EvaluateDocument {
		parts = append(parts, "evaluateAs document")
	}
	return strings.Join(parts, ", ")
}

func (subjective) Estimate(pr *PlannedRule, u *Unit) Estimate { return chunkEstimate(pr, u) }

// layout puts each criterion on its effective target: its own, else the rule's.
func (subjective) layout(r *rules.Rule) layout {
	var l layout
	for _, c := range r.Criteria {
		g := criteriaGroup{criteria: []*rules.Criterion{c}, target: r.Target}
		if c.Target != nil {
			g.target, g.own = c.Target, true
		}
		l.groups = append(l.groups, g)
	}
	return l
}

func (subjective) modelCalls(u *Unit) int { return len(u.Chunks()) * max(1, u.samples) }

func (subjective) runnable(u *Unit, opts EvalOptions) (bool, int) { return modelRunnable(u, opts) }

func (subjective) prompt(in PromptInput) []llm.Message {
	return buildMessages(instructionsSubjective, in)
}

// call asks for a rating of each criterion of the unit ({"criteria": [...]}), once per sample.
func (k subjective) call(ctx context.Context, e *evaluator, j job) reply {
	return e.sampled(ctx, j, func(j job) reply { return k.callOne(ctx, e, j) })
}

// callOne is one sample's call.
func (k subjective) callOne(ctx context.Context, e *evaluator, j job) reply {
	var res reply
	criteria := j.prompt.Criteria
	raw, err := e.complete(ctx, j, k.prompt(j.prompt), criteriaSchema(criteria), func(js string) error {
		ratings, warnings, err := parseCriteriaReply(js, criteria)
		if err != nil {
			return err
		}
		res.ratings, res.warnings = ratings, warnings
		return nil
	})
	if err != nil {
		return failed(ctx, err)
	}
	res.raw = raw
	return res
}

// criterionRating is one criterion's rating on a file, over the chunks of its text.
type criterionRating struct {
	criterion *rules.Criterion
	// unit evaluates the criterion; run is its evaluation (nil when it made no call: its
	// target is missing).
	unit *Unit
	run  *unitRun
	// rating is the aggregated rating (0 when the criterion was not rated) and lowest the
	// reply of its lowest-rated chunk.
	rating int
	lowest *CriterionRating
	err    error
}

// ratings aggregates each criterion's ratings over its chunks, in the rule's criterion order.
func (subjective) ratings(r *ruleRun) []criterionRating {
	out := make([]criterionRating, 0, len(r.pr.Rule.Criteria))
	for _, c := range r.pr.Rule.Criteria {
		cr := criterionRating{criterion: c}
		cr.unit, cr.run = r.unitOf(c)
		if cr.unit == nil || cr.unit.Missing != nil || cr.run == nil {
			out = append(out, cr)
			continue
		}
		var chunks []scoring.ChunkRating
		for i := range cr.run.results {
			// A chunk's rating is the median of its samples' (the one rating of one sample);
			// the sample's reply that gave it stands for the chunk.
			var (
				given []int
				reps  []*CriterionRating
			)
			for _, res := range cr.run.results[i].sampleReplies() {
				for j := range res.ratings {
					if rt := &res.ratings[j]; rt.Criterion == c {
						given, reps = append(given, rt.Rating), append(reps, rt)
					}
				}
			}
			if len(given) == 0 {
				continue
			}
			rt := reps[slices.Index(given, medianRating(given))]
			chunks = append(chunks, scoring.ChunkRating{Rating: rt.Rating, Words: cr.run.chunks[i].Words})
			if cr.lowest == nil || rt.Rating < cr.lowest.Rating {
				cr.lowest = rt
			}
		}
		cr.rating, cr.err = scoring.AggregateRatings(chunks)
		out = append(out, cr)
	}
	return out
}

// propose proposes, criterion by criterion, the violations of each chunk at the severity the
// rating gives; then, for a criterion rated 1 or 2, a summary finding that stands in when none
// of its violations is reported (spec/linter.md §5): a low rating never goes unreported.
func (k subjective) propose(doc *document.Document, r *ruleRun) ([]proposal, issues) {
	pr := r.pr
	if r.allTargetsMissing() {
		return nil, issues{}
	}
	var props []proposal
	for i, cr := range k.ratings(r) {
		if cr.run == nil || cr.err != nil {
			continue
		}
		// Ratings 2 to 4 report warnings, or suggestions for a criterion (or rule) whose
		// severity is suggestion: a suggestion rule never reports above its level.
		own := pr.CriterionSeverity(cr.criterion)
		sev, _ := scoring.CriterionSeverity(cr.rating, own, pr.Severity, min(finding.SeverityWarning, own))
		id := pr.Rule.CriterionID(cr.criterion)
		for ci := range cr.run.results {
			for s, res := range cr.run.results[ci].sampleReplies() {
				for _, rt := range res.ratings {
					if rt.Criterion != cr.criterion {
						continue
					}
					for k := range rt.Violations {
						p := violationProposal(id, i, sev, cr.run.chunks[ci], &rt.Violations[k])
						p.sample = s
						props = append(props, p)
					}
				}
			}
		}
		if scoring.NeedsSummaryFinding(cr.rating, 0) {
			f := startFinding(doc, id, sev, summaryMessage(cr), summaryAnalysis(cr), cr.unit)
			p := placedProposal(f)
			p.group, p.fallback = i, true
			props = append(props, p)
		}
	}
	return props, issues{}
}

// summaryMessage is the model's summary of the criterion's lowest-rated chunk, or the rating.
func summaryMessage(cr criterionRating) string {
	if cr.lowest != nil {
		if msg := strings.TrimSpace(cr.lowest.Summary); msg != "" {
			return msg
		}
	}
	return fmt.Sprintf("%s is rated %d of 4.", cr.criterion.Name, cr.rating)
}

// summaryAnalysis is the model's reasoning for the criterion's lowest-rated chunk.
func summaryAnalysis(cr criterionRating) string {
	if cr.lowest == nil {
		return ""
	}
	return strings.TrimSpace(cr.lowest.Reasoning)
}

// score is the weighted average of the criteria's normalised ratings; a criterion that was not
// rated (its own required target is missing) counts 0 with its weight. When the rule's own
// required target is missing, the rule scores 0 and lists no criteria.
func (k subjective) score(r *ruleRun, _ []proposal) (*finding.Score, error) {
	pr := r.pr
	if r.allTargetsMissing() {
		return &finding.Score{Rule: pr.ID, Type: finding.Subjective, Score: 0}, nil
	}
	var (
		scores            []finding.CriterionScore
		weighted, weights float64
	)
	for _, cr := range k.ratings(r) {
		c := cr.criterion
		weights += c.Weight
		if cr.run == nil {
			scores = append(scores, finding.CriterionScore{ID: c.ID, Name: c.Name, Rating: 0, Score: 0, Weight: c.Weight})
			continue
		}
		if cr.err != nil {
			return nil, cr.err
		}
		normalized, _ := scoring.NormalizeRating(cr.rating)
		weighted += normalized * c.Weight
		scores = append(scores, finding.CriterionScore{ID: c.ID, Name: c.Name, Rating: cr.rating, Score: finding.Rounded1(normalized), Weight: c.Weight})
	}
	score := 0.0
	if weights > 0 {
		score = weighted / weights
	}
	return &finding.Score{Rule: pr.ID, Type: finding.Subjective, Score: finding.Rounded1(score), Criteria: scores}, nil
}

// unitOf returns the unit that evaluates criterion c and its evaluation (nil when it made no
// call).
func (r *ruleRun) unitOf(c *rules.Criterion) (*Unit, *unitRun) {
	for _, u := range r.pr.Units {
		for _, uc := range u.Criteria {
			if uc != c {
				continue
			}
			for _, run := range r.units {
				if run.unit == u {
					return u, run
				}
			}
			return u, nil
		}
	}
	return nil, nil
}
