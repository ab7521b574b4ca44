package main

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestDirectiveNotRegular: a FIFO or a link to /proc/self/environ planted as
// .vectorlint/directive.md is never read (spec/trust.md §2, §6: the link leads out of the
// project root): an error naming the file, exit 2, no model call, nothing blocks.
func TestDirectiveNotRegular(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	for _, tt := range []struct {
		name  string
		plant func(path string) error
		found string // after "cannot read the project directive: "; PATH and ROOT stand for the file and the project
	}{
		{"FIFO", func(p string) error { return syscall.Mkfifo(p, 0o644) }, "read PATH: a FIFO (named pipe), not a regular file"},
		{"link to /proc", func(p string) error { return os.Symlink("/proc/self/environ", p) }, "open PATH: a symbolic link leading outside the project root ROOT"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTestTree(t, dir, lintProject())
			path := filepath.Join(dir, ".vectorlint", "directive.md")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := tt.plant(path); err != nil {
				t.Fatal(err)
			}
			var r cliResult
			withinTime(t, func() { r = runVectorlint(t, dir, fakeEnv(srv), "", "docs/titled.md") })
			want := "vectorlint: cannot read the project directive: " + strings.NewReplacer("PATH", path, "ROOT", dir).Replace(tt.found) + "\n"
			if r.code != exitFailure || r.stderr != want {
				t.Errorf("exit %d, stderr %q\nwant %q", r.code, r.stderr, want)
			}
		})
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls", srv.Calls())
	}
}
