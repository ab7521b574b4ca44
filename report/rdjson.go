package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safetext"
)

// The reviewdog Diagnostic Format (proto/rdf/reviewdog.proto in reviewdog), as its protojson
// reader expects it: lowerCamelCase keys, severity as the enum's name in capitals, lines 1-based
// and columns 1-based in UTF-8 bytes, end exclusive.
type (
	rdPosition struct {
		Line   int `json:"line"`
		Column int `json:"column"`
	}
	rdRange struct {
		Start rdPosition `json:"start"`
		End   rdPosition `json:"end"`
	}
	rdLocation struct {
		Path  string  `json:"path"`
		Range rdRange `json:"range"`
	}
	rdSource struct {
		Name string `json:"name"`
		URL  string `json:"url,omitempty"`
	}
	rdCode struct {
		Value string `json:"value"`
	}
	rdSuggestion struct {
		Range rdRange `json:"range"`
		Text  string  `json:"text"`
	}
	rdDiagnostic struct {
		Message     string         `json:"message"`
		Location    rdLocation     `json:"location"`
		Severity    string         `json:"severity"`
		Source      *rdSource      `json:"source,omitempty"`
		Code        rdCode         `json:"code"`
		Suggestions []rdSuggestion `json:"suggestions,omitempty"`
		// OriginalOutput is what `reviewdog -reporter=local` prints for the diagnostic (without
		// it, reviewdog prints the diagnostic's protobuf text): the finding as one line.
		OriginalOutput string `json:"original_output,omitempty"`
	}
)

// projectURL is where the tool lives; rdjson and sarif name it.
const projectURL = "https://github.com/vectorlint/vectorlint"

// rdjsonWriter prints rdjson (one DiagnosticResult document) or, with lines set, rdjsonl (one
// Diagnostic per line, each naming its source).
type rdjsonWriter struct {
	*stream
	problems
	lines   bool
	written int
}

// rdSeverity is the reviewdog severity of a finding's: ERROR, WARNING, or INFO for a suggestion.
func rdSeverity(s finding.Severity) string {
	switch s {
	case finding.SeverityError:
		return "ERROR"
	case finding.SeveritySuggestion:
		return "INFO"
	}
	return "WARNING"
}

// originalOutput is a finding as one line of text, for rdjson's original_output:
// "PATH:LINE:COL: SEVERITY: MESSAGE [RULE]", the column in code points as in the line output,
// every white space run (line breaks too) made one space. reviewdog prints it to a terminal or a
// CI log, so it is human text: control characters are shown escaped, and nothing in it can be a
// GitHub workflow command (safetext.Human).
func originalOutput(path string, f finding.Finding) string {
	one := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	return safetext.Human(fmt.Sprintf("%s:%d:%d: %s: %s [%s]", one(path), f.Start.Line, f.Start.Column, f.Severity,
		one(f.Message), one(f.Rule)), true)
}

func toDiagnostic(path string, f finding.Finding, withSource bool) rdDiagnostic {
	r := rdRange{
		Start: rdPosition{Line: f.Start.Line, Column: f.Start.ByteColumn},
		End:   rdPosition{Line: f.End.Line, Column: f.End.ByteColumn},
	}
	d := rdDiagnostic{
		Message:  messageWithSuggestion(f),
		Location: rdLocation{Path: path, Range: r},
		Severity: rdSeverity(f.Severity),
		Code:     rdCode{Value: f.Rule},
	}
	if withSource {
		d.Source = &rdSource{Name: "vectorlint", URL: projectURL}
	}
	d.OriginalOutput = originalOutput(path, f)
	for _, e := range f.Edits {
		d.Suggestions = append(d.Suggestions, rdSuggestion{Range: rdRange{
			Start: rdPosition{Line: e.Start.Line, Column: e.Start.ByteColumn},
			End:   rdPosition{Line: e.End.Line, Column: e.End.ByteColumn},
		}, Text: e.NewText})
	}
	return d
}

// File writes one diagnostic per finding.
func (r *rdjsonWriter) File(fr finding.FileResult) error {
	if err := r.begin(fr); err != nil {
		return err
	}
	r.report(fr)
	for _, f := range fr.Findings {
		var b []byte
		var err error
		if r.lines {
			b, err = json.Marshal(toDiagnostic(fr.Path, f, true))
		} else {
			b, err = json.MarshalIndent(toDiagnostic(fr.Path, f, false), "    ", "  ")
		}
		if err != nil {
			return fmt.Errorf("report: %s: %w", fr.Path, err)
		}
		switch {
		case r.lines:
		case r.written == 0:
			r.out.WriteString("{\n  \"source\": {\n    \"name\": \"vectorlint\",\n    \"url\": " +
				strconv.Quote(projectURL) + "\n  },\n  \"diagnostics\": [\n    ")
		default:
			r.out.WriteString(",\n    ")
		}
		r.written++
		r.out.Write(b)
		if r.lines {
			r.out.WriteByte('\n')
		}
	}
	return r.end()
}

// Finish closes the rdjson document; rdjsonl has nothing to close.
func (r *rdjsonWriter) Finish(finding.Totals) error {
	if err := r.finish(); err != nil {
		return err
	}
	switch {
	case r.lines:
	case r.written == 0:
		r.out.WriteString("{\n  \"source\": {\n    \"name\": \"vectorlint\",\n    \"url\": " +
			strconv.Quote(projectURL) + "\n  },\n  \"diagnostics\": []\n}\n")
	default:
		r.out.WriteString("\n  ]\n}\n")
	}
	return r.out.Flush()
}

// WriteProblems writes a file's operational errors and unverified quotes to w, one escaped
// line each, as the formats without a place for them do (see Options.Problems): for a caller
// that prints no report, such as vectorlint --fix=diff.
func WriteProblems(w io.Writer, fr finding.FileResult, githubActions bool) {
	problems{w: w, workflow: githubActions}.report(fr)
}

// problems writes what a format has no place for, operational errors and unverified quotes, as
// lines to Options.Problems (the command passes standard error), so nothing is lost silently.
// Each line is escaped as a whole (safetext.Human): no control character, and with workflow
// (GITHUB_ACTIONS=true) nothing the runner would act on. Write errors there are ignored: they
// must not fail the report itself.
type problems struct {
	w        io.Writer
	workflow bool
}

// report writes the file's operational errors, then its unverified quotes.
func (p problems) report(fr finding.FileResult) {
	if p.w == nil {
		return
	}
	for _, e := range fr.Errors {
		p.line(fmt.Sprintf("vectorlint: %s: %s could not run: %s", oneLine(fr.Path), oneLine(e.Rule),
			oneLine(e.Message)))
	}
	p.unverified(fr)
}

// unverified writes one line per unverified quote of the file.
func (p problems) unverified(fr finding.FileResult) {
	for _, u := range fr.Unverified {
		where := oneLine(fr.Path)
		if u.Line > 0 {
			where += ":" + strconv.Itoa(u.Line)
		}
		p.line(fmt.Sprintf("vectorlint: %s: %s: unverified quote %q (not counted): %s", where, oneLine(u.Rule),
			oneLine(u.Quote), oneLine(u.Message)))
	}
}

// line writes one escaped line.
func (p problems) line(s string) {
	io.WriteString(p.w, safetext.Human(s, p.workflow)+"\n")
}
