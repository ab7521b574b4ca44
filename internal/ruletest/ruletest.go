// Package ruletest runs the examples of rules as tests (`vectorlint test`, docs/rules.md
// "Testing a rule"): each example goes through the lint engine as a document of its own — the
// same prompts, masking and locating as a lint run — once per repeat, each repeat a distinct
// sample (lint.EvalOptions.FirstSample), and the located findings are counted against the
// example's marked spans: true and false positives, false negatives, precision and recall,
// flaky examples and the examples that passed every repeat.
package ruletest

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
)

// Options are a suite's settings for one model.
type Options struct {
	// Config is the project's configuration (its default severity and document limits).
	Config *config.Config
	// Eval are the lint engine's settings for the model; FirstSample is set per repeat.
	Eval lint.EvalOptions
	// Model names the model in the results.
	Model string
	// Repeats is the number of repeats (at least 1).
	Repeats int
	// SearchModel and SharedPrompt as in lint.PlanInput.
	SearchModel  bool
	SharedPrompt string
}

// Result is a suite's outcome for one model.
type Result struct {
	Rules []RuleResult
	// Failures are the rule runs that could not complete (a call that failed after its
	// retries, a reply that broke the contract, no model configured): their examples are not
	// counted. Any makes the run fail (exit 2).
	Failures []string
}

// RuleResult is one rule's counts for one model, over all its examples and repeats (the
// `vectorlint test` JSON output's shape, docs/output-formats.md).
type RuleResult struct {
	Rule  string `json:"rule"`
	Model string `json:"model"`
	Counts
	Cases []Case `json:"cases"`
}

// Counts are what a rule × model (RuleResult) and a whole run (Summary) count, in the order
// both JSON objects give them (embedded, the fields are the object's own).
type Counts struct {
	Examples       int     `json:"examples"`
	Repeats        int     `json:"repeats"`
	TruePositives  int     `json:"truePositives"`
	FalsePositives int     `json:"falsePositives"`
	FalseNegatives int     `json:"falseNegatives"`
	Precision      float64 `json:"precision"`
	Recall         float64 `json:"recall"`
	Flaky          int     `json:"flaky"`
	PassedAll      int     `json:"passedAll"`
}

// add adds o's examples, matches, flaky cases and passed cases to c. Repeats is not added (the
// rules of a run share it), nor are the ratios (setRatios computes them from the sums).
func (c *Counts) add(o Counts) {
	c.Examples += o.Examples
	c.TruePositives += o.TruePositives
	c.FalsePositives += o.FalsePositives
	c.FalseNegatives += o.FalseNegatives
	c.Flaky += o.Flaky
	c.PassedAll += o.PassedAll
}

// setRatios sets Precision and Recall from the matches counted.
func (c *Counts) setRatios() {
	c.Precision, c.Recall = ratio(c.TruePositives, c.FalsePositives), ratio(c.TruePositives, c.FalseNegatives)
}

// PassRate is the share of the rule's examples that passed every repeat (1 with no example).
func (r *RuleResult) PassRate() float64 {
	if r.Examples == 0 {
		return 1
	}
	return float64(r.PassedAll) / float64(r.Examples)
}

// Case is one example's outcome over the repeats.
type Case struct {
	// Example is the example's field in the rule ("examples[2]"); Line its line in the rule
	// file; File the example file it names ("" for a text example).
	Example string `json:"example"`
	Line    int    `json:"line"`
	File    string `json:"file,omitempty"`
	// Expected is the number of marked spans.
	Expected int `json:"expected"`
	// Deterministic is set when the example needs no model call: it is evaluated once and
	// that result counts for every repeat.
	Deterministic bool     `json:"deterministic,omitempty"`
	Runs          []Repeat `json:"repeats"`
	Flaky         bool     `json:"flaky"`
	PassedAll     bool     `json:"passedAll"`
}

// Repeat is one repeat of an example.
type Repeat struct {
	TruePositives  int  `json:"truePositives"`
	FalsePositives int  `json:"falsePositives"`
	FalseNegatives int  `json:"falseNegatives"`
	Pass           bool `json:"pass"`
	// Score is a subjective rule's score, when it reported one.
	Score *float64 `json:"score,omitempty"`
	// Problems say why the repeat failed, one line each.
	Problems []string `json:"problems,omitempty"`
}

// exampleRun is one example in the plan of a repeat.
type exampleRun struct {
	r     *rules.Rule
	rule  int
	ex    *rules.Example
	key   string
	fp    *lint.FilePlan
	calls int
}

