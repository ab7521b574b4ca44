package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/report"
	"github.com/vectorlint/vectorlint/rules"
)

// outputFormats are the values of --output (spec/linter.md §7).
func outputFormats() []string {
	return []string{"line", "json", "vale-json", "rdjson", "rdjsonl", "github", "sarif", "junit"}
}

// lintFlags holds every flag of the lint command (spec/linter.md §1).
type lintFlags struct {
	config        string
	output        string
	failOn        string
	concurrency   int
	provider      string
	model         string
	baseURL       string
	noCache       bool
	cacheDir      string
	dryRun        bool
	showPrompt    bool
	verbose       bool
	quiet         bool
	stdinFilename string
	noColor       bool
}

func newLintFlagSet(f *lintFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("vectorlint", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringVar(&f.config, "config", "", "configuration file (default: $VECTORLINT_CONFIG, else .vectorlint.ini or vectorlint.ini here or in a parent folder)")
	fs.StringVar(&f.output, "output", "line", "output format: "+strings.Join(outputFormats(), ", "))
	fs.StringVar(&f.failOn, "fail-on", "error", "exit 1 when a finding is at or above this severity: error, warning or none")
	fs.IntVar(&f.concurrency, "concurrency", 0, "LLM requests in flight at once (default: Concurrency from the config, else 8)")
	fs.StringVar(&f.provider, "provider", "", "LLM provider: "+strings.Join(lint.Providers(), ", ")+" (default: $LLM_PROVIDER)")
	fs.StringVar(&f.model, "model", "", "model name (overrides the provider's model variable and Model)")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (overrides BaseURL)")
	fs.BoolVar(&f.noCache, "no-cache", false, "do not read or write the reply cache")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "reply cache folder (default: the user cache folder/vectorlint)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "show which rules run on which files, the text each evaluates and estimated tokens; no LLM call")
	fs.BoolVar(&f.showPrompt, "show-prompt", false, "print the messages sent to the model")
	fs.BoolVar(&f.verbose, "verbose", false, "more detail: skipped files, passing scores, rule warnings")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&f.stdinFilename, "stdin-filename", "", "with PATH -, read the document from standard input; NAME picks the config section and is the reported path")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour (also when NO_COLOR is set or output is not a terminal)")
	return fs
}

// printLintUsage writes the top-level usage and the lint flags.
func (a *app) printLintUsage(w io.Writer) {
	a.printUsage(w)
	var f lintFlags
	fmt.Fprintf(w, "\nLint flags:\n%s", newLintFlagSet(&f).FlagUsages())
}

// usageError reports a command-line mistake and returns exitFailure.
func (a *app) usageError(cmd string, err error) int {
	fmt.Fprintf(a.stderr, "%s: %v\nRun \"%s --help\" for usage.\n", cmd, err, cmd)
	return exitFailure
}

// runLint is the lint command: vectorlint [flags] PATH...
func (a *app) runLint(ctx context.Context, args []string) int {
	var f lintFlags
	fs := newLintFlagSet(&f)
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			a.printLintUsage(a.stdout)
			return exitOK
		}
		return a.usageError("vectorlint", err)
	}
	if err := f.check(fs); err != nil {
		return a.usageError("vectorlint", err)
	}
	paths := fs.Args()
	if len(paths) == 0 {
		a.printLintUsage(a.stdout)
		return exitOK
	}
	if f.stdinFilename != "" && !slices.Contains(paths, "-") {
		return a.usageError("vectorlint", errors.New("--stdin-filename names the document read from standard input: add the PATH -"))
	}

	proj, err := a.loadProject(f.config)
	if err != nil {
		a.printProblemsOrError(err)
		return exitFailure
	}
	if f.verbose {
		a.printProblems(proj.Warnings)
	}
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{
		Dir:           a.dir,
		Paths:         paths,
		Stdin:         a.stdin,
		StdinFilename: f.stdinFilename,
		SearchModel:   rules.SearchModelConfigured(a.lookupEnv),
	})
	if err != nil {
		a.printProblemsOrError(err)
		return exitFailure
	}

	if f.dryRun {
		opts := report.DryRunOptions{Verbose: f.verbose}
		if v := a.getenv("INPUT_PRICE_PER_MILLION"); v != "" {
			if price, err := strconv.ParseFloat(v, 64); err == nil && price >= 0 {
				opts.InputPricePerMillion = &price
			}
		}
		sum, err := report.DryRun(a.stdout, plan, opts)
		if err != nil {
			fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
			return exitFailure
		}
		for _, e := range plan.OperationalErrors() {
			fmt.Fprintf(a.stderr, "vectorlint: %v\n", e)
		}
		if sum.OperationalErrors > 0 {
			return exitFailure
		}
		return failOnExit(f.failOn, sum.Errors, sum.Warnings)
	}

	// Until LLM evaluation is built, run the deterministic part (required targets) and say
	// clearly that the model-evaluated units were not run.
	errs, warnings := a.printDeterministic(plan, f.verbose)
	failed := false
	for _, e := range plan.OperationalErrors() {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", e)
		failed = true
	}
	if calls := plan.Calls(); calls > 0 {
		fmt.Fprintf(a.stderr, "vectorlint: LLM evaluation is not available in this build yet: %s not made (see them with --dry-run)\n",
			pluralize(calls, "model call"))
		failed = true
	}
	if failed {
		return exitFailure
	}
	return failOnExit(f.failOn, errs, warnings)
}

