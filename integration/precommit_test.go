package integration

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// hookRepo copies the repository's tracked files (as they are in the working tree) into a new
// git repository with one commit — what pre-commit clones when a project names this
// repository — and returns its path and the commit.
func hookRepo(t *testing.T) (dir, rev string) {
	t.Helper()
	root := testutil.RepoRoot(t)
	cmd := exec.CommandContext(t.Context(), "git", "ls-files", "-z")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		if os.Getenv("VECTORLINT_REQUIRE_PRECOMMIT") == "1" {
			t.Fatalf("git ls-files in %s: %v (the hook test needs a git checkout)", root, err)
		}
		t.Skipf("git ls-files in %s: %v (not a git checkout)", root, err)
	}
	dir = t.TempDir()
	n := 0
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, filepath.FromSlash(name))
		fi, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue // deleted in the working tree
		}
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, data, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
		n++
	}
	for _, need := range []string{".pre-commit-hooks.yaml", "go.mod", "cmd/vectorlint/main.go"} {
		if _, err := os.Stat(filepath.Join(dir, need)); err != nil {
			t.Fatalf("%s is not tracked by git (copied %d files)", need, n)
		}
	}
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "vectorlint under test")
	return dir, strings.TrimSpace(git(t, dir, "rev-parse", "HEAD"))
}

