package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
)

// TestLoadPacksUntrusted loads a pack whose rule files are links out of the rules folder (to a
// secret file and to /proc/self/environ), a FIFO, and a link inside it. Only the regular files
// inside are rules; the rest are problems naming the file and why, and nothing blocks.
func TestLoadPacksUntrusted(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"Acme/a.md": rule("Alpha"), "Shared/b.md": rule("Beta")})
	secret := filepath.Join(t.TempDir(), "key.md")
	if err := os.WriteFile(secret, []byte(rule("Stolen")), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"stolen.md": secret, "environ.md": "/proc/self/environ", "shared.md": "../Shared/b.md"} {
		if err := os.Symlink(target, filepath.Join(dir, "Acme", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "Acme", "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var (
		packs    []*Pack
		problems finding.Problems
		err      error
	)
	go func() {
		defer close(done)
		packs, problems, err = LoadPacks(dir)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("LoadPacks still running after 10 s: the FIFO was opened")
	}
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, r := range packs[0].Rules {
		ids = append(ids, r.FullID())
	}
	if want := []string{"Acme.Alpha", "Acme.Beta"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("rules %v, want %v (the link inside the rules folder is followed)", ids, want)
	}
	resolved, _ := filepath.EvalSymlinks(dir)
	secretResolved, _ := filepath.EvalSymlinks(secret)
	environ, _ := filepath.EvalSymlinks("/proc/self/environ")
	var got []string
	for _, p := range problems {
		got = append(got, strings.TrimPrefix(p.Error(), dir+string(filepath.Separator)))
	}
	want := []string{
		"Acme/environ.md: warning: ignored: a symbolic link to " + environ + ", outside the rules folder " + resolved + ": only links inside it are followed",
		"Acme/pipe.md: cannot read the rule: a FIFO (named pipe), not a regular file",
		"Acme/stolen.md: warning: ignored: a symbolic link to " + secretResolved + ", outside the rules folder " + resolved + ": only links inside it are followed",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
