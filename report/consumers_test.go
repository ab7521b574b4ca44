package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"go/build"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/vectorlint/vectorlint/finding"
)

// Tests against what the real consumers of each format accept: the official SARIF schema,
// reviewdog itself, GitHub's documented workflow-command syntax, an XML parser for JUnit, and
// the positions each format's unit implies in the fixture texts.

// lineRunes returns the code points of a 1-based line of a fixture document.
func lineRunes(t *testing.T, path string, line int) []rune {
	t.Helper()
	text, ok := fixtureDocs[path]
	if !ok {
		t.Fatalf("no fixture document %q", path)
	}
	lines := strings.Split(text, "\n")
	if line < 1 || line > len(lines) {
		t.Fatalf("%s has no line %d", path, line)
	}
	return []rune(lines[line-1])
}

// allFindings lists the fixture's findings with their paths.
func allFindings(r finding.Result) (paths []string, fs []finding.Finding) {
	for _, fr := range r.Files {
		for _, f := range fr.Findings {
			paths = append(paths, fr.Path)
			fs = append(fs, f)
		}
	}
	return paths, fs
}

func compileSARIFSchema(t *testing.T) *jsonschema.Schema {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", "sarif-schema-2.1.0.json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat() // uri and uri-reference are checked, not just annotated
	sch, err := c.Compile(abs)
	if err != nil {
		t.Fatalf("compiling the SARIF 2.1.0 schema: %v", err)
	}
	return sch
}

func TestSARIFValidatesAgainstOfficialSchema(t *testing.T) {
	t.Parallel()
	sch := compileSARIFSchema(t)
	for name, r := range map[string]finding.Result{"fixture": fixture(t), "fixes": fixesFixture(t), "clean": cleanFixture(), "empty": {}} {
		t.Run(name, func(t *testing.T) {
			out := render(t, FormatSARIF, Options{Version: "1.2.3", Rules: fixtureRules(t)}, r)
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(out))
			if err != nil {
				t.Fatalf("not JSON: %v", err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("SARIF output is invalid: %v", err)
			}
		})
	}
	// The validator must be able to say no: a level SARIF does not define is rejected.
	bad := bytes.Replace(render(t, FormatSARIF, Options{}, fixture(t)), []byte(`"level": "warning"`),
		[]byte(`"level": "fatal"`), 1)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if err != nil {
		t.Fatal(err)
	}
	if sch.Validate(inst) == nil {
		t.Fatal("a SARIF log with level \"fatal\" passed validation")
	}
}

