package main

import (
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/report"
)

// Output a runner or terminal could act on (spec/trust.md §3), end to end: a pull request's
// documents, file names, rule pack and the model's replies and error bodies carry GitHub
// workflow commands in every form the runner reads and terminal escapes; no output format, on
// stdout or stderr, lets one through.

// hostileDoc quotes commands and escapes in its text.
const hostileDoc = "# Guide\n\n" +
	"In order to ::error::doc quote ##[warning]x here.\n" +
	"  ::stop-commands::tok in the document\n" +
	"\x1b]8;;https://evil.example\x07click\x1b]8;;\x07 and \u202eevil and #\u200d#[error]joined\n"

// hostileMessage is what a model says.
const hostileMessage = "::error::model message\n  ::warning::second line ##[error]x \x1b[2J\u202e"

// hostileBody is an HTTP error body.
const hostileBody = "{\"error\": {\"message\": \"::error::from the server\\n::add-mask::x ##[error]y \\u001b[31mred\"}}"

// hostileNames are file names a pull request can add (real files on disk).
var hostileNames = []string{"docs/::error::x.md", "docs/a\x1b[2J\n  ::error::b ##[x].md"}

func hostileProject() map[string]string {
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**]\nRunRules = ::error::Evil\n",
		"rules/::error::Evil/wordiness.md": "---\nid: Wordiness\nname: \"::error::rule name\"\nseverity: error\n---\n" +
			"Flag wordy phrases.\n",
		"rules/::error::Evil/broken.md": "---\nid: Broken\nname: Broken\n---\nBreak here.\n",
	}
	for _, n := range hostileNames {
		files[n] = hostileDoc
	}
	return files
}

// startHostile starts a fake model server that answers the hostile project: a reply full of
// commands and escapes for Wordiness, a 400 with a hostile body for Broken.
func startHostile(t *testing.T) (*llmtest.Server, string) {
	t.Helper()
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains("Flag wordy"), llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to ::error::doc quote ##[warning]x", "line": 3,
			"message": hostileMessage, "suggestion": "::notice::suggestion \x07 ##[x]", "fix": "::error::fix",
			"analysis": "::error::analysis \u202e", "confidence": 0.9},
		map[string]any{"quoted_text": "::error::not in the document", "line": 4, "message": "::error::unverified"},
	}}))
	srv.On(llmtest.SystemContains("Break here"), llmtest.Status(400, hostileBody))
	dir := t.TempDir()
	writeTestTree(t, dir, hostileProject())
	return srv, dir
}

