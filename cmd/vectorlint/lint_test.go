package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// cliResult is what one in-process run of the command produced.
type cliResult struct {
	stdout, stderr string
	code           int
}

// runVectorlint runs the command in-process in dir, with env as the whole environment, under
// calmJSLimit.
func runVectorlint(t *testing.T, dir string, env map[string]string, stdin string, args ...string) cliResult {
	t.Helper()
	return runVectorlintJS(t, dir, env, stdin, calmJSLimit, args...)
}

// runVectorlintJS is runVectorlint with the given $js time limit.
func runVectorlintJS(t *testing.T, dir string, env map[string]string, stdin string, jsLimit time.Duration, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{
		stdin:     strings.NewReader(stdin),
		stdout:    &stdout,
		stderr:    &stderr,
		dir:       dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		jsTimeout: jsLimit,
	}
	code := a.run(context.Background(), args)
	return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// checkCLIGolden compares got with testdata/lint/name, or rewrites it under -update.
func checkCLIGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", "lint", name), got)
}

// writeTestTree creates files (slash-separated paths relative to dir).
func writeTestTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func (r cliResult) expect(t *testing.T, code int, stdout, stderr string) {
	t.Helper()
	if r.code != code || r.stdout != stdout || r.stderr != stderr {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, stdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr, code, stdout, stderr)
	}
}

// expectPathError checks a run whose one PATH names nothing to lint: exit 2, stderr the
// message want ("vectorlint: ARG: reason\n") first, and the report listing the path with its reason.
func (r cliResult) expectPathError(t *testing.T, arg, want string) {
	t.Helper()
	reason := strings.TrimPrefix(strings.TrimSuffix(want, "\n"), "vectorlint: "+arg+": ")
	entry := arg + "\n  Could not run:\n    vectorlint  " + reason + "\n"
	if r.code != exitFailure || !strings.HasPrefix(r.stderr, want) || !strings.HasPrefix(r.stdout, entry) {
		t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit 2, stdout starting:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr, entry, want)
	}
}

// lintProject is a small project whose Headline rule requires an H1 at severity error.
func lintProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n[docs/lenient/**]\nAcme.Headline.severity = warning\n",
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\nseverity: error\n" +
			"target: {regex: '^#\\s+(.+)$', group: 1, required: true, suggestion: Add a title.}\n" +
			"criteria: [{id: Clarity, name: Clarity}]\n---\nRate the title.\n",
		"docs/titled.md":           "# Hello\n",
		"docs/untitled.md":         "No title.\n",
		"docs/lenient/untitled.md": "No title either.\n",
	}
}

func TestLintUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runVectorlint(t, dir, nil, "")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("no PATH: exit %d, stderr %q", r.code, r.stderr)
	}
	checkCLIGolden(t, "usage.golden", r.stdout)
	runVectorlint(t, dir, nil, "", "--help").expect(t, exitOK, r.stdout, "")
	runVectorlint(t, dir, nil, "", "help").expect(t, exitOK, strings.SplitAfter(r.stdout, "for a command's flags.\n")[0], "")
}

func TestLintFlagErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--frobnicate", "x"}, "unknown flag: --frobnicate"},
		{[]string{"--fail-on", "fatal", "x"}, `--fail-on: expected error, warning, suggestion or none, found "fatal"`},
		{[]string{"--output=xml", "x"}, `--output: expected one of line, json, vale-json, rdjson, rdjsonl, github, sarif, junit, found "xml"`},
		{[]string{"--concurrency", "0", "x"}, "--concurrency: expected a whole number from 1 to 256, found 0"},
		{[]string{"--concurrency", "many", "x"}, `invalid argument "many" for "--concurrency" flag: strconv.ParseInt: parsing "many": invalid syntax`},
		{[]string{"--provider", "openia", "x"}, `--provider: expected one of openai, azure-openai, anthropic, gemini, openai-compatible, found "openia"`},
		{[]string{"--quiet", "--verbose", "x"}, "--quiet and --verbose cannot be combined"},
		{[]string{"--stdin-filename", "a.md", "x"}, "--stdin-filename names the document read from standard input: add the PATH -"},
	}
	for _, tt := range tests {
		runVectorlint(t, dir, nil, "", tt.args...).expect(t, exitFailure, "",
			"vectorlint: "+tt.want+"\nRun \"vectorlint --help\" for usage.\n")
	}
}

func TestLintNoConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"a.md": "# A\n"})
	runVectorlint(t, dir, nil, "", "a.md").expect(t, exitFailure, "",
		"vectorlint: no configuration found: looked for .vectorlint.ini and vectorlint.ini in "+dir+
			" and every parent folder, and for VECTORLINT.md in "+dir+", and no --config or VECTORLINT_CONFIG was given; run \"vectorlint init\" to create one\n")
	runVectorlint(t, dir, map[string]string{"VECTORLINT_CONFIG": "missing.ini"}, "", "a.md").expect(t, exitFailure, "",
		"vectorlint: config file missing.ini (from VECTORLINT_CONFIG) not found\n")
}

func TestLintBadConfigAndRules(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := lintProject()
	files["vectorlint.ini"] = "RulesPath = rules\nConcurency = 4\n[**/*.md]\nRunRules = Acme, Nope\n"
	files["rules/Acme/broken.md"] = "---\nid: Broken\nname: Broken\ntarget: {regex: '(', flags: mu}\n---\n"
	writeTestTree(t, dir, files)
	// Every problem at once, each with file and line; no file is linted.
	runVectorlint(t, dir, nil, "", "--dry-run", "docs").expect(t, exitFailure, "",
		"rules/Acme/broken.md:4: target.regex: expected a valid JavaScript regular expression, found \"(\" (missing closing ))\n"+
			"vectorlint.ini:2: Concurency: unknown global key (did you mean \"Concurrency\"?)\n"+
			"vectorlint.ini:4: RunRules: unknown pack \"Nope\" (packs found in RulesPath: Acme; built-in packs: VectorLint)\n")
	delete(files, "rules/Acme/broken.md")
	os.Remove(filepath.Join(dir, "rules", "Acme", "broken.md"))
	writeTestTree(t, dir, map[string]string{"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme, Nope\n"})
	runVectorlint(t, dir, nil, "", "--dry-run", "docs").expect(t, exitFailure, "",
		"vectorlint.ini:3: RunRules: unknown pack \"Nope\" (packs found in RulesPath: Acme; built-in packs: VectorLint)\n")
}

