package points

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/runwide"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/points/rubric"
	"github.com/vectorlint/vectorlint/scoring"
)

// Subject is the text a rubric is scored against, with what point functions and judges may
// need to know about where it came from.
type Subject struct {
	// Text is T: the candidate's generated assistant turns joined with a blank line.
	Text     string
	PromptID string
	ModelID  string
	// Messages is the whole conversation (system prompt, authored and generated turns), for
	// $js's context.messages, $call's {messages} and prompt-aware judges. May be empty.
	Messages []Message
	// Generated marks the messages of Messages the model generated (same length as Messages;
	// nil when unknown), so judges see the generated turns marked in a transcript.
	Generated []bool
}

// promptText returns the last user message of the conversation ("" when there is none).
func (s *Subject) promptText() string {
	for i := len(s.Messages) - 1; i >= 0; i-- {
		if s.Messages[i].Role == "user" && s.Messages[i].Content != nil {
			return *s.Messages[i].Content
		}
	}
	return ""
}

// Judge scores LLM-judged (text) points. Package blueprint implements it with LLM judges
// (LLMJudge), the linter with its own model (lint.ModelJudge); without one, text points are
// reported as not evaluated and do not count.
type Judge interface {
	JudgeText(ctx context.Context, req JudgeRequest) (JudgeResult, error)
}

// JudgeRequest asks how far a criterion is present in a subject.
type JudgeRequest struct {
	// Criterion is the point's text. For a should_not point the judge still rates presence;
	// the engine inverts the score.
	Criterion string
	Citation  any
	Inverted  bool
	Subject   *Subject
	// Criteria lists every point of the rubric as "[should] …" / "[should not] …", for
	// holistic judges that score one criterion with the others as context.
	Criteria []string
	// Description is the blueprint's description, given to holistic judges.
	Description string
}

// JudgeResult is a judge's (or a consensus of judges') verdict on one point.
type JudgeResult struct {
	// Score in [0, 1]: how far the criterion is present.
	Score      float64
	Reflection string
	// JudgeModelID names the judge or the consensus, e.g. "consensus(a, b)".
	JudgeModelID string
	Individual   []IndividualJudgement
	// Warning notes a partial failure (some judges failed); it is added to the reflection.
	Warning string
	// Stopped is set when every judge that failed did so for a reason of the whole run
	// (RunWideFailures): those failures, which the run reports once each.
	Stopped []error
}

// IndividualJudgement is one judge's verdict within a consensus.
type IndividualJudgement struct {
	JudgeModelID   string  `json:"judgeModelId"`
	CoverageExtent float64 `json:"coverageExtent"`
	Reflection     string  `json:"reflection"`
}

// Env is what scoring may use from the outside world. The zero value scores every
// deterministic point; text points need Judge, $call and $factcheck need AllowNet.
type Env struct {
	// Judge scores text points; nil leaves them not evaluated.
	Judge Judge
	// AllowNet lets $call and $factcheck make HTTP requests.
	AllowNet bool
	// HTTPClient makes those requests (http.DefaultClient when nil), always under the
	// redirect, Referer and proxy rules of docs/security.md: a client safehttp did not make is
	// used through a copy (safehttp.Guard), made for each request.
	HTTPClient *http.Client
	// LookupEnv reads variables for $factcheck (FACTCHECK_ENDPOINT_URL) and the ${VAR}
	// references of $call urls and headers. The command passes its environment in (each value
	// knowing its source); nil means no variables.
	LookupEnv envsource.Vars
	// AllowEnv names the variables ${VAR} references may read (--allow-env); any other
	// reference fails its point.
	AllowEnv AllowEnv
	// Trust decides where a $call may send a value the user holds (process environment, user
	// config): only to a loopback address or a trusted host. nil allows any host.
	Trust *trust.Rule
	// Services are the blueprint's externalServices, for $call.
	Services ServiceMap
	// Description is the blueprint's description, for holistic judges.
	Description string
	// JSTimeout bounds each $js run (DefaultJSTimeout when 0).
	JSTimeout time.Duration
	// JSPool runs the $js points and bounds their memory (JSMemoryBudget each). Points scored
	// at the same time should share one, so its watchdog sees them all: a blueprint run and a
	// lint run make one each, ScoreRubric one for its call when this is nil.
	JSPool *JSPool
}