// runGuarded runs a command in-process like runVectorlint; net turns the stdout safety net on.
func runGuarded(t *testing.T, dir string, env map[string]string, net bool, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir, noStdoutNet: !net,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code := a.run(context.Background(), args)
	return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// mustBeInert fails when out has a line the runner would act on.
func mustBeInert(t *testing.T, what, out string) {
	t.Helper()
	if cmds := testutil.WorkflowCommandLines(out); cmds != nil {
		t.Errorf("%s: the runner would act on %q in\n%s", what, cmds, out)
	}
}

// mustBeTerminalSafe fails when out has a character a terminal could act on.
func mustBeTerminalSafe(t *testing.T, what, out string) {
	t.Helper()
	if h := testutil.TerminalHazard(out); h != "" {
		t.Errorf("%s: %s in\n%q", what, h, out)
	}
}

// mustBeOwnAnnotations fails unless every line of the github format is one of the tool's own
// annotations, for one of the linted files, whose title and message hold no command and no
// terminal escape, or a plain "vectorlint:" log line.
func mustBeOwnAnnotations(t *testing.T, out string, paths []string) {
	t.Helper()
	for _, line := range testutil.RunnerLines(out) {
		command, props, data, ok := testutil.ParseWorkflowCommand(line)
		if !ok {
			if !strings.HasPrefix(line, "vectorlint: ") || testutil.IsWorkflowCommandLine(line) {
				t.Errorf("github: a line that is not the tool's own annotation: %q", line)
			}
			mustBeTerminalSafe(t, "github log line", line)
			continue
		}
		if command != "error" && command != "warning" && command != "notice" {
			t.Errorf("github: command %q in %q", command, line)
		}
		if f, ok := props["file"]; ok && !contains(paths, f) {
			t.Errorf("github: file %q is not one of %q", f, paths)
		}
		for _, text := range []string{props["title"], data} {
			for _, l := range strings.Split(text, "\n") {
				if testutil.IsWorkflowCommandLine(l) {
					t.Errorf("github: the annotation %q carries a command: %q", line, l)
				}
			}
			mustBeTerminalSafe(t, "github annotation text", text)
		}
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestHostileLintEveryFormat lints the hostile project under GitHub Actions in every format,
// with and without the stdout safety net (so the formats' own escaping is shown to be enough).
func TestHostileLintEveryFormat(t *testing.T) {
	t.Parallel()
	srv, dir := startHostile(t)
	for _, format := range report.Formats() {
		for _, net := range []bool{false, true} {
			env := fakeEnv(srv)
			env["GITHUB_ACTIONS"] = "true"
			summary := filepath.Join(t.TempDir(), "summary.md")
			env["GITHUB_STEP_SUMMARY"] = summary
			r := runGuarded(t, dir, env, net, "--output", format, "--no-cache", "docs")
			r.noKey(t)
			if r.code != exitFailure { // the 400 is an operational error
				t.Fatalf("%s: exit %d, want 2\nstdout:\n%s\nstderr:\n%s", format, r.code, r.stdout, r.stderr)
			}
			mustBeInert(t, format+" stderr", r.stderr)
			mustBeTerminalSafe(t, format+" stderr", r.stderr)
			if format == "github" {
				mustBeOwnAnnotations(t, r.stdout, []string{hostileNames[0], hostileNames[1]})
				md, err := os.ReadFile(summary)
				if err != nil {
					t.Fatal(err)
				}
				mustBeTerminalSafe(t, "step summary", string(md))
				if !strings.Contains(string(md), `\:\:error\:\:x.md`) && !strings.Contains(string(md), `::error::x.md`) {
					t.Errorf("step summary lacks the file:\n%s", md)
				}
			} else {
				mustBeInert(t, format+" stdout", r.stdout)
			}
			if format != "github" {
				mustBeTerminalSafe(t, format+" stdout", r.stdout)
			}
			checkHostileDecodes(t, format, r.stdout)
		}
	}
}

// checkHostileDecodes: the machine formats carry the model's text and the file names exactly;
// the line format shows them escaped.
func checkHostileDecodes(t *testing.T, format, out string) {
	t.Helper()
	switch format {
	case "json":
		res := decodeJSON(t, out)
		if len(res.Files) != 2 || res.Files[0].Path != hostileNames[0] || res.Files[1].Path != hostileNames[1] {
			t.Fatalf("json: files %+v, want %q", res.Files, hostileNames)
		}
		f := res.Files[1]
		if len(f.Findings) != 1 || f.Findings[0].Message != hostileMessage ||
			f.Findings[0].Rule != "::error::Evil.Wordiness" || f.Findings[0].Match != "In order to ::error::doc quote ##[warning]x" {
			t.Errorf("json: findings %+v, want the exact message, rule and match", f.Findings)
		}
		if len(f.Errors) != 1 || !strings.Contains(f.Errors[0].Message, "::error::from the server ::add-mask::x ##[error]y \x1b[31mred") {
			t.Errorf("json: errors %+v, want the server's body exactly", f.Errors)
		}
		if len(f.Unverified) != 1 || f.Unverified[0].Quote != "::error::not in the document" {
			t.Errorf("json: unverified %+v", f.Unverified)
		}
	case "rdjsonl":
		var d struct {
			Message  string
			Location struct{ Path string }
		}
		first, _, _ := strings.Cut(out, "\n")
		if err := json.Unmarshal([]byte(first), &d); err != nil {
			t.Fatal(err)
		}
		if d.Location.Path != hostileNames[0] || !strings.HasPrefix(d.Message, hostileMessage+"\n\nSuggestion: ::notice::suggestion \x07 ##[x]") {
			t.Errorf("rdjsonl: %+v", d)
		}
	case "junit":
		var doc struct {
			Suites []struct {
				Name string `xml:"name,attr"`
			} `xml:"testsuite"`
		}
		if err := xml.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Suites) != 2 || doc.Suites[0].Name != hostileNames[0] ||
			doc.Suites[1].Name != strings.ReplaceAll(hostileNames[1], "\x1b", "\uFFFD") {
			t.Errorf("junit: suites %+v", doc.Suites)
		}
	case "line":
		for _, want := range []string{
			"docs/::error::x.md\n",                                                    // mid-line: harmless as it is
			"docs/a\\x1b[2J ::error::b ##\\[x].md\n",                                  // on one line, escaped
			"\n              \\::warning::second line ##\\[error]x \\x1b[2J\\u202e\n", // a wrapped line starts with it
			`HTTP 400 Bad Request: ::error::from the server ::add-mask::x ##\[error]y \x1b[31mred`,
		} {
			if !strings.Contains(out, want) {
				t.Errorf("line: output lacks %q:\n%s", want, out)
			}
		}
	}
}

// TestHostileVerboseShowPrompt: --verbose and --show-prompt print the document, the model's
// reply events and the HTTP error body on stderr, escaped.
func TestHostileVerboseShowPrompt(t *testing.T) {
	t.Parallel()
	srv, dir := startHostile(t)
	for _, gha := range []string{"true", ""} {
		env := fakeEnv(srv)
		env["GITHUB_ACTIONS"] = gha
		r := runGuarded(t, dir, env, false, "--verbose", "--show-prompt", "--no-cache", "docs")
		r.noKey(t)
		mustBeTerminalSafe(t, "stderr", r.stderr)
		mustBeTerminalSafe(t, "stdout", r.stdout)
		if gha == "true" {
			mustBeInert(t, "stderr", r.stderr)
			mustBeInert(t, "stdout", r.stdout)
		}
		for _, want := range []string{"── prompt:", `\x1b]8;;https://evil.example\x07click`, `\u202eevil`, "400"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("GITHUB_ACTIONS=%q: stderr lacks %q:\n%s", gha, want, r.stderr)
			}
		}
	}
}

// TestHostileDryRun: the dry run quotes the documents and their names.
func TestHostileDryRun(t *testing.T) {
	t.Parallel()
	_, dir := startHostile(t)
	r := runGuarded(t, dir, map[string]string{"GITHUB_ACTIONS": "true"}, false, "--dry-run", "--verbose", "docs")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		mustBeInert(t, name, out)
		mustBeTerminalSafe(t, name, out)
	}
	if !strings.Contains(r.stdout, `  ::stop-commands::tok in the document`) || !strings.Contains(r.stdout, `##\[warning]x`) {
		t.Errorf("the dry run should show the document's text, escaped:\n%s", r.stdout)
	}
}

