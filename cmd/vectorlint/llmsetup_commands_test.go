package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestCommandsShareClientSetup checks that blueprint run gets its client from the same setup as
// lint and evaluate (newLLMClient): the default cache folder from XDG_CACHE_HOME in the process
// environment, so a second run is answered from the cache, and the price variables, whose bad
// values are reported the same way. XDG_CACHE_HOME in a repository's .env is ignored: a file in
// the repository may not choose where the tool writes (spec/trust.md §2).
func TestCommandsShareClientSetup(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("Paris."))
	planted := filepath.Join(t.TempDir(), "planted")
	dir := writeBlueprintFiles(t, map[string]string{
		"c.yml": "models: [openai:one]\n---\n- id: p\n  prompt: Capital?\n  should: [{$contains: Paris}]\n",
		".env":  "XDG_CACHE_HOME=" + planted + "\n",
	})
	xdg := filepath.Join(t.TempDir(), "xdg")
	env := map[string]string{"OPENAI_API_KEY": "k-123456", "OPENAI_BASE_URL": srv.URL, "XDG_CACHE_HOME": xdg}
	for run, wantCalls := range []int{1, 1} {
		code, _, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--eval-method", "llm-coverage")
		if code != exitOK || srv.Calls() != wantCalls {
			t.Fatalf("run %d: exit %d, %d calls (want %d)\n%s", run+1, code, srv.Calls(), wantCalls, stderr)
		}
	}
	if _, err := os.Stat(filepath.Join(xdg, "vectorlint")); err != nil {
		t.Errorf("no cache folder under the process's XDG_CACHE_HOME: %v", err)
	}
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the cache went to XDG_CACHE_HOME from .env (%s): %v", planted, err)
	}

	// Without XDG_CACHE_HOME in the process environment, HOME decides, never the .env's value.
	home := t.TempDir()
	delete(env, "XDG_CACHE_HOME")
	env["HOME"] = home
	if code, _, stderr := runBlueprintAt(t, dir, env, "blueprint", "run", "c.yml", "--eval-method", "llm-coverage"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(home, ".cache", "vectorlint")); err != nil {
		t.Errorf("no cache folder under HOME/.cache: %v", err)
	}
	if _, err := os.Stat(planted); !os.IsNotExist(err) {
		t.Errorf("the cache went to XDG_CACHE_HOME from .env (%s): %v", planted, err)
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
