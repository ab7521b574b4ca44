package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Files an untrusted pull request can put in the tree (spec/trust.md §2), through the lint
// command: links out of the tree, /proc/self/environ, FIFOs, huge documents.

// withinTime runs f and fails the test after 20 s instead of hanging the suite: a regression
// that opens a FIFO blocks forever.
func withinTime(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("still running after 20 s: a FIFO was opened?")
	}
}

// untrustedTree writes the fault project plus, in docs/, a link to a secret file outside the
// project, a link to /proc/self/environ, a link inside the tree, a FIFO and a dangling link. It
// returns the project folder and the secret's text.
func untrustedTree(t *testing.T) (dir, secret string) {
	t.Helper()
	dir = t.TempDir()
	writeTestTree(t, dir, faultProject())
	secret = "SECRET-FROM-OUTSIDE-THE-TREE-4242"
	outside := filepath.Join(t.TempDir(), "credentials.md")
	if err := os.WriteFile(outside, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, target := range map[string]string{"stolen.md": outside, "environ.md": "/proc/self/environ", "inside.md": "b.md", "dangling.md": "gone.md"} {
		if err := os.Symlink(target, filepath.Join(dir, "docs", name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "docs", "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir, secret
}

// TestLintUntrustedTree walks a tree with links out of it and a FIFO: only the regular files
// inside are linted, the rest is listed as skipped (JSON) or warned about (--verbose), nothing
// hangs, and neither the secret file nor the process environment reaches the model.
func TestLintUntrustedTree(t *testing.T) {
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	dir, secret := untrustedTree(t)
	t.Setenv("VECTORLINT_TEST_CANARY", "CANARY-IN-THE-PROCESS-ENVIRONMENT")
	var r cliResult
	withinTime(t, func() { r = runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs") })
	if r.code != exitFindings {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := decodeJSON(t, r.stdout)
	var linted []string
	for _, f := range res.Files {
		linted = append(linted, f.Path)
	}
	if got := strings.Join(linted, " "); got != "docs/a.md docs/b.md docs/inside.md" {
		t.Errorf("linted %s", got)
	}
	var skipped struct {
		Skipped []struct{ Path, Reason string }
	}
	if err := json.Unmarshal([]byte(r.stdout), &skipped); err != nil {
		t.Fatal(err)
	}
	environ, _ := filepath.EvalSymlinks("/proc/self/environ")
	docs, _ := filepath.EvalSymlinks(filepath.Join(dir, "docs"))
	outside := ", outside the folder walked (" + docs + "): only links inside it are followed"
	want := []string{
		"docs/dangling.md: a symbolic link to nothing (its target does not exist)",
		"docs/environ.md: a symbolic link to " + environ + outside,
		"docs/pipe.md: a FIFO (named pipe), not a regular file",
		"docs/stolen.md: a symbolic link to " + stolenTarget(t, dir) + outside,
	}
	var got []string
	for _, s := range skipped.Skipped {
		got = append(got, s.Path+": "+s.Reason)
	}
	if !slices.Equal(got, want) {
		t.Errorf("skipped:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, req := range srv.Requests() {
		for _, leak := range []string{secret, "CANARY-IN-THE-PROCESS-ENVIRONMENT"} {
			if strings.Contains(string(req.Body), leak) {
				t.Fatalf("%s reached the model", leak)
			}
		}
	}
	if srv.Calls() != 9 { // 3 rules × 3 files
		t.Errorf("%d calls, want 9", srv.Calls())
	}

	// --verbose names each skipped file and why in the line output.
	withinTime(t, func() { r = runVectorlint(t, dir, fakeEnv(srv), "", "--verbose", "--no-color", "docs") })
	for _, want := range []string{`(?m)^  docs/pipe\.md +a FIFO \(named pipe\), not a regular file$`, `(?m)^  docs/stolen\.md +a symbolic link to .*, outside the folder walked`} {
		if !regexp.MustCompile(want).MatchString(r.stdout) {
			t.Errorf("--verbose output lacks %s\n%s", want, r.stdout)
		}
	}
}

// stolenTarget is where untrustedTree's docs/stolen.md resolves.
func stolenTarget(t *testing.T, dir string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(filepath.Join(dir, "docs", "stolen.md"))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLintNamedSpecialFile names a FIFO, /proc/self/environ and a link to it on the command
// line: each is an error naming the path and what it is, before any call.
func TestLintNamedSpecialFile(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	dir, _ := untrustedTree(t)
	if r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs/a.md"); r.code == exitFailure {
		t.Fatalf("docs/a.md alone: exit %d\n%s", r.code, r.stderr)
	}
	aloneCalls := srv.Calls()
	for _, tt := range []struct{ arg, want string }{
		{"docs/pipe.md", "vectorlint: docs/pipe.md: a FIFO (named pipe), not a regular file: only regular files are linted\n"},
		{"/proc/self/environ", "vectorlint: /proc/self/environ: a file of the proc pseudo-filesystem, not a regular file: only regular files are linted\n"},
		// A link the repository committed, leading out of the project root (spec/trust.md §6).
		{"docs/environ.md", "vectorlint: docs/environ.md: a symbolic link leading outside the project root " + dir + "\n"},
		{"/dev/zero", "vectorlint: /dev/zero: a character device, not a regular file: only regular files are linted\n"},
	} {
		// The named file is that path's error (exit 2), in the report and on stderr; the other
		// file is still linted, with the calls it makes alone (issue 32).
		before := srv.Calls()
		var r cliResult
		withinTime(t, func() { r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs/a.md", tt.arg) })
		entry := tt.arg + "\n  Could not run:\n    vectorlint  " + strings.TrimPrefix(strings.TrimSuffix(tt.want, "\n"), "vectorlint: "+tt.arg+": ") + "\n"
		if r.code != exitFailure || r.stderr != tt.want || !strings.Contains(r.stdout, entry) || !strings.Contains(r.stdout, "docs/a.md\n  1:1  error") {
			t.Errorf("%s: exit %d\nstdout %s\nstderr %q\nwant   %q and the entry\n%s", tt.arg, r.code, r.stdout, r.stderr, tt.want, entry)
		}
		if got := srv.Calls() - before; got != aloneCalls {
			t.Errorf("%s: %d calls, want %d (docs/a.md's)", tt.arg, got, aloneCalls)
		}
	}
}

// TestLintDocumentTooLarge lints a document one byte over document.MaxDocumentSize beside a normal
// one: the big one is an error for that file (exit 2), the other keeps its results.
func TestLintDocumentTooLarge(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	dir := t.TempDir()
	files := faultProject()
	files["docs/big.md"] = strings.Repeat("word ", document.MaxDocumentSize/5) + "x"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs/a.md", "docs/big.md")
	if r.code != exitFailure {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := decodeJSON(t, r.stdout)
	if len(res.Files) != 2 || len(res.Files[0].Scores) != 3 {
		t.Fatalf("files %+v", res.Files)
	}
	want := fmt.Sprintf("cannot read the file: too large: expected at most 10 MiB (10485760 bytes), found %d bytes", document.MaxDocumentSize+1)
	if big := res.Files[1]; len(big.Errors) != 1 || big.Errors[0].Message != want {
		t.Errorf("big.md errors %+v\nwant %s", big.Errors, want)
	}
	if srv.Calls() != 3 {
		t.Errorf("%d calls, want 3 (a.md only)", srv.Calls())
	}
	// Standard input is a document too.
	r = runVectorlint(t, dir, fakeEnv(srv), files["docs/big.md"], "--output", "json", "--no-cache", "--stdin-filename", "docs/in.md", "-")
	if r.code != exitFailure || !strings.Contains(r.stdout, `"message": "cannot read the file: too large: expected at most 10 MiB (10485760 bytes), found more"`) {
		t.Errorf("stdin: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
}

// TestSpecialConfigAndBlueprintFiles puts a FIFO where vectorlint.ini is looked for, names
// /proc/self/environ as the configuration, and gives FIFOs and /proc files as blueprints: each
// is an error naming the file, and nothing blocks.
func TestSpecialConfigAndBlueprintFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"docs/a.md": "Text.\n"})
	if err := syscall.Mkfifo(filepath.Join(dir, "vectorlint.ini"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "b.yml"), 0o644); err != nil {
		t.Fatal(err)
	}
	ini := filepath.Join(dir, "vectorlint.ini")
	for _, tt := range []struct {
		args   []string
		stdout string
		stderr string
	}{
		{[]string{"docs/a.md"}, "", "vectorlint: cannot read the configuration: read " + ini + ": a FIFO (named pipe), not a regular file\n"},
		{[]string{"--config", "/proc/self/environ", "docs/a.md"}, "", "vectorlint: cannot read the configuration: read /proc/self/environ: a file of the proc pseudo-filesystem, not a regular file\n"},
		{[]string{"blueprint", "check", "b.yml", "/proc/self/environ"}, "b.yml: error: cannot read the file: a FIFO (named pipe), not a regular file\n" +
			"/proc/self/environ: error: cannot read the file: a file of the proc pseudo-filesystem, not a regular file\n" +
			"checked 2 blueprints: 2 invalid, 0 warnings\n", ""},
		{[]string{"blueprint", "run", "b.yml"}, "", "vectorlint blueprint run: cannot read b.yml: a FIFO (named pipe), not a regular file\n"},
	} {
		var r cliResult
		withinTime(t, func() { r = runVectorlint(t, dir, nil, "", tt.args...) })
		if r.code != exitFailure || r.stdout != tt.stdout || r.stderr != tt.stderr {
			t.Errorf("%v: exit %d\nstdout %q\nwant   %q\nstderr %q\nwant   %q", tt.args, r.code, r.stdout, tt.stdout, r.stderr, tt.stderr)
		}
	}
}
