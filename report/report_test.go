package report

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/fatih/color"

	"github.com/vectorlint/vectorlint/finding"
)

func TestNewUnknownFormat(t *testing.T) {
	t.Parallel()
	_, err := New("xml", io.Discard, Options{})
	var ufe *UnknownFormatError
	if !errors.As(err, &ufe) || ufe.Format != "xml" {
		t.Fatalf("New(xml) error = %v, want *UnknownFormatError", err)
	}
	want := `unknown output format "xml": expected one of line, json, vale-json, rdjson, rdjsonl, github, sarif, junit`
	if err.Error() != want {
		t.Errorf("error = %q\nwant    %q", err, want)
	}
	for _, f := range Formats() {
		if _, err := New(f, io.Discard, Options{}); err != nil {
			t.Errorf("New(%q): %v", f, err)
		}
	}
}

func TestTotalsLine(t *testing.T) {
	t.Parallel()
	refused := finding.RunError{Cause: "connection refused to 127.0.0.1:9", Message: "llm: cannot connect…", NotRun: 400}
	tests := []struct {
		totals finding.Totals
		want   string
	}{
		{finding.Totals{Summary: finding.Summary{Files: 1}}, "✓ 0 errors and 0 warnings in 1 file."},
		{finding.Totals{Summary: finding.Summary{Files: 0}}, "✓ 0 errors and 0 warnings in 0 files."},
		{finding.Totals{Summary: finding.Summary{Files: 2, Errors: 1}}, "✖ 1 error and 0 warnings in 2 files."},
		{finding.Totals{Summary: finding.Summary{Files: 1, Warnings: 1}}, "✖ 0 errors and 1 warning in 1 file."},
		{finding.Totals{Summary: finding.Summary{Files: 10, Errors: 3, Warnings: 12}}, "✖ 3 errors and 12 warnings in 10 files."},
		// Work left undone: no tick, and the line says what and why.
		{finding.Totals{Summary: finding.Summary{Files: 2, OperationalErrors: 1}}, "✖ 0 errors and 0 warnings in 2 files; 1 rule run could not complete."},
		{finding.Totals{Summary: finding.Summary{Files: 50, NotRun: 400}, RunErrors: []finding.RunError{refused}},
			"✖ 0 errors and 0 warnings in 50 files; 400 rule runs could not complete (connection refused to 127.0.0.1:9)."},
		{finding.Totals{Summary: finding.Summary{Files: 3, Errors: 2, OperationalErrors: 1, NotRun: 5}, RunErrors: []finding.RunError{
			{Cause: "no search model is configured", NotRun: 2}, {Cause: "HTTP 401 Unauthorized from api.openai.com", NotRun: 3}}},
			"✖ 2 errors and 0 warnings in 3 files; 6 rule runs could not complete (no search model is configured; HTTP 401 Unauthorized from api.openai.com)."},
		{finding.Totals{Summary: finding.Summary{Files: 4}, Interrupted: []string{"a.md", "b.md", "c.md"}}, "✖ 0 errors and 0 warnings in 4 files; 3 files not finished (interrupted)."},
	}
	for _, tt := range tests {
		if got := totalsLine(tt.totals); got != tt.want {
			t.Errorf("totalsLine(%+v) = %q, want %q", tt.totals, got, tt.want)
		}
	}
}

func TestProblemsLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		summary finding.Summary
		want    string
	}{
		{finding.Summary{}, ""},
		{finding.Summary{Unverified: 1}, "1 unverified quote (not counted)"},
		{finding.Summary{OperationalErrors: 2}, ""}, // the totals line says it
		{finding.Summary{Unverified: 3, OperationalErrors: 1}, "3 unverified quotes (not counted)"},
	}
	for _, tt := range tests {
		if got := problemsLine(tt.summary); got != tt.want {
			t.Errorf("problemsLine(%+v) = %q, want %q", tt.summary, got, tt.want)
		}
	}
}

