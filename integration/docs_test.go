package integration

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The snippets of docs/integrations.md are checked here: the workflows' use of the action
// against action.yml, and every vectorlint command line (in the workflows, the shell examples
// and the Neovim definition) run against the fake server. The pre-commit configuration is run
// by TestPreCommitHook.

// docBlocks returns the fenced code blocks of a language in docs/integrations.md, in order.
func docBlocks(t *testing.T, lang string) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "integrations.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("docs/integrations.md has no %s block", lang)
	}
	return out
}

// precommitSnippet is the documentation's .pre-commit-config.yaml for the hook id.
func precommitSnippet(t *testing.T, id string) string {
	t.Helper()
	for _, b := range docBlocks(t, "yaml") {
		if strings.HasPrefix(b, "repos:\n") && strings.Contains(b, "- id: "+id+"\n") {
			return b
		}
	}
	t.Fatalf("docs/integrations.md has no pre-commit configuration for the hook %s", id)
	return ""
}

// workflowStep is a step of a documented workflow.
type workflowStep struct {
	Uses  string            `yaml:"uses"`
	With  map[string]string `yaml:"with"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	Env   map[string]string `yaml:"env"`
}

// docWorkflowSteps returns the steps of every documented workflow (or bare list of steps).
func docWorkflowSteps(t *testing.T) []workflowStep {
	t.Helper()
	var steps []workflowStep
	for _, b := range docBlocks(t, "yaml") {
		if strings.HasPrefix(b, "repos:\n") || isGitLabCI(b) {
			continue
		}
		var wf struct {
			Jobs map[string]struct {
				Steps []workflowStep `yaml:"steps"`
			} `yaml:"jobs"`
		}
		if err := yaml.Unmarshal([]byte(b), &wf); err == nil && len(wf.Jobs) > 0 {
			for _, j := range wf.Jobs {
				steps = append(steps, j.Steps...)
			}
			continue
		}
		var bare []workflowStep
		if err := yaml.Unmarshal([]byte(b), &bare); err != nil || len(bare) == 0 {
			t.Fatalf("a yaml block is neither a workflow nor a list of steps (%v):\n%s", err, b)
		}
		steps = append(steps, bare...)
	}
	return steps
}

func TestDocsWorkflowsUseTheAction(t *testing.T) {
	a := readAction(t)
	formats := []string{"line", "json", "vale-json", "rdjson", "rdjsonl", "github", "sarif", "junit"}
	n := 0
	for _, s := range docWorkflowSteps(t) {
		if !strings.HasPrefix(s.Uses, "vectorlint/vectorlint@") {
			continue
		}
		n++
		for k, v := range s.With {
			if _, ok := a.Inputs[k]; !ok {
				t.Errorf("uses: %s with %s: the action has no such input", s.Uses, k)
			}
			switch {
			case k == "output" && !slices.Contains(formats, v),
				k == "fail-on" && !slices.Contains([]string{"error", "warning", "suggestion", "none"}, v):
				t.Errorf("with %s: %q is not a valid value", k, v)
			}
		}
		if s.With["output-file"] != "" && s.With["output"] == "" {
			t.Errorf("output-file without output: the github format to a file is of no use")
		}
	}
	if n != 3 {
		t.Errorf("%d documented uses of the action, want 3 (annotations, pull requests, code scanning)", n)
	}
}

// docCommands returns the documented shell command lines that run vectorlint: the workflows'
// run steps, the sh blocks, and the Neovim definition's arguments.
func docCommands(t *testing.T) []string {
	t.Helper()
	var cmds []string
	for _, s := range docWorkflowSteps(t) {
		if strings.Contains(s.Run, "vectorlint ") && !strings.HasPrefix(s.Run, "go install") {
			if s.Shell != "" && s.Shell != "bash" {
				t.Errorf("run %q: shell %q", s.Run, s.Shell)
			}
			cmds = append(cmds, strings.TrimSpace(s.Run))
		}
	}
	for _, b := range docBlocks(t, "sh") {
		for _, line := range strings.Split(b, "\n") {
			if strings.Contains(line, "vectorlint ") {
				cmds = append(cmds, strings.TrimSpace(line))
			}
		}
	}
	lua := docBlocks(t, "lua")[0]
	argsTable := regexp.MustCompile(`(?s)args = \{(.*?)\n  \},`).FindStringSubmatch(lua)
	if argsTable == nil {
		t.Fatal("the Neovim definition has no args table")
	}
	args := []string{"cat docs/draft.md | vectorlint"}
	for _, m := range regexp.MustCompile(`"([^"]*)"|function\(\)[^,]*end`).FindAllStringSubmatch(argsTable[1], -1) {
		if m[1] == "" && strings.HasPrefix(m[0], "function") {
			args = append(args, "docs/draft.md") // the buffer's path relative to the working folder
			continue
		}
		args = append(args, m[1])
	}
	return append(cmds, strings.Join(args, " "))
}