// TestHostileValidate: validate lists the pack's name and problems that quote rule files.
func TestHostileValidate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":               "RulesPath = rules\n[**]\nRunRules = ::error::Evil\n",
		"rules/::error::Evil/ok.md":    "---\nid: Ok\nname: Ok\n---\nFine.\n",
		"rules/::error::Evil/bad.md":   "---\nid: \"Bad\\e[31m ##[error]x\"\n---\nBody.\n",
		"rules/::error::Evil/worse.md": "---\nid: Worse\ntype: \"\\e]8;;http://x\\a::error::t\"\n---\nBody.\n",
	})
	r := runGuarded(t, dir, map[string]string{"GITHUB_ACTIONS": "true"}, false, "validate")
	if r.code != exitFailure {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	for name, out := range map[string]string{"stdout": r.stdout, "stderr": r.stderr} {
		mustBeInert(t, name, out)
		mustBeTerminalSafe(t, name, out)
	}
	if !strings.Contains(r.stdout, "pack ::error::Evil (") || !strings.Contains(r.stderr, `##\[error]x`) {
		t.Errorf("validate should name the pack and quote the bad id, escaped:\n%s\n%s", r.stdout, r.stderr)
	}
}

// TestHostileBlueprint: blueprint check and run quote a hostile blueprint and model responses
// (generated by the fake server) in their diagnostics, table and result document.
func TestHostileBlueprint(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text(hostileMessage))
	dir := t.TempDir()
	bp := map[string]any{
		"id": "hostile", "title": "::error::title ##[x] \x1b[31m", "models": []string{"openai:test-model"},
		"prompts": []any{
			map[string]any{"id": "::error::prompt", "prompt": "Say ::error::x", "should": []any{
				map[string]any{"$contains": "::error::model message"}, map[string]any{"$unknown_fn": "::error::arg"}}},
		},
	}
	src, _ := json.Marshal(bp)
	writeTestTree(t, dir, map[string]string{"::error::bp.json": string(src)})
	env := fakeEnv(srv)
	env["GITHUB_ACTIONS"] = "true"

	check := runGuarded(t, dir, env, false, "blueprint", "check", "::error::bp.json")
	if check.code != exitOK {
		t.Fatalf("blueprint check: exit %d\n%s\n%s", check.code, check.stdout, check.stderr)
	}
	for name, out := range map[string]string{"check stdout": check.stdout, "check stderr": check.stderr} {
		mustBeInert(t, name, out)
		mustBeTerminalSafe(t, name, out)
	}
	if !strings.Contains(check.stdout, `\::error::bp.json`) {
		t.Errorf("blueprint check should name the file, escaped:\n%s", check.stdout)
	}

	bp["prompts"].([]any)[0].(map[string]any)["should"] = []any{map[string]any{"$contains": "::error::model message"}}
	src, _ = json.Marshal(bp)
	writeTestTree(t, dir, map[string]string{"::error::bp.json": string(src)})
	for _, output := range []string{"line", "json"} {
		r := runGuarded(t, dir, env, false, "blueprint", "run", "::error::bp.json", "--no-cache", "--output", output,
			"--out-dir", filepath.Join(dir, "out-"+output))
		if r.code != exitOK {
			t.Fatalf("%s: exit %d\n%s\n%s", output, r.code, r.stdout, r.stderr)
		}
		for name, out := range map[string]string{output + " stdout": r.stdout, output + " stderr": r.stderr} {
			mustBeInert(t, name, out)
			mustBeTerminalSafe(t, name, out)
		}
		if output == "json" {
			var doc struct {
				ConfigTitle    string
				AllFinalOutput map[string]map[string]string `json:"allFinalAssistantResponses"`
			}
			if err := json.Unmarshal([]byte(r.stdout), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.ConfigTitle != "::error::title ##[x] \x1b[31m" {
				t.Errorf("the result document's title is %q, want the exact text", doc.ConfigTitle)
			}
		} else if !strings.Contains(r.stdout, `\::error::prompt`) {
			t.Errorf("the table should show the prompt id, escaped:\n%s", r.stdout)
		}
	}
}