// check validates flag values that pflag cannot.
func (f *lintFlags) check(fs *pflag.FlagSet) error {
	if !slices.Contains([]string{"error", "warning", "none"}, f.failOn) {
		return fmt.Errorf("--fail-on: expected error, warning or none, found %q", f.failOn)
	}
	if !slices.Contains(outputFormats(), f.output) {
		return fmt.Errorf("--output: expected one of %s, found %q", strings.Join(outputFormats(), ", "), f.output)
	}
	if fs.Changed("concurrency") && f.concurrency < 1 {
		return fmt.Errorf("--concurrency: expected a whole number of 1 or more, found %d", f.concurrency)
	}
	if f.provider != "" && !slices.Contains(lint.Providers(), f.provider) {
		return fmt.Errorf("--provider: expected one of %s, found %q", strings.Join(lint.Providers(), ", "), f.provider)
	}
	if f.quiet && f.verbose {
		return errors.New("--quiet and --verbose cannot be combined")
	}
	return nil
}

// failOnExit maps finding counts to an exit code under --fail-on.
func failOnExit(failOn string, errs, warnings int) int {
	switch {
	case failOn == "error" && errs > 0, failOn == "warning" && errs+warnings > 0:
		return exitFindings
	}
	return exitOK
}

// printDeterministic prints the "target not found" findings and returns their counts.
func (a *app) printDeterministic(plan *lint.Plan, verbose bool) (errs, warnings int) {
	for _, f := range plan.Files {
		for _, r := range f.Rules {
			for _, fd := range r.Findings() {
				fmt.Fprintf(a.stdout, "%s:%d:%d: %s: %s (%s)\n  suggestion: %s\n",
					f.Path, fd.Start.Line, fd.Start.Column, fd.Severity, fd.Message, fd.Rule, fd.Suggestion)
				if fd.Severity == lint.SeverityError {
					errs++
				} else {
					warnings++
				}
			}
		}
	}
	if verbose {
		for _, s := range plan.Skipped {
			fmt.Fprintf(a.stderr, "vectorlint: skipped %s: %s\n", s.Path, s.Reason)
		}
	}
	return errs, warnings
}

// printProblemsOrError prints input problems one per line (paths relative to the working
// directory), or any other error.
func (a *app) printProblemsOrError(err error) {
	if ps, ok := lint.IsProblems(err); ok {
		a.printProblems(ps)
		return
	}
	fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
}

func (a *app) printProblems(ps rules.Problems) {
	for _, p := range ps {
		p.File = a.rel(p.File)
		fmt.Fprintln(a.stderr, p.Error())
	}
}

// rel shows a path relative to the working directory when it is inside it.
func (a *app) rel(path string) string {
	if path == "" || !filepath.IsAbs(path) {
		return path
	}
	if r, err := filepath.Rel(a.dir, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(path)
}

func pluralize(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
