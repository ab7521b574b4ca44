package testutil

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RequireGit returns the path of git, or skips the test when git is not installed — unless
// VECTORLINT_REQUIRE_GIT=1 (CI), where a missing git fails the test.
func RequireGit(t testing.TB) string {
	t.Helper()
	path, err := exec.LookPath("git")
	if err == nil {
		return path
	}
	if os.Getenv("VECTORLINT_REQUIRE_GIT") == "1" {
		t.Fatal("git is not on PATH and VECTORLINT_REQUIRE_GIT=1")
	}
	t.Skip("git is not on PATH (VECTORLINT_REQUIRE_GIT=1 makes this a failure)")
	return ""
}

// GitEnv is the environment test repositories are built with: the process environment
// without the user's or the system's git configuration, with a fixed identity and dates so
// commits are reproducible.
func GitEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "GIT_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env,
		"GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=vectorlint test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=vectorlint test", "GIT_COMMITTER_EMAIL=test@example.com",
		"GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z")
}

// Git runs git in dir (with GitEnv) and returns its standard output, failing the test when git
// fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = GitEnv()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("git %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// GitInit makes dir a repository whose first branch is main (skipping the test when git is
// missing, see RequireGit).
func GitInit(t testing.TB, dir string) {
	t.Helper()
	RequireGit(t)
	Git(t, dir, "init", "-q", "-b", "main")
}

// WriteFiles creates or replaces files (slash-separated paths relative to dir).
func WriteFiles(t testing.TB, dir string, files map[string]string) {
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

// GitCommitAll stages everything in dir and commits it with message.
func GitCommitAll(t testing.TB, dir, message string) {
	t.Helper()
	Git(t, dir, "add", "-A")
	Git(t, dir, "commit", "-q", "--allow-empty", "-m", message)
}
