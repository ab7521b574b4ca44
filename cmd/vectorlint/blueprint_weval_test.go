package main

import (
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestBlueprintWevalRunConfigRules: the rules Weval's run-config checks before a run
// (src/cli/commands/run-config.ts, tested in src/cli/commands/__tests__/run-config-systems.test.ts)
// are errors of `blueprint check` and stop `blueprint run` before any model is called.
func TestBlueprintWevalRunConfigRules(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("Hello."))
	dir := writeBlueprintFiles(t, map[string]string{
		"override.yml": "models: [openai:m]\nsystems: [System 1, System 2]\n---\n- {id: p1, prompt: Hello}\n- id: p2\n  prompt: Hi\n  system: This should not be allowed\n",
		"nulls.yml":    "models: [openai:m]\nsystem:\n  - null\n  - System 1\n  - null\n---\n- {id: p1, prompt: Hello}\n",
	})
	env := map[string]string{"OPENAI_API_KEY": "sk-test-0123456789", "OPENAI_BASE_URL": srv.URL}
	tests := []struct{ file, err string }{
		{"override.yml", `override.yml:7: error: prompt "p2": expected no system prompt on the prompt, since the header's systems list (line 2) runs every prompt once with each of its system prompts; found system "This should not be allowed" (move it into that list, or remove it)`},
		{"nulls.yml", `nulls.yml:5: error: expected at most one null entry in system (null runs the prompts without a system prompt), found a second null (the first is at line 3)`},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			code, stdout, stderr := runBlueprintAt(t, dir, env, "blueprint", "check", tt.file)
			if want := tt.err + "\nchecked 1 blueprint: 1 invalid, 0 warnings\n"; code != exitFailure || stdout != want || stderr != "" {
				t.Errorf("check: exit %d\nstdout %q\nwant   %q\nstderr %q", code, stdout, want, stderr)
			}
			code, stdout, stderr = runBlueprintAt(t, dir, env, "blueprint", "run", tt.file, "--no-cache")
			if want := tt.err + "\nvectorlint blueprint run: " + tt.file + " is not a valid blueprint\n"; code != exitFailure || stdout != "" || stderr != want {
				t.Errorf("run: exit %d\nstdout %q\nstderr %q\nwant   %q", code, stdout, stderr, want)
			}
			if n := srv.Calls(); n != 0 {
				t.Errorf("%d model calls, want none", n)
			}
		})
	}
}