// TestSARIFContent checks what the schema cannot: one run, the column unit, one descriptor
// per rule id with results pointing at the right index, and regions that select the finding's
// text when columns are counted in code points.
func TestSARIFContent(t *testing.T) {
	t.Parallel()
	var log struct {
		Runs []struct {
			ColumnKind string `json:"columnKind"`
			Tool       struct {
				Driver struct {
					Name  string `json:"name"`
					Rules []struct {
						ID string `json:"id"`
					} `json:"rules"`
				} `json:"driver"`
			} `json:"tool"`
			Results []struct {
				RuleID    string `json:"ruleId"`
				RuleIndex int    `json:"ruleIndex"`
				Level     string `json:"level"`
				Message   struct{ Text string }
				Locations []struct {
					PhysicalLocation struct {
						ArtifactLocation struct{ URI string }
						Region           struct{ StartLine, StartColumn, EndLine, EndColumn int }
					}
				}
			} `json:"results"`
			Invocations []struct {
				ExecutionSuccessful        bool
				ToolExecutionNotifications []struct {
					Level   string
					Message struct{ Text string }
				}
			}
		} `json:"runs"`
	}
	r := fixture(t)
	if err := json.Unmarshal(render(t, FormatSARIF, Options{}, r), &log); err != nil {
		t.Fatal(err)
	}
	if len(log.Runs) != 1 {
		t.Fatalf("%d runs, want 1", len(log.Runs))
	}
	run := log.Runs[0]
	if run.ColumnKind != "unicodeCodePoints" || run.Tool.Driver.Name != "vectorlint" {
		t.Errorf("columnKind %q, driver %q", run.ColumnKind, run.Tool.Driver.Name)
	}
	seen := map[string]bool{}
	for _, rule := range run.Tool.Driver.Rules {
		if seen[rule.ID] {
			t.Errorf("rule %q described twice", rule.ID)
		}
		seen[rule.ID] = true
	}
	for _, id := range []string{"Acme.Flow", "Acme.Headline", "Acme.Headline.ValueCommunication", "Acme.Jargon",
		"Acme.Passive", "Acme.Wordiness", "Acme.Tone", "Acme.Intro", "Acme.Checklist"} {
		if !seen[id] {
			t.Errorf("no descriptor for rule %q", id)
		}
	}
	paths, fs := allFindings(r)
	if len(run.Results) != len(fs) {
		t.Fatalf("%d results, want %d", len(run.Results), len(fs))
	}
	for i, res := range run.Results {
		f := fs[i]
		// SARIF's levels (§3.27.10) are none, note, warning and error: a suggestion is a note.
		level := map[finding.Severity]string{finding.SeverityError: "error", finding.SeverityWarning: "warning",
			finding.SeveritySuggestion: "note"}[f.Severity]
		if res.RuleID != f.Rule || run.Tool.Driver.Rules[res.RuleIndex].ID != f.Rule || res.Level != level {
			t.Errorf("result %d: rule %q index %d level %q, want %q %q", i, res.RuleID, res.RuleIndex, res.Level,
				f.Rule, level)
		}
		loc := res.Locations[0].PhysicalLocation
		p, err := url.PathUnescape(loc.ArtifactLocation.URI)
		if err != nil || p != paths[i] {
			t.Errorf("result %d: uri %q decodes to %q, want %q", i, loc.ArtifactLocation.URI, p, paths[i])
		}
		reg := loc.Region
		if reg.StartLine == reg.EndLine {
			line := lineRunes(t, paths[i], reg.StartLine)
			if got := string(line[reg.StartColumn-1 : reg.EndColumn-1]); got != f.Match {
				t.Errorf("result %d: region selects %q, want %q", i, got, f.Match)
			}
		}
	}
	inv := run.Invocations[0]
	if inv.ExecutionSuccessful {
		t.Error("executionSuccessful is true although a rule could not run")
	}
	var levels []string
	for _, n := range inv.ToolExecutionNotifications {
		levels = append(levels, n.Level+": "+n.Message.Text)
	}
	want := []string{
		`error: Acme.Tone could not run: LLM call failed after 4 attempts: 503 Service Unavailable <html> & "retry"`,
		`note: Acme.Jargon: unverified quote "leverage synergies" (not counted): Avoid "leverage"`,
		`note: skipped: no section of vectorlint.ini matches`,
	}
	if strings.Join(levels, "\n") != strings.Join(want, "\n") {
		t.Errorf("notifications:\n%s\nwant:\n%s", strings.Join(levels, "\n"), strings.Join(want, "\n"))
	}
}

// TestValeSpan checks Vale's Span convention on the fixture: 1-based code points, inclusive
// end, so line[Span[0]-1 : Span[1]] is the match (its first line for a multi-line match).
func TestValeSpan(t *testing.T) {
	t.Parallel()
	var out map[string][]valeAlert
	r := fixture(t)
	if err := json.Unmarshal(render(t, FormatValeJSON, Options{}, r), &out); err != nil {
		t.Fatal(err)
	}
	if len(out) != 2 {
		t.Errorf("%d files in vale-json, want the 2 with findings", len(out))
	}
	for path, alerts := range out {
		for _, a := range alerts {
			line := lineRunes(t, path, a.Line)
			want, _, _ := strings.Cut(a.Match, "\n")
			got := string(line[a.Span[0]-1 : a.Span[1]])
			if want == "" { // an empty match marks a point: [col, col]
				got = ""
				if a.Span[0] != a.Span[1] {
					t.Errorf("%s: empty match has span %v", a.Check, a.Span)
				}
			}
			if got != want {
				t.Errorf("%s: span %v selects %q, want %q", a.Check, a.Span, got, want)
			}
			if a.Link != "" {
				t.Errorf("%s: Link = %q, want empty", a.Check, a.Link)
			}
		}
	}
}

