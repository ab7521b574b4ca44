package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Paths from the repository are never options (docs/security.md): after "--" every argument is
// a path, a file named like a flag or like a command included, as pre-commit passes staged file
// names after the hook's entry.

// dashProject lints every file with a Wordiness rule (the fake model's testutil.WordyModel);
// its documents are named like flags, commands and standard input.
func dashProject(t *testing.T) (string, map[string]string) {
	t.Helper()
	const doc = "In order to start, run it.\n"
	docs := map[string]string{"validate": doc, "version": doc, "--fix": doc, "--output=json": doc, "-": doc}
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases; give the shorter one as the fix.\n",
	}
	for k, v := range docs {
		files[k] = v
	}
	dir := t.TempDir()
	writeTestTree(t, dir, files)
	return dir, docs
}

// TestDoubleDashEndsOptions: "vectorlint -- validate version --fix --output=json -" lints five
// files with those names (not the validate or version command, not --fix, not json output,
// not standard input) and rewrites nothing; flags before "--" still apply ("--fix -- --fix"
// fixes the file named --fix); a flag after "--" is a missing file, and the message says why.
func TestDoubleDashEndsOptions(t *testing.T) {
	t.Parallel()
	srv := fixServer(t)
	dir, docs := dashProject(t)
	cache := t.TempDir()
	r := runVectorlint(t, dir, fakeEnv(srv), "not a document", "--cache-dir", cache, "--", "validate", "version", "--fix", "--output=json", "-")
	var want strings.Builder
	for _, name := range []string{"-", "--fix", "--output=json", "validate", "version"} {
		want.WriteString(name + "\n  1:1  error  Wordy: use \"to\".  Acme.Wordiness\n  Scores below 10.0:\n" +
			"    Acme.Wordiness   0.0  1 violation in 6 words, strictness 10\n\n")
	}
	want.WriteString("✖ 5 errors and 0 warnings in 5 files.\n")
	r.withoutUsage().expect(t, exitFindings, want.String(), "")
	for name, text := range docs {
		if got := readFile(t, filepath.Join(dir, name)); got != text {
			t.Errorf("%s was rewritten: %q", name, got)
		}
	}

	f := runVectorlint(t, dir, fakeEnv(srv), "", "--fix", "--cache-dir", cache, "--", "--fix")
	if f.code != exitOK || f.stderr != "vectorlint: --fix: 1 fix applied\nvectorlint: 1 fix applied in 1 file\n" {
		t.Errorf("--fix -- --fix: exit %d\n%s", f.code, f.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "--fix")); got != "To start, run it.\n" {
		t.Errorf("--fix -- --fix: the file --fix is %q", got)
	}
	if got := readFile(t, filepath.Join(dir, "validate")); got != docs["validate"] {
		t.Errorf("--fix -- --fix rewrote validate: %q", got)
	}

	m := runVectorlint(t, dir, fakeEnv(srv), "", "--cache-dir", cache, "--", "--fail-on", "validate")
	m.expect(t, exitFailure, "", "vectorlint: --fail-on: no such file or folder (after \"--\" every argument is a file name: give flags before it)\n")
}

// TestDoubleDashStandardInput: "-" before "--" is standard input; after it, the file named "-".
// So --stdin-filename with only "-- -" is refused (it names a document standard input does not
// give), and "--stdin-filename NAME - -- -" reads both.
func TestDoubleDashStandardInput(t *testing.T) {
	t.Parallel()
	srv := fixServer(t)
	dir, _ := dashProject(t)
	cache := t.TempDir()
	r := runVectorlint(t, dir, fakeEnv(srv), "Due to the fact that it rains.\n", "--cache-dir", cache, "--stdin-filename", "buffer.md", "--", "-")
	if r.code != exitFailure || !strings.Contains(r.stderr, "--stdin-filename names the document read from standard input: add the PATH -") {
		t.Errorf("--stdin-filename NAME -- -: exit %d\n%s", r.code, r.stderr)
	}
	b := runVectorlint(t, dir, fakeEnv(srv), "Due to the fact that it rains.\n", "--cache-dir", cache, "--stdin-filename", "buffer.md", "-", "--", "-")
	b.withoutUsage().expect(t, exitFindings, "-\n  1:1  error  Wordy: use \"to\".  Acme.Wordiness\n  Scores below 10.0:\n"+
		"    Acme.Wordiness   0.0  1 violation in 6 words, strictness 10\n\n"+
		"buffer.md\n  1:1  error  Wordy: use \"because\".  Acme.Wordiness\n  Scores below 10.0:\n"+
		"    Acme.Wordiness   0.0  1 violation in 7 words, strictness 10\n\n"+
		"✖ 2 errors and 0 warnings in 2 files.\n", "")
}

// TestDoubleDashSubcommands: the other commands that take file names end their options at "--"
// too: ls-config, merge and blueprint check read files named like their own flags.
func TestDoubleDashSubcommands(t *testing.T) {
	t.Parallel()
	srv := fixServer(t)
	dir, _ := dashProject(t)
	// ls-config: the file named --config is a FILE, whose sections are listed.
	writeTestTree(t, dir, map[string]string{"--config": "x\n"})
	l := runVectorlint(t, dir, nil, "", "ls-config", "--", "--config")
	if l.code != exitOK || !strings.Contains(l.stdout, `"path": "--config"`) {
		t.Errorf("ls-config -- --config: exit %d\n%s\n%s", l.code, l.stdout, l.stderr)
	}
	// merge: a json result named --output=sarif is merged, and printed in the line format.
	j := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--output", "json", "validate")
	if err := os.WriteFile(filepath.Join(dir, "--output=sarif"), []byte(j.stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	m := runVectorlint(t, dir, nil, "", "merge", "--", "--output=sarif")
	if m.code != exitFindings || !strings.HasPrefix(m.stdout, "validate\n  1:1  error  Wordy") {
		t.Errorf("merge -- --output=sarif: exit %d\n%s\n%s", m.code, m.stdout, m.stderr)
	}
	// blueprint check: a blueprint named --print is checked, not printed.
	writeTestTree(t, dir, map[string]string{"--print": "title: T\n---\n- {id: a, prompt: Q}\n"})
	code, stdout, stderr := runBlueprintApp(t, dir, nil, "blueprint", "check", "--", "--print")
	if code != exitOK || stdout != "checked 1 blueprint: 0 invalid, 0 warnings\n" || stderr != "" {
		t.Errorf("blueprint check -- --print: exit %d\n%s\n%s", code, stdout, stderr)
	}
}
