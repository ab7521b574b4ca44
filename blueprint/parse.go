package blueprint

import (
	"errors"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/internal/safefile"
)

// ParseOptions control Parse.
type ParseOptions struct {
	// File is the path of the blueprint as given by the user. It names the file in
	// diagnostics, gives the blueprint its id (see IDFromPath) and, by its extension, the
	// format: ".json" is JSON, anything else YAML.
	File string
	// ID, when not empty, replaces the id derived from File.
	ID string
	// Format forces "json" or "yaml" whatever the extension.
	Format string
}

// MaxFileSize is the largest blueprint, responses file or model collection read, in bytes
// (64 MiB).
const MaxFileSize = 64 << 20

// ReadFile reads a blueprint, responses or collection file: a regular file (never a FIFO, a
// device or a /proc file, which could hang the run or hold secrets) of at most MaxFileSize
// bytes. Errors are *fs.PathError values naming the path.
func ReadFile(path string) ([]byte, error) { return safefile.ReadFile(path, MaxFileSize) }

// ParseFile reads and parses a blueprint file; its id comes from path as given.
func ParseFile(path string) (*Blueprint, error) {
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, ParseOptions{File: path})
}

// blueprintSuffixes are stripped from a file name to make the blueprint id, longest first.
var blueprintSuffixes = []string{".civic.yaml", ".civic.yml", ".weval.yaml", ".weval.yml", ".yaml", ".yml", ".json"}

