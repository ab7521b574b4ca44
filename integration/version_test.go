package integration

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// goreleaserBuild is the part of .goreleaser.yaml's build the tests read.
type goreleaserBuild struct {
	Main    string   `yaml:"main"`
	Binary  string   `yaml:"binary"`
	Env     []string `yaml:"env"`
	Flags   []string `yaml:"flags"`
	Ldflags []string `yaml:"ldflags"`
	Goos    []string `yaml:"goos"`
	Goarch  []string `yaml:"goarch"`
}

// readGoreleaser returns the single build of .goreleaser.yaml.
func readGoreleaser(t *testing.T) goreleaserBuild {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), ".goreleaser.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int               `yaml:"version"`
		Builds  []goreleaserBuild `yaml:"builds"`
	}
	if err := yaml.Unmarshal(data, &cfg); err != nil {
		t.Fatalf(".goreleaser.yaml: %v", err)
	}
	if cfg.Version != 2 || len(cfg.Builds) != 1 {
		t.Fatalf(".goreleaser.yaml: version %d, %d builds; want version 2 and one build", cfg.Version, len(cfg.Builds))
	}
	return cfg.Builds[0]
}

// templateField is a GoReleaser template field such as {{.Version}}.
var templateField = regexp.MustCompile(`\{\{\s*\.(\w+)\s*\}\}`)

// releaseLdflags returns .goreleaser.yaml's ldflags with its template fields filled in as
// GoReleaser fills them for a release of version (without "v") at commit, built at date.
func releaseLdflags(t *testing.T, version, commit, date string) string {
	t.Helper()
	values := map[string]string{"Version": version, "FullCommit": commit, "Date": date}
	flags := strings.Join(readGoreleaser(t).Ldflags, " ")
	return templateField.ReplaceAllStringFunc(flags, func(f string) string {
		v, ok := values[templateField.FindStringSubmatch(f)[1]]
		if !ok {
			t.Fatalf(".goreleaser.yaml's ldflags use %s, which this test does not fill in", f)
		}
		return v
	})
}

// buildStamped builds the command as a release build stamps it (.goreleaser.yaml's ldflags;
// not its -trimpath, which would compile every package again for the same link) into a new
// folder, and returns the binary.
func buildStamped(t *testing.T, version, commit, date string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "vectorlint")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-ldflags", releaseLdflags(t, version, commit, date), "-o", bin, "./cmd/vectorlint")
	cmd.Dir = testutil.RepoRoot(t)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// sourceVersion is cmd/vectorlint's sourceVersion constant, the version of a build from a
// checkout.
func sourceVersion(t *testing.T) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "cmd", "vectorlint", "version.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const sourceVersion = "([^"]+)"$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("cmd/vectorlint/version.go has no sourceVersion constant")
	}
	return string(m[1])
}

// TestGoreleaserConfig checks what .goreleaser.yaml promises that `goreleaser check` cannot:
// the command it builds, static, path-free and stripped, for the six targets.
func TestGoreleaserConfig(t *testing.T) {
	t.Parallel()
	b := readGoreleaser(t)
	if b.Main != "./cmd/vectorlint" || b.Binary != "vectorlint" || strings.Join(b.Env, " ") != "CGO_ENABLED=0" ||
		strings.Join(b.Flags, " ") != "-trimpath" || !strings.HasPrefix(strings.Join(b.Ldflags, " "), "-s -w ") ||
		strings.Join(b.Goos, " ") != "linux darwin windows" || strings.Join(b.Goarch, " ") != "amd64 arm64" {
		t.Errorf(".goreleaser.yaml's build: %+v", b)
	}
}

// TestVersionBuilds builds the command the two ways a binary learns its version and runs it:
// stamped by a release build (.goreleaser.yaml's -X flags), and from the build information
// Go records for a go build in a git checkout (cmd/vectorlint.TestBuildFacts covers every
// other case on build information values).
func TestVersionBuilds(t *testing.T) {
	t.Parallel()
	t.Run("release build", func(t *testing.T) {
		t.Parallel()
		const sha, date = "0123456789abcdef0123456789abcdef01234567", "2026-03-04T05:06:07Z"
		bin := buildStamped(t, "1.2.3", sha, date)
		want := "vectorlint 1.2.3 (commit " + sha + ", built " + date + ")\n"
		for _, arg := range []string{"version", "--version"} {
			r := run(t, t.TempDir(), os.Environ(), time.Minute, bin, arg)
			if r.code != 0 || r.stdout != want || r.stderr != "" {
				t.Errorf("vectorlint %s: exit %d, stdout %q, stderr %q; want %q", arg, r.code, r.stdout, r.stderr, want)
			}
		}
		// -s -w: no symbol table and no debug information.
		if runtime.GOOS == "linux" {
			f, err := elf.Open(bin)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			for _, name := range []string{".symtab", ".debug_info"} {
				if f.Section(name) != nil {
					t.Errorf("the release build has a %s section: not stripped", name)
				}
			}
		}
	})
	t.Run("go build in a git checkout", func(t *testing.T) {
		t.Parallel()
		requireTool(t, "git", "VECTORLINT_REQUIRE_GIT", "apt-get install git")
		// A fresh repository of the tracked files: Go records no version control information in
		// a git worktree or submodule (.git is a file there), and this one's state is known.
		// -trimpath makes the compilation independent of the folder, so only the link is new
		// (CI's goreleaser snapshot build compiles with the same flags first).
		repo, sha := hookRepo(t)
		committed, err := time.Parse(time.RFC3339, strings.TrimSpace(git(t, repo, "log", "-1", "--format=%cI")))
		if err != nil {
			t.Fatal(err)
		}
		when := committed.UTC().Format(time.RFC3339)
		version := func() string {
			t.Helper()
			bin := filepath.Join(t.TempDir(), "vectorlint")
			// -buildvcs=true overrides a GOFLAGS=-buildvcs=false of the environment.
			build := exec.CommandContext(t.Context(), "go", "build", "-trimpath", "-buildvcs=true", "-o", bin, "./cmd/vectorlint")
			build.Dir = repo
			build.Env = append(os.Environ(), "CGO_ENABLED=0")
			if out, err := build.CombinedOutput(); err != nil {
				t.Fatalf("go build -buildvcs=true: %v\n%s", err, out)
			}
			r := run(t, t.TempDir(), os.Environ(), time.Minute, bin, "version")
			if r.code != 0 || r.stderr != "" {
				t.Fatalf("vectorlint version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			return r.stdout
		}
		if got, want := version(), "vectorlint "+sourceVersion(t)+" (commit "+sha+", committed "+when+")\n"; got != want {
			t.Errorf("a clean checkout: vectorlint version =\n%q, want\n%q", got, want)
		}
		writeFiles(t, repo, map[string]string{"README.md": "changed\n"})
		if got, want := version(), "vectorlint "+sourceVersion(t)+" (commit "+sha+", with uncommitted changes, committed "+when+")\n"; got != want {
			t.Errorf("a checkout with a change: vectorlint version =\n%q, want\n%q", got, want)
		}
	})
}
