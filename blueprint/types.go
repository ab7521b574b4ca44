package blueprint

import (
	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// Blueprint is a parsed and normalised Weval blueprint: every alias resolved, every point in
// its full form, every prompt with an id. Its JSON form (`blueprint check --print`, the
// `config` of a result document) uses Weval's canonical field names.
type Blueprint struct {
	// ID is derived from the file path (an id written in the file is ignored).
	ID          string `json:"id"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description,omitempty"`
	// Author is a name, or an object with name, url and image_url.
	Author     any         `json:"author,omitempty"`
	References []Reference `json:"references,omitempty"`
	Tags       []string    `json:"tags,omitempty"`
	// Models as written; collection placeholders such as "CORE" are kept (see ResolveModels).
	Models []Model `json:"models"`
	// System is the global system prompt; Systems holds a list of system prompts (one run
	// variant each) when the header gives a list.
	System       *string           `json:"system,omitempty"`
	Systems      []*string         `json:"systems,omitempty"`
	Temperature  *float64          `json:"temperature,omitempty"`
	Temperatures []float64         `json:"temperatures,omitempty"`
	Concurrency  *int              `json:"concurrency,omitempty"`
	Evaluation   *EvalCfg          `json:"evaluationConfig,omitempty"`
	PointDefs    any               `json:"point_defs,omitempty"`
	Tools        []Tool            `json:"tools,omitempty"`
	ToolUse      *ToolUse          `json:"toolUse,omitempty"`
	Context      any               `json:"context,omitempty"`
	RenderAs     string            `json:"render_as,omitempty"`
	NoCache      *bool             `json:"noCache,omitempty"`
	Services     points.ServiceMap `json:"externalServices,omitempty"`
	Prompts      []*Prompt         `json:"prompts"`

	// File is the path the blueprint was read from (as given).
	File string `json:"-"`
	// Warnings are the authoring mistakes found while parsing (see Check).
	Warnings finding.Problems `json:"-"`
}

// Reference is a citation for the whole blueprint.
type Reference struct {
	Title string `json:"title"`
	URL   string `json:"url,omitempty"`
}

// EvalCfg is the blueprint's evaluationConfig.
type EvalCfg struct {
	LLMCoverage *LLMCoverageCfg `json:"llm-coverage,omitempty"`
}

// LLMCoverageCfg configures the llm-coverage judges.
type LLMCoverageCfg struct {
	Judges               []JudgeSpec `json:"judges,omitempty"`
	UseExperimentalScale bool        `json:"useExperimentalScale,omitempty"`
	// JudgeBatch sends each judge every text point of a response in one call (vectorlint's
	// addition, the blueprint's own --judge-batch).
	JudgeBatch bool `json:"judgeBatch,omitempty"`
	// JudgeModels and JudgeMode are deprecated fields kept for old blueprints.
	JudgeModels []string `json:"judgeModels,omitempty"`
	JudgeMode   string   `json:"judgeMode,omitempty"`
}

// JudgeSpec is one configured judge.
type JudgeSpec struct {
	ID       string `json:"id,omitempty"`
	Model    string `json:"model"`
	Approach string `json:"approach"`
}

// Tool is a trace-only tool declaration.
type Tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Schema      any    `json:"schema,omitempty"`
}

// ToolUse is the blueprint's tool-use policy (trace-only).
type ToolUse struct {
	Enabled      *bool  `json:"enabled,omitempty"`
	Mode         string `json:"mode,omitempty"`
	MaxSteps     *int   `json:"maxSteps,omitempty"`
	OutputFormat string `json:"outputFormat,omitempty"`
}

// Model is one entry of the models list: a model id such as "openai:gpt-4o-mini", a collection
// placeholder such as "CORE", or a custom model definition.
type Model struct {
	ID     string
	Custom *CustomModel
}

// MarshalJSON writes the id as a string, or the custom definition as an object (with its
// credentials redacted, see CustomModel.SafeHeaders).
func (m Model) MarshalJSON() ([]byte, error) {
	if m.Custom != nil {
		return jsjson.Marshal(m.Custom)
	}
	return jsjson.Marshal(m.ID)
}