// PointAssessment is the verdict on one point, in Weval's result shape.
type PointAssessment struct {
	KeyPointText string `json:"keyPointText"`
	// CoverageExtent is the point's score with inversion applied; absent when the point was
	// not evaluated.
	CoverageExtent       *float64              `json:"coverageExtent,omitempty"`
	Reflection           string                `json:"reflection"`
	Multiplier           float64               `json:"multiplier"`
	Citation             any                   `json:"citation,omitempty"`
	IsInverted           bool                  `json:"isInverted"`
	PathID               string                `json:"pathId,omitempty"`
	Error                string                `json:"error,omitempty"`
	JudgeModelID         string                `json:"judgeModelId,omitempty"`
	IndividualJudgements []IndividualJudgement `json:"individualJudgements,omitempty"`
	// NotEvaluated marks a point that has no score: it is left out of avgCoverageExtent.
	NotEvaluated bool `json:"notEvaluated,omitempty"`
	// Warning notes a partial failure that did not stop the point from being scored: some
	// judges failed and the others' consensus (or the backup judge) scored it.
	Warning string `json:"warning,omitempty"`
	// IsFunction tells deterministic points from LLM-judged ones.
	IsFunction bool `json:"isFunction"`
	// stop is the run-wide failure (RunWide) that kept the point from being judged (Error
	// holds its text too); stopNote the one behind Warning when the point was judged by fewer
	// judges.
	stop, stopNote []error
}

// Stops returns the run-wide failures (RunWide) that kept the point from being judged, or
// nil; Error holds their text too. A run reports them once, not once per point.
func (a PointAssessment) Stops() []error { return a.stop }

// PartialStops returns the run-wide failures of the judges that failed when the point was
// scored by the others (Warning says so), or nil.
func (a PointAssessment) PartialStops() []error { return a.stopNote }

// Stopped returns the stopped endpoint (an llm.StopError, which matches runwide.ErrStopped)
// that kept the point from being judged, or nil: callers report such failures once for the run
// instead of once per point.
func (a PointAssessment) Stopped() error {
	for _, err := range a.stop {
		if errors.Is(err, runwide.ErrStopped) {
			return err
		}
	}
	return nil
}

// CoverageResult is the llm-coverage result of one prompt × model, in Weval's shape.
type CoverageResult struct {
	KeyPointsCount int `json:"keyPointsCount"`
	// AvgCoverageExtent is Score rounded to 2 decimals; null when no point was evaluated.
	AvgCoverageExtent *float64          `json:"avgCoverageExtent"`
	PointAssessments  []PointAssessment `json:"pointAssessments"`
	// NotEvaluatedCount is the number of points left out of the score.
	NotEvaluatedCount int `json:"notEvaluatedCount,omitempty"`
	// JudgeAgreement is how far the judges agreed on this response's points, when two or more
	// judged some point (set by blueprint runs; nil otherwise).
	JudgeAgreement *JudgeAgreement `json:"judgeAgreement,omitempty"`

	// Score is the exact aggregate (nil when no point was evaluated).
	Score *float64 `json:"-"`
	// Errors counts points whose evaluation failed (scored 0, or not evaluated with an error).
	Errors int `json:"-"`
	// Breakdown is the aggregation's parts.
	Breakdown scoring.CoverageScore `json:"-"`
}

// Complete reports whether every point was evaluated without error.
func (r *CoverageResult) Complete() bool { return r.Errors == 0 && r.NotEvaluatedCount == 0 }

// scoredPoint is a point with its place in the rubric.
type scoredPoint struct {
	pt     *rubric.Point
	block  scoring.CoverageBlock
	path   int // 0 required, else entry index + 1
	pathID string
}

