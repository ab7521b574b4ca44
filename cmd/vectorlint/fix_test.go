package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// fixProject lints with a Wordiness rule the fake model answers by reading the text
// (testutil.WordyModel): every wordy phrase is a violation with its fix.
func fixProject(docs map[string]string) map[string]string {
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases; give the shorter one as the fix.\n",
	}
	for k, v := range docs {
		files[k] = v
	}
	return files
}

// fixServer answers with testutil.WordyModel, and hook, when set, first.
func fixServer(t *testing.T) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	return srv
}

// withoutUsage drops the "LLM usage" line, whose token counts depend on the prompts.
func (r cliResult) withoutUsage() cliResult {
	var lines []string
	for _, l := range strings.SplitAfter(r.stdout, "\n") {
		if !strings.HasPrefix(l, "LLM usage: ") {
			lines = append(lines, l)
		}
	}
	r.stdout = strings.Join(lines, "")
	return r
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestFixWritesFiles: --fix rewrites each file with the fixes of its exactly located quotes
// (LF, CRLF and multi-byte files alike), keeps its mode, prints the findings left in the chosen
// format and says per file what was applied; a second lint finds nothing.
func TestFixWritesFiles(t *testing.T) {
	t.Parallel()
	docs := map[string]string{
		"docs/lf.md":    "# LF\n\nIn order to start, run it. Due to the fact that it is fast, wait.\n",
		"docs/crlf.md":  "# CRLF\r\n\r\nWe act in order to win.\r\nIt has the ability to fly.\r\n",
		"docs/multi.md": "# Café 👋\n\nLe café — naïve façade — in order to succeed 🎉.\n",
		"docs/clean.md": "# Clean\n\nNothing to say.\n",
	}
	srv := fixServer(t)
	dir := t.TempDir()
	writeTestTree(t, dir, fixProject(docs))
	if err := os.Chmod(filepath.Join(dir, "docs", "crlf.md"), 0o600); err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--fix", "--cache-dir", cache, "docs")
	want := map[string]string{
		"docs/lf.md":    "# LF\n\nTo start, run it. Because it is fast, wait.\n",
		"docs/crlf.md":  "# CRLF\r\n\r\nWe act to win.\r\nIt can fly.\r\n",
		"docs/multi.md": "# Café 👋\n\nLe café — naïve façade — to succeed 🎉.\n",
		"docs/clean.md": "# Clean\n\nNothing to say.\n",
	}
	for path, text := range want {
		if got := readFile(t, filepath.Join(dir, path)); got != text {
			t.Errorf("%s: %q, want %q", path, got, text)
		}
	}
	if fi, _ := os.Stat(filepath.Join(dir, "docs", "crlf.md")); fi.Mode().Perm() != 0o600 {
		t.Errorf("crlf.md mode %v, want 0600", fi.Mode().Perm())
	}
	// The findings fixed are not reported; the scores are those of the text as it was linted.
	r.withoutUsage().expect(t, exitOK, "docs/crlf.md\n"+
		"  Scores below 10.0:\n"+
		"    Acme.Wordiness   0.0  2 violations in 14 words, strictness 10\n\n"+
		"docs/lf.md\n"+
		"  Scores below 10.0:\n"+
		"    Acme.Wordiness   0.0  2 violations in 17 words, strictness 10\n\n"+
		"docs/multi.md\n"+
		"  Scores below 10.0:\n"+
		"    Acme.Wordiness   2.9  1 violation in 14 words, strictness 10\n\n"+
		"✓ 0 errors and 0 warnings in 4 files.\n",
		"vectorlint: docs/crlf.md: 2 fixes applied\n"+
			"vectorlint: docs/lf.md: 2 fixes applied\n"+
			"vectorlint: docs/multi.md: 1 fix applied\n"+
			"vectorlint: 5 fixes applied in 3 files\n")

	// A second lint (the fixed files are new texts: new calls) finds nothing.
	again := runVectorlint(t, dir, fakeEnv(srv), "", "--cache-dir", cache, "docs")
	again.withoutUsage().expect(t, exitOK, "✓ 0 errors and 0 warnings in 4 files.\n", "")
	if srv.Calls() != 7 { // the three fixed files are new texts; the clean one is cached
		t.Errorf("%d calls in all, want 7", srv.Calls())
	}
}

// TestFixLeavesWhatItCannotFix: a quote found only fuzzily or ignoring case keeps its finding
// and gets no edit; of two overlapping fixes the first by position wins and the other is
// reported as skipped; what is left is reported and decides the exit code.
func TestFixLeavesWhatItCannotFix(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "in order to", "line": 3, "message": "Wordy.", "fix": "to"},
		map[string]any{"quoted_text": "order to win", "line": 3, "message": "Say it plainly.", "fix": "to succeed"},
		map[string]any{"quoted_text": "Has The Ability To", "line": 4, "message": "Case-folded.", "fix": "can"},
		map[string]any{"quoted_text": "gathrs togethr all", "line": 5, "message": "Fuzzy.", "fix": "gathers all"},
	}}))
	dir := t.TempDir()
	doc := "# T\n\nWe act in order to win.\nIt has the ability to fly.\nIt gathers together all logs.\n"
	writeTestTree(t, dir, fixProject(map[string]string{"docs/a.md": doc}))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--fix", "--no-cache", "docs")
	wantDoc := "# T\n\nWe act to win.\nIt has the ability to fly.\nIt gathers together all logs.\n"
	if got := readFile(t, filepath.Join(dir, "docs", "a.md")); got != wantDoc {
		t.Errorf("file %q, want %q", got, wantDoc)
	}
	r.withoutUsage().expect(t, exitFindings, "docs/a.md\n"+
		"  3:11  error  Say it plainly.  Acme.Wordiness\n"+
		"  4:4   error  Case-folded.     Acme.Wordiness\n"+
		"  5:4   error  Fuzzy.           Acme.Wordiness\n"+
		"  Scores below 10.0:\n"+
		"    Acme.Wordiness   0.0  4 violations in 19 words, strictness 10\n"+
		"\n"+
		"✖ 3 errors and 0 warnings in 1 file.\n",
		"vectorlint: docs/a.md: 1 fix applied, 1 skipped\n"+
			"vectorlint: docs/a.md:3:11: Acme.Wordiness: fix skipped: overlaps the fix of Acme.Wordiness at 3:8\n"+
			"vectorlint: 1 fix applied in 1 file, 1 skipped\n")
}