// TestDryRunExample runs the README's first command on the bundled example.
func TestDryRunExample(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	r := runVectorlint(t, root, nil, "", "--config", "examples/vectorlint.ini", "--dry-run", "examples/docs")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	checkCLIGolden(t, "dry-run-example.golden", r.stdout)
	// The example's missing headline is a warning: it fails the run only under --fail-on warning.
	if r := runVectorlint(t, root, nil, "", "--config", "examples/vectorlint.ini", "--dry-run", "--fail-on", "warning", "examples/docs"); r.code != exitFindings {
		t.Errorf("--fail-on warning: exit %d, want 1", r.code)
	}
	r = runVectorlint(t, root, map[string]string{"INPUT_PRICE_PER_MILLION": "2.5", "OUTPUT_PRICE_PER_MILLION": "10"}, "", "--config", "examples/vectorlint.ini", "--dry-run", "--verbose", "examples")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("verbose: exit %d, stderr:\n%s", r.code, r.stderr)
	}
	checkCLIGolden(t, "dry-run-example-verbose.golden", r.stdout)
}

// TestDryRunNoSearchModelOnce: a technical-accuracy rule without a search model cannot run on
// any file, for a reason that does not depend on the file. The dry run says why once per rule,
// with the count of files, not once per file (issue 32: 25 lines for 25 files), and still
// exits 2 as a real run would.
func TestDryRunNoSearchModelOnce(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/facts.md": "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\ntype: subjective\n" +
			"criteria: [{id: Accuracy, name: Accuracy}]\n---\nCheck the claims.\n",
		"docs/a.md": "Go 1.0 shipped in 2012.\n",
		"docs/b.md": "Go has generics.\n",
		"docs/c.md": "Go has goroutines.\n",
	})
	const noSearch = "evaluator technical-accuracy needs a search model: set PERPLEXITY_API_KEY, or SEARCH_MODEL with PERPLEXITY_BASE_URL"
	file := "  Acme.Facts (subjective, warning)\n    not run: no search model is configured\n"
	runVectorlint(t, dir, nil, "", "--dry-run", "docs").expect(t, exitFailure,
		"docs/a.md\n"+file+"docs/b.md\n"+file+"docs/c.md\n"+file+`
Dry run, no LLM call made: 3 files, 0 LLM calls, ~0 input tokens (estimated).
Acme.Facts: `+noSearch+` (not run on 3 files)
3 operational errors (unreadable files, rules that cannot run): a real run would exit 2.
✓ No findings.
`, "vectorlint: Acme.Facts: "+noSearch+" (not run on 3 files)\n")
}

