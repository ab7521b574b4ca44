package blueprint

import (
	"math"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// The prompts of a blueprint: their fields, conversation and rubric blocks (parsed by the points
// engine's rubric parser, their functions prepared as they are read).

var promptFields = map[string]bool{
	"id": true, "description": true, "prompt": true, "promptText": true, "messages": true, "ideal": true, "idealResponse": true,
	"system": true, "systemPrompt": true, "citation": true, "reference": true, "should": true, "points": true, "expect": true,
	"expects": true, "expectations": true, "should_not": true, "weight": true, "importance": true, "multiplier": true,
	"requiredTools": true, "prohibitedTools": true, "maxCalls": true, "render_as": true, "noCache": true, "tags": true,
	"temperature": true,
}

// prompt parses the i-th prompt; nil when it has errors.
func (p *parser) prompt(bp *Blueprint, i int, n *node.Node) *Prompt {
	label := "#" + strconv.Itoa(i+1)
	if n.Kind != node.MapKind {
		p.errorf(n.Line, label, "expected a prompt (a mapping with prompt or messages), found %s", n.Describe())
		return nil
	}
	before := len(p.diags)
	pr := &Prompt{Line: n.Line}
	if v := n.Get("id"); v != nil {
		switch v.Kind {
		case node.StringKind:
			pr.ID = strings.TrimSpace(v.Str)
		case node.NumberKind:
			pr.ID = jsjson.FormatNumber(v.Num)
		case node.NullKind:
		default:
			p.errorf(v.Line, label, "expected id to be a string, found %s", v.Describe())
		}
	}
	if pr.ID != "" {
		label = pr.ID
	}
	for _, k := range n.Keys {
		if !promptFields[k.Str] {
			p.warnf(rubric.CodeUnknownField, k.Line, label, "unknown prompt field %q (ignored)", k.Str)
		}
	}
	if v := n.Get("description"); v != nil {
		pr.Description, _ = p.text(v, label, "description")
	}

	p.promptMessages(pr, n, label)
	p.promptTexts(pr, n, label)
	p.promptSettings(bp, pr, n, label)
	if v, name := p.pick(n, label, "should", "points", "expect", "expects", "expectations"); v != nil && v.Kind != node.NullKind {
		pr.Should = p.points(v, name, label)
	}
	if v := n.Get("should_not"); v != nil && v.Kind != node.NullKind {
		pr.ShouldNot = p.points(v, "should_not", label)
	}
	return p.finishPrompt(pr, before, label)
}

// promptMessages reads the prompt's conversation: messages, or prompt (promptText) as one
// user message.
func (p *parser) promptMessages(pr *Prompt, n *node.Node, label string) {
	msgs := n.Get("messages")
	promptText, promptKey := p.pick(n, label, "prompt", "promptText")
	switch {
	case msgs != nil:
		if promptText != nil {
			p.warnf(rubric.CodeAliasConflict, n.KeyLine(promptKey), label, "both messages and %s are given; %s is ignored", promptKey, promptKey)
		}
		pr.Messages = p.messages(msgs, label)
	case promptText != nil:
		if s, ok := p.text(promptText, label, promptKey); ok {
			if strings.TrimSpace(s) == "" {
				p.errorf(promptText.Line, label, "expected %s to be a non-empty string, found an empty string", promptKey)
			}
			pr.Messages = []points.Message{{Role: "user", Content: &s}}
		}
	default:
		p.errorf(n.Line, label, "expected prompt (or promptText) or messages, found neither")
	}
}

// promptTexts reads the prompt's ideal response, system prompt, citation and weight.
func (p *parser) promptTexts(pr *Prompt, n *node.Node, label string) {
	if v, name := p.pick(n, label, "ideal", "idealResponse"); v != nil && v.Kind != node.NullKind {
		if s, ok := p.text(v, label, name); ok {
			pr.Ideal = &s
		}
	}
	if v, name := p.pick(n, label, "system", "systemPrompt"); v != nil && v.Kind != node.NullKind {
		if s, ok := p.text(v, label, name); ok {
			pr.System = &s
			// Weval's run-config rule: with a list of system prompts in the header, every prompt
			// runs once with each of them, so a prompt's own would be silently replaced.
			if p.systemsKey != "" && s != "" {
				p.errorf(v.Line, label, "expected no system prompt on the prompt, since the header's %s list (line %d) runs every prompt once with each of its system prompts; found %s %s (move it into that list, or remove it)",
					p.systemsKey, p.systemsLine, name, node.QuoteShort(s))
			}
		}
	}
	if v, name := p.pick(n, label, "citation", "reference"); v != nil {
		pr.Citation = p.citation(v, label, name)
	}
	if v, name := p.pick(n, label, "weight", "importance", "multiplier"); v != nil {
		if v.Kind != node.NumberKind || v.Num < 0.1 || v.Num > 10 || math.IsNaN(v.Num) {
			p.errorf(v.Line, label, "expected %s to be a number between 0.1 and 10, found %s", name, v.Describe())
		} else {
			w := v.Num
			pr.Weight = &w
		}
	}
}

// promptSettings reads how the prompt is run: temperature, tools, maxCalls, render_as,
// noCache (the header's when the prompt has none) and tags.
func (p *parser) promptSettings(bp *Blueprint, pr *Prompt, n *node.Node, label string) {
	if v := n.Get("temperature"); v != nil {
		if f, ok := p.numberIn(v, label, "temperature", 0, maxTemperature); ok {
			pr.Temperature = &f
			if headerTemperature(bp) {
				p.warnf(CodeIgnoredTemperature, v.Line, label, "temperature %s is not used: the header's temperature(s) apply to every prompt, as in Weval; remove one or the other",
					jsjson.FormatNumber(f))
			}
		}
	}
	if v := n.Get("requiredTools"); v != nil {
		pr.RequiredTools = p.strings(v, label, "requiredTools")
	}
	if v := n.Get("prohibitedTools"); v != nil {
		pr.ProhibitedTools = p.strings(v, label, "prohibitedTools")
	}
	if v := n.Get("maxCalls"); v != nil {
		if c, ok := p.integer(v, label, "maxCalls", 0, maxToolCalls); ok {
			pr.MaxCalls = &c
		}
	}
	pr.RenderAs = p.defaultRenderAs
	if v := n.Get("render_as"); v != nil {
		pr.RenderAs = p.renderAs(v, label)
	}
	if pr.RenderAs == "" {
		pr.RenderAs = "markdown"
	}
	if v := n.Get("noCache"); v != nil {
		if b, ok := p.boolean(v, label, "noCache"); ok {
			pr.NoCache = &b
		}
	} else if bp.NoCache != nil {
		// The header's noCache is each prompt's default, copied in before the id is hashed, as
		// Weval's parser does: a prompt without an id gets the id Weval gives it.
		b := *bp.NoCache
		pr.NoCache = &b
	}
	if v := n.Get("tags"); v != nil {
		pr.Tags = p.strings(v, label, "tags")
	}
}

// finishPrompt returns pr, or nil when parsing it found an error (the diagnostics from
// before on); a prompt without an id gets its hashed id, and its diagnostics name it.
func (p *parser) finishPrompt(pr *Prompt, before int, label string) *Prompt {
	for _, d := range p.diags[before:] {
		if d.Level == finding.LevelError {
			return nil
		}
	}
	if pr.ID == "" {
		pr.ID = promptHashID(pr)
		pr.HashedID = true
		for j := before; j < len(p.diags); j++ {
			if p.diags[j].Field == rubric.Subject("", label) {
				p.diags[j].Field = rubric.Subject("", pr.ID)
			}
		}
	}
	return pr
}

func (p *parser) citation(v *node.Node, prompt, what string) any {
	switch v.Kind {
	case node.StringKind:
		return v.Str
	case node.MapKind:
		t, _ := p.pick(v, prompt, "title", "name")
		if t == nil || t.Kind != node.StringKind || strings.TrimSpace(t.Str) == "" {
			p.errorf(v.Line, prompt, "expected %s to have a title (or name) string, found %s", what, v.Describe())
			return nil
		}
		return v.ToAny()
	case node.NullKind:
		return nil
	}
	p.errorf(v.Line, prompt, "expected %s to be a string or a mapping with title and url, found %s", what, v.Describe())
	return nil
}

var messageRoles = map[string]string{"user": "user", "assistant": "assistant", "ai": "assistant", "system": "system"}

func (p *parser) messages(v *node.Node, prompt string) []points.Message {
	if v.Kind != node.ListKind || len(v.Items) == 0 {
		p.errorf(v.Line, prompt, "expected messages to be a non-empty list of {role, content} or {user: ...} entries, found %s", v.Describe())
		return nil
	}
	out := make([]points.Message, 0, len(v.Items))
	lines := make([]int, 0, len(v.Items))
	ok := true
	for i, item := range v.Items {
		idx := i + 1
		if item.Kind != node.MapKind {
			p.errorf(item.Line, prompt, "message %d: expected {role, content} or a one-key shorthand such as {user: ...}, found %s", idx, item.Describe())
			ok = false
			continue
		}
		var role string
		var content *node.Node
		if item.Get("role") != nil || item.Get("content") != nil {
			r := item.Get("role")
			if r == nil || r.Kind != node.StringKind || messageRoles[r.Str] == "" {
				p.errorf(item.Line, prompt, "message %d: expected role \"user\", \"assistant\" or \"system\", found %s", idx, r.Describe())
				ok = false
				continue
			}
			role = messageRoles[r.Str]
			content = item.Get("content")
			for _, k := range item.Keys {
				if k.Str != "role" && k.Str != "content" {
					p.warnf(rubric.CodeUnknownField, k.Line, prompt, "message %d: unknown field %q (ignored)", idx, k.Str)
				}
			}
			if content == nil {
				content = &node.Node{Kind: node.NullKind, Line: item.Line}
			}
		} else {
			if len(item.Keys) != 1 {
				p.errorf(item.Line, prompt, "message %d: expected exactly one key (user, assistant, ai or system), found %s", idx, item.Describe())
				ok = false
				continue
			}
			key := item.Keys[0].Str
			role = messageRoles[key]
			if role == "" {
				p.errorf(item.Line, prompt, "message %d: expected the role user, assistant, ai or system, found %q", idx, key)
				ok = false
				continue
			}
			content = item.Vals[0]
		}
		switch {
		case content.Kind == node.NullKind && role == "assistant":
			out = append(out, points.Message{Role: role})
		case content.Kind == node.StringKind && strings.TrimSpace(content.Str) != "":
			s := content.Str
			out = append(out, points.Message{Role: role, Content: &s})
		case content.Kind == node.StringKind:
			p.errorf(content.Line, prompt, "message %d (%s): expected non-empty content, found an empty string", idx, role)
			ok = false
			continue
		default:
			p.errorf(content.Line, prompt, "message %d (%s): expected the content to be a string%s, found %s", idx, role,
				map[bool]string{true: " (or null for a turn to generate)", false: ""}[role == "assistant"], content.Describe())
			ok = false
			continue
		}
		lines = append(lines, item.Line)
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
				p.warnf(rubric.CodeInvalid, lines[i], prompt, "message %d: a system message after the conversation has started; most providers expect system messages first", i+1)
			}
			continue
		}
		seenTurn = true
		if m.Role == prev {
			p.warnf(rubric.CodeInvalid, lines[i], prompt, "messages %d and %d are both %q: user and assistant turns should alternate (system messages aside); they are sent as written, and some providers merge or reject consecutive turns", prevIdx, i+1, m.Role)
		}
		prev, prevIdx = m.Role, i+1
	}
	if !seenTurn {
		p.errorf(v.Line, prompt, "expected messages to contain a user message, found only system messages")
		return out
	}
	last := out[len(out)-1]
	if last.Role == "assistant" && last.Content != nil {
		p.errorf(lines[len(lines)-1], prompt, "expected the last message to be from the user (or assistant: null, a turn to generate), found an authored assistant message")
	}
	return out
}

// points parses a prompt's should or should_not block (named name) with the rubric parser, its
// functions compiled by the engine as they are parsed, and keeps its problems in order.
func (p *parser) points(v *node.Node, name, prompt string) []rubric.Entry {
	opts := rubric.Options{File: p.file, Owner: prompt, Prepare: points.Prepare}
	if p.defs != nil {
		opts.Defs = p.defs
	}
	entries, diags := rubric.ParseBlock(v, name, opts)
	p.diags = append(p.diags, diags...)
	return entries
}
