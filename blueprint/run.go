package blueprint

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
	"github.com/vectorlint/vectorlint/scoring"
)

// Result is the result document of a run, in Weval's comparison shape so existing tooling can
// read it (spec §7). Maps serialise with sorted keys, so the document is deterministic.
type Result struct {
	ConfigID        string     `json:"configId"`
	ConfigTitle     string     `json:"configTitle"`
	RunLabel        string     `json:"runLabel"`
	Timestamp       string     `json:"timestamp"`
	Description     string     `json:"description,omitempty"`
	Config          *Blueprint `json:"config"`
	EvalMethodsUsed []string   `json:"evalMethodsUsed"`
	EffectiveModels []string   `json:"effectiveModels"`
	PromptIDs       []string   `json:"promptIds"`
	// PromptContexts holds the prompt text of a single-turn prompt, or its messages.
	PromptContexts map[string]any `json:"promptContexts"`
	// ExtractedKeyPoints holds, for each prompt that had an ideal response and no points, the
	// key points a model extracted from the ideal and the prompt was scored against (Weval's
	// extractedKeyPoints); absent when there are none.
	ExtractedKeyPoints         map[string][]string                    `json:"extractedKeyPoints,omitempty"`
	AllFinalAssistantResponses map[string]map[string]string           `json:"allFinalAssistantResponses"`
	FullConversationHistories  map[string]map[string][]points.Message `json:"fullConversationHistories"`
	Errors                     map[string]map[string]string           `json:"errors,omitempty"`
	EvaluationResults          EvaluationResults                      `json:"evaluationResults"`
	// Reproducibility records the blueprint's hash, the models' and judges' settings and the
	// vectorlint version (vectorlint's addition to Weval's format).
	Reproducibility *Reproducibility `json:"reproducibility,omitempty"`
	// Warnings are problems with the input that did not stop the run (not serialised).
	Warnings []string `json:"-"`

	// Set by Run (not serialised). Path is where the document was written (Options.OutDir
	// joined with Folder and FileName, "" when it was not); WriteErr and HTMLErr say why the
	// document or the report could not be written. Stopped are the failures of the whole run,
	// each once: the endpoints the client stopped (*llm.StopError), then the models the circuit
	// breaker skipped (*BreakerError); the table counts what each kept from being done. Usage is the
	// client's usage (all of its calls, so a client shared between runs counts the earlier ones
	// too).
	Path              string    `json:"-"`
	WriteErr, HTMLErr error     `json:"-"`
	Stopped           []error   `json:"-"`
	Usage             llm.Usage `json:"-"`
	// evalErrors are evaluations that could not be done outside llm-coverage (similarity).
	evalErrors []string
	// stopped holds the pairs whose generation failed for a reason of the whole run
	// (runWide): the table reports those once per cause (Stops), not once per pair.
	stopped map[string]map[string]error
}

// EvaluationResults holds the scores of a run.
type EvaluationResults struct {
	LLMCoverageScores map[string]map[string]*points.CoverageResult `json:"llmCoverageScores"`
	PerModelScores    map[string]ModelScore                        `json:"perModelScores"`
	// JudgeAgreement is the judges' agreement over every point of the run that two judges or
	// more scored (Krippendorff's alpha, interval metric); each prompt × model's is in its
	// llmCoverageScores entry. Absent with fewer than two judges.
	JudgeAgreement *points.JudgeAgreement `json:"judgeAgreement,omitempty"`
	// Similarity holds, for prompts with an ideal response, each model's final response
	// compared with the ideal: metric name → score in [0, 1], rounded to 3 decimals.
	Similarity map[string]map[string]map[string]float64 `json:"similarity,omitempty"`
}

// ModelScore is a model's score over the blueprint: the mean of its prompt scores weighted by
// prompt weight, over the prompts that have a score.
type ModelScore struct {
	// Average is the exact mean, unrounded (spec §7: round only for display, see Rounded);
	// null when no prompt has a score.
	Average     *float64 `json:"average"`
	PromptCount int      `json:"promptCount"`
}

// Rounded returns the average as tables and reports show it: rounded to 2 decimals as
// JavaScript's toFixed rounds (scoring.Round); nil when there is none.
func (s ModelScore) Rounded() *float64 {
	if s.Average == nil {
		return nil
	}
	r := scoring.Round(*s.Average, 2)
	return &r
}

