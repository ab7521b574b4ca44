package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// Untrusted text in every field of a result cannot reach the reader as a terminal escape or a
// GitHub workflow command in any format (spec/trust.md §3), and the machine formats decode to
// the exact text.

// hostileTexts are what a document, a model reply or a rule file can carry.
var hostileTexts = []string{
	"::error::pwned",
	"  ::warning file=a.md::pwned\n::stop-commands::deadbeef",
	"ok ##[error]legacy #\u200d#[error]zero-width joiner",
	"\u200d::error::behind a joiner\r::error::after a CR\r\n\t::notice::after CR LF",
	"\x1b[2J\x1b]8;;https://evil.example\x07link\x1b]8;;\x07 \u202eevil\u202c \u0085\u009b \x08\x7f \xff\xfe",
}

// hostilePaths are file names an attacker can commit.
var hostilePaths = []string{"::error::x.md", "a\x1b[2J\n  ::error::b ##[x].md"}

// hostileResult puts s in every text field of a one-file result.
func hostileResult(path, s string) finding.Result {
	start := finding.Position{Line: 2, Column: 3, ByteColumn: 3, Offset: 8}
	end := finding.Position{Line: 2, Column: 7, ByteColumn: 7, Offset: 12}
	return finding.Result{
		Files: []finding.FileResult{{
			Path: path,
			Findings: []finding.Finding{
				withFix(finding.Finding{Rule: s, Severity: finding.SeverityError, Message: s, Suggestion: s, Match: s, Analysis: s,
					Start: start, End: end}, s),
				{Rule: "Pack." + s, Severity: finding.SeverityWarning, Message: "see: " + s, Match: s, Start: start,
					End: finding.Position{Line: 3, Column: 2, ByteColumn: 2, Offset: 20}},
			},
			Scores: []finding.Score{{Rule: "Pack." + s, Type: finding.Subjective, Score: 2, Criteria: []finding.CriterionScore{
				{ID: "c", Name: s, Rating: 1, Score: 1, Weight: 2}}}},
			Unverified: []finding.Unverified{{Rule: "Pack." + s, Message: s, Quote: s, Line: 2}},
			Errors:     []finding.RuleError{{Rule: "Pack." + s, Message: s}},
		}},
		Totals: finding.Totals{Skipped: []finding.Skipped{{Path: s, Reason: s}}, Summary: finding.Summary{Files: 1, Errors: 1, Warnings: 1, Unverified: 1, OperationalErrors: 1}},
	}
}

// exact is what a JSON or XML reader gets back for s: each byte of invalid UTF-8 as U+FFFD.
func exact(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteRune(r)
	}
	return b.String()
}

// xmlExact is exact, plus the control characters XML 1.0 cannot carry as U+FFFD.
func xmlExact(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' {
			r = '\uFFFD'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// noCommands fails when a line of out is one the runner could act on.
func noCommands(t *testing.T, what, out string) {
	t.Helper()
	if cmds := testutil.WorkflowCommandLines(out); cmds != nil {
		t.Errorf("%s: the runner would act on %q in\n%s", what, cmds, out)
	}
}

// noHazard fails when out holds a character a terminal could act on.
func noHazard(t *testing.T, what, out string) {
	t.Helper()
	if h := testutil.TerminalHazard(out); h != "" {
		t.Errorf("%s: %s in\n%q", what, h, out)
	}
}

func TestHostileTextEveryFormat(t *testing.T) {
	t.Parallel()
	for _, path := range hostilePaths {
		for _, s := range hostileTexts {
			r := hostileResult(path, s)
			for _, format := range Formats() {
				for _, gha := range []bool{true, false} {
					var problems bytes.Buffer
					summary := filepath.Join(t.TempDir(), "summary.md")
					opts := Options{GitHubActions: gha, Problems: &problems, StepSummaryPath: summary, Verbose: true}
					out := string(render(t, format, opts, r))
					what := format
					if gha {
						what += " under GitHub Actions"
					}
					// Human text is made inert only under GitHub Actions; machine formats and the
					// github format always.
					if format != FormatGitHub && (gha || format != FormatLine) {
						noCommands(t, what, out)
					}
					if format == FormatGitHub {
						checkGitHubLines(t, out, r)
					}
					if gha {
						noCommands(t, what+", problems", problems.String())
					}
					noHazard(t, what+", problems", problems.String())
					switch format {
					case FormatLine:
						noHazard(t, what, out)
					case FormatJSON, FormatValeJSON, FormatRDJSON, FormatRDJSONL, FormatSARIF:
						noHazard(t, what, out)
						checkJSONExact(t, format, out, path, s)
					case FormatJUnit:
						noHazard(t, what, out)
						checkJUnitExact(t, out, path, s)
					case FormatGitHub:
						b, err := os.ReadFile(summary)
						if err != nil {
							t.Fatal(err)
						}
						checkStepSummary(t, string(b))
					}
				}
			}
		}
	}
}

// checkGitHubLines: every line is one of the tool's own annotations, for the right file, whose
// title and message hold no command and no terminal escape, or a plain "vectorlint:" log line
// the runner ignores.
func checkGitHubLines(t *testing.T, out string, r finding.Result) {
	t.Helper()
	for _, line := range testutil.RunnerLines(out) {
		command, props, data, ok := testutil.ParseWorkflowCommand(line)
		if !ok {
			if !strings.HasPrefix(line, "vectorlint: ") || testutil.IsWorkflowCommandLine(line) {
				t.Errorf("github: a line that is not the tool's annotation: %q", line)
			}
			noHazard(t, "github log line", line)
			continue
		}
		if command != "error" && command != "warning" && command != "notice" {
			t.Errorf("github: command %q in %q", command, line)
		}
		if f, ok := props["file"]; ok && f != r.Files[0].Path {
			t.Errorf("github: file property %q, want the exact path %q", f, r.Files[0].Path)
		}
		for name, text := range map[string]string{"title": props["title"], "message": data} {
			for _, l := range strings.Split(text, "\n") {
				if testutil.IsWorkflowCommandLine(l) {
					t.Errorf("github: the %s of %q holds a command: %q", name, line, l)
				}
			}
			noHazard(t, "github "+name, text)
		}
		// Outside the file property (exact bytes, for GitHub to find the file) the line has
		// nothing a terminal could act on.
		rest := line
		if f, ok := props["file"]; ok {
			rest = strings.Replace(line, "file="+escapeProperty(f), "file=…", 1)
		}
		noHazard(t, "github annotation", rest)
	}
}

// checkStepSummary: the Markdown table keeps its shape (every row has six cells: no unescaped
// "|"), holds no raw HTML tag and nothing a terminal or the runner could act on.
func checkStepSummary(t *testing.T, md string) {
	t.Helper()
	noHazard(t, "step summary", md)
	noCommands(t, "step summary", md)
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := 0
		for i := 0; i < len(line); i++ {
			switch line[i] {
			case '\\':
				i++
			case '|':
				cells++
			case '<':
				if !strings.HasPrefix(line[i:], "<br>") {
					t.Errorf("step summary: raw < in %q", line)
				}
			}
		}
		if cells != 7 {
			t.Errorf("step summary: %d separators in %q, want 7", cells, line)
		}
	}
}

