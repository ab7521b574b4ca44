package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// A checklist rule is a rule with a `should` list (spec/linter.md §3): its points are scored on
// the rule's evaluated text by the blueprint engine, so deterministic `$` functions cost no
// model call, and LLM-judged text points are judged by the linter's own model with the Weval
// judge prompt. The rule's score is the coverage × 10; each point that is not fully met is a
// finding.

// ModelJudge judges a checklist's text points with one model: the Weval judge prompt
// (holistic approach, 5-point scale), one retry on an unreadable reply.
type ModelJudge struct {
	Client   *llm.Client
	Endpoint llm.Endpoint
}

// JudgeText implements blueprint.Judge.
func (j ModelJudge) JudgeText(ctx context.Context, req blueprint.JudgeRequest) (blueprint.JudgeResult, error) {
	system, user := blueprint.JudgePrompt("holistic", req, false)
	var res blueprint.JudgeResult
	_, err := j.Client.CompleteChecked(ctx, llm.Request{
		Endpoint: j.Endpoint,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		Label:    "judge " + req.Subject.PromptID,
	}, func(content string) error {
		score, reflection, err := blueprint.ParseJudgeReply(content, false)
		if err != nil {
			return err
		}
		res = blueprint.JudgeResult{Score: score, Reflection: reflection, JudgeModelID: j.Endpoint.Model}
		return nil
	})
	if err != nil {
		return blueprint.JudgeResult{}, err
	}
	return res, nil
}

// textPoints counts a rubric's LLM-judged points.
func textPoints(r *blueprint.Rubric) int {
	n := 0
	for _, p := range r.Points() {
		if !p.IsFunction() {
			n++
		}
	}
	return n
}

// scoreChecklist scores one checklist unit (its whole text: points apply to the text as a
// whole, so a checklist is never split into chunks).
func (e *evaluator) scoreChecklist(ctx context.Context, it workItem) chunkResult {
	pr := it.rule.pr
	chunk := it.unit.chunks[it.chunk]
	cov := blueprint.ScoreRubric(ctx, *pr.Rule.Should,
		blueprint.Subject{Text: chunk.Text, PromptID: pr.ID},
		blueprint.Env{Judge: e.opts.Judge, Description: strings.TrimSpace(pr.Rule.Body), JSPool: e.js})
	if ctx.Err() != nil {
		return chunkResult{interrupted: true}
	}
	return chunkResult{coverage: &cov}
}

// checklist reports a checklist rule: its coverage score and a finding for each point not fully
// met, placed at what a "must not" point found, else at the start of the evaluated text.
func (a *assembler) checklist(r *ruleRun) {
	pr := r.pr
	for _, u := range pr.Units {
		if u.Missing != nil {
			a.fr.Scores = append(a.fr.Scores, Score{Rule: pr.ID, Type: SemiObjective, Score: 0})
			return
		}
	}
	if len(r.units) == 0 || len(r.units[0].results) == 0 || r.units[0].results[0].coverage == nil {
		return
	}
	run := r.units[0]
	unit, cov := run.unit, run.results[0].coverage
	points := pr.Rule.Should.Points()
	var failures []string
	var stop *llm.StopError
	for i, pa := range cov.PointAssessments {
		var pt *blueprint.Point
		if i < len(points) {
			pt = points[i]
		}
		if se := pa.Stopped(); se != nil {
			// The judge's endpoint was stopped: counted once for the rule run, under the run
			// error, not listed as the point's failure.
			if stop == nil {
				stop = se
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
			places = pt.Occurrences(unit.Text)
		}
		if len(places) == 0 {
			a.keep(a.startFinding(pr.ID, pr.Severity, checklistMessage(pt, pa), pa.Reflection, unit))
			continue
		}
		for _, p := range places {
			start, end := unit.Offset+p[0], unit.Offset+p[1]
			match := string(a.doc.Source[start:end])
			a.keep(Finding{Rule: pr.ID, Severity: pr.Severity,
				Message:  fmt.Sprintf("Avoid %q.", match),
				Analysis: "Not met: " + pointSyntax(pt, pa), Match: match,
				Start: a.doc.Position(start), End: a.doc.Position(end)})
		}
	}
	if stop != nil {
		a.stopped(stop)
	}
	if len(failures) > 0 {
		a.fr.Errors = append(a.fr.Errors, RuleError{Rule: pr.ID,
			Message: "checklist points could not be evaluated: " + strings.Join(failures, "; ")})
	}
	if cov.Score == nil {
		return // nothing could be evaluated (text points without a model): reported as not run
	}
	coverage := *cov.AvgCoverageExtent
	a.fr.Scores = append(a.fr.Scores, Score{Rule: pr.ID, Type: SemiObjective, Score: Rounded1(*cov.Score * 10),
		Coverage: &coverage})
}

// checklistMessage says which point is not met, and how far when it is graded.
func checklistMessage(pt *blueprint.Point, pa blueprint.PointAssessment) string {
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
func pointSyntax(pt *blueprint.Point, pa blueprint.PointAssessment) string {
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
func (a *assembler) startFinding(rule string, sev rules.Severity, msg, analysis string, u *Unit) Finding {
	text := u.Text
	start := len(text) - len(strings.TrimLeft(text, " \t\r\n\f\v"))
	end := start
	for end < len(text) && text[end] != '\n' && text[end] != '\r' {
		end++
	}
	end = start + len(strings.TrimRight(text[start:end], " \t\f\v"))
	return Finding{Rule: rule, Severity: sev, Message: msg, Analysis: analysis, Match: text[start:end],
		Start: a.doc.Position(u.Offset + start), End: a.doc.Position(u.Offset + end)}
}

var _ blueprint.Judge = ModelJudge{}
