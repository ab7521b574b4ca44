package report

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safetext"
)

// githubWriter prints GitHub Actions workflow commands: one ::error or ::warning annotation per
// finding, one ::error per rule that could not run, a plain log line per unverified quote, and a
// closing ::notice with the totals. With a step-summary path it also appends a Markdown table of
// every finding to that file, since GitHub shows only about ten annotations of each type per step.
type githubWriter struct {
	*stream
	summaryPath string
	summary     *os.File
	summaryBuf  *bufio.Writer
	rows        int
}

// escapeData escapes a workflow command's message the way GitHub's toolkit does (escapeData in
// @actions/core): % first, then CR and LF. The message is untrusted text shown to people, so
// annotation first makes it safe as human text (safetext.Human with the runner's rules: control
// characters escaped, no "##[").
func escapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// escapeProperty escapes a property value (escapeProperty in @actions/core): as escapeData, plus
// ':' and ',' which would otherwise end the value.
func escapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// annotation builds `::command key=value,...::message` from ordered key/value pairs, leaving out
// empty values. The message and the title are human text, escaped with safetext.Human (control
// characters shown as \x1b, a line-leading "::" as "\::", "##[" as "##\["); the runner cannot
// decode any other escape, so the text changes visibly rather than meaning something else. The
// file keeps its exact bytes (GitHub must find the file): the runner parses a line that starts
// with "::" as this command before it looks for "##[" (ActionCommandManager tries TryParseV2
// first), and GitHub's escaping keeps a name such as "::error::x.md" inside the property.
func annotation(command string, props [][2]string, message string) string {
	var b strings.Builder
	b.WriteString("::")
	b.WriteString(command)
	sep := " "
	for _, p := range props {
		if p[1] == "" {
			continue
		}
		v := p[1]
		if p[0] == "title" {
			v = safetext.Human(v, true)
		}
		b.WriteString(sep)
		b.WriteString(p[0])
		b.WriteByte('=')
		b.WriteString(escapeProperty(v))
		sep = ","
	}
	b.WriteString("::")
	b.WriteString(escapeData(safetext.Human(message, true)))
	return b.String()
}

// findingAnnotation is the workflow command for one finding. Columns count code points. GitHub
// accepts col/endColumn only when the annotation starts and ends on the same line, so a
// multi-line finding gives lines only.
func findingAnnotation(path string, f finding.Finding) string {
	command := "warning"
	switch f.Severity {
	case finding.SeverityError:
		command = "error"
	case finding.SeveritySuggestion:
		command = "notice"
	}
	props := [][2]string{{"file", path}, {"line", strconv.Itoa(f.Start.Line)}}
	if f.Start.Line == f.End.Line {
		props = append(props, [2]string{"col", strconv.Itoa(f.Start.Column)},
			[2]string{"endLine", strconv.Itoa(f.End.Line)}, [2]string{"endColumn", strconv.Itoa(f.End.Column)})
	} else {
		props = append(props, [2]string{"endLine", strconv.Itoa(f.End.Line)})
	}
	props = append(props, [2]string{"title", f.Rule})
	return annotation(command, props, messageWithSuggestion(f))
}

// File prints the file's annotations and adds its findings to the step summary.
func (g *githubWriter) File(fr finding.FileResult) error {
	if err := g.begin(fr); err != nil {
		return err
	}
	w := g.out
	for _, f := range fr.Findings {
		fmt.Fprintln(w, findingAnnotation(fr.Path, f))
	}
	for _, e := range fr.Errors {
		fmt.Fprintln(w, annotation("error", [][2]string{{"file", fr.Path}, {"title", e.Rule + " could not run"}},
			e.Message))
	}
	// Unverified quotes are not findings: a plain log line each, which cannot be mistaken for a
	// command since it starts with "vectorlint:", is kept on one line and has no "##[".
	problems{w: w, workflow: true}.unverified(fr)
	if err := g.summarize(fr); err != nil {
		return err
	}
	return g.end()
}

// Finish prints the totals notice and completes the step summary.
func (g *githubWriter) Finish(t finding.Totals) error {
	if err := g.finish(); err != nil {
		return err
	}
	for _, e := range t.RunErrors {
		fmt.Fprintln(g.out, annotation("error", [][2]string{{"title", "vectorlint could not run"}}, runErrorText(e)))
	}
	msg := totalsLine(t)
	if p := problemsLine(t.Summary); p != "" {
		msg += " " + p + "."
	}
	if n := len(t.Skipped); n > 0 {
		msg += " " + plural(n, "file", "files") + " skipped."
	}
	fmt.Fprintln(g.out, annotation("notice", [][2]string{{"title", "vectorlint"}}, msg))
	if err := g.out.Flush(); err != nil {
		return err
	}
	return g.closeSummary(t)
}

// summarize appends the file's findings and operational errors to the step-summary table.
func (g *githubWriter) summarize(fr finding.FileResult) error {
	if g.summaryPath == "" || len(fr.Findings)+len(fr.Errors) == 0 {
		return nil
	}
	if err := g.openSummary(); err != nil {
		return err
	}
	w := g.summaryBuf
	if g.rows == 0 {
		fmt.Fprint(w, "## vectorlint\n\n| File | Line | Column | Severity | Rule | Message |\n"+
			"| --- | ---: | ---: | --- | --- | --- |\n")
	}
	path := safetext.MarkdownCell(fr.Path)
	for _, f := range fr.Findings {
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s | %s |\n", path, f.Start.Line, f.Start.Column, f.Severity,
			safetext.MarkdownCell(f.Rule), safetext.MarkdownCell(messageWithSuggestion(f)))
		g.rows++
	}
	for _, e := range fr.Errors {
		fmt.Fprintf(w, "| %s |  |  | could not run | %s | %s |\n", path, safetext.MarkdownCell(e.Rule),
			safetext.MarkdownCell(e.Message))
		g.rows++
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("report: writing the step summary %s: %w", g.summaryPath, err)
	}
	return nil
}

func (g *githubWriter) openSummary() error {
	if g.summary != nil {
		return nil
	}
	f, err := os.OpenFile(g.summaryPath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("report: opening the step summary: %w", err)
	}
	g.summary, g.summaryBuf = f, bufio.NewWriter(f)
	return nil
}

// closeSummary writes the totals and the LLM usage (calls, cached calls, tokens, cost) under
// the table (or alone when there was no row) and closes the file.
func (g *githubWriter) closeSummary(t finding.Totals) error {
	if g.summaryPath == "" {
		return nil
	}
	if err := g.openSummary(); err != nil {
		return err
	}
	w := g.summaryBuf
	if g.rows == 0 {
		fmt.Fprint(w, "## vectorlint\n")
	}
	fmt.Fprintf(w, "\n%s\n", safetext.MarkdownCell(totalsLine(t)))
	if p := problemsLine(t.Summary); p != "" {
		fmt.Fprintf(w, "\n%s.\n", safetext.MarkdownCell(p))
	}
	// What the run cost, cached calls included: a team paying per call reads it here.
	fmt.Fprintf(w, "\n%s.\n", safetext.MarkdownCell(usageLine(t.Usage)))
	for _, e := range t.RunErrors {
		fmt.Fprintf(w, "\n**Could not run:** %s\n", safetext.MarkdownCell(runErrorText(e)))
	}
	err := w.Flush()
	if cerr := g.summary.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("report: writing the step summary %s: %w", g.summaryPath, err)
	}
	return nil
}