// TestFixDiff: --fix=diff prints a unified diff (git's a/ b/ prefixes) and writes nothing; the
// exit code is the one --fix would give.
func TestFixDiff(t *testing.T) {
	t.Parallel()
	srv := fixServer(t)
	dir := t.TempDir()
	docs := map[string]string{
		"docs/a.md": "# A\n\nIn order to start, run it.\n",
		"docs/b.md": "# B\r\n\r\nIt has the ability to fly.\r\n",
	}
	writeTestTree(t, dir, fixProject(docs))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--fix=diff", "--no-cache", "docs")
	r.expect(t, exitOK, "--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1,3 +1,3 @@\n # A\n \n-In order to start, run it.\n+To start, run it.\n"+
		"--- a/docs/b.md\n+++ b/docs/b.md\n@@ -1,3 +1,3 @@\n # B\r\n \r\n-It has the ability to fly.\r\n+It can fly.\r\n",
		"vectorlint: docs/a.md: 1 fix to apply\n"+
			"vectorlint: docs/b.md: 1 fix to apply\n"+
			"vectorlint: 2 fixes to apply in 2 files (nothing written)\n")
	for path, text := range docs {
		if got := readFile(t, filepath.Join(dir, path)); got != text {
			t.Errorf("%s was written: %q", path, got)
		}
	}
}