func flatten(r rubric.Rubric) []scoredPoint {
	var out []scoredPoint
	add := func(entries []rubric.Entry, block scoring.CoverageBlock, prefix string) {
		for i, e := range entries {
			if e.Point != nil {
				out = append(out, scoredPoint{pt: e.Point, block: block})
				continue
			}
			for _, pt := range e.Path {
				out = append(out, scoredPoint{pt: pt, block: block, path: i + 1, pathID: fmt.Sprintf("%s%d", prefix, i)})
			}
		}
	}
	add(r.Should, scoring.CoverageShould, "path_")
	add(r.ShouldNot, scoring.CoverageShouldNot, "should_not_path_")
	return out
}

// NoJudgeReason is the reflection of a text point scored without a judge.
const NoJudgeReason = "Not evaluated: this is an LLM-judged point and no judge is configured; it is left out of the score."

// ScoreRubric scores a rubric against a subject: every function point deterministically, every
// text point with env.Judge (or not at all), then the aggregate of spec §4. A point whose
// evaluation fails scores 0 and carries the error; a text point that could not be judged has
// no score and is left out of the mean.
func ScoreRubric(ctx context.Context, r rubric.Rubric, s Subject, env Env) CoverageResult {
	points := flatten(r)
	if env.JSPool == nil {
		env.JSPool = NewJSPool()
	}
	res := CoverageResult{KeyPointsCount: len(points), PointAssessments: make([]PointAssessment, len(points))}
	cps := make([]scoring.CoveragePoint, len(points))
	in := &evalInput{ctx: ctx, subject: &s, env: &env}

	var judged []int // the text points to judge
	for i, sp := range points {
		a := &res.PointAssessments[i]
		*a = PointAssessment{KeyPointText: sp.pt.KeyPointText(), Multiplier: sp.pt.Multiplier, Citation: sp.pt.Citation,
			IsInverted: sp.block == scoring.CoverageShouldNot, PathID: sp.pathID, IsFunction: sp.pt.IsFunction()}
		cps[i] = scoring.CoveragePoint{Weight: sp.pt.Multiplier, Block: sp.block, Path: sp.path}
		switch {
		case sp.pt.IsFunction():
		case env.Judge == nil:
			a.NotEvaluated = true
			a.Reflection = NoJudgeReason
		default:
			judged = append(judged, i)
		}
	}
	// The judges are asked first, so their calls are out while the functions run.
	var wg sync.WaitGroup
	if len(judged) > 0 {
		criteria := rubricCriteria(points)
		request := func(i int) JudgeRequest {
			sp := points[i]
			return JudgeRequest{Criterion: sp.pt.Text, Citation: sp.pt.Citation, Inverted: sp.block == scoring.CoverageShouldNot,
				Subject: &s, Criteria: criteria, Description: env.Description}
		}
		if bj, ok := env.Judge.(BatchJudge); ok && len(judged) > 1 {
			wg.Go(func() {
				reqs := make([]JudgeRequest, len(judged))
				for k, i := range judged {
					reqs[k] = request(i)
				}
				results, errs := bj.JudgeTexts(ctx, reqs)
				for k, i := range judged {
					var jr JudgeResult
					err := fmt.Errorf("the judge returned %d verdicts for %d points", len(results), len(reqs))
					if k < len(results) && k < len(errs) {
						jr, err = results[k], errs[k]
					}
					applyJudgement(jr, err, points[i], &res.PointAssessments[i], &cps[i])
				}
			})
		} else {
			for _, i := range judged {
				wg.Go(func() {
					jr, err := env.Judge.JudgeText(ctx, request(i))
					applyJudgement(jr, err, points[i], &res.PointAssessments[i], &cps[i])
				})
			}
		}
	}
	for i, sp := range points {
		if sp.pt.IsFunction() {
			scoreFunction(in, sp, &res.PointAssessments[i], &cps[i])
		}
	}
	wg.Wait()

	for i := range res.PointAssessments {
		a := &res.PointAssessments[i]
		if a.NotEvaluated {
			res.NotEvaluatedCount++
		}
		if a.Error != "" {
			res.Errors++
		}
	}
	res.Breakdown = scoring.Coverage(cps)
	if res.Breakdown.OK {
		score := res.Breakdown.Score
		rounded := scoring.Round(score, 2)
		res.Score, res.AvgCoverageExtent = &score, &rounded
	}
	return res
}

