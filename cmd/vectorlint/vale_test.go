package main

import (
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Vale conventions: the three alert levels, --min-alert-level, --output in any case.

// levelsProject has one rule at each of Vale's three levels, each finding one quote.
func levelsProject() map[string]string {
	rule := func(id, sev string) string {
		return "---\nid: " + id + "\nname: " + id + "\nseverity: " + sev + "\n---\nFind " + id + " problems.\n"
	}
	return map[string]string{
		"vectorlint.ini":           "RulesPath = styles\n[*.md]\nRunRules = demo\n",
		"styles/demo/cap.md":       rule("Cap", "error"),
		"styles/demo/repeat.md":    rule("Repetition", "warning"),
		"styles/demo/editorial.md": rule("Editorializing", "suggestion"),
		"test.md":                  "# intro\n\nThis is a very important sentence. This is is repeated.\n",
	}
}

// startLevels starts a fake model that answers each rule of levelsProject with one violation.
func startLevels(t *testing.T) (*llmtest.Server, string) {
	t.Helper()
	srv := llmtest.Start(t)
	one := func(quote string, line int, msg string) llmtest.Reply {
		return llmtest.JSON(map[string]any{"violations": []any{
			map[string]any{"quoted_text": quote, "line": line, "message": msg, "confidence": 1}}})
	}
	srv.On(llmtest.SystemContains(`<rule name="Cap">`), one("intro", 1, "'intro' should be in title case ('Intro')."))
	srv.On(llmtest.SystemContains(`<rule name="Repetition">`), one("is is repeated", 3, "'is' is repeated!"))
	srv.On(llmtest.SystemContains(`<rule name="Editorializing">`), one("very", 3, "Consider removing 'very'."))
	dir := t.TempDir()
	writeTestTree(t, dir, levelsProject())
	return srv, dir
}

// TestMinAlertLevel reproduces Vale's alert levels and filter (testdata/features/CLI.feature
// "Filter --minAlertLevel", testdata/features/config.feature "MinAlertLevel = warning" and
// "MinAlertLevel = error"): findings below the level are neither shown nor counted, the exit
// code follows what is shown, and a rule whose findings would all be below it is not run (Vale
// does not run such a check). --minAlertLevel, Vale's spelling, works too; vectorlint's
// --fail-on takes the suggestion level.
func TestMinAlertLevel(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		args  []string
		code  int
		calls int
		want  string // the findings, then the totals line
	}{
		{"every level by default", nil, exitFindings, 3,
			"1:3 error Cap\n3:11 suggestion Editorializing\n3:41 warning Repetition\n" +
				"✖ 1 error, 1 warning and 1 suggestion in 1 file."},
		{"warning and above", []string{"--min-alert-level", "warning"}, exitFindings, 2,
			"1:3 error Cap\n3:41 warning Repetition\n✖ 1 error and 1 warning in 1 file."},
		{"Vale's flag, errors only", []string{"--minAlertLevel=error"}, exitFindings, 1,
			"1:3 error Cap\n✖ 1 error and 0 warnings in 1 file."},
		{"any case", []string{"--min-alert-level", "Warning", "--fail-on", "WARNING"}, exitFindings, 2,
			"1:3 error Cap\n3:41 warning Repetition\n✖ 1 error and 1 warning in 1 file."},
		{"fail on suggestions", []string{"--fail-on", "suggestion"}, exitFindings, 3,
			"1:3 error Cap\n3:11 suggestion Editorializing\n3:41 warning Repetition\n" +
				"✖ 1 error, 1 warning and 1 suggestion in 1 file."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, dir := startLevels(t)
			args := append([]string{"--no-cache"}, tt.args...)
			r := runVectorlint(t, dir, fakeEnv(srv), "", append(args, "test.md")...)
			if r.code != tt.code || r.stderr != "" {
				t.Fatalf("exit %d, want %d; stderr:\n%s", r.code, tt.code, r.stderr)
			}
			if srv.Calls() != tt.calls {
				t.Errorf("%d model calls, want %d", srv.Calls(), tt.calls)
			}
			if got := lineFindings(r.stdout); got != tt.want {
				t.Errorf("output:\n%s\nwant (findings and totals):\n%s", r.stdout, tt.want)
			}
		})
	}

	// Only suggestions: exit 0 under the default --fail-on error, 1 under --fail-on suggestion;
	// a file whose every rule is below the level is skipped, with the reason.
	srv, dir := startLevels(t)
	writeTestTree(t, dir, map[string]string{"vectorlint.ini": "RulesPath = styles\n[*.md]\nRunRules = demo\n" +
		"demo.Cap = disabled\ndemo.Repetition = disabled\n"})
	if r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "test.md"); r.code != exitOK ||
		lineFindings(r.stdout) != "3:11 suggestion Editorializing\n✖ 0 errors, 0 warnings and 1 suggestion in 1 file." {
		t.Errorf("suggestions only: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--fail-on", "suggestion", "test.md"); r.code != exitFindings {
		t.Errorf("--fail-on suggestion: exit %d, want 1\n%s%s", r.code, r.stdout, r.stderr)
	}
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--min-alert-level", "warning", "--verbose", "test.md")
	if r.code != exitOK || !strings.Contains(r.stdout, "test.md  every rule of demo that runs on this file reports below --min-alert-level warning") {
		t.Errorf("every rule below the level: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	r = runVectorlint(t, dir, fakeEnv(srv), "", "--min-alert-level", "info", "test.md")
	if r.code != exitFailure || r.stderr != "vectorlint: --min-alert-level: expected suggestion, warning or error, found \"info\"\nRun \"vectorlint --help\" for usage.\n" {
		t.Errorf("bad level: exit %d, stderr %q", r.code, r.stderr)
	}
}

// lineFindings reduces the line output to "LINE:COL SEVERITY RULE" per finding, then the totals.
func lineFindings(out string) string {
	var rows []string
	for _, l := range strings.Split(out, "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && strings.Contains(f[0], ":") && (f[1] == "error" || f[1] == "warning" || f[1] == "suggestion"):
			rows = append(rows, f[0]+" "+f[1]+" "+strings.TrimPrefix(f[len(f)-1], "demo."))
		case strings.HasPrefix(l, "✖") || strings.HasPrefix(l, "✓"):
			rows = append(rows, l)
		}
	}
	return strings.Join(rows, "\n")
}

// TestOutputFormatAnyCase: --output takes Vale's spelling (vale --output=JSON) for every format,
// in the lint and merge commands; an unknown one is still an error naming the valid ones.
func TestOutputFormatAnyCase(t *testing.T) {
	t.Parallel()
	srv, dir := startLevels(t)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "JSON", "test.md")
	res := decodeJSON(t, r.stdout)
	if r.code != exitFindings || len(res.Files) != 1 || len(res.Files[0].Findings) != 3 ||
		res.Files[0].Findings[1].Severity != "suggestion" {
		t.Fatalf("--output JSON: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	writeTestTree(t, dir, map[string]string{"run.json": r.stdout})
	m := runVectorlint(t, dir, nil, "", "merge", "--output", "Vale-JSON", "--fail-on", "Suggestion", "run.json")
	if m.code != exitFindings || !strings.Contains(m.stdout, `"Severity": "suggestion"`) {
		t.Errorf("merge --output Vale-JSON: exit %d\n%s%s", m.code, m.stdout, m.stderr)
	}
	bad := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "XML", "test.md")
	if bad.code != exitFailure || !strings.HasPrefix(bad.stderr, `vectorlint: --output: expected one of line, json, vale-json, rdjson, rdjsonl, github, sarif, junit, found "XML"`) {
		t.Errorf("--output XML: exit %d, stderr %q", bad.code, bad.stderr)
	}
}

// TestLsConfig: vectorlint ls-config prints the resolved configuration as two-space indented
// JSON on standard output, as Vale's does (cmd/vale/command.go printConfig, which prints
// internal/core/config.go's Config.String: json.MarshalIndent(c, "", "  ")); for each file
// asked about, what applies to it: matching sections, packs, each rule's effective severity and
// strictness, the rules turned off and by which line, skipped scopes and ignore patterns.
func TestLsConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = styles\nDefaultSeverity = suggestion\nTimeout = 90s\n\n" +
			"[**/*.md]\nRunRules = demo\n\n" +
			"[docs/api/**]\ndemo.Cap.severity = error\ndemo.Repetition.strictness = strict\ndemo.Editorializing = disabled\n" +
			"SkippedScopes = code, urls\nTokenIgnores = \\{%[^%]*%\\}\n\n" +
			"[drafts/**]\nRunRules =\n",
		"styles/demo/cap.md":    "---\nid: Cap\nname: Cap\nseverity: warning\n---\nCheck capitals.\n",
		"styles/demo/repeat.md": "---\nid: Repetition\nname: Repetition\n---\nFind repeats.\n",
		"styles/demo/editorial.md": "---\nid: Editorializing\nname: Editorializing\ntype: subjective\n" +
			"criteria: [{id: Tone, name: Tone, severity: error}]\n---\nRate the tone.\n",
	})
	r := runVectorlint(t, dir, nil, "", "ls-config", "docs/api/auth.md", "README.md", "drafts/wip.md")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	checkCLIGolden(t, "ls-config.golden", r.stdout)
	if !strings.HasPrefix(r.stdout, "{\n  \"config\": \"vectorlint.ini\",\n") {
		t.Errorf("not Vale's two-space indented JSON:\n%s", r.stdout)
	}

	r = runVectorlint(t, dir, nil, "", "ls-config", "--config", "missing.ini")
	if r.code != exitFailure || !strings.Contains(r.stderr, "missing.ini") {
		t.Errorf("missing config: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestSuggestionRuleStaysSuggestion: a subjective rule at suggestion severity never reports
// above it. Its criteria rated 2 to 4 report at warning for other rules, but at suggestion
// here; a criterion's own higher severity still applies to its rating-1 findings.
func TestSuggestionRuleStaysSuggestion(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Tone">`), llmtest.JSON(map[string]any{"criteria": []any{
		map[string]any{"id": "Warmth", "score": 2, "summary": "A little cold.", "violations": []any{}},
		map[string]any{"id": "Respect", "score": 1, "summary": "Talks down.", "violations": []any{
			map[string]any{"quoted_text": "obviously", "line": 3, "message": "Condescending.", "confidence": 1}}},
	}}))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = styles\n[*.md]\nRunRules = demo\n",
		"styles/demo/tone.md": "---\nid: Tone\nname: Tone\ntype: subjective\nseverity: suggestion\ncriteria:\n" +
			"  - {id: Warmth, name: Warmth}\n  - {id: Respect, name: Respect, severity: error}\n---\nRate the tone.\n",
		"test.md": "# Setup\n\nThis is obviously easy.\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "test.md")
	want := "1:1 suggestion Tone.Warmth\n3:9 error Tone.Respect\n✖ 1 error, 0 warnings and 1 suggestion in 1 file."
	if got := lineFindings(r.stdout); r.code != exitFindings || got != want {
		t.Errorf("exit %d\n%s%s\nwant:\n%s", r.code, r.stdout, r.stderr, want)
	}
	// At --min-alert-level warning the rule still runs (its Respect criterion can reach error).
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--min-alert-level", "warning", "test.md")
	if got := lineFindings(r.stdout); r.code != exitFindings || got != "3:9 error Tone.Respect\n✖ 1 error and 0 warnings in 1 file." {
		t.Errorf("--min-alert-level warning: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
