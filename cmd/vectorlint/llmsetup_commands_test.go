package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestCommandsShareClientSetup checks that blueprint run gets its client from the same setup as
// lint and evaluate (newLLMClient): the default cache folder from XDG_CACHE_HOME — here given in
// .env, which every command reads — so a second run is answered from the cache, and the price
// variables, whose bad values are reported the same way.
func TestCommandsShareClientSetup(t *testing.T) {
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("Paris."))
	dir := writeBlueprintFiles(t, map[string]string{
		"c.yml": "models: [openai:one]\n---\n- id: p\n  prompt: Capital?\n  should: [{$contains: Paris}]\n",
		".env":  "XDG_CACHE_HOME=" + filepath.Join(t.TempDir(), "xdg") + "\n",
	})
	env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL}
	for run, wantCalls := range []int{1, 1} {
		code, _, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--eval-method", "llm-coverage")
		if code != exitOK || srv.Calls() != wantCalls {
			t.Fatalf("run %d: exit %d, %d calls (want %d)\n%s", run+1, code, srv.Calls(), wantCalls, stderr)
		}
	}
	dotEnv, _ := os.ReadFile(filepath.Join(dir, ".env"))
	cache := filepath.Join(string(dotEnv[len("XDG_CACHE_HOME="):len(dotEnv)-1]), "vectorlint")
	if _, err := os.Stat(cache); err != nil {
		t.Errorf("no cache folder under XDG_CACHE_HOME from .env: %v", err)
	}

	env["INPUT_PRICE_PER_MILLION"] = "cheap"
	code, _, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--no-cache")
	lint := runVectorlint(t, dir, env, "", "evaluate", "bias", "--response", "a", "--dimension", "age", "--expected", "0", "--tolerance", "0")
	if code != exitFailure || lint.code != exitFailure ||
		stderr[len("vectorlint blueprint run: "):] != lint.stderr[len("vectorlint evaluate: "):] {
		t.Errorf("a bad price: blueprint exit %d %q; evaluate exit %d %q", code, stderr, lint.code, lint.stderr)
	}
	if want := "INPUT_PRICE_PER_MILLION"; !strings.Contains(stderr, want) {
		t.Errorf("the message does not name %s: %q", want, stderr)
	}
}
