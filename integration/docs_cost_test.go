package integration

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The snippets of docs/integrations.md about cost: the sharded workflow's commands and the
// GitLab CI job, run as documented. (The pull-request workflow uses the action, whose script
// TestActionChangedOnly runs against a real checkout.)

// isGitLabCI reports whether a yaml block is a GitLab CI configuration: jobs with a script.
func isGitLabCI(block string) bool {
	var jobs map[string]struct {
		Script []string `yaml:"script"`
	}
	if err := yaml.Unmarshal([]byte(block), &jobs); err != nil {
		return false
	}
	for _, j := range jobs {
		if len(j.Script) > 0 {
			return true
		}
	}
	return false
}

// isShardCommand reports whether a documented command belongs to the sharded workflow.
func isShardCommand(cmd string) bool {
	return strings.Contains(cmd, "--shard") || strings.Contains(cmd, "vectorlint merge")
}

// costProject writes the project the cost snippets run in: two documents with findings among
// several.
func costProject(t *testing.T, dir string) {
	t.Helper()
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"docs/wordy.md": "# Deploy\n\nIn order to deploy, run the script.\n",
		"README.md":     "# Project\n\nShort and clear.\n",
	}
	for i := range 10 {
		files[fmt.Sprintf("docs/page%d.md", i)] = fmt.Sprintf("# Page %d\n\nNothing to say about page %d.\n", i, i)
	}
	writeFiles(t, dir, files)
}

