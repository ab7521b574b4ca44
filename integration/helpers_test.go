package integration

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// testAPIKey is the key given to the hook and the action; tests check where it appears.
const testAPIKey = "sk-integ-0123456789abcdef"

// requireTool returns the path of an external program, or skips the test when it is missing —
// unless the environment variable require is "1" (CI), where a missing program fails.
func requireTool(t *testing.T, name, require, install string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err == nil {
		return path
	}
	if os.Getenv(require) == "1" {
		t.Fatalf("%s is not on PATH and %s=1: run %s", name, require, install)
	}
	t.Skipf("%s is not on PATH (run %s; %s=1 makes this a failure)", name, install, require)
	return ""
}

// buildVectorlint builds the command into a temporary folder and returns that folder.
func buildVectorlint(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", filepath.Join(bin, "vectorlint"), "./cmd/vectorlint")
	cmd.Dir = testutil.RepoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// result is what a program printed and its exit code.
type result struct {
	stdout, stderr string
	code           int
}

// run runs a program in dir with env as its whole environment, for at most limit.
func run(t *testing.T, dir string, env []string, limit time.Duration, name string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), limit)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		if !ok || ctx.Err() != nil {
			t.Fatalf("%s %s: %v (context: %v)\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), err, ctx.Err(), stdout.String(), stderr.String())
		}
		code = ee.ExitCode()
	}
	return result{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// git runs git in dir with a fixed identity and no user or system configuration, and fails the
// test when it fails.
func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	env := append(os.Environ(),
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=vectorlint test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=vectorlint test", "GIT_COMMITTER_EMAIL=test@example.com")
	r := run(t, dir, env, time.Minute, "git", args...)
	if r.code != 0 {
		t.Fatalf("git %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r.stdout
}

// writeFiles creates files (slash-separated paths relative to dir).
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// providerVars are the prefixes of the variables that configure vectorlint's model or the
// Action: cleanEnv drops them so a developer's own settings never leak into a test.
var providerVars = []string{"OPENAI_", "AZURE_OPENAI_", "ANTHROPIC_", "GEMINI_", "PERPLEXITY_", "LLM_PROVIDER",
	"SEARCH_MODEL", "CONFIDENCE_THRESHOLD", "VECTORLINT_CONFIG", "INPUT_", "GITHUB_", "RUNNER_", "XDG_CACHE_HOME"}

// cleanEnv is the process environment without providerVars, plus extra ("KEY=value").
func cleanEnv(extra ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, p := range providerVars {
			if strings.HasPrefix(k, p) {
				keep = false
			}
		}
		if keep {
			out = append(out, kv)
		}
	}
	return append(out, extra...)
}