// TestFixDiffEscaped: a diff shown on a terminal or in a GitHub Actions log cannot drive either:
// control characters of the document are shown escaped and no line reads as a workflow
// command; piped elsewhere, it is exact (git apply takes it).
func TestFixDiffEscaped(t *testing.T) {
	t.Parallel()
	srv := fixServer(t)
	dir := t.TempDir()
	doc := "# A \x1b[31mred\x1b[0m\n::error::pwned\nIn order to start, run it.\n"
	writeTestTree(t, dir, fixProject(map[string]string{"docs/a.md": doc}))
	run := func(terminal bool, env map[string]string) string {
		var stdout, stderr strings.Builder
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir, noStdoutNet: true,
			stdoutIsTerminal: terminal, lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		if code := a.run(t.Context(), []string{"--fix=diff", "--no-cache", "docs"}); code != exitOK {
			t.Fatalf("exit %d\n%s", code, stderr.String())
		}
		return stdout.String()
	}
	const hunk = "@@ -1,3 +1,3 @@\n"
	if got := run(false, fakeEnv(srv)); got != "--- a/docs/a.md\n+++ b/docs/a.md\n"+hunk+
		" # A \x1b[31mred\x1b[0m\n ::error::pwned\n-In order to start, run it.\n+To start, run it.\n" {
		t.Errorf("piped: %q", got)
	}
	if got := run(true, fakeEnv(srv)); got != "--- a/docs/a.md\n+++ b/docs/a.md\n"+hunk+
		" # A \\x1b[31mred\\x1b[0m\n ::error::pwned\n-In order to start, run it.\n+To start, run it.\n" {
		t.Errorf("terminal: %q", got)
	}
	env := fakeEnv(srv)
	env["GITHUB_ACTIONS"] = "true"
	got := run(false, env)
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "::") || strings.Contains(line, "\x1b") {
			t.Errorf("GitHub Actions: line %q", line)
		}
	}
	if !strings.Contains(got, ` \::error::pwned`) {
		t.Errorf("GitHub Actions: %q", got)
	}
}

// TestFixStdin: with --stdin-filename, --fix prints the fixed text (an editor replaces its buffer
// with it, pre-commit compares it) and --fix=diff its diff; nothing is written. A document no
// section lints comes back as it was.
func TestFixStdin(t *testing.T) {
	t.Parallel()
	srv := fixServer(t)
	dir := t.TempDir()
	writeTestTree(t, dir, fixProject(map[string]string{"docs/a.md": "on disk: in order to\n"}))
	const buffer = "# Draft\n\nIn order to win, we act. Due to the fact that — café.\n"
	r := runVectorlint(t, dir, fakeEnv(srv), buffer, "--fix", "--no-cache", "--stdin-filename", "docs/a.md")
	r.expect(t, exitOK, "# Draft\n\nTo win, we act. Because — café.\n",
		"vectorlint: docs/a.md: 2 fixes applied\nvectorlint: 2 fixes applied in 1 file\n")
	if got := readFile(t, filepath.Join(dir, "docs", "a.md")); got != "on disk: in order to\n" {
		t.Errorf("the file on disk was written: %q", got)
	}
	d := runVectorlint(t, dir, fakeEnv(srv), buffer, "--fix=diff", "--no-cache", "--stdin-filename", "docs/a.md", "-")
	d.expect(t, exitOK, "--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1,3 +1,3 @@\n # Draft\n \n"+
		"-In order to win, we act. Due to the fact that — café.\n+To win, we act. Because — café.\n",
		"vectorlint: docs/a.md: 2 fixes to apply\nvectorlint: 2 fixes to apply in 1 file (nothing written)\n")

	// Not linted (no section matches): given back unchanged.
	n := runVectorlint(t, dir, fakeEnv(srv), buffer, "--fix", "--no-cache", "--stdin-filename", "notes/x.txt")
	n.expect(t, exitOK, buffer, "vectorlint: no fix to apply\n")

	// Standard input with other paths is refused before anything runs.
	m := runVectorlint(t, dir, fakeEnv(srv), buffer, "--fix", "--stdin-filename", "docs/a.md", "-", "docs")
	if m.code != exitFailure || !strings.Contains(m.stderr, "--fix with standard input prints the fixed text: lint only the PATH -") {
		t.Errorf("exit %d, stderr %q", m.code, m.stderr)
	}
}

