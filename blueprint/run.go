package blueprint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	PromptContexts             map[string]any                  `json:"promptContexts"`
	AllFinalAssistantResponses map[string]map[string]string    `json:"allFinalAssistantResponses"`
	FullConversationHistories  map[string]map[string][]Message `json:"fullConversationHistories"`
	Errors                     map[string]map[string]string    `json:"errors,omitempty"`
	EvaluationResults          EvaluationResults               `json:"evaluationResults"`
	// Warnings are problems with the input that did not stop the run (not serialised).
	Warnings []string `json:"-"`
}

// EvaluationResults holds the scores of a run.
type EvaluationResults struct {
	LLMCoverageScores map[string]map[string]*CoverageResult `json:"llmCoverageScores"`
	PerModelScores    map[string]ModelScore                 `json:"perModelScores"`
}

// ModelScore is a model's score over the blueprint: the mean of its prompt scores weighted by
// prompt weight, over the prompts that have a score.
type ModelScore struct {
	// Average is rounded to 2 decimals; null when no prompt has a score.
	Average     *float64 `json:"average"`
	PromptCount int      `json:"promptCount"`
	// Exact is the unrounded average.
	Exact *float64 `json:"-"`
}

// RunOptions control Run.
type RunOptions struct {
	// RunLabel names the run; empty means a content hash of the blueprint (as Weval does).
	RunLabel string
	// Now is the clock (time.Now when nil), injected so tests are exact.
	Now func() time.Time
	// Env is given to every point (judge, network permission, environment variables).
	Env Env
	// Models restricts the run to these model ids (all the responses' models when empty).
	Models []string
	// DefaultModels are the models a fixtures "default" response applies to when no model
	// has a response of its own: usually the blueprint's models, resolved.
	DefaultModels []string
}