// Run runs the examples of rs, Repeats times, through the lint engine with o's model. Rules
// without examples are left out. An error is returned only when the run stopped (ctx ended,
// a document could not be built): the failures of rule runs are in Result.Failures.
func Run(ctx context.Context, rs []*rules.Rule, o Options) (*Result, error) {
	if o.Repeats < 1 {
		o.Repeats = 1
	}
	res := &Result{}
	var runs []*exampleRun
	for _, r := range rs {
		if len(r.Examples) == 0 {
			continue
		}
		res.Rules = append(res.Rules, RuleResult{Rule: r.FullID(), Model: o.Model, Counts: Counts{Repeats: o.Repeats}})
		ri := len(res.Rules) - 1
		for _, ex := range r.Examples {
			run, err := planExample(o, r, ex, ri)
			if err != nil {
				return nil, err
			}
			runs = append(runs, run)
			rr := &res.Rules[ri]
			rr.Examples++
			rr.Cases = append(rr.Cases, Case{Example: fmt.Sprintf("examples[%d]", ex.Index), Line: ex.Line,
				File: ex.File, Expected: len(ex.Spans), Deterministic: run.calls == 0})
		}
	}
	if o.Eval.Client == nil {
		for _, run := range runs {
			if run.calls > 0 {
				return nil, notConfigured(o.Eval.NotConfigured)
			}
		}
	}
	byKey := map[string]*exampleRun{}
	caseOf := map[*exampleRun]*Case{}
	next := map[int]int{}
	for _, run := range runs {
		byKey[run.key] = run
		caseOf[run] = &res.Rules[run.rule].Cases[next[run.rule]]
		next[run.rule]++
	}
	failed := map[*exampleRun]bool{}
	for rep := 0; rep < o.Repeats; rep++ {
		plan := &lint.Plan{Config: o.Config}
		for _, run := range runs {
			if failed[run] || (run.calls == 0 && rep > 0) {
				continue
			}
			// Each repeat plans the example afresh, as a lint run plans each file.
			fresh, err := planExample(o, run.r, run.ex, run.rule)
			if err != nil {
				return nil, err
			}
			plan.Files = append(plan.Files, fresh.fp)
		}
		if len(plan.Files) == 0 {
			continue
		}
		eo := o.Eval
		eo.FirstSample = rep
		if j, ok := eo.Judge.(lint.ModelJudge); ok {
			j.Sample = rep // a checklist's LLM-judged points are sampled per repeat too
			eo.Judge = j
		}
		stats, err := lint.Evaluate(ctx, plan, eo, func(fr finding.FileResult) error {
			run := byKey[fr.Path]
			if run == nil {
				return fmt.Errorf("ruletest: a result for an unknown example %q", fr.Path)
			}
			c := caseOf[run]
			id := run.fp.Rules[0].ID
			if len(fr.Errors) > 0 || fr.NotRun > 0 {
				failed[run] = true
				for _, e := range fr.Errors {
					res.Failures = append(res.Failures, fmt.Sprintf("%s %s (line %d): %s", id, c.Example, run.ex.Line, e.Message))
				}
				return nil
			}
			c.Runs = append(c.Runs, count(id, run.ex, fr))
			return nil
		})
		for _, re := range stats.RunErrors {
			res.Failures = append(res.Failures, re.Message)
		}
		if err != nil {
			return res, err
		}
		if len(stats.RunErrors) > 0 {
			break // no model: every later repeat would fail alike
		}
	}
	for i := range res.Rules {
		finish(&res.Rules[i], o.Repeats)
	}
	return res, nil
}

// NotConfiguredError is Run's error when an example needs a model call and no model is
// configured (lint.EvalOptions.Client is nil): Err says which variables to set.
type NotConfiguredError struct{ Err error }

func (e *NotConfiguredError) Error() string { return e.Err.Error() }
func (e *NotConfiguredError) Unwrap() error { return e.Err }

func notConfigured(err error) error {
	if err == nil {
		err = errors.New(lint.DefaultNotRunReason)
	}
	return &NotConfiguredError{Err: err}
}

// planExample builds the document of an example and plans its rule on it. A text example is a
// Markdown document; a file example keeps its file's name, so its format is its own.
func planExample(o Options, r *rules.Rule, ex *rules.Example, ri int) (*exampleRun, error) {
	key := fmt.Sprintf("%s/examples[%d]", r.FullID(), ex.Index)
	name := key + ".md"
	if ex.File != "" {
		name = key + "/" + path.Base(ex.File)
	}
	doc, err := document.New(name, []byte(ex.Text))
	if err != nil {
		return nil, fmt.Errorf("%s: examples[%d] (line %d): %w", r.Path, ex.Index, ex.Line, err)
	}
	fp := lint.PlanDocument(o.Config, lint.DocumentInput{Path: key, Doc: doc, Rules: []*rules.Rule{r},
		SearchModel: o.SearchModel, SharedPrompt: o.SharedPrompt})
	run := &exampleRun{r: r, rule: ri, ex: ex, key: key, fp: fp}
	if err := fp.Rules[0].Err; err != nil {
		return nil, fmt.Errorf("%s: examples[%d] (line %d): the rule cannot run: %w", r.Path, ex.Index, ex.Line, err)
	}
	for _, u := range fp.Rules[0].Units {
		run.calls += u.ModelCalls()
	}
	return run, nil
}