// TestFixFileChangedDuringRun: a file edited while its calls are out is not rewritten (its
// fixes were made for the old bytes): the edit is kept, the run says so and exits 2.
func TestFixFileChangedDuringRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "docs", "a.md")
	srv := llmtest.Start(t)
	wordy := testutil.WordyModel()
	srv.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		// The user saves the file while the model is thinking.
		if err := os.WriteFile(path, []byte("# A\n\nIn order to start, edited.\n"), 0o644); err != nil {
			t.Error(err)
		}
		return wordy.Func(r)
	}))
	writeTestTree(t, dir, fixProject(map[string]string{"docs/a.md": "# A\n\nIn order to start, run it.\n"}))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--fix", "--no-cache", "docs")
	if got := readFile(t, path); got != "# A\n\nIn order to start, edited.\n" {
		t.Errorf("file %q", got)
	}
	r.withoutUsage().expect(t, exitFailure, "docs/a.md\n"+
		"  3:1  error  Wordy: use \"to\".  Acme.Wordiness\n"+
		"  Scores below 10.0:\n"+
		"    Acme.Wordiness   0.0  1 violation in 8 words, strictness 10\n"+
		"\n"+
		"✖ 1 error and 0 warnings in 1 file.\n",
		"vectorlint: docs/a.md: changed since it was linted; not rewritten (run vectorlint --fix again)\n"+
			"vectorlint: 1 file not rewritten\n")
}

// TestFixFlagErrors: the flag's values and combinations.
func TestFixFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--fix=all", "docs"}, "vectorlint: --fix: expected --fix (rewrite the files) or --fix=diff, found --fix=all\n"},
		{[]string{"--fix", "--dry-run", "docs"}, "vectorlint: --fix and --dry-run cannot be combined (--fix=diff shows the fixes without writing)\n"},
	} {
		r := runVectorlint(t, dir, nil, "", tt.args...)
		if r.code != exitFailure || !strings.HasPrefix(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
		}
	}
}

// TestFixExample runs --fix on the bundled example as the README shows it, with a model that
// reports the example's wordy phrases: the fixes are applied, and a second lint shows them gone
// — the model's findings and the deterministic PlainWords checks on the same phrases alike.
func TestFixExample(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	copyTree(t, filepath.Join(testutil.RepoRoot(t), "examples"), filepath.Join(dir, "examples"))
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel("Clarity", "Specificity"))
	cache := t.TempDir()
	args := []string{"--config", "examples/vectorlint.ini", "--cache-dir", cache, "--output", "json", "examples/docs"}

	before := lintJSON(t, runVectorlint(t, dir, fakeEnv(srv), "", args...))
	if n := countRule(before, "Acme.Wordiness"); n != 5 {
		t.Fatalf("the example has %d wordy phrases before fixing, want 5", n)
	}
	if n := countRule(before, "Acme.PlainWords"); n != 4 {
		t.Fatalf("the example has %d PlainWords findings before fixing, want 4", n)
	}

	fixed := runVectorlint(t, dir, fakeEnv(srv), "", append([]string{"--fix"}, args...)...)
	if fixed.code != exitOK {
		t.Fatalf("--fix: exit %d\n%s", fixed.code, fixed.stderr)
	}
	if !strings.HasSuffix(fixed.stderr, "vectorlint: 5 fixes applied in 2 files\n") {
		t.Errorf("--fix stderr:\n%s", fixed.stderr)
	}
	gs := readFile(t, filepath.Join(dir, "examples", "docs", "getting-started.md"))
	for _, s := range []string{"To deploy, you need", "Because the installer edits", "The CLI can detect"} {
		if !strings.Contains(gs, s) {
			t.Errorf("getting-started.md lacks %q:\n%s", s, gs)
		}
	}
	rn := readFile(t, filepath.Join(dir, "examples", "docs", "release-notes.md"))
	for _, s := range []string{"now gathers build logs", "- Now, Windows support"} {
		if !strings.Contains(rn, s) {
			t.Errorf("release-notes.md lacks %q:\n%s", s, rn)
		}
	}

	after := lintJSON(t, runVectorlint(t, dir, fakeEnv(srv), "", args...))
	if n := countRule(after, "Acme.Wordiness") + countRule(after, "Acme.PlainWords"); n != 0 {
		t.Errorf("%d wordiness findings left after --fix:\n%+v", n, after)
	}
}