// TestPreCommitHook runs the real pre-commit with this repository's hook, configured as
// docs/integrations.md shows, on a temporary project repository, the hook calling the fake
// model server: a clean document passes (exit 0,
// "Passed"), a document with an error-severity finding fails the hook (exit 1, "Failed",
// the finding in the output). pre-commit builds the hook with `go install` (language: golang)
// from the module cache, so no network is needed. Skipped when pre-commit is not installed,
// unless VECTORLINT_REQUIRE_PRECOMMIT=1 (CI, after .ci/install-pre-commit).
func TestPreCommitHook(t *testing.T) {
	precommit := requireTool(t, "pre-commit", "VECTORLINT_REQUIRE_PRECOMMIT", ".ci/install-pre-commit")
	requireTool(t, "git", "VECTORLINT_REQUIRE_PRECOMMIT", ".ci/install-pre-commit")
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go is not on PATH")
	}
	goEnv, err := exec.CommandContext(t.Context(), goBin, "env", "GOMODCACHE", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	modcache, buildcache, _ := strings.Cut(strings.TrimSpace(string(goEnv)), "\n")

	hook, rev := hookRepo(t)

	srv := llmtest.Start(t, llmtest.RequireAPIKey(testAPIKey))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("In order to")),
		llmtest.JSON(map[string]any{"violations": []any{map[string]any{
			"quoted_text": "In order to", "line": 3, "message": `Say "To" instead of "In order to".`,
			"suggestion": `Write "To".`, "fix": "To", "confidence": 0.9}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))

	// The project is laid out as "vectorlint init" lays it out (rules/ next to the documents,
	// every Markdown file selected), and its .pre-commit-config.yaml is the documentation's with
	// the repository and revision of the hook under test. It has no exclude: the rule files,
	// Markdown too and passed by pre-commit, must be skipped because they are under RulesPath.
	config := hookConfig(t, "vectorlint", hook, rev)
	project := t.TempDir()
	writeFiles(t, project, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.{md,mdx,markdown}]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent. In order to help, quote them.\n",
		"docs/clean.md":           "# Deploy\n\nTo deploy, run the script.\n",
		"notes.txt":               "A text file no section of vectorlint.ini selects.\n",
		".pre-commit-config.yaml": config,
	})
	git(t, project, "init", "-q")
	git(t, project, "add", "-A")
	git(t, project, "commit", "-q", "-m", "docs")

	precommitHome := t.TempDir()
	env := cleanEnv(
		"PRE_COMMIT_HOME="+precommitHome,
		// The developer's module and build caches: pre-commit sets its own GOPATH, and
		// XDG_CACHE_HOME (set below for vectorlint's reply cache) would move the build cache.
		"GOMODCACHE="+modcache,
		"GOCACHE="+buildcache,
		"GOFLAGS=-mod=mod",
		"GOPROXY=off", // everything is in the module cache: prove the hook builds offline
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"XDG_CACHE_HOME="+t.TempDir(),
		"OPENAI_BASE_URL="+srv.URL,
		"OPENAI_API_KEY="+testAPIKey,
		"OPENAI_MODEL=test-model",
		"NO_COLOR=1",
	)
	precommitRun := func() result {
		return run(t, project, env, 10*time.Minute, precommit, "run", "--all-files", "--color", "never")
	}

	r := precommitRun()
	if r.code != 0 || !hookLine(r.stdout, "Passed") {
		t.Fatalf("clean document: exit %d (want 0)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if srv.Calls() != 1 {
		t.Errorf("clean document: %d model calls, want 1 (docs/clean.md only: not the rule file, not notes.txt)", srv.Calls())
	}
	// pre-commit ran `go install ./...` with GOPATH in its environment folder: the one command
	// it installed is vectorlint (the benchmark program is behind a build tag).
	installed, err := filepath.Glob(filepath.Join(precommitHome, "*", "golangenv-*", "bin", "*"))
	if err != nil || len(installed) != 1 || filepath.Base(installed[0]) != "vectorlint" {
		t.Errorf("pre-commit installed %v (%v), want only vectorlint", installed, err)
	}

	writeFiles(t, project, map[string]string{"docs/wordy.md": "# Deploy\n\nIn order to deploy, run the script.\n"})
	git(t, project, "add", "docs/wordy.md")
	r = precommitRun()
	if r.code != 1 || !hookLine(r.stdout, "Failed") {
		t.Fatalf("wordy document: exit %d (want 1)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"- hook id: vectorlint\n- exit code: 1\n",
		"docs/wordy.md\n  3:1  error  Say \"To\" instead of \"In order to\".  Acme.Wordiness\n",
		"✖ 1 error and 0 warnings in 2 files.",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the hook's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, testAPIKey) {
		t.Error("the API key is in pre-commit's output")
	}

	// The vectorlint-fix hook, configured as documented: it rewrites the wordy document with
	// the model's fix, and pre-commit fails the commit because the hook modified a file; once
	// the change is staged, the hook passes.
	writeFiles(t, project, map[string]string{".pre-commit-config.yaml": hookConfig(t, "vectorlint-fix", hook, rev)})
	git(t, project, "add", "-A")
	r = precommitRun()
	if r.code != 1 || !hookLine(r.stdout, "Failed") || !strings.Contains(r.stdout, "- files were modified by this hook") {
		t.Fatalf("vectorlint-fix: exit %d (want 1, files modified)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"- hook id: vectorlint-fix\n", "vectorlint: docs/wordy.md: 1 fix applied\n", "vectorlint: 1 fix applied in 1 file\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the fix hook's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if got := readText(t, filepath.Join(project, "docs", "wordy.md")); got != "# Deploy\n\nTo deploy, run the script.\n" {
		t.Errorf("docs/wordy.md after the fix hook: %q", got)
	}
	git(t, project, "add", "-A")
	if r = precommitRun(); r.code != 0 || !hookLine(r.stdout, "Passed") {
		t.Fatalf("vectorlint-fix after staging the fix: exit %d (want 0)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// Committed files named like flags (docs/security.md): the read-only hook lints them as
	// files — in the line format, not --output=json — and rewrites nothing, not even their
	// fixable findings (--fix is a file name).
	const wordy = "In order to deploy, run the script.\n"
	flagged := map[string]string{"--fix": wordy, "--output=json": wordy}
	writeFiles(t, project, flagged)
	writeFiles(t, project, map[string]string{
		".pre-commit-config.yaml": hookConfig(t, "vectorlint", hook, rev),
		"vectorlint.ini":          "RulesPath = rules\n[**/*.{md,mdx,markdown}]\nRunRules = Acme\n[--*]\nRunRules = Acme\n",
	})
	git(t, project, "add", "-A")
	before := readTree(t, project)
	r = precommitRun()
	if r.code != 1 || !hookLine(r.stdout, "Failed") || strings.Contains(r.stdout, "files were modified") {
		t.Fatalf("files named like flags: exit %d (want 1, findings, nothing modified)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{
		"--fix\n  1:1  error  Say \"To\" instead of \"In order to\".  Acme.Wordiness\n",
		"--output=json\n  1:1  error  Say \"To\" instead of \"In order to\".  Acme.Wordiness\n",
		"✖ 2 errors and 0 warnings in 4 files.",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("files named like flags: the hook's output lacks %q:\n%s", want, r.stdout)
		}
	}
	if after := readTree(t, project); !maps.Equal(before, after) {
		t.Errorf("files named like flags: the read-only hook changed the tree")
	}

	// Flags go in an overridden entry, before its "--", as the documentation shows: taken as
	// flags (the hook runs and finds the same findings).
	writeFiles(t, project, map[string]string{".pre-commit-config.yaml": hookConfigWith(t, "entry: vectorlint --fail-on", hook, rev)})
	git(t, project, "add", "-A")
	r = precommitRun()
	if r.code != 1 || !strings.Contains(r.stdout, "✖ 2 errors and 0 warnings in 4 files.") || strings.Contains(r.stdout, "no such file") {
		t.Fatalf("entry with flags: exit %d (want 1, the findings)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// Flags in args are file names: the commit fails closed, saying so.
	config = strings.Replace(hookConfig(t, "vectorlint", hook, rev), "- id: vectorlint\n", "- id: vectorlint\n        args: [--fail-on, none]\n", 1)
	writeFiles(t, project, map[string]string{".pre-commit-config.yaml": config})
	git(t, project, "add", "-A")
	r = precommitRun()
	if r.code != 1 || !strings.Contains(r.stdout, "- exit code: 2\n") ||
		!strings.Contains(r.stdout, `vectorlint: --fail-on: no such file or folder (after "--" every argument is a file name: give flags before it)`) {
		t.Fatalf("flags in args: exit %d (want the hook's exit 2 and why)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if after := readTree(t, project); !maps.Equal(before, withConfigs(after, before)) {
		t.Errorf("the tree changed")
	}
}

// readTree reads every file of a project outside .git, by slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// withConfigs is after with before's .pre-commit-config.yaml (which the test rewrote itself).
func withConfigs(after, before map[string]string) map[string]string {
	out := maps.Clone(after)
	out[".pre-commit-config.yaml"] = before[".pre-commit-config.yaml"]
	return out
}

// hookConfigWith is the documented .pre-commit-config.yaml that holds marker (the one with an
// overridden entry), pointing at the hook repository under test.
func hookConfigWith(t *testing.T, marker, hook, rev string) string {
	t.Helper()
	for _, b := range docBlocks(t, "yaml") {
		if strings.HasPrefix(b, "repos:\n") && strings.Contains(b, marker) {
			return strings.NewReplacer("https://github.com/vectorlint/vectorlint", hook, "rev: <commit-sha>", "rev: "+rev).Replace(b)
		}
	}
	t.Fatalf("docs/integrations.md has no pre-commit configuration with %q", marker)
	return ""
}

// hookConfig is the documented .pre-commit-config.yaml for the hook id, pointing at the hook
// repository under test.
func hookConfig(t *testing.T, id, hook, rev string) string {
	t.Helper()
	config := precommitSnippet(t, id)
	for old, repl := range map[string]string{"https://github.com/vectorlint/vectorlint": hook, "rev: <commit-sha>": "rev: " + rev} {
		if !strings.Contains(config, old) {
			t.Fatalf("the documented pre-commit configuration has no %q:\n%s", old, config)
		}
		config = strings.Replace(config, old, repl, 1)
	}
	return config
}

// readText reads a file the test made.
func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// hookLine reports whether pre-commit's summary line for the vectorlint hook ends in status
// ("vectorlint.....Passed").
func hookLine(out, status string) bool {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "vectorlint") && strings.HasSuffix(line, status) {
			return true
		}
	}
	return false
}
