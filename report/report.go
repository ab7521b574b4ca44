// Package report prints the results of a lint run in every --output format of spec/linter.md §7:
// line (the default, for people), json (the native schema), vale-json, rdjson and rdjsonl
// (reviewdog), github (workflow-command annotations plus a step-summary table), sarif (GitHub code
// scanning) and junit.
//
// Output is streamed: a Writer receives the linted files one at a time, in path order, and then
// the run's totals, so a run over ten thousand files keeps memory flat. Formats that are one
// document (json, vale-json, rdjson, sarif, junit) write their bytes as each file arrives and
// close the document in Finish.
//
// Positions: lines and columns are 1-based and ends are exclusive. Columns count Unicode code
// points everywhere except rdjson/rdjsonl (UTF-8 bytes, reviewdog's unit) and vale-json (Vale's
// Span: 1-based code points with an inclusive end). docs/output-formats.md describes each format.
package report

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safetext"
)

// Writer prints one run in one output format. Call File once per linted file, in increasing
// path order, then Finish exactly once. A Writer is not safe for concurrent use.
type Writer interface {
	// File prints one linted file's findings, scores, unverified quotes and operational errors.
	File(finding.FileResult) error
	// Finish prints the totals, closes the document and flushes everything to the underlying
	// writer. No File call may follow.
	Finish(finding.Totals) error
}

// Options are the caller's decisions about the output. The report package never reads the
// environment: the command decides colour (terminal, NO_COLOR, --no-color) and passes the step
// summary path from $GITHUB_STEP_SUMMARY.
type Options struct {
	// Version is the vectorlint version, written in the json and sarif outputs.
	Version string
	// Color turns on ANSI colour in the line output. Set it only when standard output is a
	// terminal and colour is not disabled; without it no escape code is ever written.
	Color bool
	// Verbose makes the line output show every score (10.0 included) and the skipped files.
	Verbose bool
	// StepSummaryPath is, for the github format, the file a Markdown table of all findings is
	// appended to (the value of $GITHUB_STEP_SUMMARY). Empty means no step summary.
	StepSummaryPath string
	// Problems receives, one line each, the operational errors and unverified quotes of the
	// formats that have no place for them (vale-json, rdjson, rdjsonl), so they are never lost;
	// the command passes standard error. Nil discards them.
	Problems io.Writer
	// GitHubActions is set when the run is a GitHub Actions step (GITHUB_ACTIONS=true): the
	// human-readable text of the line format and the Problems lines then cannot hold a line the
	// runner would act on as a workflow command ("\::" and "##\[" instead, see
	// internal/safetext). The machine formats encode such text whether or not it is set (their
	// decoded text is exact either way), and the github format always escapes what it prints.
	GitHubActions bool
	// Rules describes the rules by id (rules.Describe of the run's packs), for the formats that
	// carry rule metadata: sarif's rule descriptors. Nil or a missing id gives generic text.
	Rules map[string]finding.RuleInfo
}

// Format names accepted by New, in the order they are documented.
const (
	FormatLine     = "line"
	FormatJSON     = "json"
	FormatValeJSON = "vale-json"
	FormatRDJSON   = "rdjson"
	FormatRDJSONL  = "rdjsonl"
	FormatGitHub   = "github"
	FormatSARIF    = "sarif"
	FormatJUnit    = "junit"
)

// Formats returns the valid --output values, the default first.
func Formats() []string {
	return []string{FormatLine, FormatJSON, FormatValeJSON, FormatRDJSON, FormatRDJSONL, FormatGitHub,
		FormatSARIF, FormatJUnit}
}

// UnknownFormatError is returned by New for a format name it does not know.
type UnknownFormatError struct {
	Format string
}

// Error names the format and lists the valid ones.
func (e *UnknownFormatError) Error() string {
	return fmt.Sprintf("unknown output format %q: expected one of %s", e.Format, strings.Join(Formats(), ", "))
}