// checkJSONExact decodes a JSON format and finds s exactly where it was put.
func checkJSONExact(t *testing.T, format, out, path, s string) {
	t.Helper()
	want, wantPath := exact(s), exact(path)
	var docs []any
	if format == FormatRDJSONL {
		for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
			var v any
			if err := json.Unmarshal([]byte(l), &v); err != nil {
				t.Fatalf("rdjsonl: %v in %q", err, l)
			}
			docs = append(docs, v)
		}
	} else {
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("%s: %v\n%s", format, err, out)
		}
		docs = []any{v}
	}
	get := func(v any, keys ...any) any {
		for _, k := range keys {
			switch k := k.(type) {
			case string:
				m, _ := v.(map[string]any)
				v = m[k]
			case int:
				l, _ := v.([]any)
				if k >= len(l) {
					return nil
				}
				v = l[k]
			}
		}
		return v
	}
	msgSugg := want + "\n\nSuggestion: " + want
	type check struct {
		got  any
		want string
	}
	var checks []check
	d := docs[0]
	switch format {
	case FormatJSON:
		f := get(d, "files", 0, "findings", 0)
		checks = []check{{get(d, "files", 0, "path"), wantPath}, {get(f, "rule"), want}, {get(f, "message"), want},
			{get(f, "suggestion"), want}, {get(f, "fix"), want}, {get(f, "match"), want}, {get(f, "analysis"), want},
			{get(d, "files", 0, "unverified", 0, "quote"), want}, {get(d, "files", 0, "errors", 0, "message"), want},
			{get(d, "files", 0, "scores", 0, "criteria", 0, "name"), want}, {get(d, "skipped", 0, "path"), want}}
	case FormatValeJSON:
		m, _ := d.(map[string]any)
		a := get(m[wantPath], 0)
		checks = []check{{get(a, "Check"), want}, {get(a, "Description"), want}, {get(a, "Match"), want},
			{get(a, "Action", "Params", 0), want}, {get(a, "Message"), strings.Join(strings.Fields(want), " ")}}
	case FormatRDJSON, FormatRDJSONL:
		diag := get(d, "diagnostics", 0)
		if format == FormatRDJSONL {
			diag = d
		}
		checks = []check{{get(diag, "message"), msgSugg}, {get(diag, "location", "path"), wantPath},
			{get(diag, "code", "value"), want}, {get(diag, "suggestions", 0, "text"), want}}
	case FormatSARIF:
		res := get(d, "runs", 0, "results", 0)
		// The URI percent-encodes every byte of the path, so it decodes to the path's bytes.
		uri, _ := get(res, "locations", 0, "physicalLocation", "artifactLocation", "uri").(string)
		u, err := url.Parse(uri)
		if err != nil || (u.Scheme == "" && strings.TrimPrefix(u.Path, "./") != path) ||
			(u.Scheme == "file" && u.Path != filepath.ToSlash(path)) {
			t.Errorf("sarif: uri %q does not decode to %q (%v)", uri, path, err)
		}
		checks = []check{{get(res, "ruleId"), want}, {get(res, "message", "text"), msgSugg},
			{get(res, "locations", 0, "physicalLocation", "region", "snippet", "text"), want},
			{get(res, "fixes", 0, "artifactChanges", 0, "replacements", 0, "insertedContent", "text"), want}}
	}
	for i, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: value %d decodes to %q, want %q", format, i, c.got, c.want)
		}
	}
}