// ScoreOptions control Score.
type ScoreOptions struct {
	// RunLabel names the run; empty means a content hash of the blueprint (as Weval does).
	RunLabel string
	// Now is the clock (time.Now when nil), injected so tests are exact.
	Now func() time.Time
	// Env is given to every point (judge, network permission, environment variables).
	Env points.Env
	// Models restricts the run to these model ids (all the responses' models when empty).
	Models []string
	// DefaultModels are the models a fixtures "default" response applies to when no model
	// has a response of its own: usually the blueprint's models, resolved.
	DefaultModels []string
	// NoCoverage skips the llm-coverage method (no rubric is scored, no judge is called).
	NoCoverage bool
	// Progress, when set, is told of the scoring: Phase("scoring", n) once the n prompt ×
	// model pairs to score are known, then Advance(1) as each is scored. Score never calls
	// Stop (Run does, once the whole run is done).
	Progress Progress
	// Similarity compares responses with the prompts' ideal responses; nil skips it.
	Similarity *Similarity
	// KeyPoints extracts key points from the ideal response of a prompt that has one and no
	// points (Weval's behaviour); the prompt is scored against them as LLM-judged points and
	// the result lists them in ExtractedKeyPoints. Nil leaves such a prompt without points (no
	// score).
	KeyPoints KeyPointExtractor
	// Tool is the vectorlint version and commit the result records (BuildVersion when empty).
	Tool ToolVersion
}

// SimilarityMetric compares a response with an ideal response.
type SimilarityMetric struct {
	// Name is the metric's key in the result ("exact_match", "f1", "bleu", "rouge_l").
	Name string
	// Score returns a score in [0, 1].
	Score func(response, ideal string) float64
}

// semanticName is the key of the embedding similarity in the result's similarity scores.
const semanticName = "semantic_similarity"

// Similarity configures the comparison of each model's final response with the prompt's
// ideal response. The command uses the offline metrics of package evaluate (the "similarity"
// method) and, with --eval-method embedding, an embeddings model (the "embedding" method).
type Similarity struct {
	// Metrics are computed for every prompt with an ideal response.
	Metrics []SimilarityMetric
	// Semantic, when set, is called once per prompt with an ideal response: it returns the
	// similarity in [0, 1] (cosine of embeddings) of each response to the ideal, in order.
	Semantic func(ctx context.Context, ideal string, responses []string) ([]float64, error)
}

// Complete reports whether every prompt × model was scored and every point evaluated without
// error. A run that is not complete exits with status 2.
func (r *Result) Complete() bool {
	if len(r.Errors) > 0 || len(r.evalErrors) > 0 {
		return false
	}
	for _, byModel := range r.EvaluationResults.LLMCoverageScores {
		for _, c := range byModel {
			if !c.Complete() {
				return false
			}
		}
	}
	return true
}

// Score scores given responses against a blueprint, the last step of Run: no generation, no
// judging beyond opts.Env.Judge, no file written. Every prompt × model without a usable response
// gets an entry in Errors.
func Score(ctx context.Context, bp *Blueprint, resp *Responses, opts ScoreOptions) (*Result, error) {
	models, err := scoredModels(resp, opts)
	if err != nil {
		return nil, err
	}
	res := newResult(bp, models, opts)
	res.Warnings = append(res.Warnings, resp.unknownPrompts(bp)...)
	tool := opts.Tool
	if tool.Version == "" {
		tool = BuildVersion()
	}
	var judge points.Judge
	if !opts.NoCoverage {
		judge = opts.Env.Judge
	}
	res.Reproducibility = reproducibility(bp, models, resp.generated, judge, tool)
	env := scoreEnv(bp, opts.Env)
	if !opts.NoCoverage {
		res.EvalMethodsUsed = append(res.EvalMethodsUsed, "llm-coverage")
	}
	jobs := res.scoreJobs(bp, resp, models)
	if !opts.NoCoverage {
		if err := res.scoreCoverage(ctx, jobs, env, opts); err != nil {
			return nil, err
		}
	}
	if opts.Similarity != nil {
		if err := res.similarity(ctx, bp, models, opts.Similarity); err != nil {
			return nil, err
		}
	}
	res.perModelScores(bp, models)
	return res, nil
}

// scoredModels returns the models Score scores: opts.Models, else the responses' models,
// else (for fixtures with only "default" responses) opts.DefaultModels.
func scoredModels(resp *Responses, opts ScoreOptions) ([]string, error) {
	models := opts.Models
	if len(models) == 0 {
		models = resp.Models()
	}
	if len(models) == 0 && resp.hasDefaults() {
		models = opts.DefaultModels
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("%s: no model to score: the responses name no model (give byModel responses, --models, or concrete models in the blueprint)", resp.File)
	}
	return models, nil
}