func rubricCriteria(points []scoredPoint) []string {
	out := make([]string, len(points))
	for i, sp := range points {
		tag := "[should]"
		if sp.block == scoring.CoverageShouldNot {
			tag = "[should not]"
		}
		out[i] = tag + " " + sp.pt.KeyPointText()
	}
	return out
}

func scoreFunction(in *evalInput, sp scoredPoint, a *PointAssessment, cp *scoring.CoveragePoint) {
	cp.Evaluated = true
	fail := func(err error) {
		zero := 0.0
		a.CoverageExtent = &zero
		a.Error = err.Error()
		a.Reflection = "Error: " + err.Error()
		cp.Score = 0
	}
	if err := sp.pt.Err(); err != nil {
		fail(err)
		return
	}
	ev, ok := sp.pt.Compiled.(evaluator)
	if !ok {
		// A point that was not prepared (a rubric built by hand, a rule loaded without the
		// linter's project) is compiled for this scoring only.
		var err error
		if ev, err = compile(sp.pt); err != nil {
			fail(err)
			return
		}
	}
	r := safeEval(in, sp.pt.Fn, ev)
	if r.err != nil {
		fail(r.err)
		return
	}
	if math.IsNaN(r.score) {
		fail(fmt.Errorf("$%s produced NaN", sp.pt.Fn))
		return
	}
	score := clamp01(r.score)
	if sp.block == scoring.CoverageShouldNot {
		score = 1 - score
	}
	a.CoverageExtent = &score
	cp.Score = score
	a.Reflection = functionReflection(sp.pt.Fn, r)
}

// safeEval runs a point function, turning a panic (a bug) into an error for that point only.
func safeEval(in *evalInput, fn string, ev evaluator) (r fnResult) {
	defer func() {
		if p := recover(); p != nil {
			r = fnResult{err: fmt.Errorf("$%s failed unexpectedly: %v", fn, p)}
		}
	}()
	return ev(in)
}

func functionReflection(fn string, r fnResult) string {
	var verdict string
	switch {
	case r.boolean && r.score == 1:
		verdict = fmt.Sprintf("Function '%s' evaluated to true.", fn)
	case r.boolean:
		verdict = fmt.Sprintf("Function '%s' evaluated to false.", fn)
	default:
		verdict = fmt.Sprintf("Function '%s' scored %s.", fn, jsjson.FormatNumber(scoring.Round(r.score, 4)))
	}
	if r.explain != "" {
		if strings.HasPrefix(fn, "tool_") || strings.HasPrefix(fn, "not_tool_") || fn == "word_count_between" {
			return verdict + " " + r.explain
		}
		return r.explain
	}
	return verdict
}

// applyJudgement records a judge's verdict (or failure) on a text point.
func applyJudgement(jr JudgeResult, err error, sp scoredPoint, a *PointAssessment, cp *scoring.CoveragePoint) {
	inverted := sp.block == scoring.CoverageShouldNot
	if err == nil && (math.IsNaN(jr.Score) || jr.Score < 0 || jr.Score > 1) {
		err = fmt.Errorf("the judge returned the score %s, outside [0, 1]", jsjson.FormatNumber(jr.Score))
	}
	if err != nil {
		a.NotEvaluated = true
		a.Error = "judging failed: " + err.Error()
		a.Reflection = "Not evaluated: " + a.Error
		a.stop = RunWideFailures(err)
		return
	}
	score := jr.Score
	if inverted {
		// Rounded to 12 decimals so that a consensus of 0.96 inverts to 0.04, not
		// 0.040000000000000036.
		score = scoring.Round(1-score, 12)
	}
	a.CoverageExtent = &score
	a.Reflection = jr.Reflection
	if jr.Warning != "" {
		a.Warning = jr.Warning
		a.Reflection += "\n\nWARNING: " + jr.Warning
		a.stopNote = jr.Stopped
	}
	a.JudgeModelID = jr.JudgeModelID
	a.IndividualJudgements = jr.Individual
	cp.Score, cp.Evaluated = score, true
}
