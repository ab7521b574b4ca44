package blueprint

import (
	"strings"

	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// The header of a blueprint: who wrote it, what it cites, its models (ids, collections, custom
// models), its evaluation and judges, tools, rendering and external services.

func (p *parser) author(v *node.Node) any {
	switch v.Kind {
	case node.StringKind:
		return v.Str
	case node.MapKind:
		name := v.Get("name")
		if name == nil || name.Kind != node.StringKind || strings.TrimSpace(name.Str) == "" {
			p.errorf(v.Line, "", "expected author to have a non-empty name string, found %s", v.Describe())
			return nil
		}
		return v.ToAny()
	}
	p.errorf(v.Line, "", "expected author to be a name or a mapping with name, url and image_url, found %s", v.Describe())
	return nil
}

func (p *parser) references(v *node.Node, what string) []Reference {
	items := []*node.Node{v}
	if v.Kind == node.ListKind {
		items = v.Items
	}
	out := []Reference{}
	for _, item := range items {
		switch item.Kind {
		case node.StringKind:
			out = append(out, Reference{Title: item.Str})
		case node.MapKind:
			t, _ := p.pick(item, "", "title", "name")
			if t == nil || t.Kind != node.StringKind || strings.TrimSpace(t.Str) == "" {
				p.errorf(item.Line, "", "expected each entry of %s to have a title (or name) string, found %s", what, item.Describe())
				continue
			}
			ref := Reference{Title: t.Str}
			if u := item.Get("url"); u != nil {
				ref.URL, _ = p.text(u, "", what+" url")
			}
			out = append(out, ref)
		default:
			p.errorf(item.Line, "", "expected %s to be a string, a mapping with title and url, or a list of these, found %s", what, item.Describe())
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

func (p *parser) models(v *node.Node) []Model {
	if v.Kind != node.ListKind {
		p.errorf(v.Line, "", "expected models to be a list of model ids or custom model objects, found %s", v.Describe())
		return nil
	}
	out := []Model{}
	for _, item := range v.Items {
		switch item.Kind {
		case node.StringKind:
			id := normaliseModelID(item.Str)
			if id == "" {
				p.errorf(item.Line, "", "expected a model id such as \"openai:gpt-4o-mini\", found an empty string")
				continue
			}
			out = append(out, Model{ID: id})
		case node.MapKind:
			if cm := p.customModel(item); cm != nil {
				out = append(out, Model{ID: cm.ID, Custom: cm})
			}
		default:
			p.errorf(item.Line, "", "expected a model id string or a custom model object, found %s", item.Describe())
		}
	}
	return out
}

func (p *parser) customModel(v *node.Node) *CustomModel {
	known := map[string]bool{"id": true, "url": true, "modelName": true, "inherit": true, "format": true, "promptFormat": true,
		"headers": true, "parameters": true, "parameterMapping": true, "reasoningEffort": true, "thinkingBudget": true}
	for _, k := range v.Keys {
		if !known[k.Str] {
			p.warnf(rubric.CodeUnknownField, k.Line, "", "unknown custom model field %q (ignored)", k.Str)
		}
	}
	cm := &CustomModel{Lines: points.FieldLinesOf(v)}
	ok := true
	req := func(key string, dst *string) {
		f := v.Get(key)
		if f == nil || f.Kind != node.StringKind || strings.TrimSpace(f.Str) == "" {
			p.errorf(v.Line, "", "custom model: expected %q to be a non-empty string, found %s", key, f.Describe())
			ok = false
			return
		}
		*dst = f.Str
	}
	req("id", &cm.ID)
	req("url", &cm.URL)
	req("modelName", &cm.ModelName)
	req("inherit", &cm.Inherit)
	if f := v.Get("format"); f != nil {
		if f.Kind != node.StringKind || (f.Str != "chat" && f.Str != "completions") {
			p.errorf(f.Line, "", "custom model %q: expected format \"chat\" or \"completions\", found %s", cm.ID, f.Describe())
			ok = false
		} else {
			cm.Format = f.Str
		}
	}
	if f := v.Get("promptFormat"); f != nil {
		if f.Kind != node.StringKind || (f.Str != "conversational" && f.Str != "raw") {
			p.errorf(f.Line, "", "custom model %q: expected promptFormat \"conversational\" or \"raw\", found %s", cm.ID, f.Describe())
			ok = false
		} else {
			cm.PromptFormat = f.Str
		}
	}
	if f := v.Get("headers"); f != nil {
		cm.Headers = p.stringMap(f, "", "headers")
	}
	if f := v.Get("parameters"); f != nil {
		if f.Kind != node.MapKind {
			p.errorf(f.Line, "", "custom model %q: expected parameters to be a mapping, found %s", cm.ID, f.Describe())
			ok = false
		} else {
			cm.Parameters = f.ToAny().(map[string]any)
		}
	}
	if f := v.Get("parameterMapping"); f != nil {
		cm.ParameterMapping = p.stringMap(f, "", "parameterMapping")
	}
	if f := v.Get("reasoningEffort"); f != nil {
		cm.ReasoningEffort, _ = p.text(f, "", "reasoningEffort")
	}
	if f := v.Get("thinkingBudget"); f != nil {
		if n, good := p.integer(f, "", "thinkingBudget", 0, llm.MaxReplyTokens); good {
			budget := float64(n)
			cm.ThinkingBudget = &budget
		}
	}
	if !ok {
		return nil
	}
	return cm
}

func (p *parser) evalConfig(v *node.Node) *EvalCfg {
	if v.Kind != node.MapKind {
		p.errorf(v.Line, "", "expected evaluationConfig to be a mapping, found %s", v.Describe())
		return nil
	}
	cfg := &EvalCfg{}
	legacy := &node.Node{Kind: node.MapKind, Line: v.Line}
	for i, k := range v.Keys {
		if k.Str == "judgeModels" || k.Str == "judgeMode" {
			// Old blueprints put these directly under evaluationConfig.
			legacy.Keys = append(legacy.Keys, k)
			legacy.Vals = append(legacy.Vals, v.Vals[i])
		}
	}
	if len(legacy.Keys) > 0 && v.Get("llm-coverage") == nil {
		v = &node.Node{Kind: node.MapKind, Line: v.Line, Keys: append([]*node.Node{{Kind: node.StringKind, Line: v.Line, Str: "llm-coverage"}}, v.Keys...), Vals: append([]*node.Node{legacy}, v.Vals...)}
	}
	for i, k := range v.Keys {
		if k.Str == "judgeModels" || k.Str == "judgeMode" {
			continue
		}
		if k.Str != "llm-coverage" {
			p.warnf(rubric.CodeUnknownField, k.Line, "", "unknown evaluationConfig method %q (ignored; only llm-coverage is configurable)", k.Str)
			continue
		}
		lc := v.Vals[i]
		if lc.Kind != node.MapKind {
			p.errorf(lc.Line, "", "expected evaluationConfig.llm-coverage to be a mapping, found %s", lc.Describe())
			continue
		}
		c := &LLMCoverageCfg{}
		for j, kk := range lc.Keys {
			val := lc.Vals[j]
			switch kk.Str {
			case "judges":
				c.Judges = p.judges(val)
			case "useExperimentalScale":
				c.UseExperimentalScale, _ = p.boolean(val, "", "useExperimentalScale")
			case "judgeBatch":
				c.JudgeBatch, _ = p.boolean(val, "", "judgeBatch")
			case "judgeModels":
				c.JudgeModels = p.strings(val, "", "judgeModels")
			case "judgeMode":
				if val.Kind != node.StringKind || (val.Str != "failover" && val.Str != "consensus") {
					p.errorf(val.Line, "", "expected judgeMode \"failover\" or \"consensus\", found %s", val.Describe())
				} else {
					c.JudgeMode = val.Str
				}
			default:
				p.warnf(rubric.CodeUnknownField, kk.Line, "", "unknown llm-coverage field %q (ignored)", kk.Str)
			}
		}
		cfg.LLMCoverage = c
	}
	return cfg
}

func (p *parser) judges(v *node.Node) []JudgeSpec {
	if v.Kind != node.ListKind {
		p.errorf(v.Line, "", "expected judges to be a list of {id, model, approach}, found %s", v.Describe())
		return nil
	}
	var out []JudgeSpec
	for _, item := range v.Items {
		if item.Kind != node.MapKind {
			p.errorf(item.Line, "", "expected a judge {id, model, approach}, found %s", item.Describe())
			continue
		}
		j := JudgeSpec{Approach: "standard"}
		if f := item.Get("id"); f != nil {
			j.ID, _ = p.text(f, "", "judge id")
		}
		f := item.Get("model")
		if f == nil || f.Kind != node.StringKind || !strings.Contains(f.Str, ":") {
			p.errorf(item.Line, "", "expected judge model to be \"provider:model\", found %s", f.Describe())
			continue
		}
		j.Model = normaliseModelID(f.Str)
		if f := item.Get("approach"); f != nil {
			if f.Kind != node.StringKind || (f.Str != "standard" && f.Str != "prompt-aware" && f.Str != "holistic") {
				p.errorf(f.Line, "", "expected judge approach \"standard\", \"prompt-aware\" or \"holistic\", found %s", f.Describe())
				continue
			}
			j.Approach = f.Str
		}
		out = append(out, j)
	}
	return out
}

func (p *parser) tools(v *node.Node) []Tool {
	if v.Kind != node.ListKind {
		p.errorf(v.Line, "", "expected tools to be a list of {name, description, schema}, found %s", v.Describe())
		return nil
	}
	var out []Tool
	for _, item := range v.Items {
		if item.Kind != node.MapKind {
			p.errorf(item.Line, "", "expected a tool {name, description, schema}, found %s", item.Describe())
			continue
		}
		name := item.Get("name")
		if name == nil || name.Kind != node.StringKind || name.Str == "" {
			p.errorf(item.Line, "", "expected each tool to have a name string, found %s", name.Describe())
			continue
		}
		t := Tool{Name: name.Str}
		if d := item.Get("description"); d != nil {
			t.Description, _ = p.text(d, "", "tool description")
		}
		if s := item.Get("schema"); s != nil {
			t.Schema = s.ToAny()
		}
		out = append(out, t)
	}
	return out
}

func (p *parser) toolUse(v *node.Node) *ToolUse {
	if v.Kind != node.MapKind {
		p.errorf(v.Line, "", "expected toolUse to be a mapping, found %s", v.Describe())
		return nil
	}
	tu := &ToolUse{}
	for i, k := range v.Keys {
		val := v.Vals[i]
		switch k.Str {
		case "enabled":
			if b, ok := p.boolean(val, "", "toolUse.enabled"); ok {
				tu.Enabled = &b
			}
		case "mode":
			if val.Kind != node.StringKind || val.Str != "trace-only" {
				p.errorf(val.Line, "", "expected toolUse.mode to be \"trace-only\" (tools are never executed; models emit TOOL_CALL lines), found %s", val.Describe())
				continue
			}
			tu.Mode = val.Str
		case "maxSteps":
			if n, ok := p.integer(val, "", "toolUse.maxSteps", 1, maxToolSteps); ok {
				tu.MaxSteps = &n
			}
		case "outputFormat":
			if val.Kind != node.StringKind || val.Str != "json-line" {
				p.errorf(val.Line, "", "expected toolUse.outputFormat to be \"json-line\", found %s", val.Describe())
				continue
			}
			tu.OutputFormat = val.Str
		default:
			p.warnf(rubric.CodeUnknownField, k.Line, "", "unknown toolUse field %q (ignored)", k.Str)
		}
	}
	return tu
}

func (p *parser) renderAs(v *node.Node, prompt string) string {
	if v.Kind != node.StringKind || (v.Str != "markdown" && v.Str != "html" && v.Str != "plaintext") {
		p.errorf(v.Line, prompt, "expected render_as to be \"markdown\", \"html\" or \"plaintext\", found %s", v.Describe())
		return ""
	}
	return v.Str
}

func (p *parser) services(v *node.Node) points.ServiceMap {
	if v.Kind != node.MapKind {
		p.errorf(v.Line, "", "expected externalServices to be a mapping of service names to {url, ...}, found %s", v.Describe())
		return nil
	}
	out := points.ServiceMap{}
	for i, k := range v.Keys {
		sv := v.Vals[i]
		if sv.Kind != node.MapKind {
			p.errorf(sv.Line, "", "expected externalServices.%s to be a mapping with url, found %s", k.Str, sv.Describe())
			continue
		}
		s, err := points.ParseService(sv)
		if err != nil {
			p.errorf(sv.Line, "", "externalServices.%s: %v", k.Str, err)
			continue
		}
		out[k.Str] = s
	}
	return out
}