func TestUsageLine(t *testing.T) {
	t.Parallel()
	cost := 1.5
	tests := []struct {
		usage finding.Usage
		want  string
	}{
		{finding.Usage{}, "LLM usage: 0 calls, 0 input and 0 output tokens"},
		{finding.Usage{Calls: 1, InputTokens: 10, OutputTokens: 2}, "LLM usage: 1 call, 10 input and 2 output tokens"},
		{finding.Usage{Calls: 4, CachedCalls: 4, InputTokens: 1000, OutputTokens: 200, Cost: &cost},
			"LLM usage: 4 calls (4 cached), 1000 input and 200 output tokens, cost $1.5000"},
		{finding.Usage{Calls: 6, InputTokens: 13176, OutputTokens: 30, CachedInputTokens: 8704, CacheWriteTokens: 4352, Cost: &cost},
			"LLM usage: 6 calls, 13176 input (8704 from the provider's cache, 4352 written to it) and 30 output tokens, cost $1.5000"},
		{finding.Usage{Calls: 6, InputTokens: 13176, OutputTokens: 30, CachedInputTokens: 8704, Cost: &cost, CachedPriceAssumed: true},
			"LLM usage: 6 calls, 13176 input (8704 from the provider's cache) and 30 output tokens, cost $1.5000 " +
				"(cached input at the provider's usual share of the input price: set CACHED_INPUT_PRICE_PER_MILLION for your model's)"},
		{finding.Usage{Calls: 6, InputTokens: 13176, OutputTokens: 30, CachedInputTokens: 8448},
			"LLM usage: 6 calls, 13176 input (8448 from the provider's cache) and 30 output tokens"},
		{finding.Usage{Calls: 1, InputTokens: 2000, OutputTokens: 5, CacheWriteTokens: 1500},
			"LLM usage: 1 call, 2000 input (1500 written to the provider's cache) and 5 output tokens"},
	}
	for _, tt := range tests {
		if got := usageLine(tt.usage); got != tt.want {
			t.Errorf("usageLine(%+v) = %q, want %q", tt.usage, got, tt.want)
		}
	}
}

// TestStreamOrder checks the contract every format enforces: files in increasing path order,
// valid severities, nothing after Finish, Finish once.
func TestStreamOrder(t *testing.T) {
	t.Parallel()
	one := finding.Finding{Rule: "A.B", Severity: finding.SeverityWarning, Message: "m",
		Start: finding.Position{Line: 1, Column: 1, ByteColumn: 1}, End: finding.Position{Line: 1, Column: 2, ByteColumn: 2}}
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			w, err := New(format, io.Discard, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := w.File(finding.FileResult{Path: "b.md", Findings: []finding.Finding{one}}); err != nil {
				t.Fatal(err)
			}
			var oe *OrderError
			err = w.File(finding.FileResult{Path: "a.md"})
			if !errors.As(err, &oe) || err.Error() != `report: files must arrive sorted by path: "a.md" came after "b.md"` {
				t.Errorf("out of order: %v", err)
			}
			if err := w.File(finding.FileResult{Path: "b.md"}); !errors.As(err, &oe) {
				t.Errorf("duplicate path: %v", err)
			}
			bad := one
			bad.Severity = finding.SeverityUnset
			err = w.File(finding.FileResult{Path: "c.md", Findings: []finding.Finding{bad}})
			if err == nil || err.Error() != `report: c.md:1:1: finding of rule "A.B": expected severity suggestion, warning or error, found 0` {
				t.Errorf("invalid severity: %v", err)
			}
			if err := w.Finish(finding.Totals{}); err != nil {
				t.Fatal(err)
			}
			if err := w.File(finding.FileResult{Path: "d.md"}); !errors.As(err, &oe) || !oe.AfterFinish {
				t.Errorf("File after Finish: %v", err)
			}
			if err := w.Finish(finding.Totals{}); err == nil || err.Error() != "report: Finish called twice" {
				t.Errorf("second Finish: %v", err)
			}
		})
	}
}

// TestJSONStreamsTheNativeDocument checks that the streamed json output is exactly the
// indented serialisation of the whole finding.Result, so the two can never drift apart.
func TestJSONStreamsTheNativeDocument(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]finding.Result{"fixture": fixture(t), "clean": cleanFixture(),
		"stopped": stoppedFixture(), "no files": {Version: "1.2.3"}} {
		t.Run(name, func(t *testing.T) {
			got := render(t, FormatJSON, Options{}, r)
			// The writer turns missing lists into []: do the same before marshalling whole.
			if r.Files == nil {
				r.Files = []finding.FileResult{}
			}
			for i := range r.Files {
				if r.Files[i].Findings == nil {
					r.Files[i].Findings = []finding.Finding{}
				}
			}
			want, err := json.MarshalIndent(r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != string(want)+"\n" {
				t.Errorf("streamed:\n%s\nwhole:\n%s", got, want)
			}
			var back finding.Result
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatalf("output does not read back: %v", err)
			}
			if back.Summary != r.Summary || back.Version != r.Version {
				t.Errorf("read back %+v / %q", back.Summary, back.Version)
			}
		})
	}
}

