package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// TestReleaseWorkflow checks .github/workflows/release.yml: it runs on v* tags only, may write
// the repository's contents and nothing else, pins every action by commit, runs the GoReleaser
// version CI installs (.ci/install-goreleaser) with `release --clean`, and refuses a tag that
// is not the source's version (its check script run for real, both ways).
func TestReleaseWorkflow(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		On struct {
			Push map[string][]string `yaml:"push"`
		} `yaml:"on"`
		Permissions map[string]string `yaml:"permissions"`
		Jobs        map[string]struct {
			Steps []actionStep `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatalf("release.yml: %v", err)
	}
	if len(wf.On.Push) != 1 || strings.Join(wf.On.Push["tags"], " ") != "v*" {
		t.Errorf("on.push = %v, want tags: [v*] only", wf.On.Push)
	}
	if len(wf.Permissions) != 1 || wf.Permissions["contents"] != "write" {
		t.Errorf("permissions = %v, want contents: write only", wf.Permissions)
	}
	script, err := os.ReadFile(filepath.Join(root, ".ci", "install-goreleaser"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^version=(v[0-9.]+)\b`).FindSubmatch(script)
	if m == nil {
		t.Fatal(".ci/install-goreleaser names no version=")
	}
	pinned := regexp.MustCompile(`^[\w.-]+/[\w.-]+@[0-9a-f]{40}$`)
	var goreleaser, check *actionStep
	for _, job := range wf.Jobs {
		for i, s := range job.Steps {
			if s.Uses != "" && !pinned.MatchString(s.Uses) {
				t.Errorf("step %q: uses %q, want an action pinned by a 40-digit commit", s.Name, s.Uses)
			}
			if strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") {
				goreleaser = &job.Steps[i]
			}
			if s.Run != "" {
				check = &job.Steps[i]
			}
		}
	}
	if goreleaser == nil || goreleaser.With["version"] != string(m[1]) || goreleaser.With["args"] != "release --clean" ||
		goreleaser.Env["GITHUB_TOKEN"] != "${{ secrets.GITHUB_TOKEN }}" {
		t.Fatalf("the GoReleaser step = %+v, want version %s, args release --clean and the token", goreleaser, m[1])
	}
	if check == nil || strings.Contains(check.Run, "${{") {
		t.Fatalf("the tag check step = %+v, want a script reading the tag from GITHUB_REF_NAME", check)
	}
	scriptFile := filepath.Join(t.TempDir(), "check.sh")
	if err := os.WriteFile(scriptFile, []byte(check.Run), 0o644); err != nil {
		t.Fatal(err)
	}
	v := sourceVersion(t)
	for _, tt := range []struct {
		tag  string
		code int
		out  string
	}{
		{"v" + v, 0, ""},
		{"v" + v + "-rc.1", 0, ""},
		{"v9.9.9", 1, "::error title=release::the tag v9.9.9 does not match cmd/vectorlint/version.go's sourceVersion (const sourceVersion = \"" + v + "\")\n"},
	} {
		r := run(t, root, cleanEnv("GITHUB_REF_NAME="+tt.tag), time.Minute, runnerShell[0], append(runnerShell[1:], scriptFile)...)
		if r.code != tt.code || r.stdout != tt.out {
			t.Errorf("tag %s: exit %d, stdout %q, stderr %q; want exit %d, stdout %q", tt.tag, r.code, r.stdout, r.stderr, tt.code, tt.out)
		}
	}
}