// lintJSON decodes a run's JSON output.
func lintJSON(t *testing.T, r cliResult) jsonResult {
	t.Helper()
	if r.code == exitFailure {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	return decodeJSON(t, r.stdout)
}

// countRule counts the findings of a rule.
func countRule(res jsonResult, rule string) int {
	n := 0
	for _, f := range res.Files {
		for _, x := range f.Findings {
			if x.Rule == rule {
				n++
			}
		}
	}
	return n
}

// copyTree copies the regular files under src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestFixDuplicateFindings: two rules that report the same quote with the same fix (issue 32).
// The change is made once, and both findings are fixed by it: neither is reported, counted or
// makes the exit code 1, so the vectorlint-fix pre-commit hook passes on the fixed text. A
// different fix for an overlapping quote is still skipped and reported. The same holds for
// --fix=diff and for standard input.
func TestFixDuplicateFindings(t *testing.T) {
	t.Parallel()
	srv := fixServer(t)
	dir := t.TempDir()
	const doc = "# A\n\nIn order to start, run it.\n"
	files := fixProject(map[string]string{"docs/a.md": doc})
	files["rules/Acme/concise.md"] = "---\nid: Concise\nname: Concise\nseverity: error\n---\n" +
		"Flag wordy phrases; give the shorter one as the fix.\n"
	writeTestTree(t, dir, files)
	const fixed = "# A\n\nTo start, run it.\n"
	const clean = "✓ 0 errors and 0 warnings in 1 file.\n"

	d := runVectorlint(t, dir, fakeEnv(srv), "", "--fix=diff", "--no-cache", "docs")
	d.expect(t, exitOK, "--- a/docs/a.md\n+++ b/docs/a.md\n@@ -1,3 +1,3 @@\n # A\n \n-In order to start, run it.\n+To start, run it.\n",
		"vectorlint: docs/a.md: 1 fix to apply, 1 more finding has the same fix\n"+
			"vectorlint: 1 fix to apply in 1 file, 1 more finding has the same fix (nothing written)\n")
	if got := readFile(t, filepath.Join(dir, "docs", "a.md")); got != doc {
		t.Errorf("--fix=diff wrote the file: %q", got)
	}

	s := runVectorlint(t, dir, fakeEnv(srv), doc, "--fix", "--no-cache", "--stdin-filename", "docs/a.md")
	s.expect(t, exitOK, fixed,
		"vectorlint: docs/a.md: 1 fix applied, 1 more finding had the same fix\n"+
			"vectorlint: 1 fix applied in 1 file, 1 more finding had the same fix\n")

	r := runVectorlint(t, dir, fakeEnv(srv), "", "--fix", "--no-cache", "--output", "json", "docs")
	if r.code != exitOK {
		t.Fatalf("--fix: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if got := readFile(t, filepath.Join(dir, "docs", "a.md")); got != fixed {
		t.Errorf("--fix: file %q, want %q", got, fixed)
	}
	res := decodeJSON(t, r.stdout)
	if n := countRule(res, "Acme.Wordiness") + countRule(res, "Acme.Concise"); n != 0 || res.Summary.Errors != 0 {
		t.Errorf("--fix: %d findings left, %d errors counted:\n%s", n, res.Summary.Errors, r.stdout)
	}
	if r.stderr != "vectorlint: docs/a.md: 1 fix applied, 1 more finding had the same fix\nvectorlint: 1 fix applied in 1 file, 1 more finding had the same fix\n" {
		t.Errorf("--fix: stderr %q", r.stderr)
	}
	// The fixed file lints clean (the hook's second look).
	again := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs")
	again.withoutUsage().expect(t, exitOK, clean, "")
}