// TestDocsCommandLines runs every documented vectorlint command line with bash (pipefail, as a
// runner's shell: bash does) in a project, against the fake server, and checks that it did its
// work: exit 0, or 1 for the commands that fail on findings, and output in the promised format.
// reviewdog's GitHub reporter is swapped for its local one (no GitHub here).
func TestDocsCommandLines(t *testing.T) {
	bin := buildVectorlint(t)
	path := bin + string(os.PathListSeparator) + os.Getenv("PATH")
	if gopath, err := exec.Command("go", "env", "GOPATH").Output(); err == nil {
		path += string(os.PathListSeparator) + filepath.Join(strings.TrimSpace(string(gopath)), "bin")
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("In order to")),
		llmtest.JSON(map[string]any{"violations": []any{map[string]any{
			"quoted_text": "In order to", "line": 3, "message": `Say "To".`, "suggestion": `Write "To".`, "fix": "To", "confidence": 0.9}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	project := t.TempDir()
	writeFiles(t, project, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"docs/wordy.md": "# Deploy\n\nIn order to deploy, run the script.\n",
		"docs/draft.md": "# Draft\n\nIn order to start, read this.\n",
		"README.md":     "# Project\n\nShort and clear.\n",
	})
	git(t, project, "init", "-q") // reviewdog's local reporter runs in a git repository
	env := cleanEnv("PATH="+path, "OPENAI_BASE_URL="+srv.URL, "OPENAI_API_KEY="+testAPIKey, "OPENAI_MODEL=test-model",
		"XDG_CACHE_HOME="+t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")

	cmds := docCommands(t)
	if len(cmds) != 10 {
		t.Errorf("%d documented command lines, want 10:\n%s", len(cmds), strings.Join(cmds, "\n"))
	}
	for _, cmd := range cmds {
		if isShardCommand(cmd) {
			continue // TestDocsShardedWorkflow runs the shards, then the merge
		}
		if strings.Contains(cmd, "vectorlint batch ") {
			// The nightly batch workflow's steps: its collect waits for the provider's batch
			// (30 s polls); cmd/vectorlint's TestBatchRoundTrip runs submit and collect.
			continue
		}
		t.Run(cmd, func(t *testing.T) {
			line := cmd
			code := 0
			var check func(t *testing.T, out string)
			switch {
			case strings.Contains(cmd, "| reviewdog"):
				if !onPath(path, "reviewdog") {
					if os.Getenv("VECTORLINT_REQUIRE_CONSUMERS") == "1" {
						t.Fatal("reviewdog not found and VECTORLINT_REQUIRE_CONSUMERS=1: run .ci/install-consumers")
					}
					t.Skip("reviewdog not found (run .ci/install-consumers)")
				}
				line = strings.Replace(cmd, "-reporter=github-pr-review", "-reporter=local -filter-mode=nofilter", 1)
				if strings.Contains(cmd, "-fail-on-error") {
					code = 1 // the finding fails the step
				}
				check = func(t *testing.T, out string) {
					// reviewdog's local reporter prints each diagnostic it accepted as its
					// original_output: vectorlint's one-line form of the finding. (The fields
					// reviewdog reads are checked in report/consumers_test.go.)
					if !strings.HasPrefix(out, "docs/draft.md:3:1: error: Say \"To\". [Acme.Wordiness]\n"+
						"docs/wordy.md:3:1: error: Say \"To\". [Acme.Wordiness]\n") {
						t.Errorf("reviewdog did not report the finding:\n%s", out)
					}
				}
			case strings.Contains(cmd, "--output github"):
				code = 1 // --fail-on error (the default) and an error-severity finding
				check = func(t *testing.T, out string) {
					if !strings.Contains(out, "::error file=docs/wordy.md,line=3,col=1,endLine=3,endColumn=12,title=Acme.Wordiness::") {
						t.Errorf("no annotation:\n%s", out)
					}
				}
			case strings.Contains(cmd, "--output vale-json"):
				check = func(t *testing.T, out string) {
					var v map[string][]struct {
						Check string
						Line  int
						Span  []int
					}
					if err := json.Unmarshal([]byte(out), &v); err != nil || len(v["docs/draft.md"]) != 1 ||
						v["docs/draft.md"][0].Line != 3 || !slices.Equal(v["docs/draft.md"][0].Span, []int{1, 11}) {
						t.Errorf("vale-json: %v\n%s", err, out)
					}
				}
			case strings.Contains(cmd, "--output json"):
				check = func(t *testing.T, out string) {
					var v struct {
						Files []struct {
							Path     string
							Findings []struct{ Line, Column, EndColumn int }
						}
					}
					if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Files) != 1 || v.Files[0].Path != "docs/draft.md" ||
						len(v.Files[0].Findings) != 1 || v.Files[0].Findings[0].EndColumn != 12 {
						t.Errorf("json: %v\n%s", err, out)
					}
				}
			default:
				t.Fatalf("no check for this documented command")
			}
			res := run(t, project, env, 2*time.Minute, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", line)
			if res.code != code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", res.code, code, res.stdout, res.stderr)
			}
			check(t, res.stdout+res.stderr)
		})
	}
}

// onPath reports whether an executable file name is in one of path's folders.
func onPath(path, name string) bool {
	for _, dir := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(dir, name)); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return true
		}
	}
	return false
}

