// Package dryrun prints what a lint run would do without calling a model (vectorlint
// --dry-run): the plan of package lint, file by file, with the text each rule would evaluate
// and the estimated calls and tokens. It is the one printer that needs the engine (a plan, the
// rule kinds' estimates), so it lives apart from package report, whose printers speak only the
// vocabulary of package finding.
package dryrun

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/rules"
)

// Options configures Print.
type Options struct {
	// Verbose prints the whole text of every unit (not only target matches, and not shortened)
	// and lists the skipped files.
	Verbose bool
	// InputPricePerMillion, when set (INPUT_PRICE_PER_MILLION), adds an estimated input cost.
	InputPricePerMillion *float64
	// GitHubActions (GITHUB_ACTIONS=true) makes the printed text, which quotes documents, rule
	// names and file names, unable to hold a line a GitHub runner would act on as a workflow
	// command (see report.Options.GitHubActions). Control characters are shown escaped either way.
	GitHubActions bool
}

// Summary totals a dry run.
type Summary struct {
	Files int
	// Skipped counts the files not linted, TooLarge among them (the files whose prose is above
	// MaxDocumentWords: lint.FilePlan.TooLarge).
	Skipped     int
	TooLarge    int
	Calls       int
	Tokens      int
	Errors      int
	Warnings    int
	Suggestions int
	// OperationalErrors counts unreadable files and rules that cannot run.
	OperationalErrors int
}

// targetLines is how many lines of a target match are shown without --verbose.
const targetLines = 5

// Print prints what a lint run would do, without calling a model: per file, the rules that
// apply (with the effective severity and strictness), the text each would evaluate (a target
// match, or the whole document), the "target not found" findings, and the estimated calls and
// tokens; then totals. The files of a lazy plan (lint.PlanInput.Lazy) are prepared as they are
// printed.
//
// Everything it prints is human text quoting untrusted input (document lines, target regexes,
// paths, error messages), so all of it goes through a safetext human writer: control, bidi and
// invisible characters are shown escaped, and with opts.GitHubActions no line can be read as a
// workflow command.
func Print(w io.Writer, plan *lint.Plan, opts Options) (Summary, error) {
	safe := safetext.NewHumanWriter(w, opts.GitHubActions)
	s, err := printPlan(safe, plan, opts)
	if ferr := safe.Flush(); err == nil {
		err = ferr
	}
	return s, err
}

func printPlan(w io.Writer, plan *lint.Plan, opts Options) (Summary, error) {
	p := &printer{w: w, opts: opts}
	filesWithFindings := 0
	tooLarge := 0
	for _, f := range plan.Files {
		f.Prepare()
		if f.TooLarge != nil {
			// Not sent, whatever the verbosity: a warning with the file's size and the limit.
			tooLarge++
			p.printf("%s\n  skipped: %s\n", f.Path, f.TooLarge.Reason())
			continue
		}
		p.summary.Files++
		if p.file(f) {
			filesWithFindings++
		}
	}
	p.summary.Skipped = len(plan.Skipped) + tooLarge
	p.summary.TooLarge = tooLarge
	if opts.Verbose {
		for _, s := range plan.Skipped {
			p.printf("%s\n  skipped: %s\n", s.Path, s.Reason)
		}
	}
	s := p.summary
	p.printf("\nDry run, no LLM call made: %s, %s, ~%s input tokens (estimated).\n",
		plural(s.Files, "file"), plural(s.Calls, "LLM call"), thousands(s.Tokens))
	if opts.InputPricePerMillion != nil {
		p.printf("Estimated input cost: $%.4f (INPUT_PRICE_PER_MILLION=%s).\n",
			float64(s.Tokens)/1e6**opts.InputPricePerMillion, strconv.FormatFloat(*opts.InputPricePerMillion, 'f', -1, 64))
	}
	if s.TooLarge > 0 {
		p.printf("Warning: %s above MaxDocumentWords not sent (listed above).\n", plural(s.TooLarge, "file"))
	}
	if n := s.Skipped - s.TooLarge; n > 0 && !opts.Verbose {
		p.printf("%s skipped (--verbose lists them).\n", plural(n, "file"))
	}
	for _, e := range plan.OperationalErrors() {
		var nr *lint.RuleNotRunError
		if errors.As(e, &nr) {
			p.printf("%v\n", nr)
		}
	}
	if s.OperationalErrors > 0 {
		p.printf("%s (unreadable files, rules that cannot run): a real run would exit 2.\n", plural(s.OperationalErrors, "operational error"))
	}
	switch {
	case s.Errors+s.Warnings+s.Suggestions == 0:
		p.printf("✓ No findings.\n")
	case s.Suggestions > 0:
		p.printf("✖ %s, %s and %s in %s.\n", plural(s.Errors, "error"), plural(s.Warnings, "warning"),
			plural(s.Suggestions, "suggestion"), plural(filesWithFindings, "file"))
	default:
		p.printf("✖ %s and %s in %s.\n", plural(s.Errors, "error"), plural(s.Warnings, "warning"),
			plural(filesWithFindings, "file"))
	}
	return s, p.err
}

type printer struct {
	w       io.Writer
	opts    Options
	summary Summary
	err     error
}

