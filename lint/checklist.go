package lint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/numfmt"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
	"github.com/vectorlint/vectorlint/rules"
)

// A checklist rule is a rule with a `should` list (spec/linter.md §3): its points are scored on
// the rule's evaluated text by the points engine (package points, which blueprints use too), so
// deterministic `$` functions cost no model call, and LLM-judged text points are judged by the
// linter's own model with the Weval judge prompt. The rule's score is the coverage × 10; each
// point that is not fully met is a finding.

// ModelJudge judges a checklist's text points with one model: the Weval judge prompt
// (holistic approach, 5-point scale), one retry on an unreadable reply.
type ModelJudge struct {
	Client   *llm.Client
	Endpoint llm.Endpoint
	// Sample is the sample number of the judge's calls (llm.Request.Sample): `vectorlint
	// test` gives each repeat its own, as it does the rule's calls (EvalOptions.FirstSample).
	Sample int
}

// JudgeText implements points.Judge.
func (j ModelJudge) JudgeText(ctx context.Context, req points.JudgeRequest) (points.JudgeResult, error) {
	system, user := points.JudgePrompt("holistic", req, false)
	var res points.JudgeResult
	_, err := j.Client.CompleteChecked(ctx, llm.Request{
		Endpoint: j.Endpoint,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		Label:    "judge " + req.Subject.PromptID,
		Sample:   j.Sample,
	}, func(content string) error {
		score, reflection, err := points.ParseJudgeReply(content, false)
		if err != nil {
			return err
		}
		res = points.JudgeResult{Score: score, Reflection: reflection, JudgeModelID: j.Endpoint.Model}
		return nil
	})
	if err != nil {
		return points.JudgeResult{}, err
	}
	return res, nil
}

// textPoints counts a rubric's LLM-judged points.
func textPoints(r *rubric.Rubric) int {
	n := 0
	for _, p := range r.Points() {
		if !p.IsFunction() {
			n++
		}
	}
	return n
}

// checklist is the kind of a rule with a `should` list (see above).
type checklist struct{}

func (checklist) Name() string { return rules.KindChecklist.String() }

func (k checklist) Describe(pr *PlannedRule) string { return k.Name() + ", " + pr.Severity.String() }

// Estimate is nothing for deterministic points, and one judge call per LLM-judged point
// (estimated as the judge instructions plus the evaluated text).
func (checklist) Estimate(_ *PlannedRule, u *Unit) Estimate {
	points, calls := len(u.Checklist.Points()), u.ModelCalls()
	if calls == 0 {
		return Estimate{Lines: []string{fmt.Sprintf("checklist of %s, all deterministic: no LLM call", numfmt.Count(points, "point"))}}
	}
	tokens := calls * ((estimateJudgeChars + utf8.RuneCountInString(u.ModelText()) + 3) / 4)
	return Estimate{Calls: calls, Tokens: tokens, Lines: []string{fmt.Sprintf("checklist of %s: %s for the judged points, ~%s tokens",
		numfmt.Count(points, "point"), numfmt.Count(calls, "LLM call"), numfmt.Thousands(int64(tokens)))}}
}

// estimateJudgeChars approximates the judge prompt around the text and the criterion (Weval's
// judge instructions and class list).
const estimateJudgeChars = 2500

// layout is the rule's one unit, never split: points apply to the text as a whole.
func (checklist) layout(r *rules.Rule) layout {
	l := ruleLayout(r)
	l.whole = true
	return l
}

// modelCalls is one judge call per LLM-judged point.
func (checklist) modelCalls(u *Unit) int { return textPoints(u.Checklist) }

// runnable: a checklist always runs, since its deterministic points need no model; only its
// LLM-judged points wait for a judge.
func (k checklist) runnable(u *Unit, opts EvalOptions) (bool, int) {
	if opts.Judge == nil {
		return true, k.modelCalls(u)
	}
	return true, 0
}

// prompt is nil: the judged points are sent with the Weval judge prompt (ModelJudge).
func (checklist) prompt(PromptInput) []llm.Message { return nil }

// call scores the unit's whole text by the rule's points.
func (checklist) call(ctx context.Context, e *evaluator, j job) reply {
	pr := j.rule
	cov := points.ScoreRubric(ctx, *pr.Rule.Should,
		points.Subject{Text: j.prompt.Text, PromptID: pr.ID},
		points.Env{Judge: e.opts.Judge, Description: strings.TrimSpace(pr.Rule.Body), JSPool: e.js, JSTimeout: e.opts.JSTimeout})
	if ctx.Err() != nil {
		return reply{interrupted: true}
	}
	return reply{coverage: &cov}
}