// TestLineColour: escape codes only when the caller asks, and the package-wide switch of
// fatih/color is left alone.
func TestLineColour(t *testing.T) {
	t.Parallel()
	before := color.NoColor
	r := fixture(t)
	plain := render(t, FormatLine, Options{}, r)
	coloured := render(t, FormatLine, Options{Color: true}, r)
	if color.NoColor != before {
		t.Errorf("color.NoColor changed from %v to %v", before, color.NoColor)
	}
	if bytes.Contains(plain, []byte("\x1b")) {
		t.Error("escape codes without colour")
	}
	if !bytes.Contains(coloured, []byte("\x1b[31merror\x1b[0m")) {
		t.Error("no red error with colour on")
	}
	// Removing the escapes from the coloured output gives the plain one: colour never shifts
	// the alignment.
	stripped := regexpANSI.ReplaceAll(coloured, nil)
	if !bytes.Equal(stripped, plain) {
		t.Errorf("coloured output without escapes differs from plain:\n%s\n---\n%s", stripped, plain)
	}
}

// TestLineTerminalSafety: text from a model cannot put escape codes on the terminal.
func TestLineTerminalSafety(t *testing.T) {
	t.Parallel()
	r := finding.Result{Files: []finding.FileResult{{Path: "a\x1b[2J.md", Findings: []finding.Finding{{
		Rule: "A.B", Severity: finding.SeverityError, Message: "red \x1b[31mtext\x07 and\ttab\r\nnext",
		Start: finding.Position{Line: 1, Column: 1}, End: finding.Position{Line: 1, Column: 2}}},
		Errors: []finding.RuleError{{Rule: "A.C", Message: "boom\x1b]0;title\x07"}}}},
		Totals: finding.Totals{Summary: finding.Summary{Files: 1, Errors: 1, OperationalErrors: 1}},
	}
	out := string(render(t, FormatLine, Options{}, r))
	if strings.ContainsAny(out, "\x1b\x07\r\t") {
		t.Fatalf("control characters reached the output:\n%q", out)
	}
	for _, want := range []string{`a\x1b[2J.md`, `red \x1b[31mtext\x07 and tab`, "\n" + strings.Repeat(" ", 14) + "next",
		`boom\x1b]0;title\x07`} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestLineAlignment(t *testing.T) {
	t.Parallel()
	// Wide characters count two cells: the rule column still lines up.
	r := finding.Result{Files: []finding.FileResult{{Path: "a.md", Findings: []finding.Finding{
		{Rule: "A.One", Severity: finding.SeverityError, Message: "漢字 wide", Start: finding.Position{Line: 1, Column: 1}},
		{Rule: "A.Two", Severity: finding.SeverityWarning, Message: "narrow text", Start: finding.Position{Line: 12, Column: 10}},
	}}},
		Totals: finding.Totals{Summary: finding.Summary{Files: 1, Errors: 1, Warnings: 1}},
	}
	out := string(render(t, FormatLine, Options{}, r))
	want := "a.md\n" +
		"  1:1    error    漢字 wide    A.One\n" +
		"  12:10  warning  narrow text  A.Two\n"
	if !strings.HasPrefix(out, want) {
		t.Errorf("got:\n%s\nwant prefix:\n%s", out, want)
	}
}

func TestWrap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in    string
		width int
		want  []string
	}{
		{"", 10, []string{""}},
		{"one two three", 7, []string{"one two", "three"}},
		{"a\nb c", 10, []string{"a", "b c"}},
		{"averyveryverylongword x", 5, []string{"averyveryverylongword", "x"}},
		{"漢字漢字 ab", 9, []string{"漢字漢字", "ab"}},
	}
	for _, tt := range tests {
		if got := wrap(tt.in, tt.width); strings.Join(got, "|") != strings.Join(tt.want, "|") {
			t.Errorf("wrap(%q, %d) = %q, want %q", tt.in, tt.width, got, tt.want)
		}
	}
}