// checkJUnitExact parses the JUnit document and finds s exactly in the suite name (the path) and
// the operational error's text.
func checkJUnitExact(t *testing.T, out, path, s string) {
	t.Helper()
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name  string `xml:"name,attr"`
				Error *struct {
					Text string `xml:",chardata"`
				} `xml:"error"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("junit: %v\n%s", err, out)
	}
	if len(doc.Suites) == 0 || doc.Suites[0].Name != xmlExact(path) {
		t.Fatalf("junit: suites %+v, want the first named %q", doc.Suites, xmlExact(path))
	}
	for _, c := range doc.Suites[0].Cases {
		if c.Error != nil {
			if c.Name != xmlExact("Pack."+s) || c.Error.Text != xmlExact(s) {
				t.Errorf("junit: error of %q reads %q, want %q of %q", c.Name, c.Error.Text, xmlExact(s), xmlExact("Pack."+s))
			}
			return
		}
	}
	t.Errorf("junit: no test case with the error in\n%s", out)
}

// TestGitHubActionsChangesOnlyCommands: with GitHubActions, the line format differs from the
// plain one only by the backslashes that make commands inert; with it off and nothing to escape
// for the terminal, the text is printed as it is.
func TestGitHubActionsChangesOnlyCommands(t *testing.T) {
	t.Parallel()
	r := hostileResult("docs/a.md", "ok ##[error]x\n::error::y")
	plain := string(render(t, FormatLine, Options{}, r))
	gha := string(render(t, FormatLine, Options{GitHubActions: true}, r))
	if !strings.Contains(plain, "##[error]x") || !strings.Contains(plain, "\n                ::error::y\n") {
		t.Errorf("without GitHub Actions the text should be as it is:\n%s", plain)
	}
	if strings.ReplaceAll(gha, `\`, "") != strings.ReplaceAll(plain, `\`, "") || gha == plain {
		t.Errorf("under GitHub Actions only backslashes should be added:\n%s\n---\n%s", gha, plain)
	}
}

// TestHostileGolden pins the escaped shapes of hostile text in the human formats and in JSON.
func TestHostileGolden(t *testing.T) {
	t.Parallel()
	s := "::error::pwned ##[warning]x\n  ::stop-commands::tok \x1b[31mred\x07 \u202eevil \xff"
	r := hostileResult("::error::x.md", s)
	r.Files[0].Findings = r.Files[0].Findings[:1]
	r.Skipped = nil
	for _, tt := range []struct {
		golden, format string
		opts           Options
	}{
		{"hostile-line.golden", FormatLine, Options{GitHubActions: true}},
		{"hostile-github.golden", FormatGitHub, Options{}},
		{"hostile-rdjsonl.golden", FormatRDJSONL, Options{}},
		{"hostile-junit.golden", FormatJUnit, Options{}},
	} {
		t.Run(tt.golden, func(t *testing.T) {
			var problems bytes.Buffer
			tt.opts.Problems = &problems
			out := render(t, tt.format, tt.opts, r)
			golden(t, tt.golden, out)
		})
	}
}

// FuzzFormatsSafe: whatever the text, no format prints a line the runner would act on (besides
// the github format's own annotations), no human format prints a terminal escape, and the JSON
// formats decode to the exact text.
func FuzzFormatsSafe(f *testing.F) {
	for _, s := range hostileTexts {
		f.Add(hostilePaths[1], s)
	}
	f.Fuzz(func(t *testing.T, path, s string) {
		r := hostileResult(path, s)
		for _, format := range Formats() {
			var problems bytes.Buffer
			out := string(render(t, format, Options{GitHubActions: true, Problems: &problems}, r))
			if format == FormatGitHub {
				checkGitHubLines(t, out, r)
			} else {
				noCommands(t, format, out)
				noHazard(t, format, out)
			}
			noCommands(t, format+" problems", problems.String())
			noHazard(t, format+" problems", problems.String())
			if s == "" { // empty fields are left out: nothing to compare
				continue
			}
			switch format {
			case FormatJSON, FormatValeJSON, FormatRDJSON, FormatRDJSONL, FormatSARIF:
				checkJSONExact(t, format, out, path, s)
			case FormatJUnit:
				checkJUnitExact(t, out, path, s)
			}
		}
		if t.Failed() {
			t.FailNow()
		}
	})
}
