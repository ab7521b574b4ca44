package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// prCheckout builds what a pull_request job sees: an "origin" repository holding main (the
// base) and a branch that edits, adds, renames and deletes documents, and a shallow clone of
// the branch (actions/checkout's default depth of 1). It returns the clone and main's commit.
func prCheckout(t *testing.T) (checkout, base, head string) {
	t.Helper()
	testutil.RequireGit(t)
	work := t.TempDir()
	testutil.GitInit(t, work)
	testutil.WriteFiles(t, work, map[string]string{
		"vectorlint.ini": "RulesPath = .github/rules\n[**/*.md]\nRunRules = Acme\n",
		".github/rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"docs/a.md":    "# A\n\nShort.\n",
		"docs/b.md":    "# B\n\nIn order to stay, this file is not changed.\n",
		"docs/old.md":  "# Old\n\nThis page moves.\nIts text stays mostly.\nSo git sees a rename.\n",
		"docs/gone.md": "# Gone\n",
	})
	testutil.GitCommitAll(t, work, "base")
	base = strings.TrimSpace(testutil.Git(t, work, "rev-parse", "HEAD"))
	testutil.Git(t, work, "checkout", "-q", "-b", "feature")
	testutil.WriteFiles(t, work, map[string]string{
		"docs/a.md":   "# A\n\nIn order to deploy, run the script.\n",
		"docs/new.md": "# New\n\nA new page.\n",
	})
	testutil.Git(t, work, "mv", "docs/old.md", "docs/moved.md")
	testutil.WriteFiles(t, work, map[string]string{"docs/moved.md": "# Old\n\nThis page moves.\nIts text stays mostly.\nSo git sees a rename!\n"})
	testutil.Git(t, work, "rm", "-q", "docs/gone.md")
	testutil.GitCommitAll(t, work, "feature")
	head = strings.TrimSpace(testutil.Git(t, work, "rev-parse", "HEAD"))
	origin := filepath.Join(t.TempDir(), "origin.git")
	testutil.Git(t, work, "clone", "-q", "--bare", work, origin)
	checkout = filepath.Join(t.TempDir(), "checkout")
	testutil.Git(t, t.TempDir(), "clone", "-q", "--depth", "1", "--branch", "feature", "file://"+origin, checkout)
	if shallow := strings.TrimSpace(testutil.Git(t, checkout, "rev-parse", "--is-shallow-repository")); shallow != "true" {
		t.Fatalf("the checkout is not shallow (%s)", shallow)
	}
	return checkout, base, head
}