func TestDisplayWidth(t *testing.T) {
	t.Parallel()
	tests := map[string]int{"abc": 3, "café": 4, "cafe\u0301": 4, "漢字": 4, "👋": 2, "👋🏽": 4, "": 0}
	for s, want := range tests {
		if got := displayWidth(s); got != want {
			t.Errorf("displayWidth(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestGitHubEscaping(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, data, prop string }{
		{"plain", "plain", "plain"},
		{"100%", "100%25", "100%25"},
		{"a\r\nb", "a%0D%0Ab", "a%0D%0Ab"},
		{"k: v, w", "k: v, w", "k%3A v%2C w"},
		{"%0A", "%250A", "%250A"},
	}
	for _, tt := range tests {
		if got := escapeData(tt.in); got != tt.data {
			t.Errorf("escapeData(%q) = %q, want %q", tt.in, got, tt.data)
		}
		if got := escapeProperty(tt.in); got != tt.prop {
			t.Errorf("escapeProperty(%q) = %q, want %q", tt.in, got, tt.prop)
		}
	}
}

func TestXMLEscape(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, text, attr string }{
		{`a<b>&"c"`, `a&lt;b&gt;&amp;"c"`, `a&lt;b&gt;&amp;&quot;c&quot;`},
		{"l1\nl2\tx\r", "l1\nl2\tx&#xD;", "l1&#xA;l2&#x9;x&#xD;"},
		{"nul\x00 esc\x1b", "nul\uFFFD esc\uFFFD", "nul\uFFFD esc\uFFFD"},
		{"bad \xff utf8", "bad \uFFFD utf8", "bad \uFFFD utf8"},
	}
	for _, tt := range tests {
		if got := xmlText(tt.in); got != tt.text {
			t.Errorf("xmlText(%q) = %q, want %q", tt.in, got, tt.text)
		}
		if got := xmlAttr(tt.in); got != tt.attr {
			t.Errorf("xmlAttr(%q) = %q, want %q", tt.in, got, tt.attr)
		}
	}
}

func TestSARIFURI(t *testing.T) {
	t.Parallel()
	tests := []struct{ path, uri, base string }{
		{"docs/a.md", "docs/a.md", "%SRCROOT%"},
		{"docs/naïve notes.md", "docs/na%C3%AFve%20notes.md", "%SRCROOT%"},
		{"a:b.md", "./a:b.md", "%SRCROOT%"},
		{"100%.md", "100%25.md", "%SRCROOT%"},
		{"/abs/x y.md", "file:///abs/x%20y.md", ""},
	}
	for _, tt := range tests {
		got := sarifURI(tt.path)
		if got.URI != tt.uri || got.URIBaseID != tt.base {
			t.Errorf("sarifURI(%q) = %+v, want %q %q", tt.path, got, tt.uri, tt.base)
		}
	}
}

// TestProblemsGoToTheSideChannel: formats without a place for operational errors and unverified
// quotes write them to Options.Problems instead of dropping them.
func TestProblemsGoToTheSideChannel(t *testing.T) {
	t.Parallel()
	for _, format := range []string{FormatValeJSON, FormatRDJSON, FormatRDJSONL} {
		var out, problems bytes.Buffer
		if err := Write(format, &out, Options{Problems: &problems}, fixture(t)); err != nil {
			t.Fatal(err)
		}
		want := `vectorlint: docs/naïve notes.md: Acme.Tone could not run: LLM call failed after 4 attempts: 503 Service Unavailable <html> & "retry"` + "\n" +
			`vectorlint: docs/naïve notes.md:6: Acme.Jargon: unverified quote "leverage synergies" (not counted): Avoid "leverage"` + "\n"
		if problems.String() != want {
			t.Errorf("%s problems:\n%s\nwant:\n%s", format, problems.String(), want)
		}
	}
}

func TestStepSummaryErrors(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "missing-dir", "summary.md")
	err := Write(FormatGitHub, io.Discard, Options{StepSummaryPath: path}, fixture(t))
	if err == nil || !strings.Contains(err.Error(), "missing-dir") {
		t.Errorf("unwritable step summary: error %v, want one naming the path", err)
	}
}

// TestMemoryStaysFlat streams many files through every format and checks that the heap does
// not grow with the number of files: nothing per file is kept once it is written.
func TestMemoryStaysFlat(t *testing.T) {
	// Not parallel: it measures the heap, which other tests would grow.
	if testing.Short() {
		t.Skip("streams 3,300 files per format")
	}
	heapAfter := func(format string, n int) uint64 {
		w, err := New(format, io.Discard, Options{StepSummaryPath: filepath.Join(t.TempDir(), "s.md")})
		if err != nil {
			t.Fatal(err)
		}
		base := fixture(t).Files[1]
		base.Unverified, base.Errors = nil, nil // SARIF keeps these until the end, by design
		for i := range n {
			// Fresh lists and strings per file, as the engine makes them: keeping any of
			// them would show in the heap.
			fr := base
			fr.Path = fmt.Sprintf("docs/%06d.md", i)
			fr.Findings = append([]finding.Finding(nil), base.Findings...)
			for k := range fr.Findings {
				fr.Findings[k].Message = fmt.Sprintf("%s (%d)", base.Findings[k].Message, i)
			}
			fr.Scores = append([]finding.Score(nil), base.Scores...)
			if err := w.File(fr); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		runtime.KeepAlive(w)
		return m.HeapAlloc
	}
	for _, format := range Formats() {
		small, large := heapAfter(format, 300), heapAfter(format, 3000)
		if large > small+1<<20 {
			t.Errorf("%s: heap %d bytes after 300 files, %d after 3,000: output is not streamed", format, small, large)
		}
	}
}

func TestWriteErrorsPropagate(t *testing.T) {
	t.Parallel()
	for _, format := range Formats() {
		err := Write(format, failingWriter{}, Options{}, fixture(t))
		if err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%s: error %v, want the writer's", format, err)
		}
	}
}