func costServer(t *testing.T) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("In order to")),
		llmtest.JSON(map[string]any{"violations": []any{map[string]any{
			"quoted_text": "In order to", "line": 3, "message": `Say "To".`, "confidence": 0.9}}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	return srv
}

// TestDocsShardedWorkflow runs the sharded workflow's two commands as documented: the lint
// command once per matrix value, then the merge over the shares' files. The merged report is
// the whole run's.
func TestDocsShardedWorkflow(t *testing.T) {
	var lintCmd, mergeCmd string
	for _, c := range docCommands(t) {
		switch {
		case strings.Contains(c, "--shard"):
			lintCmd = c
		case strings.Contains(c, "vectorlint merge"):
			mergeCmd = c
		}
	}
	if lintCmd == "" || mergeCmd == "" {
		t.Fatalf("the sharded workflow's commands are not documented: %q, %q", lintCmd, mergeCmd)
	}
	bin := buildVectorlint(t)
	srv := costServer(t)
	project := t.TempDir()
	costProject(t, project)
	env := func(extra ...string) []string {
		return cleanEnv(append([]string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "OPENAI_BASE_URL=" + srv.URL,
			"OPENAI_API_KEY=" + testAPIKey, "OPENAI_MODEL=test-model", "XDG_CACHE_HOME=" + t.TempDir()}, extra...)...)
	}
	for shard := 1; shard <= 4; shard++ {
		res := run(t, project, env(fmt.Sprintf("SHARD=%d", shard)), 2*time.Minute, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", lintCmd)
		if res.code != 0 {
			t.Fatalf("shard %d: exit %d\n%s", shard, res.code, res.stderr)
		}
		if _, err := os.Stat(filepath.Join(project, fmt.Sprintf("shard-%d.json", shard))); err != nil {
			t.Fatal(err)
		}
	}
	if srv.Calls() != 12 {
		t.Errorf("the shards made %d calls, want 12 (one per file)", srv.Calls())
	}
	merged := run(t, project, env("GITHUB_ACTIONS=true"), time.Minute, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", mergeCmd)
	whole := run(t, project, env("GITHUB_ACTIONS=true"), time.Minute, filepath.Join(bin, "vectorlint"), "--output", "github", ".")
	if merged.code != 1 || merged.code != whole.code || merged.stdout != whole.stdout {
		t.Errorf("merge: exit %d\n%s\nthe whole run: exit %d\n%s", merged.code, merged.stdout, whole.code, whole.stdout)
	}
	if !strings.Contains(merged.stdout, "::error file=docs/wordy.md,line=3,") {
		t.Errorf("no annotation:\n%s", merged.stdout)
	}
}

// TestDocsGitLab runs the documented GitLab CI job's script in a merge request's checkout: a
// repository whose target branch has the project and whose merge request edits two documents.
// The report lists those two only, and the job run again makes no call.
func TestDocsGitLab(t *testing.T) {
	var blocks []string
	for _, b := range docBlocks(t, "yaml") {
		if isGitLabCI(b) {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) != 1 {
		t.Fatalf("%d GitLab CI blocks, want 1", len(blocks))
	}
	var jobs map[string]struct {
		Rules     []map[string]string `yaml:"rules"`
		Variables map[string]string   `yaml:"variables"`
		Cache     struct {
			Key   string   `yaml:"key"`
			Paths []string `yaml:"paths"`
		} `yaml:"cache"`
		Script    []string `yaml:"script"`
		Artifacts struct {
			When    string            `yaml:"when"`
			Reports map[string]string `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	if err := yaml.Unmarshal([]byte(blocks[0]), &jobs); err != nil {
		t.Fatal(err)
	}
	job, ok := jobs["vectorlint"]
	if !ok || len(jobs) != 1 || job.Variables["GIT_DEPTH"] != "0" || job.Artifacts.When != "always" ||
		job.Artifacts.Reports["junit"] != "vectorlint.xml" || len(job.Cache.Paths) != 1 {
		t.Fatalf("the GitLab job: %+v", jobs)
	}

	testutil.RequireGit(t)
	bin := buildVectorlint(t)
	srv := costServer(t)
	project := t.TempDir()
	testutil.GitInit(t, project)
	costProject(t, project)
	testutil.GitCommitAll(t, project, "target branch")
	base := strings.TrimSpace(testutil.Git(t, project, "rev-parse", "HEAD"))
	testutil.Git(t, project, "checkout", "-q", "-b", "mr")
	writeFiles(t, project, map[string]string{
		"docs/wordy.md": "# Deploy\n\nIn order to deploy, run the script first.\n",
		"docs/page3.md": "# Page 3\n\nSomething to say now.\n",
	})
	testutil.GitCommitAll(t, project, "merge request")

	env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "OPENAI_BASE_URL=" + srv.URL,
		"OPENAI_API_KEY=" + testAPIKey, "OPENAI_MODEL=test-model", "XDG_CACHE_HOME=" + t.TempDir(),
		"CI_MERGE_REQUEST_DIFF_BASE_SHA=" + base, "GIT_CONFIG_GLOBAL=" + os.DevNull, "GIT_CONFIG_NOSYSTEM=1"}
	for k, v := range job.Variables {
		env = append(env, k+"="+v)
	}
	var script []string
	for _, line := range job.Script {
		if !strings.HasPrefix(line, "go install ") { // vectorlint is built from this checkout
			script = append(script, line)
		}
	}
	for i, wantCalls := range []int{2, 0} {
		before := srv.Calls()
		// GitLab runs a job's script lines in one shell that stops at the first failure.
		res := run(t, project, cleanEnv(env...), 2*time.Minute, "bash", "--noprofile", "--norc", "-e", "-c", strings.Join(script, "\n"))
		if res.code != 1 {
			t.Fatalf("run %d: exit %d, want 1 (a finding)\n%s%s", i+1, res.code, res.stdout, res.stderr)
		}
		if n := srv.Calls() - before; n != wantCalls {
			t.Errorf("run %d: %d calls, want %d", i+1, n, wantCalls)
		}
		data, err := os.ReadFile(filepath.Join(project, "vectorlint.xml"))
		if err != nil {
			t.Fatal(err)
		}
		var suites struct {
			Suites []struct {
				Name     string `xml:"name,attr"`
				Failures int    `xml:"failures,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal(data, &suites); err != nil {
			t.Fatalf("vectorlint.xml: %v\n%s", err, data)
		}
		var names []string
		for _, s := range suites.Suites {
			names = append(names, s.Name)
		}
		if strings.Join(names, ",") != "docs/page3.md,docs/wordy.md" {
			t.Errorf("run %d: the report's suites %v, want docs/page3.md and docs/wordy.md\n%s", i+1, names, data)
		}
		if _, err := os.Stat(filepath.Join(project, ".vectorlint-cache")); err != nil {
			t.Errorf("run %d: no cache folder: %v", i+1, err)
		}
	}
}
