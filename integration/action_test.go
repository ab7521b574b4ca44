package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/baseline"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// action is the part of action.yml (a composite GitHub Action) the tests read.
type action struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string  `yaml:"description"`
		Default     *string `yaml:"default"`
		Required    bool    `yaml:"required"`
	} `yaml:"inputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

type actionStep struct {
	Name  string            `yaml:"name"`
	ID    string            `yaml:"id"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
	Run   string            `yaml:"run"`
}

func readAction(t *testing.T) action {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	var a action
	if err := dec.Decode(&a); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// step returns the step with the given name.
func (a action) step(t *testing.T, name string) actionStep {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("action.yml has no step %q", name)
	return actionStep{}
}

// inputRef finds the inputs an expression or an if: condition names.
var inputRef = regexp.MustCompile(`\binputs\.([A-Za-z0-9_-]+)`)

// anyExpr is any ${{ }} expression.
var anyExpr = regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`)

func TestActionStructure(t *testing.T) {
	a := readAction(t)
	if a.Name != "vectorlint" || a.Description == "" || a.Branding.Icon == "" || a.Branding.Color == "" {
		t.Errorf("name %q, description %q, branding %+v", a.Name, a.Description, a.Branding)
	}
	var names []string
	for name, in := range a.Inputs {
		names = append(names, name)
		if in.Description == "" || in.Default == nil || in.Required {
			t.Errorf("input %s: every input needs a description and a default, and none is required", name)
		}
	}
	sort.Strings(names)
	want := []string{"api-key", "base-url", "baseline", "cache", "changed-lines", "changed-only", "config", "fail-on", "flags", "max-cost", "model",
		"output", "output-file", "paths", "provider", "version"}
	if !slices.Equal(names, want) {
		t.Errorf("inputs = %v, want %v", names, want)
	}
	for name, def := range map[string]string{"paths": ".", "fail-on": "error", "output": "github", "changed-only": "true",
		"changed-lines": "false", "cache": "true", "max-cost": ""} {
		if got := *a.Inputs[name].Default; got != def {
			t.Errorf("input %s defaults to %q, want %q", name, got, def)
		}
	}

	if a.Runs.Using != "composite" || len(a.Runs.Steps) != 10 {
		t.Fatalf("runs: using %q, %d steps; want a composite action of 10 steps", a.Runs.Using, len(a.Runs.Steps))
	}
	// The reply cache is restored before the run and saved after it, even when the run fails
	// (findings exit 1), under the key the Cache key step computes, in the folder the run uses.
	restore, save := a.step(t, "Restore the reply cache"), a.step(t, "Save the reply cache")
	if !strings.HasPrefix(restore.Uses, "actions/cache/restore@v") || !strings.HasPrefix(save.Uses, "actions/cache/save@v") ||
		restore.With["path"] != "${{ runner.temp }}/vectorlint-cache" || save.With["path"] != restore.With["path"] ||
		restore.With["key"] != "${{ steps.cache-key.outputs.key }}" || save.With["key"] != restore.With["key"] ||
		!strings.Contains(restore.With["restore-keys"], "${{ steps.cache-key.outputs.prefix }}") ||
		a.step(t, "Run vectorlint").Env["CACHE_DIR"] != restore.With["path"] {
		t.Errorf("cache steps: restore %+v, save %+v", restore, save)
	}
	if !strings.HasPrefix(save.If, "always() && inputs.cache == 'true'") || restore.If != "inputs.cache == 'true'" ||
		a.step(t, "Cache key").ID != "cache-key" || restore.ID != "cache-restore" {
		t.Errorf("cache steps' conditions: restore %q, save %q", restore.If, save.If)
	}
	// The binary: the release's, else a build restored from the cache or made and saved there
	// (integration.TestActionInstallRelease and TestActionBuildCache run these steps), the
	// cache holding the folder the Locate step puts on the PATH. setup-go hashes a go.sum in the
	// workspace, the only place it looks.
	locate, restoreBin, saveBin := a.Runs.Steps[0], a.step(t, "Restore the vectorlint build"), a.step(t, "Save the vectorlint build")
	if locate.Name != "Locate vectorlint" || locate.ID != "vectorlint-bin" || restoreBin.ID != "vectorlint-build" ||
		!strings.HasPrefix(restoreBin.Uses, "actions/cache/restore@v") || !strings.HasPrefix(saveBin.Uses, "actions/cache/save@v") ||
		restoreBin.With["path"] != "${{ runner.temp }}/vectorlint-bin" || saveBin.With["path"] != restoreBin.With["path"] ||
		restoreBin.With["key"] != "${{ steps.vectorlint-bin.outputs.build-key }}" || saveBin.With["key"] != restoreBin.With["key"] ||
		len(restoreBin.With) != 2 {
		t.Errorf("binary steps: locate %q, restore %+v, save %+v", locate.Name, restoreBin, saveBin)
	}
	setup := a.step(t, "Set up Go")
	if !strings.HasPrefix(setup.Uses, "actions/setup-go@v") || setup.With["go-version-file"] != "${{ github.action_path }}/go.mod" ||
		setup.With["cache-dependency-path"] != "${{ github.workspace }}/.vectorlint-action-go.sum" {
		t.Errorf("Set up Go = %+v, want actions/setup-go with the action's go.mod and a go.sum in the workspace", setup)
	}

	// Every input is used, every ${{ inputs.x }} names an input, and scripts read inputs only
	// through their env (an expression inside a script is a shell-injection risk).
	used := map[string]bool{}
	for _, s := range a.Runs.Steps {
		if s.Run != "" {
			if s.Shell != "bash" {
				t.Errorf("step %q: shell %q, want bash", s.Name, s.Shell)
			}
			if strings.Contains(s.Run, "${{") {
				t.Errorf("step %q: the script holds a ${{ }} expression; pass it through env", s.Name)
			}
			check := exec.CommandContext(t.Context(), "bash", "-n")
			check.Stdin = strings.NewReader(s.Run)
			if out, err := check.CombinedOutput(); err != nil {
				t.Errorf("step %q: bash -n: %v\n%s", s.Name, err, out)
			}
		}
		refs := []string{s.If}
		for _, v := range s.Env {
			refs = append(refs, v)
		}
		for _, v := range s.With {
			refs = append(refs, v)
		}
		for _, v := range refs {
			for _, m := range inputRef.FindAllStringSubmatch(v, -1) {
				used[m[1]] = true
				if _, ok := a.Inputs[m[1]]; !ok {
					t.Errorf("step %q uses the undeclared input %q", s.Name, m[1])
				}
			}
		}
	}
	for _, name := range names {
		if !used[name] {
			t.Errorf("input %s is declared but no step uses it", name)
		}
	}
	// The run step receives every input but version as INPUT_<NAME>.
	runStep := a.step(t, "Run vectorlint")
	for _, name := range names {
		if name == "version" {
			continue
		}
		key := "INPUT_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		if got := runStep.Env[key]; got != "${{ inputs."+name+" }}" {
			t.Errorf("Run vectorlint: env %s = %q, want ${{ inputs.%s }}", key, got, name)
		}
	}
}

// TestPreCommitHooksManifest checks .pre-commit-hooks.yaml: two hooks, vectorlint and
// vectorlint-fix (the same with --fix), with only keys pre-commit knows, building the command
// pre-commit's golang language installs (`go install ./...` names the binary after
// cmd/vectorlint), each entry ending in "--" so that the file names pre-commit appends are
// never options (docs/security.md).
func TestPreCommitHooksManifest(t *testing.T) {
	root := testutil.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".pre-commit-hooks.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var hooks []map[string]any
	if err := yaml.Unmarshal(data, &hooks); err != nil {
		t.Fatal(err)
	}
	if len(hooks) != 2 {
		t.Fatalf("%d hooks, want 2", len(hooks))
	}
	known := []string{"id", "name", "entry", "language", "files", "exclude", "types", "types_or", "exclude_types",
		"additional_dependencies", "args", "always_run", "fail_fast", "pass_filenames", "description", "language_version",
		"log_file", "minimum_pre_commit_version", "require_serial", "stages", "verbose"}
	wants := []map[string]any{
		{"id": "vectorlint", "name": "vectorlint", "entry": "vectorlint --", "language": "golang",
			"types_or": []any{"markdown", "text"}, "require_serial": true, "args": []any{}},
		{"id": "vectorlint-fix", "name": "vectorlint (apply fixes)", "entry": "vectorlint --fix --", "language": "golang",
			"types_or": []any{"markdown", "text"}, "require_serial": true, "args": []any{}},
	}
	for i, h := range hooks {
		for k := range h {
			if !slices.Contains(known, k) {
				t.Errorf("hook %d: unknown key %q", i, k)
			}
		}
		for k, v := range wants[i] {
			got, _ := json.Marshal(h[k])
			w, _ := json.Marshal(v)
			if string(got) != string(w) {
				t.Errorf("hook %d: %s = %s, want %s", i, k, got, w)
			}
		}
		if d, _ := h["description"].(string); d == "" {
			t.Errorf("hook %d has no description", i)
		}
		if e := h["entry"].(string); !strings.HasSuffix(e, " --") {
			t.Errorf("hook %d: entry %q does not end in --: a staged file named --fix would be an option", i, e)
		}
		command, _, _ := strings.Cut(h["entry"].(string), " ")
		if _, err := os.Stat(filepath.Join(root, "cmd", command, "main.go")); err != nil {
			t.Errorf("entry %v is not a command of this module: %v", h["entry"], err)
		}
	}
	// pre-commit installs the hook with `go install ./...`: vectorlint must be the only main
	// package it finds (TestPreCommitHook checks what the real tool installs).
	list := exec.CommandContext(t.Context(), "go", "list", "-f", "{{if eq .Name \"main\"}}{{.ImportPath}}{{end}}", "./...")
	list.Dir = root
	out, err := list.Output()
	if got := strings.Fields(string(out)); err != nil || !slices.Equal(got, []string{"github.com/vectorlint/vectorlint/cmd/vectorlint"}) {
		t.Errorf("go list ./... finds the main packages %v (%v), want only cmd/vectorlint", got, err)
	}
}

// actionRun runs the action's steps the way a GitHub runner does, on a project folder.
type actionRun struct {
	t       *testing.T
	a       action
	binDir  string // the folder the Build step added to GITHUB_PATH
	project string
	srv     *llmtest.Server
	// ctx holds the values of the other expressions the steps use ("runner.temp",
	// "github.event.pull_request.base.sha"); one not set is "".
	ctx map[string]string
}

// runnerShell is how a runner runs a step with shell: bash.
var runnerShell = []string{"bash", "--noprofile", "--norc", "-eo", "pipefail"}

// runStep runs a step's script with its env (inputs substituted from given, else their
// defaults; other expressions from r.ctx) plus extra variables, in dir, and returns the result.
func (r *actionRun) runStep(name, dir string, given map[string]string, extra ...string) result {
	t := r.t
	t.Helper()
	s := r.a.step(t, name)
	script := filepath.Join(t.TempDir(), "step.sh")
	if err := os.WriteFile(script, []byte(s.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	env := cleanEnv(extra...)
	for k, v := range s.Env {
		env = append(env, k+"="+r.expand(v, given))
	}
	return run(t, dir, env, 5*time.Minute, runnerShell[0], append(runnerShell[1:], script)...)
}

// expand replaces the ${{ }} expressions of a step's env or with value: inputs from given,
// else their defaults; other names from r.ctx ("" when not set there).
func (r *actionRun) expand(v string, given map[string]string) string {
	return anyExpr.ReplaceAllStringFunc(v, func(expr string) string {
		// "a || b": the first operand that is not empty, as GitHub evaluates it.
		for _, operand := range strings.Split(anyExpr.FindStringSubmatch(expr)[1], "||") {
			operand = strings.TrimSpace(operand)
			val := r.ctx[operand]
			if in, ok := strings.CutPrefix(operand, "inputs."); ok {
				val = *r.a.Inputs[in].Default
				if g, ok := given[in]; ok {
					val = g
				}
			}
			if val != "" {
				return val
			}
		}
		return ""
	})
}

// buildAction runs the action's install steps as a runner does for a local action (no release
// to use: it builds the command from this checkout) and returns the run with the folder they
// added to GITHUB_PATH.
func buildAction(t *testing.T) *actionRun {
	t.Helper()
	r := &actionRun{t: t, a: readAction(t), ctx: map[string]string{}}
	rn := hostRunner(t, "")
	in := r.install(rn, nil)
	if in.failed != "" {
		t.Fatalf("%s failed:\n%s", in.failed, in.log)
	}
	r.binDir = in.binDir
	if r.binDir != filepath.Join(r.ctx["runner.temp"], "vectorlint-bin") {
		t.Fatalf("GITHUB_PATH = %q", r.binDir)
	}
	if _, err := os.Stat(filepath.Join(r.binDir, rn.exe())); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestActionSteps runs the action's Build step (building the command from this checkout, as
// the action does by default) and its "Run vectorlint" step against the fake server, with the
// inputs a workflow would give.
func TestActionSteps(t *testing.T) {
	requireTool(t, "bash", "VECTORLINT_REQUIRE_PRECOMMIT", "apt-get install bash")
	// Build: go build into $RUNNER_TEMP/vectorlint-bin, which is appended to $GITHUB_PATH.
	r := buildAction(t)

	// Keys the server requires: the step must export the key under the provider's variable.
	r.srv = llmtest.Start(t, llmtest.RequireAPIKey(testAPIKey))
	// MessageContains: Anthropic gets the rule as a user turn after the document (docs/providers.md).
	r.srv.On(llmtest.All(llmtest.MessageContains(`<rule name="Wordiness">`), llmtest.UserContains("In order to")),
		llmtest.JSON(map[string]any{"violations": []any{map[string]any{
			"quoted_text": "In order to", "line": 3, "message": `Say "To".`, "suggestion": `Write "To".`, "fix": "To", "confidence": 0.9}}}))
	r.srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	r.project = t.TempDir()
	writeFiles(t, r.project, map[string]string{
		"vectorlint.ini": "RulesPath = .github/rules\n[**/*.md]\nRunRules = Acme\n",
		"alt.ini":        "RulesPath = .github/rules\n[**/*.md]\nRunRules = Acme\n[docs/wordy.md]\nAcme.Wordiness = disabled\n",
		".github/rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"docs/wordy.md":        "# Deploy\n\nIn order to deploy, run the script.\n",
		"docs/guides/clean.md": "# Deploy\n\nTo deploy, run the script.\n",
		"README.md":            "# Project\n\nShort and clear.\n",
	})

	annotation := "::error file=docs/wordy.md,line=3,col=1,endLine=3,endColumn=12,title=Acme.Wordiness::Say \"To\".%0A%0ASuggestion: Write \"To\"."
	var canary canaryFile
	tests := []struct {
		name   string
		inputs map[string]string
		env    []string
		code   int
		// stdout must contain these; stdoutNot must not.
		stdout, stdoutNot []string
		stderr            string
		check             func(t *testing.T, summary string)
		// setup, when set, prepares the project before the step runs.
		setup func(t *testing.T)
	}{
		{
			name:   "defaults: github annotations and a job summary",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey},
			code:   1,
			stdout: []string{"::add-mask::" + testAPIKey + "\n", annotation, "::notice title=vectorlint::✖ 1 error and 0 warnings in 3 files."},
			check: func(t *testing.T, summary string) {
				if !strings.Contains(summary, "| docs/wordy.md | 3 | 1 | error | Acme.Wordiness | Say \"To\".<br><br>Suggestion: Write \"To\". |") {
					t.Errorf("job summary:\n%s", summary)
				}
			},
		},
		{
			name:   "anthropic key",
			inputs: map[string]string{"provider": "anthropic", "model": "claude-test", "base-url": r.srv.URL, "api-key": testAPIKey, "paths": "docs/wordy.md"},
			code:   1,
			stdout: []string{annotation},
		},
		{
			name:   "gemini key",
			inputs: map[string]string{"provider": "gemini", "base-url": r.srv.URL, "api-key": testAPIKey, "paths": "docs/wordy.md"},
			code:   1,
			stdout: []string{annotation},
		},
		{
			name: "azure-openai key, endpoint and deployment",
			inputs: map[string]string{"provider": "azure-openai", "model": "my-deployment", "base-url": strings.TrimSuffix(r.srv.URL, "/v1"),
				"api-key": testAPIKey, "paths": "docs/wordy.md"},
			code:   1,
			stdout: []string{annotation},
		},
		{
			name:   "LLM_PROVIDER from the workflow's env chooses the variable",
			inputs: map[string]string{"model": "local", "base-url": r.srv.URL, "api-key": testAPIKey, "paths": "docs/wordy.md"},
			env:    []string{"LLM_PROVIDER=openai-compatible"},
			code:   1,
			stdout: []string{annotation},
		},
		{
			name: "sarif to a file, for code scanning",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "output": "sarif", "output-file": "vectorlint.sarif",
				"fail-on": "none"},
			code:      0,
			stdoutNot: []string{"::error", `"version"`},
			check: func(t *testing.T, _ string) {
				data, err := os.ReadFile(filepath.Join(r.project, "vectorlint.sarif"))
				if err != nil {
					t.Fatal(err)
				}
				var sarif struct {
					Version string `json:"version"`
					Runs    []struct {
						Results []struct {
							RuleID string `json:"ruleId"`
							Level  string `json:"level"`
						} `json:"results"`
					} `json:"runs"`
				}
				if err := json.Unmarshal(data, &sarif); err != nil || sarif.Version != "2.1.0" || len(sarif.Runs) != 1 ||
					len(sarif.Runs[0].Results) != 1 || sarif.Runs[0].Results[0].RuleID != "Acme.Wordiness" {
					t.Errorf("vectorlint.sarif: %v\n%s", err, data)
				}
			},
		},
		{
			// spec/trust.md §6: a pull request commits a link at the output file's path, to a
			// file outside the workspace. The output replaces the link; the target is untouched.
			name: "output-file committed as a link out of the workspace",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "output": "sarif", "output-file": "report.sarif",
				"fail-on": "none", "paths": "docs/wordy.md"},
			code: 0,
			setup: func(t *testing.T) {
				canary = plantCanaryLink(t, filepath.Join(r.project, "report.sarif"))
			},
			check: func(t *testing.T, _ string) {
				canary.unchanged(t)
				link := filepath.Join(r.project, "report.sarif")
				fi, err := os.Lstat(link)
				data, _ := os.ReadFile(link)
				if err != nil || !fi.Mode().IsRegular() || !strings.Contains(string(data), `"ruleId": "Acme.Wordiness"`) {
					t.Errorf("report.sarif: %v, %v\n%s", fi, err, data)
				}
				os.Remove(link)
			},
		},
		{
			// The finding is in the baseline: hidden, counted, and the step passes.
			name:      "a baseline hides what it records",
			inputs:    map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "baseline": ".vectorlint-baseline.json", "paths": "docs/wordy.md"},
			code:      0,
			stdoutNot: []string{"::error file="},
			setup: func(t *testing.T) {
				src := "# Deploy\n\nIn order to deploy, run the script.\n"
				start := strings.Index(src, "In order to")
				var rec baseline.Recorder
				rec.Add(finding.FileResult{Path: "docs/wordy.md", Source: []byte(src), Findings: []finding.Finding{{Rule: "Acme.Wordiness",
					Match: "In order to", Start: finding.Position{Offset: start}, End: finding.Position{Offset: start + len("In order to")}}}})
				writeFiles(t, r.project, map[string]string{".vectorlint-baseline.json": string(rec.Marshal())})
			},
		},
		{
			name:   "a baseline outside the workspace is refused",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "baseline": "../b.json", "paths": "docs/wordy.md"},
			code:   2,
			stdout: []string{"::error title=vectorlint::baseline: expected a path relative to the workspace, inside it (no leading / and no ..)"},
		},
		{
			name: "output-file outside the workspace is refused",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "output": "sarif", "output-file": "../report.sarif",
				"paths": "docs/wordy.md"},
			code:   2,
			stdout: []string{"::error title=vectorlint::output-file: expected a path relative to the workspace, inside it (no leading / and no ..)"},
			check: func(t *testing.T, _ string) {
				if _, err := os.Lstat(filepath.Join(filepath.Dir(r.project), "report.sarif")); err == nil {
					t.Error("written outside the workspace")
				}
			},
		},
		{
			// spec/trust.md §9: paths come after "--", so a file named like a flag is a path.
			name:   "a path named like a flag is a path",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "paths": "--fix.md"},
			code:   1,
			stdout: []string{"::error file=--fix.md,line=3,"},
			setup: func(t *testing.T) {
				writeFiles(t, r.project, map[string]string{"--fix.md": "# Deploy\n\nIn order to deploy, run the script.\n"})
			},
			check: func(t *testing.T, _ string) {
				data, _ := os.ReadFile(filepath.Join(r.project, "--fix.md"))
				if string(data) != "# Deploy\n\nIn order to deploy, run the script.\n" {
					t.Errorf("--fix.md was rewritten: %q", data)
				}
				os.Remove(filepath.Join(r.project, "--fix.md"))
			},
		},
		{
			name:   "globs are vectorlint's, not bash's",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "paths": "docs/**/*.md", "output": "line"},
			code:   1, // docs/wordy.md is matched: bash alone would expand docs/**/*.md to docs/*/*.md
			stdout: []string{"docs/wordy.md\n", "1 error and 0 warnings in 2 files"},
		},
		{
			name: "paths on several lines, a config, extra flags",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "paths": "docs/wordy.md\nREADME.md\n", "config": "alt.ini",
				"flags": "--concurrency 2 --verbose", "output": "line"},
			code:   0,
			stdout: []string{"Skipped:\n  docs/wordy.md  every rule of Acme is disabled for this file\n", "✓ 0 errors and 0 warnings in 1 file."},
		},
		{
			name:   "fail-on none",
			inputs: map[string]string{"base-url": r.srv.URL, "api-key": testAPIKey, "fail-on": "none"},
			code:   0,
			stdout: []string{annotation},
		},
		{
			name:   "no key: exit 2 and what to set",
			inputs: map[string]string{},
			code:   2,
			stderr: "vectorlint: no LLM provider is configured: set OPENAI_API_KEY",
		},
		{
			name:   "empty paths",
			inputs: map[string]string{"paths": " \n"},
			code:   2,
			stdout: []string{"::error title=vectorlint::the paths input is empty"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r.ctx = map[string]string{"runner.temp": t.TempDir()} // a push: no pull request's base
			summary := filepath.Join(t.TempDir(), "summary.md")
			env := append([]string{"PATH=" + r.binDir + string(os.PathListSeparator) + os.Getenv("PATH"),
				"GITHUB_STEP_SUMMARY=" + summary, "XDG_CACHE_HOME=" + t.TempDir()}, tt.env...)
			if tt.setup != nil {
				tt.setup(t)
			}
			res := r.runStep("Run vectorlint", r.project, tt.inputs, env...)
			if res.code != tt.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, tt.code, res.stdout, res.stderr)
			}
			for _, want := range tt.stdout {
				if !strings.Contains(res.stdout, want) {
					t.Errorf("stdout lacks %q:\n%s", want, res.stdout)
				}
			}
			for _, not := range tt.stdoutNot {
				if strings.Contains(res.stdout, not) {
					t.Errorf("stdout has %q:\n%s", not, res.stdout)
				}
			}
			if tt.stderr != "" && !strings.Contains(res.stderr, tt.stderr) {
				t.Errorf("stderr lacks %q:\n%s", tt.stderr, res.stderr)
			}
			// The key is printed only in the add-mask command that hides it from the log.
			rest := strings.ReplaceAll(res.stdout, "::add-mask::"+testAPIKey+"\n", "")
			if strings.Contains(rest+res.stderr, testAPIKey) {
				t.Error("the API key is in the output")
			}
			if tt.check != nil {
				s, _ := os.ReadFile(summary)
				tt.check(t, string(s))
			}
		})
	}
}

// canaryFile is a file outside the workspace that no step may read back or change.
type canaryFile struct {
	path  string
	data  []byte
	mtime time.Time
}

// plantCanaryLink writes a canary file outside the workspace and commits a symbolic link to it
// at link, as a pull request could.
func plantCanaryLink(t *testing.T, link string) canaryFile {
	t.Helper()
	c := canaryFile{path: filepath.Join(t.TempDir(), "id_rsa"), data: []byte("CANARY-OUTSIDE-THE-WORKSPACE-51c3\n")}
	if err := os.WriteFile(c.path, c.data, 0o600); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(c.path)
	if err != nil {
		t.Fatal(err)
	}
	c.mtime = fi.ModTime()
	if err := os.Symlink(c.path, link); err != nil {
		t.Fatal(err)
	}
	return c
}

// unchanged fails the test when the canary's bytes or modification time changed.
func (c canaryFile) unchanged(t *testing.T) {
	t.Helper()
	data, err := os.ReadFile(c.path)
	fi, serr := os.Stat(c.path)
	if err != nil || serr != nil || string(data) != string(c.data) || !fi.ModTime().Equal(c.mtime) {
		t.Errorf("the canary outside the workspace changed: %q, %v %v", data, err, serr)
	}
}