// TestValeSpanUnits pins the span for text where code points, bytes and UTF-16 units differ.
func TestValeSpanUnits(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	f := r.Files[1].Findings[1] // "in order to" after accents and an emoji
	if got := valeSpan(f); got != [2]int{26, 36} {
		t.Errorf("valeSpan = %v, want [26 36]", got)
	}
	multi := r.Files[1].Findings[3] // "spans\ntwo lines" from column 15 of line 7
	if got := valeSpan(multi); got != [2]int{15, 19} {
		t.Errorf("valeSpan(multi-line) = %v, want [15 19]", got)
	}
}

// rdjsonPositions checks that rdjson columns are UTF-8 byte columns of the fixture texts.
func TestRDJSONByteColumns(t *testing.T) {
	t.Parallel()
	var doc struct {
		Diagnostics []rdDiagnostic `json:"diagnostics"`
	}
	r := fixture(t)
	if err := json.Unmarshal(render(t, FormatRDJSON, Options{}, r), &doc); err != nil {
		t.Fatal(err)
	}
	_, fs := allFindings(r)
	if len(doc.Diagnostics) != len(fs) {
		t.Fatalf("%d diagnostics, want %d", len(doc.Diagnostics), len(fs))
	}
	for i, d := range doc.Diagnostics {
		text := fixtureDocs[d.Location.Path]
		lines := strings.SplitAfter(text, "\n")
		start, end := d.Location.Range.Start, d.Location.Range.End
		offset := func(p rdPosition) int {
			n := 0
			for _, l := range lines[:p.Line-1] {
				n += len(l)
			}
			return n + p.Column - 1
		}
		if got := text[offset(start):offset(end)]; got != fs[i].Match {
			t.Errorf("diagnostic %d selects %q in bytes, want %q", i, got, fs[i].Match)
		}
		if fix, _ := fs[i].Replacement(); (fix != "") != (len(d.Suggestions) == 1) {
			t.Errorf("diagnostic %d: %d suggestions for fix %q", i, len(d.Suggestions), fix)
		}
	}
}

// githubCommand matches a workflow command as GitHub documents it:
// ::error file={name},line={line},col={col},endLine={endLine},endColumn={endColumn},title={title}::{message}
// Property values and the message may hold no raw CR or LF, and values no raw ',' (escaped as
// %2C) and no ':' (%3A).
var githubCommand = regexp.MustCompile(`^::(error|warning|notice)` +
	`(?: ((?:file|line|col|endLine|endColumn|title)=[^,:\r\n]*(?:,(?:file|line|col|endLine|endColumn|title)=[^,:\r\n]*)*))?` +
	`::([^\r\n]*)$`)

// unescapeCommand reverses GitHub's escaping (the runner's unescape order: %0D, %0A, %3A, %2C,
// then %25).
func unescapeCommand(s string) string {
	return strings.NewReplacer("%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%").Replace(s)
}

