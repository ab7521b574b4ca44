package blueprint

import (
	"errors"
	"reflect"
	"testing"
)

// TestSystemsRules reproduces weval-org/app src/cli/commands/__tests__/run-config-systems.test.ts
// (the rules of loadAndValidateConfig in src/cli/commands/run-config.ts) as parse errors, so
// `blueprint check` reports them and `blueprint run` stops before any call: a prompt's own
// system prompt under a header list of system prompts, and a list with two nulls. Each error
// names the file and line, what was expected and what was found.
func TestSystemsRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string // errors; nil: the blueprint parses
		systems   int      // with want nil: the length of Systems
	}{
		{name: "a single global system with per-prompt overrides",
			src:     "system: Global system prompt\n---\n- {id: p1, prompt: Hello}\n- {id: p2, prompt: Hi, system: Per-prompt override}\n",
			systems: 0},
		{name: "systems without per-prompt overrides",
			src:     "systems: [System 1, System 2]\n---\n- {id: p1, prompt: Hello}\n- {id: p2, prompt: Hi}\n",
			systems: 2},
		{name: "systems and a prompt's system override",
			src:  "systems: [System 1, System 2]\n---\n- {id: p1, prompt: Hello}\n- id: p2\n  prompt: Hi\n  system: This should not be allowed\n",
			want: []string{`s.yml:6: error: prompt "p2": expected no system prompt on the prompt, since the header's systems list (line 1) runs every prompt once with each of its system prompts; found system "This should not be allowed" (move it into that list, or remove it)`}},
		{name: "a system list (the systems alias) and a prompt's systemPrompt",
			src:  "system:\n  - null\n  - Be terse.\n---\n- id: p\n  prompt: Hi\n  systemPrompt: Be verbose.\n",
			want: []string{`s.yml:7: error: prompt "p": expected no system prompt on the prompt, since the header's system list (line 1) runs every prompt once with each of its system prompts; found systemPrompt "Be verbose." (move it into that list, or remove it)`}},
		{name: "a list of one system prompt is a list too",
			src:  "system: [Be terse.]\n---\n- {id: p, prompt: Hi, system: Be verbose.}\n",
			want: []string{`s.yml:3: error: prompt "p": expected no system prompt on the prompt, since the header's system list (line 1) runs every prompt once with each of its system prompts; found system "Be verbose." (move it into that list, or remove it)`}},
		{name: "a prompt's empty or null system is no override (Weval tests p.system for truth)",
			src:     "systems: [System 1, System 2]\n---\n- {id: p1, prompt: Hello, system: ''}\n- {id: p2, prompt: Hi, system: null}\n",
			systems: 2},
		{name: "systems that are not strings or nulls",
			src:  "systems: [System 1, {an: object}]\n---\n- {id: p1, prompt: Hello}\n",
			want: []string{`s.yml:1: error: expected each entry of systems to be a system prompt string or null, found a mapping with keys "an"`}},
		{name: "systems with two nulls",
			src:  "systems:\n  - System 1\n  - null\n  - null\n---\n- {id: p1, prompt: Hello}\n",
			want: []string{`s.yml:4: error: expected at most one null entry in systems (null runs the prompts without a system prompt), found a second null (the first is at line 3)`}},
		{name: "systems with one null",
			src:     "systems: [System 1, null, System 3]\n---\n- {id: p1, prompt: Hello}\n",
			systems: 3},
		{name: "an empty systems list allows per-prompt overrides",
			src:     "systems: []\n---\n- {id: p1, prompt: Hello}\n- {id: p2, prompt: Hi, system: This is fine}\n",
			systems: 0},
		{name: "the legacy systemPrompt in the header",
			src:     "systemPrompt: Legacy global prompt\nmodels: [test-model]\nprompts:\n  - id: p1\n    promptText: Hello\n",
			systems: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp, err := Parse([]byte(tt.src), ParseOptions{File: "s.yml"})
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if len(bp.Systems) != tt.systems {
					t.Errorf("%d system prompts, want %d", len(bp.Systems), tt.systems)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse: got %v, want a *ParseError", err)
			}
			if got := diagStrings(pe.Errors()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	// The header's legacy systemPrompt becomes the global system prompt.
	bp := mustParse(t, "s.yml", "systemPrompt: Legacy global prompt\nprompts:\n  - {id: p1, promptText: Hello}\n")
	if bp.System == nil || *bp.System != "Legacy global prompt" {
		t.Errorf("system = %v, want the legacy systemPrompt", bp.System)
	}
}