func (p *printer) printf(format string, args ...any) {
	if p.err == nil {
		_, p.err = fmt.Fprintf(p.w, format, args...)
	}
}

// file prints one file's plan and reports whether it has findings.
func (p *printer) file(f *lint.FilePlan) bool {
	p.printf("%s\n", f.Path)
	if f.Err != nil {
		p.summary.OperationalErrors++
		p.printf("  error: %v\n", f.Err)
		return false
	}
	hasFindings := false
	for _, r := range f.Rules {
		p.printf("  %s (%s)\n", r.ID, r.Kind.Describe(r))
		if r.Err != nil {
			p.summary.OperationalErrors++
			if errors.Is(r.Err, rules.ErrNoSearchModel) {
				// The same on every file: the whole message is printed once, with the totals.
				p.printf("    not run: no search model is configured\n")
			} else {
				p.printf("    cannot run: %v\n", r.Err)
			}
			continue
		}
		if r.NoProse {
			p.printf("    no prose to evaluate (empty, or code and markup only): no LLM call, passes\n")
			continue
		}
		for _, u := range r.Units {
			if u.Missing != nil {
				hasFindings = true
				switch u.Missing.Severity {
				case finding.SeverityError:
					p.summary.Errors++
				case finding.SeveritySuggestion:
					p.summary.Suggestions++
				default:
					p.summary.Warnings++
				}
				p.printf("    %d:%d  %s  %s  %s\n", u.Missing.Start.Line, u.Missing.Start.Column,
					u.Missing.Severity, u.Missing.Message, u.Missing.Rule)
				p.printf("         suggestion: %s\n", u.Missing.Suggestion)
				p.printf("         no LLM call%s\n", criteria(u))
				continue
			}
			p.unit(r, u)
		}
	}
	for _, sc := range f.SharedCalls() {
		// The rules' estimates above count a call each; these requests evaluate them together.
		p.summary.Calls -= sc.SavedCalls
		p.summary.Tokens -= sc.SavedTokens
		p.printf("  %s share %s for %s (RulesPerCall), ~%s tokens: %s and ~%s tokens fewer than above\n",
			strings.Join(sc.Rules, ", "), plural(sc.Calls, "LLM call"), sc.Lines, thousands(sc.Tokens),
			plural(sc.SavedCalls, "call"), thousands(sc.SavedTokens))
	}
	return hasFindings
}

func criteria(u *lint.Unit) string {
	if len(u.Criteria) == 0 {
		return ""
	}
	ids := make([]string, len(u.Criteria))
	for i, c := range u.Criteria {
		ids[i] = c.ID
	}
	return "; criteria " + strings.Join(ids, ", ")
}

// unit prints what one unit evaluates and, as the rule's kind estimates them, its calls and
// tokens.
func (p *printer) unit(r *lint.PlannedRule, u *lint.Unit) {
	last := u.Line + lineCount(u.Text) - 1
	lines := fmt.Sprintf("line %d", u.Line)
	if last > u.Line {
		lines = fmt.Sprintf("lines %d-%d", u.Line, last)
	}
	words := u.Words()
	if u.WholeDocument {
		what := "whole document"
		if u.Target != nil {
			what += " (target " + u.Target.String() + " not found, not required)"
		}
		p.printf("    %s, %s, %s%s\n", what, lines, plural(words, "word"), criteria(u))
	} else {
		p.printf("    target %s, %s, %s%s\n", u.Target, lines, plural(words, "word"), criteria(u))
	}
	if !u.WholeDocument || p.opts.Verbose {
		p.text(u.ModelText(), u.Line)
	}
	est := r.Kind.Estimate(r, u)
	p.summary.Calls += est.Calls
	p.summary.Tokens += est.Tokens
	for _, l := range est.Lines {
		p.printf("    %s\n", l)
	}
}

// text prints a unit's text with its line numbers, shortened unless verbose.
func (p *printer) text(text string, first int) {
	lines := splitLines(text)
	shown := lines
	if !p.opts.Verbose && len(lines) > targetLines {
		shown = lines[:targetLines]
	}
	width := len(strconv.Itoa(first + len(shown) - 1))
	for i, l := range shown {
		if l == "" {
			p.printf("      %*d |\n", width, first+i)
			continue
		}
		p.printf("      %*d | %s\n", width, first+i, l)
	}
	if len(shown) < len(lines) {
		p.printf("      … %s more (--verbose shows all)\n", plural(len(lines)-len(shown), "line"))
	}
}

// splitLines splits text into lines without their terminators ("\n", "\r\n" or "\r");
// a final terminator does not start another line.
func splitLines(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			out = append(out, text[start:i])
			start = i + 1
		case '\r':
			out = append(out, text[start:i])
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			start = i + 1
		}
	}
	if start < len(text) || len(out) == 0 {
		out = append(out, text[start:])
	}
	return out
}

func lineCount(text string) int { return len(splitLines(text)) }

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return thousands(n) + " " + noun + "s"
}

// thousands formats n with comma thousands separators.
func thousands(n int) string {
	s := strconv.Itoa(n)
	if n < 0 {
		return "-" + thousands(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