func TestGitHubWorkflowCommands(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	out := string(render(t, FormatGitHub, Options{}, r))
	type annotation struct {
		command string
		props   map[string]string
		message string
	}
	var got []annotation
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if strings.HasPrefix(line, "vectorlint: ") {
			continue // unverified quotes: plain log lines
		}
		m := githubCommand.FindStringSubmatch(line)
		if m == nil {
			t.Fatalf("not a documented workflow command: %q", line)
		}
		a := annotation{command: m[1], props: map[string]string{}, message: unescapeCommand(m[3])}
		if m[2] != "" {
			for _, kv := range strings.Split(m[2], ",") {
				k, v, _ := strings.Cut(kv, "=")
				a.props[k] = unescapeCommand(v)
			}
		}
		got = append(got, a)
	}
	paths, fs := allFindings(r)
	// Findings in order, the operational error after its file's findings, the totals last.
	idx := 0
	for i, f := range fs {
		for idx < len(got) && got[idx].props["line"] == "" {
			idx++ // the rule that could not run
		}
		a := got[idx]
		idx++
		// GitHub's annotation commands are error, warning and notice: a suggestion is a notice.
		command := map[finding.Severity]string{finding.SeverityError: "error", finding.SeverityWarning: "warning",
			finding.SeveritySuggestion: "notice"}[f.Severity]
		if a.command != command || a.props["file"] != paths[i] || a.props["title"] != f.Rule ||
			a.message != messageWithSuggestion(f) {
			t.Errorf("annotation %+v does not round-trip finding %d (%s)", a, i, f.Rule)
		}
		if a.props["line"] != strconv.Itoa(f.Start.Line) || a.props["endLine"] != strconv.Itoa(f.End.Line) {
			t.Errorf("finding %d: lines %s–%s", i, a.props["line"], a.props["endLine"])
		}
		if f.Start.Line == f.End.Line {
			line := lineRunes(t, paths[i], f.Start.Line)
			c, _ := strconv.Atoi(a.props["col"])
			e, _ := strconv.Atoi(a.props["endColumn"])
			if got := string(line[c-1 : e-1]); got != f.Match {
				t.Errorf("finding %d: col..endColumn selects %q, want %q (code points)", i, got, f.Match)
			}
		} else if _, ok := a.props["col"]; ok {
			t.Errorf("finding %d spans lines but has col: GitHub rejects that", i)
		}
	}
	if n := len(got); got[n-1].command != "notice" || !strings.HasPrefix(got[n-1].message, "✖ 3 errors, 1 warning and 1 suggestion in 3 files; 1 rule run could not complete.") {
		t.Errorf("last annotation %+v, want the totals notice", got[n-1])
	}
	var failed int
	for _, a := range got {
		if strings.HasSuffix(a.props["title"], " could not run") {
			failed++
			if a.props["file"] != naivePath || !strings.Contains(a.message, `<html> & "retry"`) {
				t.Errorf("operational error annotation %+v", a)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d operational error annotations, want 1", failed)
	}
}

// TestJUnitParses reads the JUnit output back with an XML parser and checks every message
// survives the escaping.
func TestJUnitParses(t *testing.T) {
	t.Parallel()
	type testcase struct {
		Name    string `xml:"name,attr"`
		Class   string `xml:"classname,attr"`
		Failure *struct {
			Message string `xml:"message,attr"`
			Type    string `xml:"type,attr"`
			Body    string `xml:",chardata"`
		} `xml:"failure"`
		Errors []struct {
			Message string `xml:"message,attr"`
			Body    string `xml:",chardata"`
		} `xml:"error"`
		Skipped *struct {
			Message string `xml:"message,attr"`
		} `xml:"skipped"`
		SystemOut string `xml:"system-out"`
	}
	var doc struct {
		XMLName xml.Name `xml:"testsuites"`
		Suites  []struct {
			Name     string     `xml:"name,attr"`
			Tests    int        `xml:"tests,attr"`
			Failures int        `xml:"failures,attr"`
			Errors   int        `xml:"errors,attr"`
			Cases    []testcase `xml:"testcase"`
		} `xml:"testsuite"`
	}
	r := fixture(t)
	if err := xml.Unmarshal(render(t, FormatJUnit, Options{}, r), &doc); err != nil {
		t.Fatalf("JUnit output is not XML: %v", err)
	}
	var summary []string
	for _, s := range doc.Suites {
		var names []string
		for _, c := range s.Cases {
			mark := "pass"
			switch {
			case c.Skipped != nil:
				mark = "skipped: " + c.Skipped.Message
			case len(c.Errors) > 0:
				mark = "error: " + c.Errors[0].Body
			case c.Failure != nil:
				mark = "failure " + c.Failure.Type + " (" + c.Failure.Message + ")"
			}
			names = append(names, c.Name+" "+mark)
		}
		summary = append(summary, fmt.Sprintf("%s [%d tests, %d failures, %d errors]: %s", s.Name, s.Tests,
			s.Failures, s.Errors, strings.Join(names, "; ")))
	}
	want := []string{
		"docs/clean.md [2 tests, 0 failures, 0 errors]: Acme.Passive pass; Acme.Wordiness pass",
		"docs/naïve notes.md [6 tests, 4 failures, 1 errors]: Acme.Flow failure suggestion (1 suggestion); " +
			"Acme.Headline failure error (1 error); Acme.Jargon failure warning (1 warning); Acme.Passive pass; " +
			"Acme.Wordiness failure error (1 error); " +
			`Acme.Tone error: LLM call failed after 4 attempts: 503 Service Unavailable <html> & "retry"`,
		"guide/setup, part 1: install.md [2 tests, 1 failures, 0 errors]: Acme.Checklist pass; Acme.Intro failure error (1 error)",
		"skipped files [1 tests, 0 failures, 0 errors]: drafts/wip.md skipped: no section of vectorlint.ini matches",
	}
	if strings.Join(summary, "\n") != strings.Join(want, "\n") {
		t.Errorf("JUnit structure:\n%s\nwant:\n%s", strings.Join(summary, "\n"), strings.Join(want, "\n"))
	}
	flow := doc.Suites[1].Cases[0].Failure.Body
	if !strings.Contains(flow, "This sentence breaks\nacross lines, which reads badly.") {
		t.Errorf("multi-line message lost its line break: %q", flow)
	}
	if !strings.Contains(doc.Suites[1].Cases[2].Failure.Body, "Prefer plain words <use> & avoid jargon") {
		t.Errorf("escaped message did not round-trip: %q", doc.Suites[1].Cases[2].Failure.Body)
	}
	if got := doc.Suites[1].Cases[5].Errors[0].Message; got != `Acme.Tone could not run: LLM call failed after 4 attempts: 503 Service Unavailable <html> & "retry"` {
		t.Errorf("error message attribute = %q", got)
	}
}

// findReviewdog locates the reviewdog binary: on PATH, else where `go install` puts it. Absent,
// the test is skipped, unless VECTORLINT_REQUIRE_CONSUMERS=1 (CI), where absence fails.
func findReviewdog(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("reviewdog"); err == nil {
		return p
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		gopath = build.Default.GOPATH
	}
	for _, dir := range filepath.SplitList(gopath) {
		p := filepath.Join(dir, "bin", "reviewdog")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if os.Getenv("VECTORLINT_REQUIRE_CONSUMERS") == "1" {
		t.Fatal("reviewdog not found on PATH or in $GOPATH/bin: run .ci/install-consumers")
	}
	t.Skip("reviewdog not found; run .ci/install-consumers (VECTORLINT_REQUIRE_CONSUMERS=1 makes this fatal)")
	return ""
}

// reviewdogRepo makes a git repository holding the fixture documents, as reviewdog runs in one.
func reviewdogRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for path, text := range fixtureDocs {
		full := filepath.Join(dir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return dir
}

func runReviewdog(t *testing.T, bin, dir, format string, input []byte) (string, error) {
	t.Helper()
	cmd := exec.Command(bin, "-f="+format, "-reporter=local", "-filter-mode=nofilter")
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(input)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil {
		err = fmt.Errorf("%w: %s", err, stderr.String())
	}
	return stdout.String(), err
}

// accepted is one diagnostic as reviewdog printed it back.
type accepted struct {
	path, severity, code, message, suggestion string
	start, end                                rdPosition
}

// expectedDiagnostics is what reviewdog must read back, built from the findings themselves
// (not from the rdjson encoder): byte columns, capitalised severities, the rule as code, the fix
// as the only suggestion.
func expectedDiagnostics(r finding.Result) []accepted {
	paths, fs := allFindings(r)
	severity := map[finding.Severity]string{finding.SeverityError: "ERROR", finding.SeverityWarning: "WARNING",
		finding.SeveritySuggestion: "INFO"}
	var want []accepted
	for i, f := range fs {
		fix, _ := f.Replacement()
		want = append(want, accepted{path: paths[i], severity: severity[f.Severity], code: f.Rule,
			message: messageWithSuggestion(f), suggestion: fix,
			start: rdPosition{f.Start.Line, f.Start.ByteColumn}, end: rdPosition{f.End.Line, f.End.ByteColumn}})
	}
	return want
}

// reviewdogText matches one diagnostic in the protobuf text format that `reviewdog -f=rdjson
// -reporter=local` prints (fields separated by one or two spaces, as prototext varies them).
var reviewdogText = regexp.MustCompile(`^message:"((?:[^"\\]|\\.)*)"\s+` +
	`location:\{path:"((?:[^"\\]|\\.)*)"\s+range:\{start:\{line:(\d+)\s+column:(\d+)\}\s+end:\{line:(\d+)\s+column:(\d+)\}\}\}\s+` +
	`severity:(ERROR|WARNING|INFO)\s+source:\{name:"vectorlint"\s+url:"[^"]*"\}\s+code:\{value:"((?:[^"\\]|\\.)*)"\}` +
	`(?:\s+suggestions:\{range:\{start:\{line:\d+\s+column:\d+\}\s+end:\{line:\d+\s+column:\d+\}\}\s+text:"((?:[^"\\]|\\.)*)"\})?$`)

// unquoteProto decodes a prototext string body.
func unquoteProto(t *testing.T, s string) string {
	t.Helper()
	u, err := strconv.Unquote(`"` + s + `"`)
	if err != nil {
		t.Fatalf("cannot decode prototext string %q: %v", s, err)
	}
	return u
}

func TestReviewdogAcceptsRDJSON(t *testing.T) {
	t.Parallel()
	bin := findReviewdog(t)
	dir := reviewdogRepo(t)
	r := fixture(t)
	want := expectedDiagnostics(r)

	t.Run("rdjson", func(t *testing.T) {
		out, err := runReviewdog(t, bin, dir, "rdjson", withoutOriginalOutput(render(t, FormatRDJSON, Options{}, r)))
		if err != nil {
			t.Fatalf("reviewdog rejected our rdjson: %v", err)
		}
		var got []accepted
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			m := reviewdogText.FindStringSubmatch(line)
			if m == nil {
				t.Fatalf("unexpected reviewdog output line: %q", line)
			}
			atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
			a := accepted{message: unquoteProto(t, m[1]), path: unquoteProto(t, m[2]),
				start: rdPosition{atoi(m[3]), atoi(m[4])}, end: rdPosition{atoi(m[5]), atoi(m[6])},
				severity: m[7], code: unquoteProto(t, m[8])}
			if m[9] != "" {
				a.suggestion = unquoteProto(t, m[9])
			}
			got = append(got, a)
		}
		compareAccepted(t, got, want)
	})

	t.Run("rdjsonl", func(t *testing.T) {
		out, err := runReviewdog(t, bin, dir, "rdjsonl", withoutOriginalOutput(render(t, FormatRDJSONL, Options{}, r)))
		if err != nil {
			t.Fatalf("reviewdog rejected our rdjsonl: %v", err)
		}
		// For rdjsonl without original_output, reviewdog prints each accepted diagnostic's
		// line.
		var got []accepted
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			var d rdDiagnostic
			if err := json.Unmarshal([]byte(line), &d); err != nil {
				t.Fatalf("unexpected reviewdog output line %q: %v", line, err)
			}
			a := accepted{path: d.Location.Path, severity: d.Severity, code: d.Code.Value, message: d.Message,
				start: d.Location.Range.Start, end: d.Location.Range.End}
			if len(d.Suggestions) > 0 {
				a.suggestion = d.Suggestions[0].Text
			}
			got = append(got, a)
		}
		compareAccepted(t, got, want)
	})

	// The escapes that keep workflow commands and terminal controls out of the output
	// (\u005b for the "[" of "##[", \u escapes for C1, bidi and invisible characters) are plain
	// JSON: reviewdog reads the exact text back.
	t.Run("hostile text", func(t *testing.T) {
		h := fixture(t)
		for i := range h.Files {
			for j := range h.Files[i].Findings {
				f := &h.Files[i].Findings[j]
				f.Message = "::error::pwned ##[warning]x \u202eevil \u0085 #\u200d#[y] \x1b[31m"
				if fix, _ := f.Replacement(); fix != "" {
					*f = withFix(*f, "##[fix] \u2066")
				}
			}
		}
		want := expectedDiagnostics(h)
		for _, format := range []string{FormatRDJSON, FormatRDJSONL} {
			in := render(t, format, Options{}, h)
			if !bytes.Contains(in, []byte(`##\u005bwarning]`)) {
				t.Fatalf("%s: the test needs the encoded form:\n%s", format, in)
			}
			out, err := runReviewdog(t, bin, dir, format, withoutOriginalOutput(in))
			if err != nil {
				t.Fatalf("reviewdog rejected our %s: %v", format, err)
			}
			var got []accepted
			for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
				if format == FormatRDJSONL {
					var d rdDiagnostic
					if err := json.Unmarshal([]byte(line), &d); err != nil {
						t.Fatalf("unexpected reviewdog output line %q: %v", line, err)
					}
					a := accepted{path: d.Location.Path, severity: d.Severity, code: d.Code.Value, message: d.Message,
						start: d.Location.Range.Start, end: d.Location.Range.End}
					if len(d.Suggestions) > 0 {
						a.suggestion = d.Suggestions[0].Text
					}
					got = append(got, a)
					continue
				}
				m := reviewdogText.FindStringSubmatch(line)
				if m == nil {
					t.Fatalf("unexpected reviewdog output line: %q", line)
				}
				atoi := func(s string) int { n, _ := strconv.Atoi(s); return n }
				a := accepted{message: unquoteProto(t, m[1]), path: unquoteProto(t, m[2]),
					start: rdPosition{atoi(m[3]), atoi(m[4])}, end: rdPosition{atoi(m[5]), atoi(m[6])},
					severity: m[7], code: unquoteProto(t, m[8])}
				if m[9] != "" {
					a.suggestion = unquoteProto(t, m[9])
				}
				got = append(got, a)
			}
			compareAccepted(t, got, want)
		}
	})

	// With original_output (as we write it), reviewdog's local reporter prints that line for
	// each diagnostic it accepted, in order: the finding's path, line, column in code points,
	// severity, message on one line and rule.
	t.Run("original_output", func(t *testing.T) {
		paths, fs := allFindings(r)
		var want []string
		for i, f := range fs {
			want = append(want, fmt.Sprintf("%s:%d:%d: %s: %s [%s]", paths[i], f.Start.Line, f.Start.Column, f.Severity,
				strings.Join(strings.Fields(f.Message), " "), f.Rule))
		}
		for _, format := range []string{FormatRDJSON, FormatRDJSONL} {
			out, err := runReviewdog(t, bin, dir, format, render(t, format, Options{}, r))
			if err != nil {
				t.Fatalf("reviewdog rejected our %s: %v", format, err)
			}
			if got := strings.TrimSpace(out); got != strings.Join(want, "\n") {
				t.Errorf("%s: reviewdog printed\n%s\nwant\n%s", format, got, strings.Join(want, "\n"))
			}
		}
	})

	t.Run("lowercase severity is rejected", func(t *testing.T) {
		bad := bytes.Replace(render(t, FormatRDJSONL, Options{}, r), []byte(`"severity":"WARNING"`),
			[]byte(`"severity":"warning"`), 1)
		if _, err := runReviewdog(t, bin, dir, "rdjsonl", bad); err == nil {
			t.Fatal("reviewdog accepted a lowercase severity; the consumer check proves nothing")
		}
	})
}