// propose proposes a finding for each point not fully met, placed at what a "must not" point
// found, else at the start of the evaluated text. A point that could not be evaluated is the
// rule's error; a judge whose endpoint was stopped is counted once, under the run error.
func (checklist) propose(doc *document.Document, r *ruleRun) ([]proposal, issues) {
	pr := r.pr
	if r.missingTarget() || len(r.units) == 0 || len(r.units[0].results) == 0 || r.units[0].results[0].coverage == nil {
		return nil, issues{}
	}
	run := r.units[0]
	unit, cov := run.unit, run.results[0].coverage
	pts := pr.Rule.Should.Points()
	var (
		props    []proposal
		failures []string
		is       issues
	)
	for i, pa := range cov.PointAssessments {
		var pt *rubric.Point
		if i < len(pts) {
			pt = pts[i]
		}
		var se *llm.StopError
		if errors.As(pa.Stopped(), &se) {
			if is.stopped == nil {
				is.stopped = se
			}
			continue
		}
		if pa.Error != "" {
			failures = append(failures, fmt.Sprintf("%s: %s", pointSyntax(pt, pa), pa.Error))
			continue
		}
		if pa.CoverageExtent == nil || *pa.CoverageExtent >= 1 {
			continue
		}
		var places [][2]int
		if pt != nil && !pa.IsInverted {
			places = points.Occurrences(pt, unit.Text)
		}
		if len(places) == 0 {
			props = append(props, placedProposal(startFinding(doc, pr.ID, pr.Severity, checklistMessage(pt, pa), pa.Reflection, unit)))
			continue
		}
		for _, p := range places {
			start, end := unit.Offset+p[0], unit.Offset+p[1]
			match := string(doc.Source[start:end])
			props = append(props, placedProposal(finding.Finding{Rule: pr.ID, Severity: pr.Severity,
				Message:  fmt.Sprintf("Avoid %q.", match),
				Analysis: "Not met: " + pointSyntax(pt, pa), Match: match,
				Start: doc.Position(start), End: doc.Position(end)}))
		}
	}
	if len(failures) > 0 {
		is.err = errors.New("checklist points could not be evaluated: " + strings.Join(failures, "; "))
	}
	return props, is
}

// score is the coverage × 10 (0 when the required target is missing; none when nothing could
// be evaluated: text points without a model are reported as not run).
func (checklist) score(r *ruleRun, _ []proposal) (*finding.Score, error) {
	pr := r.pr
	if r.missingTarget() {
		return &finding.Score{Rule: pr.ID, Type: finding.SemiObjective, Score: 0}, nil
	}
	if len(r.units) == 0 || len(r.units[0].results) == 0 || r.units[0].results[0].coverage == nil {
		return nil, nil
	}
	cov := r.units[0].results[0].coverage
	if cov.Score == nil {
		return nil, nil
	}
	coverage := *cov.AvgCoverageExtent
	return &finding.Score{Rule: pr.ID, Type: finding.SemiObjective, Score: finding.Rounded1(*cov.Score * 10), Coverage: &coverage}, nil
}

// checklistMessage says which point is not met, and how far when it is graded.
func checklistMessage(pt *rubric.Point, pa points.PointAssessment) string {
	verb := "Not met"
	if pa.IsInverted {
		verb = "Should not be present"
	}
	msg := verb + ": " + pointSyntax(pt, pa)
	if s := *pa.CoverageExtent; s > 0 && s < 1 {
		msg += fmt.Sprintf(" (met %.0f%%)", s*100)
	}
	return msg
}

// maxPointSyntax bounds how much of a point's arguments a message quotes.
const maxPointSyntax = 80

// pointSyntax writes a point the way rule authors write it: "$fn: args" for a function (args as
// JSON, shortened), the text for an LLM-judged point.
func pointSyntax(pt *rubric.Point, pa points.PointAssessment) string {
	if pt == nil || !pt.IsFunction() {
		return strings.TrimSpace(pa.KeyPointText)
	}
	name := pt.Written
	if name == "" {
		name = pt.Fn
	}
	if !pt.HasArgs {
		return "$" + name
	}
	args, err := json.Marshal(pt.Args)
	if err != nil {
		return "$" + name
	}
	s := string(args)
	if utf8.RuneCountInString(s) > maxPointSyntax {
		s = string([]rune(s)[:maxPointSyntax-1]) + "…"
	}
	return "$" + name + ": " + s
}

// startFinding is a finding spanning the first non-blank line of a unit's text.
func startFinding(doc *document.Document, rule string, sev finding.Severity, msg, analysis string, u *Unit) finding.Finding {
	text := u.Text
	start := len(text) - len(strings.TrimLeft(text, " \t\r\n\f\v"))
	end := start
	for end < len(text) && text[end] != '\n' && text[end] != '\r' {
		end++
	}
	end = start + len(strings.TrimRight(text[start:end], " \t\f\v"))
	return finding.Finding{Rule: rule, Severity: sev, Message: msg, Analysis: analysis, Match: string(doc.Source[u.Offset+start : u.Offset+end]),
		Start: doc.Position(u.Offset + start), End: doc.Position(u.Offset + end)}
}

var _ points.Judge = ModelJudge{}