// TestReadmeIntegrations checks that the README's Integrations section shows what
// docs/integrations.md shows and the tests run: the same hook configuration, inputs the action
// has, and command lines that are among the tested ones.
func TestReadmeIntegrations(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Integrations\n")
	if !ok {
		t.Fatal("README.md has no Integrations section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	blocks := func(lang string) []string {
		var out []string
		for _, m := range regexp.MustCompile("(?s)```"+lang+"\n(.*?)```").FindAllStringSubmatch(section, -1) {
			out = append(out, m[1])
		}
		return out
	}

	yamls := blocks("yaml")
	if len(yamls) != 2 {
		t.Fatalf("%d yaml blocks in the README's Integrations, want 2", len(yamls))
	}
	type hooks struct {
		Repos []struct {
			Repo  string `yaml:"repo"`
			Rev   string `yaml:"rev"`
			Hooks []struct {
				ID      string `yaml:"id"`
				Exclude string `yaml:"exclude"`
			} `yaml:"hooks"`
		} `yaml:"repos"`
	}
	var readme, doc hooks
	if err := yaml.Unmarshal([]byte(yamls[0]), &readme); err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal([]byte(precommitSnippet(t, "vectorlint")), &doc); err != nil {
		t.Fatal(err)
	}
	r, _ := json.Marshal(readme)
	d, _ := json.Marshal(doc)
	if string(r) != string(d) {
		t.Errorf("the README's pre-commit configuration differs from the tested one:\n%s\n%s", r, d)
	}

	var steps []workflowStep
	if err := yaml.Unmarshal([]byte(yamls[1]), &steps); err != nil {
		t.Fatal(err)
	}
	a := readAction(t)
	for _, s := range steps {
		for k := range s.With {
			if _, ok := a.Inputs[k]; s.Uses != "" && strings.HasPrefix(s.Uses, "vectorlint/") && !ok {
				t.Errorf("the README gives the action an input it does not have: %s", k)
			}
		}
	}

	tested := docCommands(t)
	for _, b := range blocks("sh") {
		for _, line := range strings.Split(strings.TrimSpace(b), "\n") {
			if !slices.Contains(tested, line) {
				t.Errorf("the README's command is not among the tested ones in docs/integrations.md: %s", line)
			}
		}
	}
}