// New returns a Writer that prints the named format to w.
//
// Untrusted text (documents, model replies, rule names, file names) cannot act on the reader
// (spec/trust.md §3): the line format shows control characters as escapes and, with
// Options.GitHubActions, its whole output passes through a workflow-command filter; the JSON
// formats are written through an encoder that writes the "[" of "##[" as \u005b and invisible
// or control characters as \u escapes; junit encodes them as character references; the github
// format escapes its messages and titles.
func New(format string, w io.Writer, opts Options) (Writer, error) {
	var escape *safetext.Writer
	switch format {
	case FormatJSON, FormatValeJSON, FormatRDJSON, FormatRDJSONL, FormatSARIF:
		escape = safetext.NewJSONWriter(w)
	case FormatLine:
		if opts.GitHubActions {
			// Fields are escaped for the terminal as they are laid out (colour codes must
			// pass); a command can only be judged on the laid-out lines, since wrapping moves
			// words to a line's start.
			escape = safetext.NewWorkflowWriter(w)
		}
	}
	s := &stream{out: newOutput(w, escape)}
	probs := problems{w: opts.Problems, workflow: opts.GitHubActions}
	switch format {
	case FormatLine:
		return newLineWriter(s, opts), nil
	case FormatJSON:
		return newJSONWriter(s, opts), nil
	case FormatValeJSON:
		return &valeWriter{stream: s, problems: probs}, nil
	case FormatRDJSON:
		return &rdjsonWriter{stream: s, problems: probs}, nil
	case FormatRDJSONL:
		return &rdjsonWriter{stream: s, problems: probs, lines: true}, nil
	case FormatGitHub:
		return &githubWriter{stream: s, summaryPath: opts.StepSummaryPath}, nil
	case FormatSARIF:
		return &sarifWriter{stream: s, opts: opts, ruleIndex: map[string]int{}}, nil
	case FormatJUnit:
		return &junitWriter{stream: s}, nil
	}
	return nil, &UnknownFormatError{Format: format}
}

// Write prints a whole finding.Result: New, File for each of r.Files, then Finish with r's
// totals. r.Version, when set, replaces opts.Version.
func Write(format string, w io.Writer, opts Options, r finding.Result) error {
	if r.Version != "" {
		opts.Version = r.Version
	}
	rw, err := New(format, w, opts)
	if err != nil {
		return err
	}
	for _, fr := range r.Files {
		if err := rw.File(fr); err != nil {
			return err
		}
	}
	return rw.Finish(r.Totals)
}

// output is a Writer's buffered output over the format's escaping layer (nil when the format
// escapes each field itself). Flush empties both.
type output struct {
	*bufio.Writer
	escape *safetext.Writer
}

func newOutput(w io.Writer, escape *safetext.Writer) *output {
	if escape == nil {
		return &output{Writer: bufio.NewWriter(w)}
	}
	return &output{Writer: bufio.NewWriter(escape), escape: escape}
}

// Flush writes the buffered output through the escaping layer and flushes that too.
func (o *output) Flush() error {
	if err := o.Writer.Flush(); err != nil {
		return err
	}
	if o.escape != nil {
		return o.escape.Flush()
	}
	return nil
}

// stream is the state every Writer shares: the buffered output, the order check and the
// finished flag.
type stream struct {
	out      *output
	lastPath string
	files    int
	finished bool
}

// OrderError is returned by File when files do not arrive in strictly increasing path order
// (spec/linter.md §6: output is sorted by path), and by File or Finish after Finish.
type OrderError struct {
	Path, Previous string
	// AfterFinish is set when the call came after Finish.
	AfterFinish bool
}

// Error says which call broke the order.
func (e *OrderError) Error() string {
	if e.AfterFinish {
		if e.Path == "" {
			return "report: Finish called twice"
		}
		return fmt.Sprintf("report: file %q written after Finish", e.Path)
	}
	return fmt.Sprintf("report: files must arrive sorted by path: %q came after %q", e.Path, e.Previous)
}

// begin checks that fr may be written now and records it.
func (s *stream) begin(fr finding.FileResult) error {
	if s.finished {
		return &OrderError{Path: fr.Path, AfterFinish: true}
	}
	if s.files > 0 && fr.Path <= s.lastPath {
		return &OrderError{Path: fr.Path, Previous: s.lastPath}
	}
	for _, f := range fr.Findings {
		if !f.Severity.Valid() {
			return fmt.Errorf("report: %s:%d:%d: finding of rule %q: expected severity suggestion, warning or error, found %d",
				fr.Path, f.Start.Line, f.Start.Column, f.Rule, int(f.Severity))
		}
	}
	s.lastPath = fr.Path
	s.files++
	return nil
}

// end flushes what File wrote, so output appears file by file and nothing piles up in memory.
func (s *stream) end() error {
	return s.out.Flush()
}

// finish marks the stream finished; it fails on a second call.
func (s *stream) finish() error {
	if s.finished {
		return &OrderError{AfterFinish: true}
	}
	s.finished = true
	return nil
}

// plural returns "1 error", "2 errors", "0 errors".
func plural(n int, singular, pluralForm string) string {
	if n == 1 {
		return "1 " + singular
	}
	return fmt.Sprintf("%d %s", n, pluralForm)
}