// TestHostileEvaluate: the evaluate command quotes the response in both outputs.
func TestHostileEvaluate(t *testing.T) {
	t.Parallel()
	env := map[string]string{"GITHUB_ACTIONS": "true"}
	for _, output := range []string{"line", "json"} {
		r := runGuarded(t, t.TempDir(), env, false, "evaluate", "exact_match", "--response", hostileMessage,
			"--ground-truth", "::error::truth ##[x]", "--threshold", "0.5", "--output", output)
		if r.code != exitFindings {
			t.Fatalf("%s: exit %d\n%s\n%s", output, r.code, r.stdout, r.stderr)
		}
		for name, out := range map[string]string{output + " stdout": r.stdout, output + " stderr": r.stderr} {
			mustBeInert(t, name, out)
			mustBeTerminalSafe(t, name, out)
		}
		if output == "json" {
			var v map[string]any
			if err := json.Unmarshal([]byte(r.stdout), &v); err != nil {
				t.Fatal(err)
			}
			if v["response"] != hostileMessage {
				t.Errorf("json: response %q, want the exact text", v["response"])
			}
		}
	}
}

// TestStdoutSafetyNet: under GitHub Actions, standard output passes a filter that neutralises a
// command line however it got there; the github format is exempt (its annotations are meant).
func TestStdoutSafetyNet(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	a := &app{stdout: &stdout, stderr: &stderr, lookupEnv: func(k string) (string, bool) {
		return "true", k == "GITHUB_ACTIONS"
	}}
	g, flush := a.guardOutput()
	g.stdout.Write([]byte("ok\n  ::error::slipped\nx ##[error]y\n"))
	g.rawStdout.Write([]byte("::notice::own annotation\n"))
	g.stderr.Write([]byte("::error::from an error message \x1b[2J\n"))
	g.term.Write([]byte("\r\x1b[K"))
	flush()
	if want := "ok\n  \\::error::slipped\nx ##\\[error]y\n::notice::own annotation\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
	if want := "\\::error::from an error message \\x1b[2J\n\r\x1b[K"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}

	// Without GitHub Actions stdout is untouched and stderr only escaped for the terminal.
	stdout.Reset()
	stderr.Reset()
	a.lookupEnv = func(string) (string, bool) { return "", false }
	g, flush = a.guardOutput()
	g.stdout.Write([]byte("  ::error::x\n"))
	g.stderr.Write([]byte("::error::x \x1b[2J\n"))
	flush()
	if stdout.String() != "  ::error::x\n" || stderr.String() != "::error::x \\x1b[2J\n" {
		t.Errorf("without GitHub Actions: stdout %q, stderr %q", stdout.String(), stderr.String())
	}
}