// newResult starts the result of scoring models against bp: its header and empty tables.
func newResult(bp *Blueprint, models []string, opts ScoreOptions) *Result {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	label := opts.RunLabel
	if label == "" {
		label = contentHash(bp)
	}
	res := &Result{
		ConfigID:                   bp.ID,
		ConfigTitle:                bp.Title,
		RunLabel:                   label,
		Timestamp:                  formatTimestamp(now()),
		Description:                bp.Description,
		Config:                     bp,
		EvalMethodsUsed:            []string{},
		EffectiveModels:            models,
		PromptIDs:                  make([]string, 0, len(bp.Prompts)),
		PromptContexts:             map[string]any{},
		AllFinalAssistantResponses: map[string]map[string]string{},
		FullConversationHistories:  map[string]map[string][]points.Message{},
		EvaluationResults: EvaluationResults{
			LLMCoverageScores: map[string]map[string]*points.CoverageResult{},
			PerModelScores:    map[string]ModelScore{},
		},
	}
	if res.ConfigTitle == "" {
		res.ConfigTitle = bp.ID
	}
	return res
}

// scoreEnv completes the points' environment with what the blueprint gives: its services and
// description, and one JavaScript pool for the run.
func scoreEnv(bp *Blueprint, env points.Env) points.Env {
	if env.JSPool == nil {
		env.JSPool = points.NewJSPool() // one for the run: its watchdog sees every point scored at once
	}
	if env.Services == nil {
		env.Services = bp.Services
	}
	if env.Description == "" {
		env.Description = bp.Description
	}
	return env
}

// scoreJob is one prompt × model response to score.
type scoreJob struct {
	p       *Prompt
	model   string
	subject points.Subject
}

// scoreJobs lists the prompt × model responses to score, in the blueprint's order, and
// records each response and conversation in res; a pair without a usable response gets its
// error (and its run-wide stop) instead.
func (res *Result) scoreJobs(bp *Blueprint, resp *Responses, models []string) []scoreJob {
	var jobs []scoreJob
	for _, p := range bp.Prompts {
		res.PromptIDs = append(res.PromptIDs, p.ID)
		res.PromptContexts[p.ID] = promptContext(p)
		for _, m := range models {
			if msg, failed := resp.failureOf(p.ID, m); failed {
				res.addError(p.ID, m, msg)
				if se := resp.stopOf(p.ID, m); se != nil {
					if res.stopped == nil {
						res.stopped = map[string]map[string]error{}
					}
					setCell(res.stopped, p.ID, m, se)
				}
				continue
			}
			turns, ok := resp.Turns(p.ID, m)
			if !ok {
				res.addError(p.ID, m, fmt.Sprintf("no response for this prompt and model in %s", resp.File))
				continue
			}
			history, generated := resp.histories[p.ID][m], resp.generatedFlags[p.ID][m]
			if history == nil {
				var err error
				if history, generated, err = conversation(bp, p, m, turns); err != nil {
					res.addError(p.ID, m, err.Error())
					continue
				}
			}
			setCell(res.AllFinalAssistantResponses, p.ID, m, turns[len(turns)-1])
			setCell(res.FullConversationHistories, p.ID, m, history)
			jobs = append(jobs, scoreJob{p: p, model: m, subject: points.Subject{Text: strings.Join(turns, "\n\n"), PromptID: p.ID, ModelID: m,
				Messages: history, Generated: generated}})
		}
	}
	return jobs
}

// scoreCoverage scores every job with the llm-coverage method and records the judges'
// agreement.
func (res *Result) scoreCoverage(ctx context.Context, jobs []scoreJob, env points.Env, opts ScoreOptions) error {
	// A prompt with an ideal response and no points is scored against key points
	// extracted from the ideal, once per prompt (Weval's LLMCoverageEvaluator).
	rubrics := map[string]rubric.Rubric{}
	if opts.KeyPoints != nil {
		var err error
		if jobs, err = res.keyPointRubrics(ctx, opts.KeyPoints, jobs, rubrics); err != nil {
			return err
		}
	}
	// Every prompt × model is scored at once: judge calls are bounded by the client's
	// limits, not by the order of the pairs. A pair's failures are recorded in its result,
	// so no goroutine returns an error.
	covs := make([]points.CoverageResult, len(jobs))
	if opts.Progress != nil {
		opts.Progress.Phase(PhaseScoring, len(jobs))
	}
	var g errgroup.Group
	g.SetLimit(maxPairsInFlight)
	for i, j := range jobs {
		g.Go(func() error {
			r, extracted := rubrics[j.p.ID]
			if !extracted {
				r = j.p.Rubric()
			}
			covs[i] = points.ScoreRubric(ctx, r, j.subject, env)
			if opts.Progress != nil {
				opts.Progress.Advance(1)
			}
			return nil
		})
	}
	_ = g.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	// How far the judges agreed: on each response's points, and over the whole run.
	judges := judgeSpecs(env.Judge)
	all := make([][]points.PointAssessment, len(jobs))
	for i, j := range jobs {
		covs[i].JudgeAgreement = judgeAgreement([][]points.PointAssessment{covs[i].PointAssessments}, judges)
		all[i] = covs[i].PointAssessments
		setCell(res.EvaluationResults.LLMCoverageScores, j.p.ID, j.model, &covs[i])
	}
	res.EvaluationResults.JudgeAgreement = judgeAgreement(all, judges)
	return nil
}

