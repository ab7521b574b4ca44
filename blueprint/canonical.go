package blueprint

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// canonicalPrompt is the prompt as the original hashed it: the normalised prompt without id,
// absent fields left out.
func canonicalPrompt(p *Prompt) map[string]any {
	m := map[string]any{}
	msgs := make([]any, len(p.Messages))
	for i, msg := range p.Messages {
		var content any
		if msg.Content != nil {
			content = *msg.Content
		}
		msgs[i] = map[string]any{"role": msg.Role, "content": content}
	}
	m["messages"] = msgs
	if p.Description != "" {
		m["description"] = p.Description
	}
	if p.Ideal != nil {
		m["idealResponse"] = *p.Ideal
	}
	if p.System != nil {
		m["system"] = *p.System
	}
	if p.Citation != nil {
		m["citation"] = p.Citation
	}
	if p.Weight != nil {
		m["weight"] = *p.Weight
	}
	if p.Temperature != nil {
		m["temperature"] = *p.Temperature
	}
	if p.Should != nil {
		m["points"] = canonicalEntries(p.Should)
	}
	if p.ShouldNot != nil {
		m["should_not"] = canonicalEntries(p.ShouldNot)
	}
	if p.RequiredTools != nil {
		m["requiredTools"] = p.RequiredTools
	}
	if p.ProhibitedTools != nil {
		m["prohibitedTools"] = p.ProhibitedTools
	}
	if p.MaxCalls != nil {
		m["maxCalls"] = float64(*p.MaxCalls)
	}
	m["render_as"] = p.RenderAs
	if p.NoCache != nil {
		m["noCache"] = *p.NoCache
	}
	return m
}

func canonicalEntries(entries []rubric.Entry) []any {
	out := make([]any, len(entries))
	for i, e := range entries {
		if e.Point != nil {
			out[i] = canonicalPoint(e.Point)
			continue
		}
		path := make([]any, len(e.Path))
		for j, p := range e.Path {
			path[j] = canonicalPoint(p)
		}
		out[i] = path
	}
	return out
}

func canonicalPoint(p *rubric.Point) map[string]any {
	m := map[string]any{"multiplier": p.Multiplier}
	if p.IsFunction() {
		m["fn"] = p.Fn
		if p.HasArgs {
			m["fnArgs"] = p.Args
		}
	} else {
		m["text"] = p.Text
	}
	if p.Citation != nil {
		m["citation"] = p.Citation
	}
	return m
}

// promptHashID returns the id the original gives a prompt without one: "hash-" and the first
// 12 hex digits of SHA-256 over the canonical JSON of the normalised prompt without its id.
func promptHashID(p *Prompt) string {
	return hashID(canonicalPromptJSON(p))
}

// canonicalPromptJSON returns the canonical JSON string that promptHashID hashes.
func canonicalPromptJSON(p *Prompt) string {
	return jsjson.Canonical(canonicalPrompt(p))
}

func hashID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "hash-" + hex.EncodeToString(sum[:])[:12]
}