// TestReviewdogAcceptsFixes: reviewdog reads every shape of fix as suggestions with the edits'
// ranges (an edit of the match, two edits inside it, an insertion) in both formats, and each
// suggestion applied to the document gives the fixed text.
func TestReviewdogAcceptsFixes(t *testing.T) {
	t.Parallel()
	bin := findReviewdog(t)
	dir := reviewdogRepo(t)
	r := fixesFixture(t)
	_, fs := allFindings(r)
	out, err := runReviewdog(t, bin, dir, "rdjsonl", withoutOriginalOutput(render(t, FormatRDJSONL, Options{}, r)))
	if err != nil {
		t.Fatalf("reviewdog rejected our rdjsonl: %v", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(fs) {
		t.Fatalf("reviewdog printed %d diagnostics, want %d:\n%s", len(lines), len(fs), out)
	}
	// Suggestions are in byte columns: applied to the document's lines, they give what the
	// findings' edits give.
	var fixed []string
	for i, line := range lines {
		var d rdDiagnostic
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("unexpected reviewdog output line %q: %v", line, err)
		}
		if len(d.Suggestions) != len(fs[i].Edits) {
			t.Fatalf("diagnostic %d: %d suggestions, want %d", i, len(d.Suggestions), len(fs[i].Edits))
		}
		text := []byte(fixesText)
		for j := len(d.Suggestions) - 1; j >= 0; j-- {
			s := d.Suggestions[j]
			start, end := byteOffset(fixesText, s.Range.Start), byteOffset(fixesText, s.Range.End)
			text = append(text[:start:start], append([]byte(s.Text), text[end:]...)...)
		}
		fixed = append(fixed, string(text))
	}
	want := []string{
		fixesText,
		strings.Replace(fixesText, "in order to", "to", 1),
		strings.Replace(fixesText, `"tools"`, "“tools”", 1),
		strings.Replace(fixesText, "It ends here", "It ends here.", 1),
	}
	for i := range want {
		if fixed[i] != want[i] {
			t.Errorf("diagnostic %d's suggestions give %q, want %q", i, fixed[i], want[i])
		}
	}
	if _, err := runReviewdog(t, bin, dir, "rdjson", render(t, FormatRDJSON, Options{}, r)); err != nil {
		t.Fatalf("reviewdog rejected our rdjson: %v", err)
	}
}

// originalOutputMember matches the original_output member of a diagnostic, as rdjson and rdjsonl
// write it (the last member).
var originalOutputMember = regexp.MustCompile(`,\s*"original_output":\s*"(?:[^"\\]|\\.)*"`)

// withoutOriginalOutput removes original_output from our rdjson or rdjsonl, so that reviewdog's
// local reporter prints what it read of every other field (the protobuf text, or for rdjsonl the
// input line) rather than our line.
func withoutOriginalOutput(b []byte) []byte {
	return originalOutputMember.ReplaceAll(b, nil)
}

// byteOffset is the offset in text of a 1-based line and byte column.
func byteOffset(text string, p rdPosition) int {
	off := 0
	for range p.Line - 1 {
		off += strings.IndexByte(text[off:], '\n') + 1
	}
	return off + p.Column - 1
}

func compareAccepted(t *testing.T, got, want []accepted) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("reviewdog printed %d diagnostics, want %d:\n%+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("diagnostic %d: reviewdog read\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
}

// FuzzGitHubEscape: whatever the text, an escaped property value holds no character that
// would end it, the message no line break, and the runner's unescaping gives the text back.
func FuzzGitHubEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "100%", "a:b,c", "l1\r\nl2", "%0A", "%25", "%%0D", "%2C,", "::error::x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, d := escapeProperty(s), escapeData(s)
		if strings.ContainsAny(p, ",:\r\n") || strings.ContainsAny(d, "\r\n") {
			t.Fatalf("escaped %q to %q / %q", s, p, d)
		}
		if got := unescapeCommand(p); got != s {
			t.Fatalf("property %q -> %q -> %q", s, p, got)
		}
		if got := unescapeCommand(d); got != s {
			t.Fatalf("data %q -> %q -> %q", s, d, got)
		}
	})
}