// totalsLine is the closing sentence of the line, github and step-summary outputs:
// "✖ 2 errors and 1 warning in 3 files." or "✓ 0 errors and 0 warnings in 1 file.", and, when
// there are suggestions, Vale's "✖ 0 errors, 1 warning and 2 suggestions in 3 files.". When some
// work could not be done it says so, with the run-wide causes: "✖ 0 errors and 0 warnings in
// 50 files; 400 rule runs could not complete (connection refused to 127.0.0.1:9).". The tick
// is given only to a run with nothing to report and nothing left undone (exit code 0).
func totalsLine(t finding.Totals) string {
	s := t.Summary
	incomplete := s.OperationalErrors + s.NotRun
	mark := "✓"
	if s.Errors+s.Warnings+s.Suggestions > 0 || !t.Complete() {
		mark = "✖"
	}
	line := fmt.Sprintf("%s %s and %s in %s", mark, plural(s.Errors, "error", "errors"),
		plural(s.Warnings, "warning", "warnings"), plural(s.Files, "file", "files"))
	if s.Suggestions > 0 { // Vale's sentence; without suggestions, the two-part one of old
		line = fmt.Sprintf("%s %s, %s and %s in %s", mark, plural(s.Errors, "error", "errors"),
			plural(s.Warnings, "warning", "warnings"), plural(s.Suggestions, "suggestion", "suggestions"),
			plural(s.Files, "file", "files"))
	}
	if incomplete > 0 {
		line += "; " + plural(incomplete, "rule run", "rule runs") + " could not complete"
	}
	if len(t.RunErrors) > 0 {
		causes := make([]string, len(t.RunErrors))
		for i, e := range t.RunErrors {
			causes[i] = e.Cause
		}
		line += " (" + strings.Join(causes, "; ") + ")"
	}
	if n := len(t.Interrupted); n > 0 {
		line += "; " + plural(n, "file", "files") + " not finished (interrupted)"
	}
	return line + "."
}

// problemsLine reports what the totals line does not count: quotes the model gave that are not
// in the document. Empty when there are none.
func problemsLine(s finding.Summary) string {
	if s.Unverified > 0 {
		return plural(s.Unverified, "unverified quote", "unverified quotes") + " (not counted)"
	}
	return ""
}

// runErrorText is a run error with what it cost: "MESSAGE (400 rule runs not done)".
func runErrorText(e finding.RunError) string {
	return fmt.Sprintf("%s (%s not done)", e.Message, plural(e.NotRun, "rule run", "rule runs"))
}

// messageWithSuggestion is the finding's message for formats with a single text field: the
// message, then the suggestion on its own paragraph when there is one.
func messageWithSuggestion(f finding.Finding) string {
	if f.Suggestion == "" {
		return f.Message
	}
	return f.Message + "\n\nSuggestion: " + f.Suggestion
}

// usageLine describes the LLM usage: "LLM usage: 7 calls (2 cached), 12345 input and 678
// output tokens, cost $0.0123"; input tokens the provider read from its prompt cache or wrote
// to it are named after the input count ("12345 input (9000 from the provider's cache, 1100
// written to it)").
func usageLine(u finding.Usage) string {
	var b strings.Builder
	b.WriteString("LLM usage: ")
	b.WriteString(plural(u.Calls, "call", "calls"))
	if u.CachedCalls > 0 {
		fmt.Fprintf(&b, " (%d cached)", u.CachedCalls)
	}
	fmt.Fprintf(&b, ", %d input", u.InputTokens)
	switch {
	case u.CachedInputTokens > 0 && u.CacheWriteTokens > 0:
		fmt.Fprintf(&b, " (%d from the provider's cache, %d written to it)", u.CachedInputTokens, u.CacheWriteTokens)
	case u.CachedInputTokens > 0:
		fmt.Fprintf(&b, " (%d from the provider's cache)", u.CachedInputTokens)
	case u.CacheWriteTokens > 0:
		fmt.Fprintf(&b, " (%d written to the provider's cache)", u.CacheWriteTokens)
	}
	fmt.Fprintf(&b, " and %d output tokens", u.OutputTokens)
	if u.Cost != nil {
		fmt.Fprintf(&b, ", cost $%.4f", *u.Cost)
		if u.CachedPriceAssumed {
			b.WriteString(" (cached input at the provider's usual share of the input price: set CACHED_INPUT_PRICE_PER_MILLION for your model's)")
		}
	}
	return b.String()
}