// keyPointRubrics extracts the key points of each job's prompt that needs them into rubrics
// (by prompt id) and res.ExtractedKeyPoints, and returns the jobs left to score: those of a
// prompt whose extraction failed are dropped, the failure listed once for the prompt.
func (res *Result) keyPointRubrics(ctx context.Context, extractor KeyPointExtractor, jobs []scoreJob, rubrics map[string]rubric.Rubric) ([]scoreJob, error) {
	var need []*Prompt
	seen := map[string]bool{}
	for _, j := range jobs {
		if !seen[j.p.ID] && needsKeyPoints(j.p) {
			seen[j.p.ID] = true
			need = append(need, j.p)
		}
	}
	got, failed := extractKeyPoints(ctx, extractor, need)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, p := range need {
		if err := failed[p.ID]; err != nil {
			res.evalErrors = append(res.evalErrors, fmt.Sprintf("%s: key points could not be extracted from the ideal response: %v", p.ID, err))
			continue
		}
		if res.ExtractedKeyPoints == nil {
			res.ExtractedKeyPoints = map[string][]string{}
		}
		res.ExtractedKeyPoints[p.ID] = got[p.ID]
		rubrics[p.ID] = keyPointRubric(got[p.ID])
	}
	// The pairs of a prompt whose key points could not be extracted have nothing to
	// be scored against: no score (the failure is listed once, for the prompt).
	kept := jobs[:0]
	for _, j := range jobs {
		if failed[j.p.ID] == nil {
			kept = append(kept, j)
		}
	}
	return kept, nil
}

// perModelScores records each model's weighted average over the prompts it was scored on.
func (res *Result) perModelScores(bp *Blueprint, models []string) {
	for _, m := range models {
		var scores, weights []float64
		for _, p := range bp.Prompts {
			c := res.EvaluationResults.LLMCoverageScores[p.ID][m]
			if c == nil || c.Score == nil {
				continue
			}
			w := 1.0
			if p.Weight != nil {
				w = *p.Weight
			}
			scores = append(scores, *c.Score)
			weights = append(weights, w)
		}
		ms := ModelScore{PromptCount: len(scores)}
		if avg, ok := scoring.CoverageAverage(scores, weights); ok {
			ms.Average = &avg
		}
		res.EvaluationResults.PerModelScores[m] = ms
	}
}

func setCell[T any](m map[string]map[string]T, p, model string, v T) {
	if m[p] == nil {
		m[p] = map[string]T{}
	}
	m[p][model] = v
}

func (r *Result) addError(p, model, msg string) {
	if r.Errors == nil {
		r.Errors = map[string]map[string]string{}
	}
	setCell(r.Errors, p, model, msg)
}

// promptContext is the prompt text of a single user message, else the messages.
func promptContext(p *Prompt) any {
	if len(p.Messages) == 1 && p.Messages[0].Role == "user" && p.Messages[0].Content != nil {
		return *p.Messages[0].Content
	}
	return p.Messages
}

// generatedTurnCount returns how many assistant turns a prompt asks the model for: one per
// `assistant: null`, plus a final one when the conversation ends with the user.
func (p *Prompt) generatedTurnCount() int {
	n := 0
	for _, m := range p.Messages {
		if m.Role == "assistant" && m.Content == nil {
			n++
		}
	}
	if len(p.Messages) > 0 && p.Messages[len(p.Messages)-1].Role == "user" {
		n++
	}
	return n
}