// TestActionChangedOnly runs the action's Cache key and Run vectorlint steps as a pull request
// job does, against a real shallow checkout: the script fetches the history it needs, lints
// only what the pull request changed, and a second run of the same commit, with the cache the
// first saved, makes no model call.
func TestActionChangedOnly(t *testing.T) {
	requireTool(t, "bash", "VECTORLINT_REQUIRE_PRECOMMIT", "apt-get install bash")
	checkout, base, head := prCheckout(t)
	r := buildAction(t)
	srv := llmtest.Start(t, llmtest.RequireAPIKey(testAPIKey))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("In order to")),
		llmtest.JSON(map[string]any{"violations": []any{map[string]any{"quoted_text": "In order to", "line": 3, "message": `Say "To".`, "confidence": 0.9}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	runnerTemp := t.TempDir()
	env := func(extra ...string) []string {
		return append([]string{"PATH=" + r.binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "XDG_CACHE_HOME=" + t.TempDir(),
			"GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1", "RUNNER_OS=Linux", "RUNNER_TEMP=" + runnerTemp,
			"GITHUB_SHA=" + head}, extra...)
	}
	inputs := map[string]string{"base-url": srv.URL, "api-key": testAPIKey}

	// The Cache key step: the rules' fingerprint and the commit.
	output := filepath.Join(t.TempDir(), "github_output")
	k := r.runStep("Cache key", checkout, inputs, env("GITHUB_OUTPUT="+output)...)
	out, _ := os.ReadFile(output)
	m := regexp.MustCompile(`^prefix=(vectorlint-Linux-[0-9a-f]{64}-)\nkey=(vectorlint-Linux-[0-9a-f]{64}-` + head + `)\n$`).FindStringSubmatch(string(out))
	if k.code != 0 || m == nil || !strings.HasPrefix(m[2], m[1]) {
		t.Fatalf("Cache key: exit %d, output %q\n%s", k.code, out, k.stderr)
	}

	r.ctx = map[string]string{"runner.temp": runnerTemp, "github.event.pull_request.base.sha": base}
	annotation := "::error file=docs/a.md,line=3,col=1,endLine=3,endColumn=12,title=Acme.Wordiness::Say \"To\"."
	selected := "vectorlint: changed since " + base + " (merge base " + base[:12] + "): 3 of 4 files (3 changed)\n"
	for i, want := range []struct {
		calls   int
		usage   string
		shallow bool
	}{
		{calls: 3, usage: "LLM usage: 3 calls, ", shallow: true},
		// The same commit again, the cache folder as the first run left it (what
		// actions/cache restores): every reply is cached.
		{calls: 0, usage: "LLM usage: 0 calls (3 cached), 0 input and 0 output tokens."},
	} {
		summary := filepath.Join(t.TempDir(), "summary.md")
		before := srv.Calls()
		res := r.runStep("Run vectorlint", checkout, inputs, env("GITHUB_STEP_SUMMARY="+summary)...)
		if res.code != 1 || !strings.Contains(res.stdout, annotation) || res.stderr != selected {
			t.Fatalf("run %d: exit %d\nstdout:\n%s\nstderr:\n%s", i+1, res.code, res.stdout, res.stderr)
		}
		// Only the pull request's files: the unchanged docs/b.md (which has a finding) is not
		// linted, the deleted one is gone.
		if strings.Contains(res.stdout, "docs/b.md") || !strings.Contains(res.stdout, "::notice title=vectorlint::✖ 1 error and 0 warnings in 3 files.") {
			t.Errorf("run %d: stdout:\n%s", i+1, res.stdout)
		}
		if got := strings.Contains(res.stdout, "vectorlint: changed-only: the checkout is shallow; fetching its history"); got != want.shallow {
			t.Errorf("run %d: shallow fetch message %v, want %v", i+1, got, want.shallow)
		}
		if n := srv.Calls() - before; n != want.calls {
			t.Errorf("run %d: %d model calls, want %d", i+1, n, want.calls)
		}
		s, _ := os.ReadFile(summary)
		if !strings.Contains(string(s), want.usage) {
			t.Errorf("run %d: job summary lacks %q:\n%s", i+1, want.usage, s)
		}
	}
	if shallow := strings.TrimSpace(testutil.Git(t, checkout, "rev-parse", "--is-shallow-repository")); shallow != "false" {
		t.Errorf("the checkout is still shallow")
	}

	tests := []struct {
		name   string
		inputs map[string]string
		ctx    map[string]string
		code   int
		want   string // in stdout
		stderr string
	}{
		{name: "changed-only false: every file", inputs: map[string]string{"changed-only": "false"},
			ctx: r.ctx, code: 1, want: "::notice title=vectorlint::✖ 2 errors and 0 warnings in 4 files."},
		{name: "not a pull request: every file", ctx: map[string]string{"runner.temp": runnerTemp},
			code: 1, want: "::notice title=vectorlint::✖ 2 errors and 0 warnings in 4 files."},
		{name: "a merge queue's base", ctx: map[string]string{"runner.temp": runnerTemp, "github.event.merge_group.base_sha": base},
			code: 1, want: "::notice title=vectorlint::✖ 1 error and 0 warnings in 3 files.", stderr: selected},
		{name: "changed lines", inputs: map[string]string{"changed-lines": "true"}, ctx: r.ctx,
			code: 1, want: annotation, stderr: strings.TrimSuffix(selected, "\n") + "; findings on changed lines only\n"},
		{name: "a base that is not a commit hash", ctx: map[string]string{"runner.temp": runnerTemp, "github.event.pull_request.base.sha": "--upload-pack=touch x"},
			code: 2, want: "::error title=vectorlint::changed-only: the base commit is not a commit hash"},
		{name: "a base that cannot be fetched", ctx: map[string]string{"runner.temp": runnerTemp, "github.event.pull_request.base.sha": strings.Repeat("ab", 20)},
			code: 2, want: "::error title=vectorlint::changed-only: the pull request's base commit " + strings.Repeat("ab", 20) + " is not in the checkout and could not be fetched"},
		{name: "over max-cost: no call", inputs: map[string]string{"max-cost": "0.0001", "cache": "false"}, ctx: r.ctx, code: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.ctx = tt.ctx
			given := map[string]string{"base-url": srv.URL, "api-key": testAPIKey}
			for k, v := range tt.inputs {
				given[k] = v
			}
			before := srv.Calls()
			res := r.runStep("Run vectorlint", checkout, given, env("GITHUB_STEP_SUMMARY="+filepath.Join(t.TempDir(), "s.md"),
				"INPUT_PRICE_PER_MILLION=1000", "OUTPUT_PRICE_PER_MILLION=1000")...)
			if res.code != tt.code || !strings.Contains(res.stdout, tt.want) || (tt.stderr != "" && res.stderr != tt.stderr) {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, tt.code, res.stdout, res.stderr)
			}
			if tt.code == 2 && srv.Calls() != before {
				t.Errorf("%d calls made", srv.Calls()-before)
			}
			if tt.name == "over max-cost: no call" && !strings.Contains(res.stderr, "vectorlint: over budget: estimated cost $") {
				t.Errorf("stderr:\n%s", res.stderr)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(checkout, "x")); err == nil {
		t.Error("the base sha ran a command")
	}
}
