//go:build unix

package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestFileModesUnderUmask runs blueprint run (result document and HTML report) and init as real
// processes under the umasks 022 and 077: what they write gets 0666 (folders 0777) less the
// umask, as from any other tool, while cache entries stay private (0600).
func TestFileModesUnderUmask(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("hi there"))
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		umask      string
		file, fold fs.FileMode
	}{{"022", 0o644, 0o755}, {"077", 0o600, 0o700}} {
		dir := writeBlueprintFiles(t, map[string]string{"c.yml": outputsBlueprint})
		run := func(args ...string) {
			t.Helper()
			cmd := exec.Command("sh", append([]string{"-c", `umask ` + tt.umask + ` && exec "$0" "$@"`, exe}, args...)...)
			cmd.Dir = dir
			cmd.Env = []string{beMain + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir, "OPENAI_API_KEY=k-123456", "OPENAI_BASE_URL=" + srv.URL}
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("umask %s: vectorlint %s: %v\n%s", tt.umask, strings.Join(args, " "), err, out)
			}
		}
		run("blueprint", "run", "c.yml", "--cache-dir", "cache", "--html", "reports/r.html", "--run-label", "L")
		run("init")
		modes := map[string]fs.FileMode{}
		err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || path == dir {
				return err
			}
			fi, err := d.Info()
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			modes[filepath.ToSlash(rel)] = fi.Mode().Perm()
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		stamp := ""
		for path := range modes {
			if s, ok := strings.CutPrefix(path, ".results/c/L_"); ok {
				stamp = strings.TrimSuffix(s, "_comparison.json")
			}
		}
		want := map[string]fs.FileMode{
			".results":   tt.fold,
			".results/c": tt.fold,
			".results/c/L_" + stamp + "_comparison.json": tt.file,
			"reports":                   tt.fold,
			"reports/r.html":            tt.file,
			"vectorlint.ini":            tt.file,
			"rules":                     tt.fold,
			"rules/Starter":             tt.fold,
			"rules/Starter/acronyms.md": tt.file,
		}
		cacheEntries := 0
		for path, mode := range modes {
			if strings.HasPrefix(path, "cache/") && strings.HasSuffix(path, ".json") {
				cacheEntries++
				if mode != 0o600 {
					t.Errorf("umask %s: cache entry %s has mode %v, want 0600", tt.umask, path, mode)
				}
			}
		}
		if cacheEntries == 0 {
			t.Errorf("umask %s: no cache entry written", tt.umask)
		}
		for path, mode := range want {
			if got, ok := modes[path]; !ok || got != mode {
				t.Errorf("umask %s: %s has mode %v (exists %v), want %v", tt.umask, path, got, ok, mode)
			}
		}
	}
}