type failingWriter struct{}

// regexpANSI matches the SGR escape sequences fatih/color writes.
var regexpANSI = regexp.MustCompile("\x1b\\[[0-9;]*m")

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// FuzzWriters feeds arbitrary text and positions to every format: no panic, and the document
// formats stay well-formed JSON or XML.
func FuzzWriters(f *testing.F) {
	f.Add("docs/a.md", "Acme.Rule", "msg: 100%, \"q\" <x> & y\nnext", "sugg", "fix", 3, 5, 3, 9)
	f.Add("naïve 👋.md", "A.B.C", "", "", "", 1, 1, 1, 1)
	f.Add("x\x1b.md", "", "\xff\x00\r", "\u2028", "\x1b[31m", 0, 0, -1, -1)
	f.Fuzz(func(t *testing.T, path, rule, msg, sugg, fix string, line, col, endLine, endCol int) {
		fr := finding.FileResult{Path: path, Findings: []finding.Finding{withFix(finding.Finding{Rule: rule, Severity: finding.SeverityWarning,
			Message: msg, Suggestion: sugg, Match: msg,
			Start: finding.Position{Line: line, Column: col, ByteColumn: col},
			End:   finding.Position{Line: endLine, Column: endCol, ByteColumn: endCol}}, fix)},
			Scores:     []finding.Score{{Rule: rule, Type: finding.SemiObjective, Score: 5}},
			Unverified: []finding.Unverified{{Rule: rule, Message: msg, Quote: sugg}},
			Errors:     []finding.RuleError{{Rule: rule, Message: msg}}}
		r := finding.Result{Files: []finding.FileResult{fr}, Totals: finding.Totals{Skipped: []finding.Skipped{{Path: fix, Reason: msg}}}}
		for _, format := range Formats() {
			var buf bytes.Buffer
			if err := Write(format, &buf, Options{StepSummaryPath: filepath.Join(t.TempDir(), "s.md")}, r); err != nil {
				t.Fatalf("%s: %v", format, err)
			}
			switch format {
			case FormatJSON, FormatValeJSON, FormatRDJSON, FormatSARIF:
				if !json.Valid(buf.Bytes()) {
					t.Fatalf("%s: invalid JSON:\n%s", format, buf.Bytes())
				}
			case FormatJUnit:
				d := xml.NewDecoder(&buf)
				for {
					_, err := d.Token()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatalf("junit: invalid XML: %v", err)
					}
				}
			case FormatGitHub:
				for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
					if !strings.HasPrefix(l, "::") && !strings.HasPrefix(l, "vectorlint: ") {
						t.Fatalf("github: stray line %q", l)
					}
				}
			case FormatLine:
				if bytes.ContainsAny(buf.Bytes(), "\x1b\r") {
					t.Fatalf("line: control characters in %q", buf.Bytes())
				}
			}
		}
	})
}

// TestLineCouldNotRunAlignment: the reasons of the rules that could not run start in one column.
func TestLineCouldNotRunAlignment(t *testing.T) {
	t.Parallel()
	r := finding.Result{Files: []finding.FileResult{{Path: "a.md", Errors: []finding.RuleError{
		{Rule: "Acme.Headline", Message: "no LLM provider is configured"},
		{Rule: "Acme.Wordiness", Message: "no LLM provider is configured"},
	}}},
		Totals: finding.Totals{Summary: finding.Summary{Files: 1, OperationalErrors: 2}},
	}
	out := string(render(t, FormatLine, Options{}, r))
	want := "  Could not run:\n" +
		"    Acme.Headline   no LLM provider is configured\n" +
		"    Acme.Wordiness  no LLM provider is configured\n"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks\n%s\ngot:\n%s", want, out)
	}
}