func TestDryRunExitCodes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"--dry-run", "docs/titled.md"}, exitOK},
		{[]string{"--dry-run", "docs"}, exitFindings},
		{[]string{"--dry-run", "--fail-on", "none", "docs"}, exitOK},
		{[]string{"--dry-run", "docs/lenient"}, exitOK},
		{[]string{"--dry-run", "--fail-on=warning", "docs/lenient"}, exitFindings},
		{[]string{"--dry-run", "docs/nope.md"}, exitFailure},
	}
	for _, tt := range tests {
		if r := runVectorlint(t, dir, nil, "", tt.args...); r.code != tt.code {
			t.Errorf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, r.code, tt.code, r.stdout, r.stderr)
		}
	}
	r := runVectorlint(t, dir, nil, "", "--dry-run", "docs/untitled.md")
	r.expect(t, exitFindings, `docs/untitled.md
  Acme.Headline (subjective, error)
    1:1  error  target not found  Acme.Headline
         suggestion: Add a title.
         no LLM call; criteria Clarity

Dry run, no LLM call made: 1 file, 0 LLM calls, ~0 input tokens (estimated).
✖ 1 error and 0 warnings in 1 file.
`, "")
	// A PATH that names nothing is that path's error; the other files are still planned.
	r = runVectorlint(t, dir, nil, "", "--dry-run", "docs/nope.md", "docs/untitled.md")
	if r.code != exitFailure || r.stderr != "vectorlint: docs/nope.md: no such file or folder\n" ||
		!strings.Contains(r.stdout, "docs/nope.md\n") || !strings.Contains(r.stdout, "docs/untitled.md\n  Acme.Headline") {
		t.Errorf("a missing path: exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

func TestDryRunStdin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	r := runVectorlint(t, filepath.Join(dir, "docs"), nil, "# From the editor\n", "--dry-run", "--stdin-filename", "lenient/buffer.md", "-")
	r.expect(t, exitOK, `lenient/buffer.md
  Acme.Headline (subjective, warning)
    target /^#\s+(.+)$/mu group 1, line 1, 3 words; criteria Clarity
      1 | From the editor
    1 LLM call, ~521 tokens

Dry run, no LLM call made: 1 file, 1 LLM call, ~521 input tokens (estimated).
✓ No findings.
`, "")
	runVectorlint(t, dir, nil, "x", "--dry-run", "-").expect(t, exitFailure, "",
		"vectorlint: -: reading standard input needs --stdin-filename NAME (NAME picks the config section and is the reported path)\n")
}

// TestStdinFilenameAlone: --stdin-filename NAME with no PATH reads the document from standard
// input, as with the PATH -; with other paths and no -, it is a mistake.
func TestStdinFilenameAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	alone := runVectorlint(t, filepath.Join(dir, "docs"), nil, "# From the editor\n", "--dry-run", "--stdin-filename", "lenient/buffer.md")
	dash := runVectorlint(t, filepath.Join(dir, "docs"), nil, "# From the editor\n", "--dry-run", "--stdin-filename", "lenient/buffer.md", "-")
	if alone.code != exitOK || alone.stdout != dash.stdout || !strings.HasPrefix(alone.stdout, "lenient/buffer.md\n") || alone.stderr != "" {
		t.Errorf("alone: exit %d\n%s%s\nwith -:\n%s", alone.code, alone.stdout, alone.stderr, dash.stdout)
	}
	// A real run: the document's missing title is reported under its name (no model needed).
	r := runVectorlint(t, filepath.Join(dir, "docs"), nil, "No title here.\n", "--stdin-filename", "untitled-buffer.md")
	if r.code != exitFindings || !strings.HasPrefix(r.stdout, "untitled-buffer.md\n  1:1  error  target not found  Acme.Headline\n") {
		t.Errorf("real run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	runVectorlint(t, dir, nil, "x", "--stdin-filename", "a.md", "docs").expect(t, exitFailure, "",
		"vectorlint: --stdin-filename names the document read from standard input: add the PATH -\nRun \"vectorlint --help\" for usage.\n")
}

// TestDryRunValidatesLikeARealRun: every setting a real run checks, a dry run checks the same
// way (exit 2, the same message), before printing its plan: prices, the base URL, the
// provider's settings, the timeout from the flag and from the config.
func TestDryRunValidatesLikeARealRun(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	badTimeout := t.TempDir()
	project := lintProject()
	project["vectorlint.ini"] = "Timeout = soon\n" + project["vectorlint.ini"]
	writeTestTree(t, badTimeout, project)
	key := map[string]string{"OPENAI_API_KEY": testAPIKey}
	with := func(extra map[string]string) map[string]string {
		env := map[string]string{"OPENAI_API_KEY": testAPIKey}
		for k, v := range extra {
			env[k] = v
		}
		return env
	}
	tests := []struct {
		name   string
		dir    string
		env    map[string]string
		args   []string
		stderr string
	}{
		{"an input price that is not a number", dir, with(map[string]string{"INPUT_PRICE_PER_MILLION": "abc", "OUTPUT_PRICE_PER_MILLION": "10"}), nil,
			"vectorlint: INPUT_PRICE_PER_MILLION: expected a non-negative number, found \"abc\"\n"},
		{"an input price without an output price", dir, with(map[string]string{"INPUT_PRICE_PER_MILLION": "2.5"}), nil,
			"vectorlint: OUTPUT_PRICE_PER_MILLION: expected a price per million output tokens (INPUT_PRICE_PER_MILLION is set), found \"\"\n"},
		{"a base URL that is not a URL", dir, with(map[string]string{"OPENAI_BASE_URL": "localhost:8080"}), nil,
			"vectorlint: OPENAI_BASE_URL: expected an http or https URL such as http://localhost:11434/v1, found \"localhost:8080\"\n"},
		{"a temperature out of range", dir, with(map[string]string{"OPENAI_TEMPERATURE": "7"}), nil,
			"vectorlint: OPENAI_TEMPERATURE: expected a number between 0 and 2, found \"7\"\n"},
		{"a confidence threshold out of range", dir, with(map[string]string{"CONFIDENCE_THRESHOLD": "2"}), nil,
			"vectorlint: CONFIDENCE_THRESHOLD: expected a number from 0 to 1, found \"2\"\n"},
		{"a bad --timeout", dir, key, []string{"--timeout", "0"},
			"vectorlint: --timeout: expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h, found \"0\"\nRun \"vectorlint --help\" for usage.\n"},
		{"a bad Timeout in the config", badTimeout, key, nil,
			"vectorlint.ini:1: Timeout: expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h, found \"soon\"\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{}, tt.args...), "docs")
			real := runVectorlint(t, tt.dir, tt.env, "", args...)
			dry := runVectorlint(t, tt.dir, tt.env, "", append([]string{"--dry-run"}, args...)...)
			real.expect(t, exitFailure, "", tt.stderr)
			dry.expect(t, exitFailure, "", tt.stderr)
		})
	}
	// Good settings: the dry run passes and shows the cost of the input from the price.
	r := runVectorlint(t, dir, with(map[string]string{"INPUT_PRICE_PER_MILLION": "2.5", "OUTPUT_PRICE_PER_MILLION": "10"}), "", "--dry-run", "--timeout", "90", "docs")
	if r.code != exitFindings || r.stderr != "" || !strings.Contains(r.stdout, "$") {
		t.Errorf("good settings: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestLintColor: colour only on a terminal, never with --no-color or NO_COLOR (spec §7): not a
// single escape code is written then.
func TestLintColor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	run := func(env map[string]string, args ...string) cliResult {
		var stdout, stderr bytes.Buffer
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir, stdoutIsTerminal: true,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
		code := a.run(context.Background(), args)
		return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	}
	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		color bool
	}{
		{"terminal", nil, nil, true},
		{"--no-color", nil, []string{"--no-color"}, false},
		{"NO_COLOR", map[string]string{"NO_COLOR": "1"}, nil, false},
		{"NO_COLOR set but empty", map[string]string{"NO_COLOR": ""}, nil, true},
		{"both", map[string]string{"NO_COLOR": "true"}, []string{"--no-color"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(tt.env, append(tt.args, "docs/untitled.md")...)
			if r.code != exitFindings {
				t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
			}
			if got := strings.Contains(r.stdout+r.stderr, "\x1b"); got != tt.color {
				t.Errorf("escape codes written = %v, want %v:\n%q", got, tt.color, r.stdout)
			}
			if !tt.color && !strings.Contains(r.stdout, "1:1  error  target not found  Acme.Headline") {
				t.Errorf("plain output:\n%s", r.stdout)
			}
		})
	}
}
