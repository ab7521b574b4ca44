package blueprint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/llm"
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
	System       *string    `json:"system,omitempty"`
	Systems      []*string  `json:"systems,omitempty"`
	Temperature  *float64   `json:"temperature,omitempty"`
	Temperatures []float64  `json:"temperatures,omitempty"`
	Concurrency  *int       `json:"concurrency,omitempty"`
	Evaluation   *EvalCfg   `json:"evaluationConfig,omitempty"`
	PointDefs    any        `json:"point_defs,omitempty"`
	Tools        []Tool     `json:"tools,omitempty"`
	ToolUse      *ToolUse   `json:"toolUse,omitempty"`
	Context      any        `json:"context,omitempty"`
	RenderAs     string     `json:"render_as,omitempty"`
	NoCache      *bool      `json:"noCache,omitempty"`
	Services     ServiceMap `json:"externalServices,omitempty"`
	Prompts      []*Prompt  `json:"prompts"`

	// File is the path the blueprint was read from (as given).
	File string `json:"-"`
	// Warnings are the authoring mistakes found while parsing (see Check).
	Warnings []Diagnostic `json:"-"`
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

// Service is an external HTTP service named in externalServices and called by $call.
type Service struct {
	URL     string            `json:"url"`
	Method  string            `json:"method,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// TimeoutMS bounds one request (default 30 s).
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// MaxRetries is the number of retries after a network error or a 5xx (default 2).
	MaxRetries *int `json:"max_retries,omitempty"`
	// RetryBackoffMS is the first retry's delay; the n-th waits n times as long (default 1 s).
	RetryBackoffMS int   `json:"retry_backoff_ms,omitempty"`
	Cache          *bool `json:"cache,omitempty"`
	// Lines locate the url and headers in the blueprint (zero for an inline $call, whose
	// point's line is used instead).
	Lines FieldLines `json:"-"`
}

// FieldLines are the lines of a custom model's or a service's url and header values, for
// messages about their ${VAR} references (0 when unknown).
type FieldLines struct {
	// Object is the line the definition starts on.
	Object  int
	URL     int
	Headers map[string]int
}

// header returns the line of a header's value, else the object's.
func (l FieldLines) header(name string) int {
	if n := l.Headers[name]; n > 0 {
		return n
	}
	return l.Object
}

// url returns the line of the url, else the object's.
func (l FieldLines) url() int {
	if l.URL > 0 {
		return l.URL
	}
	return l.Object
}

// ServiceMap maps service names to services.
type ServiceMap map[string]Service

// Model is one entry of the models list: a model id such as "openai:gpt-4o-mini", a collection
// placeholder such as "CORE", or a custom model definition.
type Model struct {
	ID     string
	Custom *CustomModel
}

// marshalNoEscape is json.Marshal without HTML escaping (as JSON.stringify writes).
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MarshalJSON writes the id as a string, or the custom definition as an object (with its
// credentials redacted, see CustomModel.SafeHeaders).
func (m Model) MarshalJSON() ([]byte, error) {
	if m.Custom != nil {
		return marshalNoEscape(m.Custom)
	}
	return marshalNoEscape(m.ID)
}

// MarshalJSON writes the definition with SafeHeaders instead of its headers, so a result
// document or --print never holds a literal credential.
func (c CustomModel) MarshalJSON() ([]byte, error) {
	type plain CustomModel // no methods: avoids recursion
	p := plain(c)
	p.Headers = c.SafeHeaders()
	return marshalNoEscape(p)
}

// SafeHeaders returns the headers as they may be written to a result or printed: a value that
// refers to the environment (${VAR}) is kept as written, since it holds no secret; a literal
// value of a credential header (Authorization, Cookie, or a name with key, token, secret or
// auth) is "[redacted]", and anything looking like an API key in another value too.
func (c *CustomModel) SafeHeaders() map[string]string { return safeHeaders(c.Headers) }

// safeHeaders is CustomModel.SafeHeaders for any header map (a custom model's, a $call
// service's).
func safeHeaders(headers map[string]string) map[string]string {
	if len(headers) == 0 {
		return nil
	}
	out := make(map[string]string, len(headers))
	for k, v := range headers {
		literal := envRefRe().ReplaceAllString(v, "")
		name := strings.ToLower(k)
		credential := name == "cookie" || strings.Contains(name, "auth") || strings.Contains(name, "key") ||
			strings.Contains(name, "token") || strings.Contains(name, "secret")
		switch {
		case credential && strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(literal), "Bearer")) != "":
			out[k] = "[redacted]"
		default:
			out[k] = llm.Redact(v)
		}
	}
	return out
}

// safeURL returns a URL as it may be printed or written to a result (llm.RedactURL).
func safeURL(s string) string { return llm.RedactURL(s) }

// MarshalJSON writes the service with its credentials redacted (safeURL, safeHeaders), so a
// result document or --print never holds one; ${VAR} references are kept as written.
func (s Service) MarshalJSON() ([]byte, error) {
	type plain Service // no methods: avoids recursion
	p := plain(s)
	p.URL = safeURL(s.URL)
	p.Headers = safeHeaders(s.Headers)
	return marshalNoEscape(p)
}

// displayArgs returns the point's arguments as they may be shown: a $call's inline url and
// headers with their credentials redacted; other arguments as they are.
func (p *Point) displayArgs() any {
	spec, ok := p.Args.(map[string]any)
	if p.Fn != "call" || !ok {
		return p.Args
	}
	out := make(map[string]any, len(spec))
	for k, v := range spec {
		out[k] = v
	}
	if u, ok := spec["url"].(string); ok {
		out["url"] = safeURL(u)
	}
	if h, ok := spec["headers"].(map[string]any); ok {
		strs := map[string]string{}
		safe := make(map[string]any, len(h))
		for k, v := range h {
			if s, ok := v.(string); ok {
				strs[k] = s
			} else {
				safe[k] = v
			}
		}
		for k, v := range safeHeaders(strs) {
			safe[k] = v
		}
		out["headers"] = safe
	}
	return out
}

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
	Lines FieldLines `json:"-"`
}

// Prompt is one normalised prompt.
type Prompt struct {
	ID          string `json:"id"`
	Description string `json:"description,omitempty"`
	// Messages is the conversation as authored; a nil Content is an assistant turn to generate.
	Messages []Message `json:"messages"`
	Ideal    *string   `json:"idealResponse,omitempty"`
	System   *string   `json:"system,omitempty"`
	// Citation is a string or an object with title and url.
	Citation any `json:"citation,omitempty"`
	// Weight is the prompt's importance in the per-model average (nil: 1).
	Weight          *float64 `json:"weight,omitempty"`
	Should          []Entry  `json:"points,omitempty"`
	ShouldNot       []Entry  `json:"should_not,omitempty"`
	RequiredTools   []string `json:"requiredTools,omitempty"`
	ProhibitedTools []string `json:"prohibitedTools,omitempty"`
	MaxCalls        *int     `json:"maxCalls,omitempty"`
	RenderAs        string   `json:"render_as"`
	NoCache         *bool    `json:"noCache,omitempty"`
	Tags            []string `json:"tags,omitempty"`

	// Line is where the prompt starts in its file (0 when unknown).
	Line int `json:"-"`
	// HashedID reports that ID was computed from the prompt's content.
	HashedID bool `json:"-"`
}

// Message is one conversation turn.
type Message struct {
	Role    string  `json:"role"`
	Content *string `json:"content"`
}

// Text returns the content, or "" for a turn still to be generated.
func (m Message) Text() string {
	if m.Content == nil {
		return ""
	}
	return *m.Content
}

// Entry is one item of a rubric block: a single point, or an alternative path (a nested list
// in the blueprint) whose points are scored together against the block's other paths.
type Entry struct {
	Point *Point
	Path  []*Point
}

// IsPath reports whether the entry is an alternative path.
func (e Entry) IsPath() bool { return e.Point == nil }

// MarshalJSON writes a point as an object and a path as a list.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.Point != nil {
		return marshalNoEscape(e.Point)
	}
	if e.Path == nil {
		return []byte("[]"), nil
	}
	return marshalNoEscape(e.Path)
}

// Rubric is a list of points to score a text against: the `should` block and the `should_not`
// block, whose points are inverted. Points are prepared when parsed (regexes and scripts
// compiled once), so a Rubric is safe for concurrent scoring.
type Rubric struct {
	Should    []Entry
	ShouldNot []Entry
	// Warnings are the authoring mistakes found by ParsePoints.
	Warnings []Diagnostic
}

// Points returns every point of the rubric, paths flattened, in order.
func (r Rubric) Points() []*Point {
	var out []*Point
	for _, block := range [][]Entry{r.Should, r.ShouldNot} {
		for _, e := range block {
			if e.Point != nil {
				out = append(out, e.Point)
			} else {
				out = append(out, e.Path...)
			}
		}
	}
	return out
}

// Rubric returns the prompt's points as a Rubric, with the implicit tool points of
// requiredTools, prohibitedTools and maxCalls added as required `should` points.
func (p *Prompt) Rubric() Rubric {
	r := Rubric{Should: p.Should, ShouldNot: p.ShouldNot}
	implicit := p.implicitToolPoints()
	if len(implicit) > 0 {
		r.Should = append(append([]Entry(nil), p.Should...), implicit...)
	}
	return r
}

func (p *Prompt) implicitToolPoints() []Entry {
	var out []Entry
	add := func(source, fn string, args any) {
		pt := &Point{Fn: fn, Args: args, HasArgs: true, Multiplier: 1, Source: source, Line: p.Line}
		pt.prepare()
		out = append(out, Entry{Point: pt})
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

// Point is one rubric point: LLM-judged text, or a deterministic function call.
type Point struct {
	// Text is the criterion of an LLM-judged point ("" for a function point).
	Text string `json:"text,omitempty"`
	// Fn is the normalised function name of a function point (without "$").
	Fn string `json:"fn,omitempty"`
	// Args is the function's argument as decoded (nil, bool, float64, string, []any,
	// map[string]any); HasArgs tells an absent argument from an explicit null.
	Args    any  `json:"-"`
	HasArgs bool `json:"-"`
	// Multiplier is the point's weight (default 1).
	Multiplier float64 `json:"multiplier"`
	// Citation is a string or object, as written.
	Citation any `json:"citation,omitempty"`

	// Line is where the point is written (0 when unknown).
	Line int `json:"-"`
	// Source names where an implicit point comes from ("requiredTools", "prohibitedTools",
	// "maxCalls"); "" for points written in a rubric.
	Source string `json:"-"`
	// Written is the function name as the author wrote it, before normalisation.
	Written string `json:"-"`

	impl    evaluator
	prepErr error
}

// IsFunction reports whether the point is a deterministic function call.
func (p *Point) IsFunction() bool { return p.Fn != "" }

// Err returns why a function point cannot be evaluated (unknown function, bad arguments, a
// regex or script that does not compile), or nil.
func (p *Point) Err() error { return p.prepErr }

// MarshalJSON writes Weval's canonical point form: {text, multiplier, citation?} or
// {fn, fnArgs?, multiplier, citation?}.
func (p *Point) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(key string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		enc, err := marshalNoEscape(v)
		if err != nil {
			return fmt.Errorf("point %s: %w", key, err)
		}
		b.WriteString(strconv.Quote(key))
		b.WriteByte(':')
		b.Write(enc)
		return nil
	}
	var err error
	if p.IsFunction() {
		err = field("fn", p.Fn)
		if err == nil && p.HasArgs {
			err = field("fnArgs", p.displayArgs())
		}
	} else {
		err = field("text", p.Text)
	}
	if err == nil {
		err = field("multiplier", p.Multiplier)
	}
	if err == nil && p.Citation != nil {
		err = field("citation", p.Citation)
	}
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// KeyPointText is how the point is shown in results: the criterion of a text point, or
// "Function: name(args)" for a function point (Weval's form).
func (p *Point) KeyPointText() string {
	if !p.IsFunction() {
		return p.Text
	}
	args := "undefined"
	if p.HasArgs {
		args = canonicalJSON(p.displayArgs())
	}
	s := "Function: " + p.Fn + "(" + args + ")"
	if p.Source != "" {
		s = p.Source + ": " + s
	}
	return s
}