// conversation builds the full history of a prompt × model from given turns (see
// buildHistory), checking that there are as many turns as the prompt asks for. The system
// prompt is the one the model's [sp_idx:i] suffix selects, if any.
func conversation(bp *Blueprint, p *Prompt, model string, turns []string) ([]points.Message, []bool, error) {
	want := p.generatedTurnCount()
	if len(turns) != want {
		if want == 1 {
			return nil, nil, fmt.Errorf("the prompt asks for 1 generated turn, found %d turns in the responses", len(turns))
		}
		return nil, nil, fmt.Errorf("the prompt asks for %d generated turns (one per assistant: null, plus a final one after a user message), found %d; give \"turns\" with %d strings", want, len(turns), want)
	}
	history, generated := buildHistory(systemPrompt(bp, p, systemIndexOf(model)), p, turns)
	return history, generated, nil
}

// buildHistory returns the full conversation of a prompt: the system prompt (unless the
// messages hold one), the authored messages with each `assistant: null` filled by the next
// generated turn, and a final generated turn; and which of its messages were generated.
func buildHistory(system *string, p *Prompt, turns []string) ([]points.Message, []bool) {
	var out []points.Message
	var generated []bool
	add := func(m points.Message, gen bool) {
		out = append(out, m)
		generated = append(generated, gen)
	}
	hasSystemMessage := false
	for _, m := range p.Messages {
		if m.Role == "system" {
			hasSystemMessage = true
		}
	}
	if system != nil && !hasSystemMessage {
		s := *system
		add(points.Message{Role: "system", Content: &s}, false)
	}
	next := 0
	for _, m := range p.Messages {
		if m.Role == "assistant" && m.Content == nil {
			if next < len(turns) {
				t := turns[next]
				add(points.Message{Role: "assistant", Content: &t}, true)
			}
			next++
			continue
		}
		add(m, false)
	}
	for ; next < len(turns); next++ {
		t := turns[next]
		add(points.Message{Role: "assistant", Content: &t}, true)
	}
	return out, generated
}

// similarity compares every model's final response with the prompt's ideal response.
func (r *Result) similarity(ctx context.Context, bp *Blueprint, models []string, sim *Similarity) error {
	usedMetrics, usedSemantic := false, false
	for _, p := range bp.Prompts {
		if p.Ideal == nil {
			continue
		}
		ideal := *p.Ideal
		var withResponse []string
		var responses []string
		for _, m := range models {
			text, ok := r.AllFinalAssistantResponses[p.ID][m]
			if !ok {
				continue
			}
			withResponse = append(withResponse, m)
			responses = append(responses, text)
			for _, metric := range sim.Metrics {
				usedMetrics = true
				r.setSimilarity(p.ID, m, metric.Name, metric.Score(text, ideal))
			}
		}
		if sim.Semantic == nil || len(responses) == 0 {
			continue
		}
		usedSemantic = true
		scores, err := sim.Semantic(ctx, ideal, responses)
		if err == nil && len(scores) != len(responses) {
			err = fmt.Errorf("expected %d similarity scores, found %d", len(responses), len(scores))
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			r.evalErrors = append(r.evalErrors, fmt.Sprintf("%s: embedding similarity to the ideal response failed: %v", p.ID, err))
			continue
		}
		for i, m := range withResponse {
			r.setSimilarity(p.ID, m, semanticName, scores[i])
		}
	}
	if usedMetrics {
		r.EvalMethodsUsed = append(r.EvalMethodsUsed, "similarity")
	}
	if usedSemantic {
		r.EvalMethodsUsed = append(r.EvalMethodsUsed, "embedding")
	}
	return nil
}

func (r *Result) setSimilarity(p, m, name string, score float64) {
	if math.IsNaN(score) {
		score = 0
	}
	score = scoring.Round(min(max(score, 0), 1), 3)
	if r.EvaluationResults.Similarity == nil {
		r.EvaluationResults.Similarity = map[string]map[string]map[string]float64{}
	}
	if r.EvaluationResults.Similarity[p] == nil {
		r.EvaluationResults.Similarity[p] = map[string]map[string]float64{}
	}
	if r.EvaluationResults.Similarity[p][m] == nil {
		r.EvaluationResults.Similarity[p][m] = map[string]float64{}
	}
	r.EvaluationResults.Similarity[p][m][name] = score
}

// contentHash returns a short hash of the blueprint's normalised content, the default run
// label.
func contentHash(bp *Blueprint) string { return BlueprintSHA256(bp)[:12] }

// formatTimestamp writes t in UTC as Weval's file-safe ISO form, 2006-01-02T15-04-05-000Z.
func formatTimestamp(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%s-%03dZ", t.Format("2006-01-02T15-04-05"), t.Nanosecond()/int(time.Millisecond))
}
