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

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// TestDocsPinRefsThatExist: every place the docs pin vectorlint — pre-commit's rev, the
// Action's uses: vectorlint/vectorlint@REF, go install …/cmd/vectorlint@REF — names a ref a
// user can actually fetch: latest, the <commit-sha> placeholder (which the docs explain), a full
// commit SHA, or a tag this repository has. An example release is written with the placeholder
// vX.Y.Z, never as a version that may not exist ("v0.1.0" before it is tagged); and the docs that
// use the placeholder say how to find a SHA.
func TestDocsPinRefsThatExist(t *testing.T) {
	root := testutil.RepoRoot(t)
	files := []string{"README.md", ".pre-commit-hooks.yaml", "action.yml"}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	for _, d := range docs {
		files = append(files, filepath.Join("docs", filepath.Base(d)))
	}
	refs := regexp.MustCompile(`(?m)(?:\brev:\s*|vectorlint/vectorlint@|cmd/vectorlint@)([^\s"'` + "`" + `)]+)`)
	sha := regexp.MustCompile(`^[0-9a-f]{40}$`)
	var tags []string
	if out, err := exec.Command("git", "-C", root, "tag", "--list").Output(); err == nil {
		tags = strings.Fields(string(out))
	}
	placeholder := 0
	for _, f := range files {
		data, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range refs.FindAllStringSubmatch(string(data), -1) {
			ref := m[1]
			switch {
			case ref == "latest", sha.MatchString(ref), containsString(tags, ref):
			case ref == "<commit-sha>":
				placeholder++
			case ref == "vX.Y.Z": // the placeholder of a release tag
			case strings.HasPrefix(ref, "$"): // a variable the action expands (its version input)
			default:
				t.Errorf("%s: %q names %q, which is no commit, tag or latest of this repository", f, m[0], ref)
			}
		}
	}
	if placeholder == 0 {
		t.Fatal("no snippet pins a <commit-sha>: the test proves nothing")
	}
	for _, f := range []string{"README.md", "docs/integrations.md"} {
		data, _ := os.ReadFile(filepath.Join(root, f))
		if !strings.Contains(string(data), "git ls-remote https://github.com/vectorlint/vectorlint") &&
			!strings.Contains(string(data), "`git ls-remote\nhttps://github.com/vectorlint/vectorlint") {
			t.Errorf("%s uses <commit-sha> without saying how to find one (git ls-remote)", f)
		}
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestReadmeStaticBuild runs the README's build command as written, with bash (its output path
// moved to a temporary folder), and checks that the binary is what the releases are: static
// (CGO_ENABLED=0, as the command must say since cgo is on by default wherever a C compiler is
// found), without build paths (-trimpath) and stripped (-s -w).
func TestReadmeStaticBuild(t *testing.T) {
	root := testutil.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^(CGO_ENABLED=0 go build .*-o) vectorlint (\./cmd/vectorlint)(\s.*)?$`).FindStringSubmatch(string(data))
	if m == nil {
		t.Fatal("the README's Install has no `CGO_ENABLED=0 go build … -o vectorlint ./cmd/vectorlint`")
	}
	bin := filepath.Join(t.TempDir(), "vectorlint")
	cmd := exec.Command("bash", "-c", m[1]+` "$BIN" `+m[2])
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "BIN="+bin)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", m[0], err, out)
	}
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil || !strings.Contains(string(out), "\tCGO_ENABLED=0\n") || !strings.Contains(string(out), "\t-trimpath=true\n") {
		t.Errorf("not a static build without paths (%v):\n%s", err, out)
	}
	// Go records no -ldflags beside -trimpath: look for the symbol table and debug information.
	if runtime.GOOS == "linux" {
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, name := range []string{".symtab", ".debug_info"} {
			if f.Section(name) != nil {
				t.Errorf("the README's build has a %s section: not stripped", name)
			}
		}
	}
}
