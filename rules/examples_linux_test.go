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

// TestLoadPacksExampleLinks: an example file is read through the project root and must be
// inside its pack once links are followed. A link to another pack, a link out of the project, a
// FIFO are errors of the rule naming the example; a link inside the pack is followed; nothing
// blocks and nothing outside is read.
func TestLoadPacksExampleLinks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Acme/r.md": "---\nid: R\nname: R\nexamples:\n" +
			"  - file: examples/inside.md\n" +
			"  - file: examples/other-pack.md\n" +
			"  - file: examples/secret.md\n" +
			"  - file: examples/pipe.md\n" +
			"  - file: examples/environ.md\n" +
			"---\nBody.\n",
		"Acme/data/real.txt":     "We met {==in order to==} plan.\n",
		"Shared/examples/s.md":   "another pack's example\n",
		"Shared/rule.md":         rule("S"),
		"Acme/examples/.keep.md": "",
	})
	secret := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(secret, []byte("{==key==}"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{
		"inside.md":     "../data/real.txt",
		"other-pack.md": "../../Shared/examples/s.md",
		"secret.md":     secret,
		"environ.md":    "/proc/self/environ",
	} {
		if err := os.Symlink(target, filepath.Join(dir, "Acme", "examples", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "Acme", "examples", "pipe.md"), 0o644); err != nil {
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
	resolved, _ := filepath.EvalSymlinks(dir)
	var got []string
	for _, p := range problems {
		msg := strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), "")
		got = append(got, strings.ReplaceAll(msg, resolved+string(filepath.Separator), ""))
	}
	want := []string{
		`Acme/r.md:6: examples[1].file: expected a file inside the pack, found "examples/other-pack.md", a symbolic link that leads out of the pack to Shared/examples/s.md`,
		`Acme/r.md:7: examples[2].file: expected a file inside the pack, found "examples/secret.md", a symbolic link leading outside the project root ` + dir,
		`Acme/r.md:8: examples[3].file: cannot read the example file "examples/pipe.md": a FIFO (named pipe), not a regular file`,
		`Acme/r.md:9: examples[4].file: expected a file inside the pack, found "examples/environ.md", a symbolic link leading outside the project root ` + dir,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(packs) != 2 || len(packs[0].Rules) != 0 || len(packs[1].Rules) != 1 {
		t.Fatalf("packs %v: the rule with bad examples is left out, the other pack loads", packs)
	}
	// The same rule without the bad entries: the link inside the pack is read.
	writeFiles(t, dir, map[string]string{"Acme/r.md": "---\nid: R\nname: R\nexamples:\n  - file: examples/inside.md\n---\nBody.\n"})
	packs, problems, err = LoadPacks(dir)
	if err != nil || len(problems) != 0 {
		t.Fatalf("%v %v", err, problems)
	}
	ex := packs[0].Rules[0].Examples[0]
	if ex.Text != "We met in order to plan.\n" || !reflect.DeepEqual(ex.Spans, []Span{{7, 18}}) || ex.Path != filepath.Join(dir, "Acme", "examples", "inside.md") {
		t.Errorf("example %s", dumpExamples([]*Example{ex}))
	}
}