// MarshalJSON writes the definition with SafeHeaders instead of its headers, so a result
// document or --print never holds a literal credential.
func (c CustomModel) MarshalJSON() ([]byte, error) {
	type plain CustomModel // no methods: avoids recursion
	p := plain(c)
	p.Headers = c.safeHeaders()
	return jsjson.Marshal(p)
}

// safeHeaders returns the headers as they may be written to a result or printed: a value that
// refers to the environment (${VAR}) is kept as written, since it holds no secret; a literal
// value of a credential header (Authorization, Cookie, or a name with key, token, secret or
// auth) is "[redacted]", and anything looking like an API key in another value too.
func (c *CustomModel) safeHeaders() map[string]string { return redact.Headers(c.Headers) }

// CustomModel is a model reached at an arbitrary HTTP endpoint.
type CustomModel struct {
	ID               string            `json:"id"`
	URL              string            `json:"url"`
	ModelName        string            `json:"modelName"`
	Inherit          string            `json:"inherit"`
	Format           string            `json:"format,omitempty"`
	PromptFormat     string            `json:"promptFormat,omitempty"`
	Headers          map[string]string `json:"headers,omitempty"`
	Parameters       map[string]any    `json:"parameters,omitempty"`
	ParameterMapping map[string]string `json:"parameterMapping,omitempty"`
	ReasoningEffort  string            `json:"reasoningEffort,omitempty"`
	ThinkingBudget   *float64          `json:"thinkingBudget,omitempty"`
	// Lines locate the definition, its url and its headers in the blueprint.
	Lines points.FieldLines `json:"-"`
}

// Prompt is one normalised prompt.
type Prompt struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	// Messages is the conversation as authored; a nil Content is an assistant turn to generate.
	Messages []points.Message `json:"messages"`
	Ideal    *string          `json:"idealResponse,omitempty"`
	System   *string          `json:"system,omitempty"`
	// Citation is a string or an object with title and url.
	Citation any `json:"citation,omitempty"`
	// Weight is the prompt's importance in the per-model average (nil: 1).
	Weight *float64 `json:"weight,omitempty"`
	// Temperature is the prompt's own sampling temperature, used when the header sets none
	// (see modelVariants); part of the hashed id, as in Weval.
	Temperature     *float64       `json:"temperature,omitempty"`
	Should          []rubric.Entry `json:"points,omitempty"`
	ShouldNot       []rubric.Entry `json:"should_not,omitempty"`
	RequiredTools   []string       `json:"requiredTools,omitempty"`
	ProhibitedTools []string       `json:"prohibitedTools,omitempty"`
	MaxCalls        *int           `json:"maxCalls,omitempty"`
	RenderAs        string         `json:"render_as"`
	// NoCache is the prompt's noCache, else the header's (copied in before the id is hashed, as
	// Weval does); nil when neither sets it.
	NoCache *bool    `json:"noCache,omitempty"`
	Tags    []string `json:"tags,omitempty"`

	// Line is where the prompt starts in its file (0 when unknown).
	Line int `json:"-"`
	// HashedID reports that ID was computed from the prompt's content.
	HashedID bool `json:"-"`
}

// Rubric returns the prompt's points as a Rubric, with the implicit tool points of
// requiredTools, prohibitedTools and maxCalls added as required `should` points.
func (p *Prompt) Rubric() rubric.Rubric {
	r := rubric.Rubric{Should: p.Should, ShouldNot: p.ShouldNot}
	implicit := p.implicitToolPoints()
	if len(implicit) > 0 {
		r.Should = append(append([]rubric.Entry(nil), p.Should...), implicit...)
	}
	return r
}

func (p *Prompt) implicitToolPoints() []rubric.Entry {
	var out []rubric.Entry
	add := func(source, fn string, args any) {
		pt := &rubric.Point{Fn: fn, Args: args, HasArgs: true, Multiplier: 1, Source: source, Line: p.Line}
		// One that does not prepare (an empty tool name) fails with the same error when scored.
		_ = points.Prepare(pt)
		out = append(out, rubric.Entry{Point: pt})
	}
	for _, t := range p.RequiredTools {
		add("requiredTools", "tool_called", t)
	}
	for _, t := range p.ProhibitedTools {
		add("prohibitedTools", "not_tool_called", t)
	}
	if p.MaxCalls != nil {
		add("maxCalls", "tool_call_count_between", []any{0.0, float64(*p.MaxCalls)})
	}
	return out
}