// FuzzXMLEscape: escaped text and attribute values parse back to the text (with characters
// XML cannot carry replaced by U+FFFD: each byte of invalid UTF-8 becomes one U+FFFD, as Go's
// range loop and encoding/json do, not each run of them as strings.ToValidUTF8 does).
func FuzzXMLEscape(f *testing.F) {
	for _, s := range []string{"", `a<b>&"c"'`, "l1\nl2\tx\r\n", "nul\x00", "bad \xff", "]]>", "é👋"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var doc struct {
			Attr string `xml:"a,attr"`
			Text string `xml:",chardata"`
		}
		in := `<x a="` + xmlAttr(s) + `">` + xmlText(s) + `</x>`
		if err := xml.Unmarshal([]byte(in), &doc); err != nil {
			t.Fatalf("%q escaped to invalid XML %q: %v", s, in, err)
		}
		want := []rune{}
		for _, r := range s { // an invalid byte ranges as utf8.RuneError, one per byte
			if r != '\n' && r != '\t' && r != '\r' && (r < 0x20 || (r > 0xd7ff && r < 0xe000) || r > 0xfffd && r < 0x10000) {
				r = '\uFFFD'
			}
			want = append(want, r)
		}
		if doc.Attr != string(want) || doc.Text != string(want) {
			t.Fatalf("%q read back as attr %q, text %q; want %q", s, doc.Attr, doc.Text, string(want))
		}
	})
}