// IDFromPath derives a blueprint id from its path as the original does: the extension
// (.civic.yml, .weval.yml, .yml, .yaml, .json and the .yaml forms) is stripped and "/" becomes
// "__", so "subdir/my-test.yml" is "subdir__my-test". A leading "./", "../" or "/" is dropped.
func IDFromPath(p string) string {
	p = path.Clean(strings.ReplaceAll(filepath.ToSlash(p), `\`, "/"))
	for {
		switch {
		case strings.HasPrefix(p, "../"):
			p = p[3:]
			continue
		case strings.HasPrefix(p, "/"):
			p = p[1:]
			continue
		}
		break
	}
	lower := strings.ToLower(p)
	for _, suf := range blueprintSuffixes {
		if strings.HasSuffix(lower, suf) {
			p = p[:len(p)-len(suf)]
			break
		}
	}
	return strings.ReplaceAll(p, "/", "__")
}

// promptSignals are the keys that make a first YAML document a prompt rather than a header.
var promptSignals = []string{"prompt", "promptText", "messages", "should", "points", "expect", "expects", "expectations", "ideal", "idealResponse", "should_not"}

// Parse parses and normalises a blueprint in any of the four structures of the format, in YAML
// or JSON. On failure the error is a *ParseError listing every problem with its line, or
// a *ParseError wrapping the YAML/JSON syntax error. Warnings (authoring mistakes that do not
// stop the blueprint from running) are in the returned Blueprint's Warnings.
func Parse(data []byte, opts ParseOptions) (*Blueprint, error) {
	p := &parser{file: opts.File}
	bp := &Blueprint{File: opts.File, ID: opts.ID}
	if bp.ID == "" {
		bp.ID = IDFromPath(opts.File)
	}
	format := opts.Format
	if format == "" {
		format = "yaml"
		if strings.HasSuffix(strings.ToLower(opts.File), ".json") {
			format = "json"
		}
	}
	var docs []*node
	var err error
	if format == "json" {
		var n *node
		n, err = decodeJSON(data)
		if n != nil {
			docs = []*node{n}
		}
	} else {
		docs, err = decodeYAML(data)
	}
	if err != nil {
		var se *SyntaxError
		if errors.As(err, &se) {
			p.add(SeverityError, CodeSyntax, se.Line, "", "%s", se.Error())
		} else {
			p.add(SeverityError, CodeSyntax, 0, "", "%v", err)
		}
		return nil, p.result()
	}
	if len(docs) == 0 {
		p.add(SeverityError, CodeInvalid, 0, "", "expected a blueprint (a header and prompts), found an empty file")
		return nil, p.result()
	}

	header, prompts := p.split(docs)
	if header != nil {
		p.header(bp, header)
	}
	if bp.Models == nil {
		bp.Models = []Model{{ID: "CORE"}}
	}
	seen := map[string]int{}
	for i, pn := range prompts {
		pr := p.prompt(bp, i, pn)
		if pr == nil {
			continue
		}
		if first, dup := seen[pr.ID]; dup {
			renamed := pr.ID
			for n := 2; ; n++ {
				if _, taken := seen[renamed]; !taken {
					break
				}
				renamed = pr.ID + "-" + strconv.Itoa(n)
			}
			p.warnf(CodeDuplicateID, pr.Line, pr.ID, "duplicate prompt id (first used at line %d); this prompt is renamed %q so both are scored; give it an id of its own", first, renamed)
			pr.ID = renamed
		}
		seen[pr.ID] = pr.Line
		bp.Prompts = append(bp.Prompts, pr)
	}
	if bp.Prompts == nil {
		bp.Prompts = []*Prompt{}
		if len(prompts) == 0 {
			p.warnf(CodeInvalid, docs[0].line, "", "the blueprint has no prompts (expected prompt documents after the header, or a prompts list)")
		}
	}
	if err := p.result(); err != nil {
		return nil, err
	}
	bp.Warnings = p.diags
	return bp, nil
}

type parser struct {
	file  string
	diags []Diagnostic
	defs  *node // point_defs mapping
	// defaultRenderAs is the header's render_as.
	defaultRenderAs string
}

func (p *parser) add(sev Severity, code string, line int, prompt, format string, args ...any) {
	p.diags = append(p.diags, Diagnostic{File: p.file, Line: line, Prompt: prompt, Severity: sev, Code: code, Message: fmt.Sprintf(format, args...)})
}

func (p *parser) errorf(line int, prompt, format string, args ...any) {
	p.add(SeverityError, CodeInvalid, line, prompt, format, args...)
}

func (p *parser) warnf(code string, line int, prompt, format string, args ...any) {
	p.add(SeverityWarning, code, line, prompt, format, args...)
}

// result returns a *ParseError when any error was found.
func (p *parser) result() error {
	sortDiagnostics(p.diags)
	for _, d := range p.diags {
		if d.Severity == SeverityError {
			return &ParseError{File: p.file, Diagnostics: p.diags}
		}
	}
	return nil
}

// split separates the header from the prompt nodes (spec §2 "Detection").
func (p *parser) split(docs []*node) (header *node, prompts []*node) {
	first := docs[0]
	rest := docs[1:]
	addDocs := func(ds []*node) {
		for _, d := range ds {
			if d.kind == listKind {
				prompts = append(prompts, d.list...)
			} else {
				prompts = append(prompts, d)
			}
		}
	}
	switch {
	case first.kind == listKind:
		addDocs(docs)
	case first.kind == mapKind && first.get("prompts") != nil:
		header = &node{kind: mapKind, line: first.line}
		for i, k := range first.keys {
			if k.str == "prompts" {
				continue
			}
			header.keys = append(header.keys, k)
			header.vals = append(header.vals, first.vals[i])
		}
		pl := first.get("prompts")
		if pl.kind != listKind {
			p.errorf(pl.line, "", "expected prompts to be a list of prompts, found %s", pl.describe())
		} else {
			prompts = append(prompts, pl.list...)
		}
		addDocs(rest)
	case first.kind == mapKind && hasAny(first, promptSignals):
		addDocs(docs)
	case first.kind == mapKind:
		header = first
		addDocs(rest)
	default:
		p.errorf(first.line, "", "expected the first document to be a header mapping or a list of prompts, found %s", first.describe())
		addDocs(rest)
	}
	return header, prompts
}

func hasAny(n *node, keys []string) bool {
	for _, k := range keys {
		if n.get(k) != nil {
			return true
		}
	}
	return false
}

// pick returns the value of the first key present and warns when a later alias is present too.
func (p *parser) pick(n *node, prompt string, keys ...string) (*node, string) {
	var found *node
	var name string
	for _, k := range keys {
		v := n.get(k)
		if v == nil {
			continue
		}
		if found == nil {
			found, name = v, k
			continue
		}
		p.warnf(CodeAliasConflict, n.keyLine(k), prompt, "both %q and %q are given; only %q is used", name, k, name)
	}
	return found, name
}

func (p *parser) header(bp *Blueprint, h *node) {
	known := map[string]bool{}
	for _, k := range []string{"id", "configId", "title", "configTitle", "description", "author", "reference", "references",
		"citation", "citations", "tags", "models", "system", "systemPrompt", "systems", "temperature", "temperatures",
		"evaluationConfig", "point_defs", "defs", "tools", "toolUse", "context", "render_as", "noCache",
		"externalServices", "concurrency"} {
		known[k] = true
	}
	for _, k := range h.keys {
		if !known[k.str] {
			p.warnf(CodeUnknownField, k.line, "", "unknown header field %q (ignored)", k.str)
		}
	}
	if v, name := p.pick(h, "", "id", "configId"); v != nil {
		p.warnf(CodeIgnoredID, v.line, "", "%q is ignored: the blueprint id comes from the file path (%q); remove it", name, bp.ID)
	}
	if v, name := p.pick(h, "", "title", "configTitle"); v != nil {
		bp.Title, _ = p.text(v, "", name)
	}
	if v := h.get("description"); v != nil {
		bp.Description, _ = p.text(v, "", "description")
	}
	if v := h.get("author"); v != nil {
		bp.Author = p.author(v)
	}
	if v, name := p.pick(h, "", "reference", "citation", "references", "citations"); v != nil {
		bp.References = p.references(v, name)
	}
	if v := h.get("tags"); v != nil {
		bp.Tags = p.strings(v, "", "tags")
	}
	if v := h.get("models"); v != nil {
		bp.Models = p.models(v)
	}
	if v, name := p.pick(h, "", "system", "systemPrompt", "systems"); v != nil && v.kind != nullKind {
		if v.kind == listKind {
			for _, item := range v.list {
				switch item.kind {
				case nullKind:
					bp.Systems = append(bp.Systems, nil)
				case stringKind:
					s := item.str
					bp.Systems = append(bp.Systems, &s)
				default:
					p.errorf(item.line, "", "expected each entry of %s to be a system prompt string or null, found %s", name, item.describe())
				}
			}
		} else if s, ok := p.text(v, "", name); ok {
			bp.System = &s
		}
	}
	if v := h.get("temperature"); v != nil {
		if f, ok := p.number(v, "", "temperature"); ok {
			bp.Temperature = &f
		}
	}
	if v := h.get("temperatures"); v != nil {
		if v.kind != listKind {
			p.errorf(v.line, "", "expected temperatures to be a list of numbers, found %s", v.describe())
		} else {
			bp.Temperatures = []float64{}
			for _, item := range v.list {
				if f, ok := p.number(item, "", "each temperature"); ok {
					bp.Temperatures = append(bp.Temperatures, f)
				}
			}
		}
	}
	if v := h.get("concurrency"); v != nil {
		if n, ok := p.integer(v, "", "concurrency", 1); ok {
			bp.Concurrency = &n
		}
	}
	if v := h.get("evaluationConfig"); v != nil {
		bp.Evaluation = p.evalConfig(v)
	}
	if v, name := p.pick(h, "", "point_defs", "defs"); v != nil {
		if v.kind != mapKind {
			p.errorf(v.line, "", "expected %s to be a mapping of definition names to points or JavaScript, found %s", name, v.describe())
		} else {
			p.defs = v
			bp.PointDefs = v.toAny()
		}
	}
	if v := h.get("tools"); v != nil {
		bp.Tools = p.tools(v)
	}
	if v := h.get("toolUse"); v != nil {
		bp.ToolUse = p.toolUse(v)
	}
	if v := h.get("context"); v != nil {
		bp.Context = v.toAny()
	}
	if v := h.get("render_as"); v != nil {
		bp.RenderAs = p.renderAs(v, "")
		p.defaultRenderAs = bp.RenderAs
	}
	if v := h.get("noCache"); v != nil {
		if b, ok := p.boolean(v, "", "noCache"); ok {
			bp.NoCache = &b
		}
	}
	if v := h.get("externalServices"); v != nil {
		bp.Services = p.services(v)
	}
}

func (p *parser) text(v *node, prompt, what string) (string, bool) {
	if v.kind != stringKind {
		p.errorf(v.line, prompt, "expected %s to be a string, found %s", what, v.describe())
		return "", false
	}
	return v.str, true
}

func (p *parser) number(v *node, prompt, what string) (float64, bool) {
	if v.kind != numberKind || math.IsNaN(v.num) || math.IsInf(v.num, 0) {
		p.errorf(v.line, prompt, "expected %s to be a number, found %s", what, v.describe())
		return 0, false
	}
	return v.num, true
}

func (p *parser) integer(v *node, prompt, what string, min int) (int, bool) {
	if v.kind != numberKind || v.num != math.Trunc(v.num) || v.num < float64(min) || v.num > 1e9 {
		p.errorf(v.line, prompt, "expected %s to be a whole number of at least %d, found %s", what, min, v.describe())
		return 0, false
	}
	return int(v.num), true
}

func (p *parser) boolean(v *node, prompt, what string) (bool, bool) {
	if v.kind != boolKind {
		p.errorf(v.line, prompt, "expected %s to be true or false, found %s", what, v.describe())
		return false, false
	}
	return v.b, true
}

// strings reads a list of strings; a single string is accepted as a list of one.
func (p *parser) strings(v *node, prompt, what string) []string {
	if v.kind == stringKind {
		return []string{v.str}
	}
	if v.kind != listKind {
		p.errorf(v.line, prompt, "expected %s to be a list of strings, found %s", what, v.describe())
		return nil
	}
	out := make([]string, 0, len(v.list))
	for _, item := range v.list {
		if item.kind != stringKind {
			p.errorf(item.line, prompt, "expected each entry of %s to be a string, found %s", what, item.describe())
			continue
		}
		out = append(out, item.str)
	}
	return out
}

func (p *parser) stringMap(v *node, prompt, what string) map[string]string {
	if v.kind != mapKind {
		p.errorf(v.line, prompt, "expected %s to be a mapping of strings, found %s", what, v.describe())
		return nil
	}
	out := make(map[string]string, len(v.keys))
	for i, k := range v.keys {
		val := v.vals[i]
		switch val.kind {
		case stringKind:
			out[k.str] = val.str
		case numberKind:
			out[k.str] = formatJSNumber(val.num)
		case boolKind:
			out[k.str] = strconv.FormatBool(val.b)
		default:
			p.errorf(val.line, prompt, "expected %s.%s to be a string, found %s", what, k.str, val.describe())
		}
	}
	return out
}

func (p *parser) author(v *node) any {
	switch v.kind {
	case stringKind:
		return v.str
	case mapKind:
		name := v.get("name")
		if name == nil || name.kind != stringKind || strings.TrimSpace(name.str) == "" {
			p.errorf(v.line, "", "expected author to have a non-empty name string, found %s", v.describe())
			return nil
		}
		return v.toAny()
	}
	p.errorf(v.line, "", "expected author to be a name or a mapping with name, url and image_url, found %s", v.describe())
	return nil
}

func (p *parser) references(v *node, what string) []Reference {
	items := []*node{v}
	if v.kind == listKind {
		items = v.list
	}
	out := []Reference{}
	for _, item := range items {
		switch item.kind {
		case stringKind:
			out = append(out, Reference{Title: item.str})
		case mapKind:
			t, _ := p.pick(item, "", "title", "name")
			if t == nil || t.kind != stringKind || strings.TrimSpace(t.str) == "" {
				p.errorf(item.line, "", "expected each entry of %s to have a title (or name) string, found %s", what, item.describe())
				continue
			}
			ref := Reference{Title: t.str}
			if u := item.get("url"); u != nil {
				ref.URL, _ = p.text(u, "", what+" url")
			}
			out = append(out, ref)
		default:
			p.errorf(item.line, "", "expected %s to be a string, a mapping with title and url, or a list of these, found %s", what, item.describe())
		}
	}
	return out
}

// normaliseModelID trims a model id and the spaces around its first ":".
func normaliseModelID(s string) string {
	s = strings.TrimSpace(s)
	if provider, model, ok := strings.Cut(s, ":"); ok {
		return strings.TrimSpace(provider) + ":" + strings.TrimSpace(model)
	}
	return s
}

func (p *parser) models(v *node) []Model {
	if v.kind != listKind {
		p.errorf(v.line, "", "expected models to be a list of model ids or custom model objects, found %s", v.describe())
		return nil
	}
	out := []Model{}
	for _, item := range v.list {
		switch item.kind {
		case stringKind:
			id := normaliseModelID(item.str)
			if id == "" {
				p.errorf(item.line, "", "expected a model id such as \"openai:gpt-4o-mini\", found an empty string")
				continue
			}
			out = append(out, Model{ID: id})
		case mapKind:
			if cm := p.customModel(item); cm != nil {
				out = append(out, Model{ID: cm.ID, Custom: cm})
			}
		default:
			p.errorf(item.line, "", "expected a model id string or a custom model object, found %s", item.describe())
		}
	}
	return out
}

func (p *parser) customModel(v *node) *CustomModel {
	known := map[string]bool{"id": true, "url": true, "modelName": true, "inherit": true, "format": true, "promptFormat": true,
		"headers": true, "parameters": true, "parameterMapping": true, "reasoningEffort": true, "thinkingBudget": true}
	for _, k := range v.keys {
		if !known[k.str] {
			p.warnf(CodeUnknownField, k.line, "", "unknown custom model field %q (ignored)", k.str)
		}
	}
	cm := &CustomModel{Lines: fieldLines(v)}
	ok := true
	req := func(key string, dst *string) {
		f := v.get(key)
		if f == nil || f.kind != stringKind || strings.TrimSpace(f.str) == "" {
			p.errorf(v.line, "", "custom model: expected %q to be a non-empty string, found %s", key, f.describe())
			ok = false
			return
		}
		*dst = f.str
	}
	req("id", &cm.ID)
	req("url", &cm.URL)
	req("modelName", &cm.ModelName)
	req("inherit", &cm.Inherit)
	if f := v.get("format"); f != nil {
		if f.kind != stringKind || (f.str != "chat" && f.str != "completions") {
			p.errorf(f.line, "", "custom model %q: expected format \"chat\" or \"completions\", found %s", cm.ID, f.describe())
			ok = false
		} else {
			cm.Format = f.str
		}
	}
	if f := v.get("promptFormat"); f != nil {
		if f.kind != stringKind || (f.str != "conversational" && f.str != "raw") {
			p.errorf(f.line, "", "custom model %q: expected promptFormat \"conversational\" or \"raw\", found %s", cm.ID, f.describe())
			ok = false
		} else {
			cm.PromptFormat = f.str
		}
	}
	if f := v.get("headers"); f != nil {
		cm.Headers = p.stringMap(f, "", "headers")
	}
	if f := v.get("parameters"); f != nil {
		if f.kind != mapKind {
			p.errorf(f.line, "", "custom model %q: expected parameters to be a mapping, found %s", cm.ID, f.describe())
			ok = false
		} else {
			cm.Parameters = f.toAny().(map[string]any)
		}
	}
	if f := v.get("parameterMapping"); f != nil {
		cm.ParameterMapping = p.stringMap(f, "", "parameterMapping")
	}
	if f := v.get("reasoningEffort"); f != nil {
		cm.ReasoningEffort, _ = p.text(f, "", "reasoningEffort")
	}
	if f := v.get("thinkingBudget"); f != nil {
		if n, good := p.number(f, "", "thinkingBudget"); good {
			cm.ThinkingBudget = &n
		}
	}
	if !ok {
		return nil
	}
	return cm
}

func (p *parser) evalConfig(v *node) *EvalCfg {
	if v.kind != mapKind {
		p.errorf(v.line, "", "expected evaluationConfig to be a mapping, found %s", v.describe())
		return nil
	}
	cfg := &EvalCfg{}
	legacy := &node{kind: mapKind, line: v.line}
	for i, k := range v.keys {
		if k.str == "judgeModels" || k.str == "judgeMode" {
			// Old blueprints put these directly under evaluationConfig.
			legacy.keys = append(legacy.keys, k)
			legacy.vals = append(legacy.vals, v.vals[i])
		}
	}
	if len(legacy.keys) > 0 && v.get("llm-coverage") == nil {
		v = &node{kind: mapKind, line: v.line, keys: append([]*node{{kind: stringKind, line: v.line, str: "llm-coverage"}}, v.keys...), vals: append([]*node{legacy}, v.vals...)}
	}
	for i, k := range v.keys {
		if k.str == "judgeModels" || k.str == "judgeMode" {
			continue
		}
		if k.str != "llm-coverage" {
			p.warnf(CodeUnknownField, k.line, "", "unknown evaluationConfig method %q (ignored; only llm-coverage is configurable)", k.str)
			continue
		}
		lc := v.vals[i]
		if lc.kind != mapKind {
			p.errorf(lc.line, "", "expected evaluationConfig.llm-coverage to be a mapping, found %s", lc.describe())
			continue
		}
		c := &LLMCoverageCfg{}
		for j, kk := range lc.keys {
			val := lc.vals[j]
			switch kk.str {
			case "judges":
				c.Judges = p.judges(val)
			case "useExperimentalScale":
				c.UseExperimentalScale, _ = p.boolean(val, "", "useExperimentalScale")
			case "judgeModels":
				c.JudgeModels = p.strings(val, "", "judgeModels")
			case "judgeMode":
				if val.kind != stringKind || (val.str != "failover" && val.str != "consensus") {
					p.errorf(val.line, "", "expected judgeMode \"failover\" or \"consensus\", found %s", val.describe())
				} else {
					c.JudgeMode = val.str
				}
			default:
				p.warnf(CodeUnknownField, kk.line, "", "unknown llm-coverage field %q (ignored)", kk.str)
			}
		}
		cfg.LLMCoverage = c
	}
	return cfg
}

func (p *parser) judges(v *node) []JudgeSpec {
	if v.kind != listKind {
		p.errorf(v.line, "", "expected judges to be a list of {id, model, approach}, found %s", v.describe())
		return nil
	}
	var out []JudgeSpec
	for _, item := range v.list {
		if item.kind != mapKind {
			p.errorf(item.line, "", "expected a judge {id, model, approach}, found %s", item.describe())
			continue
		}
		j := JudgeSpec{Approach: "standard"}
		if f := item.get("id"); f != nil {
			j.ID, _ = p.text(f, "", "judge id")
		}
		f := item.get("model")
		if f == nil || f.kind != stringKind || !strings.Contains(f.str, ":") {
			p.errorf(item.line, "", "expected judge model to be \"provider:model\", found %s", f.describe())
			continue
		}
		j.Model = normaliseModelID(f.str)
		if f := item.get("approach"); f != nil {
			if f.kind != stringKind || (f.str != "standard" && f.str != "prompt-aware" && f.str != "holistic") {
				p.errorf(f.line, "", "expected judge approach \"standard\", \"prompt-aware\" or \"holistic\", found %s", f.describe())
				continue
			}
			j.Approach = f.str
		}
		out = append(out, j)
	}
	return out
}

func (p *parser) tools(v *node) []Tool {
	if v.kind != listKind {
		p.errorf(v.line, "", "expected tools to be a list of {name, description, schema}, found %s", v.describe())
		return nil
	}
	var out []Tool
	for _, item := range v.list {
		if item.kind != mapKind {
			p.errorf(item.line, "", "expected a tool {name, description, schema}, found %s", item.describe())
			continue
		}
		name := item.get("name")
		if name == nil || name.kind != stringKind || name.str == "" {
			p.errorf(item.line, "", "expected each tool to have a name string, found %s", name.describe())
			continue
		}
		t := Tool{Name: name.str}
		if d := item.get("description"); d != nil {
			t.Description, _ = p.text(d, "", "tool description")
		}
		if s := item.get("schema"); s != nil {
			t.Schema = s.toAny()
		}
		out = append(out, t)
	}
	return out
}

func (p *parser) toolUse(v *node) *ToolUse {
	if v.kind != mapKind {
		p.errorf(v.line, "", "expected toolUse to be a mapping, found %s", v.describe())
		return nil
	}
	tu := &ToolUse{}
	for i, k := range v.keys {
		val := v.vals[i]
		switch k.str {
		case "enabled":
			if b, ok := p.boolean(val, "", "toolUse.enabled"); ok {
				tu.Enabled = &b
			}
		case "mode":
			if val.kind != stringKind || val.str != "trace-only" {
				p.errorf(val.line, "", "expected toolUse.mode to be \"trace-only\" (tools are never executed; models emit TOOL_CALL lines), found %s", val.describe())
				continue
			}
			tu.Mode = val.str
		case "maxSteps":
			if n, ok := p.integer(val, "", "toolUse.maxSteps", 1); ok {
				tu.MaxSteps = &n
			}
		case "outputFormat":
			if val.kind != stringKind || val.str != "json-line" {
				p.errorf(val.line, "", "expected toolUse.outputFormat to be \"json-line\", found %s", val.describe())
				continue
			}
			tu.OutputFormat = val.str
		default:
			p.warnf(CodeUnknownField, k.line, "", "unknown toolUse field %q (ignored)", k.str)
		}
	}
	return tu
}

func (p *parser) renderAs(v *node, prompt string) string {
	if v.kind != stringKind || (v.str != "markdown" && v.str != "html" && v.str != "plaintext") {
		p.errorf(v.line, prompt, "expected render_as to be \"markdown\", \"html\" or \"plaintext\", found %s", v.describe())
		return ""
	}
	return v.str
}

func (p *parser) services(v *node) ServiceMap {
	if v.kind != mapKind {
		p.errorf(v.line, "", "expected externalServices to be a mapping of service names to {url, ...}, found %s", v.describe())
		return nil
	}
	out := ServiceMap{}
	for i, k := range v.keys {
		sv := v.vals[i]
		if sv.kind != mapKind {
			p.errorf(sv.line, "", "expected externalServices.%s to be a mapping with url, found %s", k.str, sv.describe())
			continue
		}
		s, err := serviceFromNode(sv)
		if err != nil {
			p.errorf(sv.line, "", "externalServices.%s: %v", k.str, err)
			continue
		}
		out[k.str] = s
	}
	return out
}

// fieldLines records the lines of a definition's url and header values.
func fieldLines(v *node) FieldLines {
	l := FieldLines{Object: v.line}
	if u := v.get("url"); u != nil {
		l.URL = u.line
	}
	if h := v.get("headers"); h != nil && h.kind == mapKind {
		l.Headers = make(map[string]int, len(h.keys))
		for i, k := range h.keys {
			l.Headers[k.str] = h.vals[i].line
		}
	}
	return l
}

// serviceFromNode reads a service definition ({url, method, headers, timeout_ms, cache,
// max_retries, retry_backoff_ms}); unknown keys are left to the caller.
func serviceFromNode(v *node) (Service, error) {
	s := Service{Lines: fieldLines(v)}
	u := v.get("url")
	if u == nil || u.kind != stringKind || u.str == "" {
		return s, fmt.Errorf("expected url to be a non-empty string, found %s", u.describe())
	}
	s.URL = u.str
	if m := v.get("method"); m != nil {
		if m.kind != stringKind || (m.str != "GET" && m.str != "POST" && m.str != "PUT") {
			return s, fmt.Errorf("expected method GET, POST or PUT, found %s", m.describe())
		}
		s.Method = m.str
	}
	if h := v.get("headers"); h != nil {
		if h.kind != mapKind {
			return s, fmt.Errorf("expected headers to be a mapping of strings, found %s", h.describe())
		}
		s.Headers = map[string]string{}
		for i, k := range h.keys {
			if h.vals[i].kind != stringKind {
				return s, fmt.Errorf("expected header %q to be a string, found %s", k.str, h.vals[i].describe())
			}
			s.Headers[k.str] = h.vals[i].str
		}
	}
	intField := func(key string) (int, bool, error) {
		f := v.get(key)
		if f == nil {
			return 0, false, nil
		}
		if f.kind != numberKind || f.num < 0 || f.num != math.Trunc(f.num) || f.num > 1e9 {
			return 0, false, fmt.Errorf("expected %s to be a whole number ≥ 0, found %s", key, f.describe())
		}
		return int(f.num), true, nil
	}
	var err error
	if s.TimeoutMS, _, err = intField("timeout_ms"); err != nil {
		return s, err
	}
	if s.RetryBackoffMS, _, err = intField("retry_backoff_ms"); err != nil {
		return s, err
	}
	n, ok, err := intField("max_retries")
	if err != nil {
		return s, err
	}
	if ok {
		s.MaxRetries = &n
	}
	if c := v.get("cache"); c != nil {
		if c.kind != boolKind {
			return s, fmt.Errorf("expected cache to be true or false, found %s", c.describe())
		}
		s.Cache = &c.b
	}
	return s, nil
}

var promptFields = map[string]bool{
	"id": true, "description": true, "prompt": true, "promptText": true, "messages": true, "ideal": true, "idealResponse": true,
	"system": true, "systemPrompt": true, "citation": true, "reference": true, "should": true, "points": true, "expect": true,
	"expects": true, "expectations": true, "should_not": true, "weight": true, "importance": true, "multiplier": true,
	"requiredTools": true, "prohibitedTools": true, "maxCalls": true, "render_as": true, "noCache": true, "tags": true,
}

// prompt parses the i-th prompt; nil when it has errors.
func (p *parser) prompt(bp *Blueprint, i int, n *node) *Prompt {
	label := "#" + strconv.Itoa(i+1)
	if n.kind != mapKind {
		p.errorf(n.line, label, "expected a prompt (a mapping with prompt or messages), found %s", n.describe())
		return nil
	}
	before := len(p.diags)
	pr := &Prompt{Line: n.line}
	if v := n.get("id"); v != nil {
		switch v.kind {
		case stringKind:
			pr.ID = strings.TrimSpace(v.str)
		case numberKind:
			pr.ID = formatJSNumber(v.num)
		case nullKind:
		default:
			p.errorf(v.line, label, "expected id to be a string, found %s", v.describe())
		}
	}
	if pr.ID != "" {
		label = pr.ID
	}
	for _, k := range n.keys {
		if !promptFields[k.str] {
			p.warnf(CodeUnknownField, k.line, label, "unknown prompt field %q (ignored)", k.str)
		}
	}
	if v := n.get("description"); v != nil {
		pr.Description, _ = p.text(v, label, "description")
	}

	msgs := n.get("messages")
	promptText, promptKey := p.pick(n, label, "prompt", "promptText")
	switch {
	case msgs != nil:
		if promptText != nil {
			p.warnf(CodeAliasConflict, n.keyLine(promptKey), label, "both messages and %s are given; %s is ignored", promptKey, promptKey)
		}
		pr.Messages = p.messages(msgs, label)
	case promptText != nil:
		if s, ok := p.text(promptText, label, promptKey); ok {
			if strings.TrimSpace(s) == "" {
				p.errorf(promptText.line, label, "expected %s to be a non-empty string, found an empty string", promptKey)
			}
			pr.Messages = []Message{{Role: "user", Content: &s}}
		}
	default:
		p.errorf(n.line, label, "expected prompt (or promptText) or messages, found neither")
	}

	if v, name := p.pick(n, label, "ideal", "idealResponse"); v != nil && v.kind != nullKind {
		if s, ok := p.text(v, label, name); ok {
			pr.Ideal = &s
		}
	}
	if v, name := p.pick(n, label, "system", "systemPrompt"); v != nil && v.kind != nullKind {
		if s, ok := p.text(v, label, name); ok {
			pr.System = &s
		}
	}
	if v, name := p.pick(n, label, "citation", "reference"); v != nil {
		pr.Citation = p.citation(v, label, name)
	}
	if v, name := p.pick(n, label, "weight", "importance", "multiplier"); v != nil {
		if v.kind != numberKind || v.num < 0.1 || v.num > 10 || math.IsNaN(v.num) {
			p.errorf(v.line, label, "expected %s to be a number between 0.1 and 10, found %s", name, v.describe())
		} else {
			w := v.num
			pr.Weight = &w
		}
	}
	if v := n.get("requiredTools"); v != nil {
		pr.RequiredTools = p.strings(v, label, "requiredTools")
	}
	if v := n.get("prohibitedTools"); v != nil {
		pr.ProhibitedTools = p.strings(v, label, "prohibitedTools")
	}
	if v := n.get("maxCalls"); v != nil {
		if c, ok := p.integer(v, label, "maxCalls", 0); ok {
			pr.MaxCalls = &c
		}
	}
	pr.RenderAs = p.defaultRenderAs
	if v := n.get("render_as"); v != nil {
		pr.RenderAs = p.renderAs(v, label)
	}
	if pr.RenderAs == "" {
		pr.RenderAs = "markdown"
	}
	if v := n.get("noCache"); v != nil {
		if b, ok := p.boolean(v, label, "noCache"); ok {
			pr.NoCache = &b
		}
	}
	if v := n.get("tags"); v != nil {
		pr.Tags = p.strings(v, label, "tags")
	}

	opts := pointParser{p: p, prompt: label}
	if v, name := p.pick(n, label, "should", "points", "expect", "expects", "expectations"); v != nil && v.kind != nullKind {
		pr.Should = opts.block(v, name)
	}
	if v := n.get("should_not"); v != nil && v.kind != nullKind {
		pr.ShouldNot = opts.block(v, "should_not")
	}

	for _, d := range p.diags[before:] {
		if d.Severity == SeverityError {
			return nil
		}
	}
	if pr.ID == "" {
		pr.ID = PromptHashID(pr)
		pr.HashedID = true
		for j := before; j < len(p.diags); j++ {
			if p.diags[j].Prompt == label {
				p.diags[j].Prompt = pr.ID
			}
		}
	}
	return pr
}

func (p *parser) citation(v *node, prompt, what string) any {
	switch v.kind {
	case stringKind:
		return v.str
	case mapKind:
		t, _ := p.pick(v, prompt, "title", "name")
		if t == nil || t.kind != stringKind || strings.TrimSpace(t.str) == "" {
			p.errorf(v.line, prompt, "expected %s to have a title (or name) string, found %s", what, v.describe())
			return nil
		}
		return v.toAny()
	case nullKind:
		return nil
	}
	p.errorf(v.line, prompt, "expected %s to be a string or a mapping with title and url, found %s", what, v.describe())
	return nil
}

var messageRoles = map[string]string{"user": "user", "assistant": "assistant", "ai": "assistant", "system": "system"}

func (p *parser) messages(v *node, prompt string) []Message {
	if v.kind != listKind || len(v.list) == 0 {
		p.errorf(v.line, prompt, "expected messages to be a non-empty list of {role, content} or {user: ...} entries, found %s", v.describe())
		return nil
	}
	out := make([]Message, 0, len(v.list))
	lines := make([]int, 0, len(v.list))
	ok := true
	for i, item := range v.list {
		idx := i + 1
		if item.kind != mapKind {
			p.errorf(item.line, prompt, "message %d: expected {role, content} or a one-key shorthand such as {user: ...}, found %s", idx, item.describe())
			ok = false
			continue
		}
		var role string
		var content *node
		if item.get("role") != nil || item.get("content") != nil {
			r := item.get("role")
			if r == nil || r.kind != stringKind || messageRoles[r.str] == "" {
				p.errorf(item.line, prompt, "message %d: expected role \"user\", \"assistant\" or \"system\", found %s", idx, r.describe())
				ok = false
				continue
			}
			role = messageRoles[r.str]
			content = item.get("content")
			for _, k := range item.keys {
				if k.str != "role" && k.str != "content" {
					p.warnf(CodeUnknownField, k.line, prompt, "message %d: unknown field %q (ignored)", idx, k.str)
				}
			}
			if content == nil {
				content = &node{kind: nullKind, line: item.line}
			}
		} else {
			if len(item.keys) != 1 {
				p.errorf(item.line, prompt, "message %d: expected exactly one key (user, assistant, ai or system), found %s", idx, item.describe())
				ok = false
				continue
			}
			key := item.keys[0].str
			role = messageRoles[key]
			if role == "" {
				p.errorf(item.line, prompt, "message %d: expected the role user, assistant, ai or system, found %q", idx, key)
				ok = false
				continue
			}
			content = item.vals[0]
		}
		switch {
		case content.kind == nullKind && role == "assistant":
			out = append(out, Message{Role: role})
		case content.kind == stringKind && strings.TrimSpace(content.str) != "":
			s := content.str
			out = append(out, Message{Role: role, Content: &s})
		case content.kind == stringKind:
			p.errorf(content.line, prompt, "message %d (%s): expected non-empty content, found an empty string", idx, role)
			ok = false
			continue
		default:
			p.errorf(content.line, prompt, "message %d (%s): expected the content to be a string%s, found %s", idx, role,
				map[bool]string{true: " (or null for a turn to generate)", false: ""}[role == "assistant"], content.describe())
			ok = false
			continue
		}
		lines = append(lines, item.line)
	}
	if !ok {
		return out
	}
	// Roles alternate (system messages aside) and the conversation ends with the user or with a
	// turn to generate.
	prev, prevIdx := "", 0
	seenTurn := false
	for i, m := range out {
		if m.Role == "system" {
			if seenTurn {
				p.warnf(CodeInvalid, lines[i], prompt, "message %d: a system message after the conversation has started; most providers expect system messages first", i+1)
			}
			continue
		}
		seenTurn = true
		if m.Role == prev {
			p.warnf(CodeInvalid, lines[i], prompt, "messages %d and %d are both %q: user and assistant turns should alternate (system messages aside); they are sent as written, and some providers merge or reject consecutive turns", prevIdx, i+1, m.Role)
		}
		prev, prevIdx = m.Role, i+1
	}
	if !seenTurn {
		p.errorf(v.line, prompt, "expected messages to contain a user message, found only system messages")
		return out
	}
	last := out[len(out)-1]
	if last.Role == "assistant" && last.Content != nil {
		p.errorf(lines[len(lines)-1], prompt, "expected the last message to be from the user (or assistant: null, a turn to generate), found an authored assistant message")
	}
	return out
}

// sortedKeys returns the keys of a mapping node, sorted.
func sortedKeys(n *node) []string {
	out := make([]string, 0, len(n.keys))
	for _, k := range n.keys {
		out = append(out, k.str)
	}
	sort.Strings(out)
	return out
}