// ofRule reports whether a finding's rule (or a criterion's, "Pack.Rule.Criterion") is id.
func ofRule(rule, id string) bool { return rule == id || strings.HasPrefix(rule, id+".") }

// count scores one repeat of an example (docs/rules.md, "Reading the numbers"): a marked span
// overlapped by a located finding of the rule is a true positive, else a false negative; a
// finding that overlaps no marked span, and a quote the engine could not locate, is a false
// positive. A subjective example's score and listed criteria must be inside their ranges too.
func count(id string, ex *rules.Example, fr finding.FileResult) Repeat {
	var rep Repeat
	ranged := ex.Score != nil || len(ex.Criteria) > 0
	{
		var fs []finding.Finding
		for _, f := range fr.Findings {
			if ofRule(f.Rule, id) {
				fs = append(fs, f)
			}
		}
		for _, s := range ex.Spans {
			found := false
			for _, f := range fs {
				if overlaps(f, s) {
					found = true
					break
				}
			}
			if found {
				rep.TruePositives++
			} else {
				rep.FalseNegatives++
				rep.Problems = append(rep.Problems, fmt.Sprintf("missed %q at offset %d", ex.Text[s.Start:s.End], s.Start))
			}
		}
		for _, f := range fs {
			hit := false
			for _, s := range ex.Spans {
				if overlaps(f, s) {
					hit = true
					break
				}
			}
			if !hit {
				rep.FalsePositives++
				rep.Problems = append(rep.Problems, fmt.Sprintf("unexpected finding %q at line %d: %s", f.Match, f.Start.Line, f.Message))
			}
		}
		for _, u := range fr.Unverified {
			if ofRule(u.Rule, id) {
				rep.FalsePositives++
				rep.Problems = append(rep.Problems, fmt.Sprintf("unverified quote %q: %s", u.Quote, u.Message))
			}
		}
	}
	rangesOK := true
	if ranged {
		var sc *finding.Score
		for i := range fr.Scores {
			if fr.Scores[i].Rule == id {
				sc = &fr.Scores[i]
			}
		}
		switch {
		case sc == nil:
			rangesOK = false
			rep.Problems = append(rep.Problems, "no score reported")
		default:
			v := float64(sc.Score)
			rep.Score = &v
			if ex.Score != nil && !ex.Score.Contains(v) {
				rangesOK = false
				rep.Problems = append(rep.Problems, fmt.Sprintf("score %v outside [%v, %v]", v, ex.Score.Lo, ex.Score.Hi))
			}
			for _, cr := range ex.Criteria {
				rating, ok := criterionRating(sc, cr.ID)
				if !ok {
					rangesOK = false
					rep.Problems = append(rep.Problems, fmt.Sprintf("criterion %s not rated", cr.ID))
				} else if !cr.Contains(float64(rating)) {
					rangesOK = false
					rep.Problems = append(rep.Problems, fmt.Sprintf("criterion %s rated %d, outside [%v, %v]", cr.ID, rating, cr.Lo, cr.Hi))
				}
			}
		}
	}
	rep.Pass = rep.FalseNegatives == 0 && rep.FalsePositives == 0 && rangesOK
	return rep
}

func criterionRating(sc *finding.Score, id string) (int, bool) {
	for _, c := range sc.Criteria {
		if c.ID == id {
			return c.Rating, true
		}
	}
	return 0, false
}

// overlaps reports whether a finding's located text overlaps a span; a finding of no width
// overlaps the span it points into.
func overlaps(f finding.Finding, s rules.Span) bool {
	start, end := f.Start.Offset, f.End.Offset
	if end <= start {
		end = start + 1
	}
	return start < s.End && s.Start < end
}

// finish totals a rule's cases: a deterministic case's one evaluation counts for every repeat.
func finish(rr *RuleResult, repeats int) {
	for i := range rr.Cases {
		c := &rr.Cases[i]
		if c.Deterministic && len(c.Runs) == 1 {
			for len(c.Runs) < repeats {
				c.Runs = append(c.Runs, c.Runs[0])
			}
		}
		passed := 0
		for _, r := range c.Runs {
			rr.TruePositives += r.TruePositives
			rr.FalsePositives += r.FalsePositives
			rr.FalseNegatives += r.FalseNegatives
			if r.Pass {
				passed++
			}
		}
		c.PassedAll = len(c.Runs) == repeats && passed == repeats
		c.Flaky = passed > 0 && passed < len(c.Runs)
		if c.Flaky {
			rr.Flaky++
		}
		if c.PassedAll {
			rr.PassedAll++
		}
	}
	rr.setRatios()
}

// ratio is tp/(tp+other), 1 when both are 0 (nothing found: precision 1; nothing expected:
// recall 1).
func ratio(tp, other int) float64 {
	if tp+other == 0 {
		return 1
	}
	return float64(tp) / float64(tp+other)
}