// Complete reports whether every prompt × model was scored and every point evaluated without
// error. A run that is not complete exits with status 2.
func (r *Result) Complete() bool {
	if len(r.Errors) > 0 {
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

// Run scores given responses against a blueprint: no generation, no judging beyond
// opts.Env.Judge. Every prompt × model without a usable response gets an entry in Errors.
func Run(ctx context.Context, bp *Blueprint, resp *Responses, opts RunOptions) (*Result, error) {
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	models := opts.Models
	if len(models) == 0 {
		models = resp.Models()
	}
	if len(models) == 0 && resp.HasDefaults() {
		models = opts.DefaultModels
	}
	if len(models) == 0 {
		return nil, fmt.Errorf("%s: no model to score: the responses name no model (give byModel responses, --models, or concrete models in the blueprint)", resp.File)
	}
	label := opts.RunLabel
	if label == "" {
		label = ContentHash(bp)
	}
	res := &Result{
		ConfigID:                   bp.ID,
		ConfigTitle:                bp.Title,
		RunLabel:                   label,
		Timestamp:                  FormatTimestamp(now()),
		Description:                bp.Description,
		Config:                     bp,
		EvalMethodsUsed:            []string{"llm-coverage"},
		EffectiveModels:            models,
		PromptIDs:                  make([]string, 0, len(bp.Prompts)),
		PromptContexts:             map[string]any{},
		AllFinalAssistantResponses: map[string]map[string]string{},
		FullConversationHistories:  map[string]map[string][]Message{},
		EvaluationResults: EvaluationResults{
			LLMCoverageScores: map[string]map[string]*CoverageResult{},
			PerModelScores:    map[string]ModelScore{},
		},
	}
	if res.ConfigTitle == "" {
		res.ConfigTitle = bp.ID
	}
	known := map[string]bool{}
	for _, p := range bp.Prompts {
		known[p.ID] = true
	}
	for _, id := range resp.PromptIDs() {
		if !known[id] {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s:%d: responses for prompt %q, which the blueprint does not have (ignored)", resp.File, resp.Line(id), id))
		}
	}
	env := opts.Env
	if env.Services == nil {
		env.Services = bp.Services
	}
	if env.Description == "" {
		env.Description = bp.Description
	}
	for _, p := range bp.Prompts {
		res.PromptIDs = append(res.PromptIDs, p.ID)
		res.PromptContexts[p.ID] = promptContext(p)
		rubric := p.Rubric()
		for _, m := range models {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			turns, ok := resp.Turns(p.ID, m)
			if !ok {
				res.addError(p.ID, m, fmt.Sprintf("no response for this prompt and model in %s", resp.File))
				continue
			}
			history, err := conversation(bp, p, turns)
			if err != nil {
				res.addError(p.ID, m, err.Error())
				continue
			}
			setCell(res.AllFinalAssistantResponses, p.ID, m, turns[len(turns)-1])
			setCell(res.FullConversationHistories, p.ID, m, history)
			subject := Subject{Text: strings.Join(turns, "\n\n"), PromptID: p.ID, ModelID: m, Messages: history}
			cov := ScoreRubric(ctx, rubric, subject, env)
			setCell(res.EvaluationResults.LLMCoverageScores, p.ID, m, &cov)
		}
	}
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
			rounded := scoring.Round(avg, 2)
			ms.Average, ms.Exact = &rounded, &avg
		}
		res.EvaluationResults.PerModelScores[m] = ms
	}
	return res, nil
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

// GeneratedTurns returns how many assistant turns a prompt asks the model for: one per
// `assistant: null`, plus a final one when the conversation ends with the user.
func (p *Prompt) GeneratedTurns() int {
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

// conversation builds the full history of a prompt × model: the system prompt, the authored
// messages with each `assistant: null` filled by the next generated turn, and a final turn.
func conversation(bp *Blueprint, p *Prompt, turns []string) ([]Message, error) {
	want := p.GeneratedTurns()
	if len(turns) != want {
		if want == 1 {
			return nil, fmt.Errorf("the prompt asks for 1 generated turn, found %d turns in the responses", len(turns))
		}
		return nil, fmt.Errorf("the prompt asks for %d generated turns (one per assistant: null, plus a final one after a user message), found %d; give \"turns\" with %d strings", want, len(turns), want)
	}
	var out []Message
	system := p.System
	if system == nil {
		system = bp.System
	}
	hasSystemMessage := false
	for _, m := range p.Messages {
		if m.Role == "system" {
			hasSystemMessage = true
		}
	}
	if system != nil && !hasSystemMessage {
		s := *system
		out = append(out, Message{Role: "system", Content: &s})
	}
	next := 0
	for _, m := range p.Messages {
		if m.Role == "assistant" && m.Content == nil {
			t := turns[next]
			next++
			out = append(out, Message{Role: "assistant", Content: &t})
			continue
		}
		out = append(out, m)
	}
	if next < len(turns) {
		t := turns[next]
		out = append(out, Message{Role: "assistant", Content: &t})
	}
	return out, nil
}

// ContentHash returns a short hash of the blueprint's normalised content, the default run
// label.
func ContentHash(bp *Blueprint) string {
	b, err := json.Marshal(bp)
	if err != nil {
		b = []byte(bp.ID)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])[:12]
}

// FormatTimestamp writes t in UTC as Weval's file-safe ISO form, 2006-01-02T15-04-05-000Z.
func FormatTimestamp(t time.Time) string {
	t = t.UTC()
	return fmt.Sprintf("%s-%03dZ", t.Format("2006-01-02T15-04-05"), t.Nanosecond()/int(time.Millisecond))
}

// FileName returns the result file's name: <runLabel>_<timestamp>_comparison.json.
func (r *Result) FileName() string {
	return sanitizeFileName(r.RunLabel) + "_" + r.Timestamp + "_comparison.json"
}

func sanitizeFileName(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '/', '\\', ':', '*', '?', '"', '<', '>', '|', 0:
			return '_'
		}
		return r
	}, s)
}

// WriteFile writes the result as indented JSON to <outDir>/<configId>/<FileName()>, atomically
// (a temporary file renamed into place), and returns the path.
func (r *Result) WriteFile(outDir string) (string, error) {
	dir := filepath.Join(outDir, sanitizeFileName(r.ConfigID))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("cannot create the results folder: %w", err)
	}
	data, err := r.JSON()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, r.FileName())
	tmp, err := os.CreateTemp(dir, ".tmp-*.json")
	if err != nil {
		return "", fmt.Errorf("cannot write the result: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("cannot write the result %s: %v", path, firstErr(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("cannot write the result %s: %w", path, err)
	}
	return path, nil
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// JSON returns the result document, indented, with a final newline.
func (r *Result) JSON() ([]byte, error) {
	return marshalIndent(r)
}

// marshalIndent encodes v as indented JSON without HTML escaping (as JSON.stringify), with a
// final newline.
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("cannot encode JSON: %w", err)
	}
	return buf.Bytes(), nil
}