// TestHostileRealProcess runs vectorlint as a real process under GITHUB_ACTIONS=true with its
// output on pipes, as a runner reads it: nothing the guards hold back is lost at exit, and
// neither stream carries a command or a terminal escape.
func TestHostileRealProcess(t *testing.T) {
	t.Parallel()
	srv, dir := startHostile(t)
	for _, format := range []string{"line", "json", "github"} {
		cmd, stdout, stderr := vectorlintProcess(t, dir, srv, "--output", format, "--no-cache", "--verbose", "docs")
		cmd.Env = append(cmd.Env, "GITHUB_ACTIONS=true")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if code := waitExit(t, cmd); code != exitFailure {
			t.Fatalf("%s: exit %d\n%s\n%s", format, code, stdout, stderr)
		}
		mustBeInert(t, format+" stderr", stderr.String())
		mustBeTerminalSafe(t, format+" stderr", stderr.String())
		if format == "github" {
			mustBeOwnAnnotations(t, stdout.String(), hostileNames)
		} else {
			mustBeInert(t, format+" stdout", stdout.String())
			mustBeTerminalSafe(t, format+" stdout", stdout.String())
		}
		// Complete to the last line: the guards flushed before the process exited.
		lines := strings.Split(strings.TrimSuffix(stdout.String(), "\n"), "\n")
		last := lines[len(lines)-1]
		wantLast := map[string]string{"line": "✖ ", "json": "}", "github": "::notice title=vectorlint::"}[format]
		if !strings.HasPrefix(last, wantLast) || !strings.HasSuffix(stdout.String(), "\n") ||
			!strings.HasSuffix(stderr.String(), "\n") {
			t.Errorf("%s: output cut short:\nstdout:\n%s\nstderr:\n%s", format, stdout, stderr)
		}
	}
}

// TestHostileProgressBar: on a terminal, the progress bar keeps drawing with its own carriage
// returns while the log lines written through it are escaped.
func TestHostileProgressBar(t *testing.T) {
	t.Parallel()
	srv, dir := startHostile(t)
	var stdout, stderr bytes.Buffer
	env := fakeEnv(srv)
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir, stderrIsTerminal: true,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	if code := a.run(context.Background(), []string{"--verbose", "--no-cache", "docs"}); code != exitFailure {
		t.Fatalf("exit %d\n%s\n%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "\r[") {
		t.Errorf("no progress bar drawn:\n%q", stderr.String())
	}
	mustBeTerminalSafe(t, "stderr without the bar's carriage returns", strings.ReplaceAll(stderr.String(), "\r", ""))
	if !strings.Contains(stderr.String(), `HTTP 400 Bad Request: ::error::from the server ::add-mask::x ##[error]y \x1b[31mred`) {
		t.Errorf("the log lines should be escaped for the terminal:\n%s", stderr.String())
	}
}
