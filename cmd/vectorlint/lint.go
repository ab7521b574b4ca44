package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/report/dryrun"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/fix"
	"github.com/vectorlint/vectorlint/internal/progress"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/report"
	"github.com/vectorlint/vectorlint/rules"
)

// lintFlags holds every flag of the lint command (spec/linter.md §1).
type lintFlags struct {
	config string
	output string
	// outputFile is --output-file: the output is written there, whole, instead of standard
	// output.
	outputFile string
	failOn     string
	// failAt is --fail-on, checked (SeverityUnset for "none": no finding fails the run).
	failAt        finding.Severity
	minAlertLevel string
	// minLevel is --min-alert-level, checked (suggestion, the lowest, by default).
	minLevel    finding.Severity
	concurrency int
	// samples is --samples (0 when not given: the configuration's Samples apply).
	samples int
	// rulesPerCall is --rules-per-call (0 when not given: the configuration's RulesPerCall
	// apply).
	rulesPerCall  int
	provider      string
	model         string
	baseURL       string
	noCache       bool
	cacheDir      string
	cacheMaxSize  string
	dryRun        bool
	showPrompt    bool
	verbose       bool
	quiet         bool
	stdinFilename string
	noColor       bool
	fix           string
	// stdinText is the document read from standard input for --fix (nil otherwise).
	stdinText []byte
	timeout   string
	// timeoutValue is --timeout, checked (0 when not given).
	timeoutValue time.Duration
	// The cost controls of spec/linter.md §11 (cost.go).
	cost costFlags
	// baseline and writeBaseline are --baseline and --write-baseline (baseline.go).
	baseline, writeBaseline string

	// Flags of the original VectorLint's newest version (spec/linter.md §1): --version (-V),
	// --show-prompt-trunc (--show-prompt with each message cut) and --debug-json.
	version         bool
	showPromptTrunc bool
	debugJSON       bool

	// batch is set for the batch commands that plan a lint run (batch.go): submit sends the
	// plan's requests as a provider batch instead of running it; collect fetches the batch's
	// replies into the cache before the run.
	batch *batchStep

	// What the parse saw besides the values: whether --concurrency and --cache-max-size were
	// given (their defaults come from the config, and 0 means something), and whether "--"
	// came before the operands (every operand after it is a file name).
	concurrencySet, cacheMaxSizeSet, dashed bool
}

func newLintFlagSet(f *lintFlags) *pflag.FlagSet {
	fs := pflag.NewFlagSet("vectorlint", pflag.ContinueOnError)
	fs.SortFlags = false
	fs.StringVar(&f.config, "config", "", "configuration file (default: $VECTORLINT_CONFIG, else .vectorlint.ini or vectorlint.ini here or in a parent folder)")
	fs.StringVar(&f.output, "output", "line", "output format: "+strings.Join(report.Formats(), ", "))
	fs.StringVar(&f.outputFile, "output-file", "", "write the output to `FILE` instead of standard output, whole (a link at FILE is replaced, never written through; a FILE in the working directory's tree must stay inside it)")
	fs.StringVar(&f.failOn, "fail-on", "error", failOnUsage)
	fs.StringVar(&f.minAlertLevel, "min-alert-level", "suggestion", "report only findings at or above this severity, a `LEVEL`: suggestion, warning or error; rules that cannot reach it do not run (Vale's --minAlertLevel)")
	fs.SetNormalizeFunc(valeFlagNames)
	fs.IntVar(&f.concurrency, "concurrency", 0, "LLM requests in flight at once (default: Concurrency from the config, else 8)")
	fs.IntVar(&f.samples, "samples", 0, "take `N` samples of each model evaluation and keep the violations a majority of them report (overrides Samples in the config; default: Samples, else one per model of Models, else 1)")
	fs.IntVar(&f.rulesPerCall, "rules-per-call", 0, "evaluate up to `N` semi-objective rules on the same chunk in one LLM call (overrides RulesPerCall in the config; default: RulesPerCall, else 1)")
	fs.StringVar(&f.provider, "provider", "", "LLM provider: "+providerNames()+" (default: $LLM_PROVIDER)")
	fs.StringVar(&f.model, "model", "", "model name (overrides the provider's model variable and Model)")
	fs.StringVar(&f.baseURL, "base-url", "", "OpenAI-compatible endpoint (overrides BaseURL)")
	fs.BoolVar(&f.noCache, "no-cache", false, "do not read or write the reply cache")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "reply cache folder (default: the user cache folder/vectorlint)")
	fs.StringVar(&f.timeout, "timeout", "", timeoutUsage+"; overrides Timeout in the config")
	fs.StringVar(&f.cacheMaxSize, "cache-max-size", "", "cap of the reply cache, a `SIZE` such as 500MB or 1GiB, 0 for none (default: $"+setup.CacheMaxSizeVar+", else CacheMaxSize, else 1GB)")
	fs.BoolVar(&f.dryRun, "dry-run", false, "show which rules run on which files, the text each evaluates and estimated tokens; no LLM call")
	fs.BoolVar(&f.showPrompt, "show-prompt", false, "print the messages sent to the model")
	fs.BoolVar(&f.showPromptTrunc, "show-prompt-trunc", false, fmt.Sprintf("print the messages sent to the model, each cut to %d characters", promptPreviewChars))
	fs.BoolVar(&f.debugJSON, "debug-json", false, "write each rule's raw model output and the decision on each violation, per file, as JSON files in a new folder under "+lint.DefaultDebugDir)
	fs.BoolVarP(&f.verbose, "verbose", "v", false, "more detail: skipped files, passing scores, rule warnings")
	fs.BoolVarP(&f.version, "version", "V", false, "print the version and exit")
	fs.BoolVar(&f.quiet, "quiet", false, "no progress bar")
	fs.StringVar(&f.stdinFilename, "stdin-filename", "", "read the document from standard input (PATH - or no PATH); NAME picks the config section and is the reported path")
	fs.BoolVar(&f.noColor, "no-color", false, "no colour (also when NO_COLOR is set or output is not a terminal)")
	fs.StringVar(&f.fix, "fix", "", "apply the findings' fixes; `MODE` write (--fix alone) rewrites the files, diff (--fix=diff) prints a unified diff and writes nothing; with --stdin-filename the fixed text goes to standard output")
	fs.Lookup("fix").NoOptDefVal = fixWrite
	fs.StringVar(&f.baseline, "baseline", "", "hide the findings recorded in the baseline `FILE` (written by --write-baseline); they are counted, not reported, and do not fail the run")
	fs.StringVar(&f.writeBaseline, "write-baseline", "", "write the run's findings to the baseline `FILE`, to hide them in later runs with --baseline")
	f.cost.register(fs)
	return fs
}

// printLintUsage writes the top-level usage and the lint flags.
func (a *app) printLintUsage(w io.Writer) {
	a.printUsage(w)
	var f lintFlags
	fmt.Fprintf(w, "\nLint flags:\n%s", newLintFlagSet(&f).FlagUsages())
}

// operands returns the PATH arguments of a parsed command line. After "--" every argument is a
// file name (docs/security.md: paths from the repository are never options), "-" included: there
// it names a file called "-", given on as "./-", and standard input is read only for a "-"
// before "--" (or --stdin-filename alone).
func operands(fs *pflag.FlagSet) []string {
	paths := fs.Args()
	if dash := fs.ArgsLenAtDash(); dash >= 0 {
		paths = slices.Clone(paths)
		for i := dash; i < len(paths); i++ {
			if paths[i] == "-" {
				paths[i] = "." + string(filepath.Separator) + "-"
			}
		}
	}
	return paths
}

// usageError reports a command-line mistake (exitCode writes it).
func (a *app) usageError(cmd string, err error) error {
	return &usageError{cmd: cmd, err: err}
}

// lintOptions are the options of the lint command, filled from its flags and checked.
type lintOptions struct {
	lintFlags
	// paths are the PATH operands ("-": standard input).
	paths []string
	// usage and version: print the help or the version instead of linting.
	usage, version bool
}

// lintCommand is the lint command: vectorlint [flags] PATH...
func (a *app) lintCommand(ctx context.Context, args []string) error {
	o, err := parseLint(args)
	if err != nil {
		return a.usageError("vectorlint", err)
	}
	return a.runLint(ctx, o)
}

// parseLint fills the options of the lint command from args and checks them.
func parseLint(args []string) (*lintOptions, error) { return parseLintWith(args, nil) }

// parseLintWith is parseLint with more flags (the batch commands'), registered by more.
func parseLintWith(args []string, more func(*pflag.FlagSet)) (*lintOptions, error) {
	o := &lintOptions{}
	f := &o.lintFlags
	fs := newLintFlagSet(f)
	if more != nil {
		more(fs)
	}
	fs.SetOutput(io.Discard)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.usage = true
			return o, nil
		}
		return nil, err
	}
	if f.version {
		o.version = true
		return o, nil
	}
	if err := f.check(fs); err != nil {
		return nil, err
	}
	paths := operands(fs)
	if len(paths) == 0 && f.stdinFilename != "" {
		paths = []string{"-"} // --stdin-filename alone names the document on standard input
	}
	if len(paths) == 0 {
		o.usage = true
		return o, nil
	}
	if f.stdinFilename != "" && !slices.Contains(paths, "-") {
		return nil, errors.New("--stdin-filename names the document read from standard input: add the PATH -")
	}
	if f.fix != "" && slices.Contains(paths, "-") && len(paths) > 1 {
		return nil, errors.New("--fix with standard input prints the fixed text: lint only the PATH -")
	}
	o.paths = paths
	return o, nil
}

// runLint runs the lint command with its checked options.
func (a *app) runLint(ctx context.Context, o *lintOptions) error {
	switch {
	case o.usage:
		a.printLintUsage(a.stdout)
		return nil
	case o.version:
		a.printVersion()
		return nil
	case o.outputFile != "":
		return a.lintToFile(ctx, &o.lintFlags, o.paths)
	}
	return a.lint(ctx, &o.lintFlags, o.paths)
}

// lintToFile runs the lint command with its standard output written to --output-file through
// the working directory's root (spec/trust.md §6): the file is checked before the run (a
// folder on the way that is a link leading out of the tree, or a folder at FILE, stops it
// before any model call) and written whole after it, by a rename that replaces a link
// committed at that path instead of following it. A FILE outside the working directory is the
// user's choice, written through a root at its folder. The output is written whatever the
// exit code, as a shell redirection would.
func (a *app) lintToFile(ctx context.Context, f *lintFlags, paths []string) error {
	root, err := a.openRoot()
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: --output-file: %v\n", err)
		return errFailed
	}
	defer root.Close()
	n, err := root.Named(a.abs(f.outputFile))
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: --output-file: %v\n", err)
		return errFailed
	}
	defer n.Close()
	if err := checkOutputFile(n); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: --output-file: %v\n", err)
		return errFailed
	}
	var buf bytes.Buffer
	c := *a
	c.stdout, c.rawStdout, c.stdoutIsTerminal = &buf, &buf, false
	lintErr := c.lint(ctx, f, paths) // its messages are written: only its exit code is left
	if err := n.Root.WriteFile(n.Path, buf.Bytes()); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: --output-file: %v\n", err)
		return errFailed
	}
	return lintErr
}

// checkOutputFile fails when the output file cannot be written where it is named: its folder
// is missing, is not a folder or leads out of the root, or FILE is a folder.
func checkOutputFile(n tree.Named) error {
	fi, err := n.Root.Stat(filepath.Dir(n.Path))
	switch {
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("%s: not a folder", filepath.Dir(n.Path))
	}
	if fi, err := n.Root.Lstat(n.Path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s: a folder, expected a file", n.Path)
	}
	return nil
}

// lint is the lint command once its flags are checked.
func (a *app) lint(ctx context.Context, f *lintFlags, paths []string) error {

	proj, err := a.loadProject(f.config)
	if err != nil {
		a.printProblemsOrError(err)
		return errFailed
	}
	defer proj.Close()
	if f.verbose {
		a.printProblems(proj.Warnings)
	}
	// Endpoints are resolved and checked against the trust rule before anything else, so a
	// refused base URL stops a real run and a dry run alike, before any call.
	h := a.host()
	env, eps, err := h.LintEnv(proj, h.ProjectEnvDir(proj), setup.Settings{Provider: f.provider, Model: f.model, BaseURL: f.baseURL})
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}
	stdin := a.stdin
	if f.fix != "" && slices.Contains(paths, "-") {
		// --fix prints the document read from standard input, fixed or as it was (an editor
		// replaces its buffer with what it gets), even when it is not linted.
		data, err := io.ReadAll(io.LimitReader(a.stdin, document.MaxDocumentSize+1))
		if err != nil {
			fmt.Fprintf(a.stderr, "vectorlint: reading standard input: %v\n", err)
			return errFailed
		}
		f.stdinText, stdin = data, bytes.NewReader(data)
	}
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{
		Dir:           a.dir,
		Paths:         paths,
		Stdin:         stdin,
		StdinFilename: f.stdinFilename,
		SearchModel:   setup.SearchModelConfigured(env, eps),
		SharedPrompt:  proj.Directive + proj.StyleGuide,
		MinSeverity:   f.minLevel,
		Samples:       f.samples,
		RulesPerCall:  f.rulesPerCall,
		Root:          proj.Root,
		// A lint run reads each file when the pool reaches it (memory flat in the number of
		// files); the dry run prints the whole plan.
		Lazy: !f.dryRun,
	})
	if err != nil {
		a.printProblemsOrError(err)
		return errFailed
	}
	// A PATH that names nothing to lint is that path's error in the report (exit 2); the other
	// files are linted. A flag given after "--" (a pre-commit hook's args after an entry ending
	// in "--") is a file name: say so, the message alone would read as a missing file, and
	// stop: a hook set up that way must fail closed, not lint half.
	var badPaths []*document.PathError
	for _, fp := range plan.Files {
		var pe *document.PathError
		if errors.As(fp.Err, &pe) {
			if f.dashed && strings.HasPrefix(pe.Arg, "-") {
				fmt.Fprintf(a.stderr, "vectorlint: %v (after \"--\" every argument is a file name: give flags before it)\n", pe)
				return errFailed
			}
			badPaths = append(badPaths, pe)
		}
	}
	if !f.dryRun { // the dry run lists every operational error on stderr
		for _, pe := range badPaths {
			fmt.Fprintf(a.stderr, "vectorlint: %v\n", pe)
		}
	}
	// --changed-since, --changed-lines and --shard choose what of the plan runs.
	if err := a.selectFiles(ctx, f, proj, plan); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}

	if f.batch != nil && f.batch.op == batchSubmit {
		return a.batchSubmit(ctx, env, eps, proj, f, plan)
	}
	if f.dryRun {
		return a.dryRun(env, eps, proj, f, plan)
	}
	return a.evaluatePlan(ctx, f, proj, plan, env, eps)
}

// dryRun is --dry-run: every setting a real run checks is checked, by the same code, with the
// same messages, then the plan is printed with its estimates; no model call is made.
func (a *app) dryRun(env *envsource.Env, eps setup.Endpoints, proj *config.Project, f *lintFlags, plan *lint.Plan) error {
	// Every setting a real run checks is checked here, by the same code, with the same
	// messages: a dry run that passes means the settings are usable (whether the server
	// answers is the one thing it cannot tell).
	run, err := a.prepareLint(env, eps, proj, f, &syncWriter{w: a.stderr})
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}
	run.Close()
	opts := dryrun.Options{Verbose: f.verbose, GitHubActions: a.githubActions}
	if p := run.Prices; p != nil {
		opts.InputPricePerMillion = &p.InputPerMillion
	}
	sum, err := dryrun.Print(a.stdout, plan, opts)
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}
	for _, e := range plan.OperationalErrors() {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", e)
	}
	for _, fp := range plan.Files {
		if fp.Doc != nil && fp.Doc.ScopeError != nil {
			fmt.Fprintf(a.stderr, "vectorlint: warning: %v\n", fp.Doc.ScopeError)
		}
	}
	if sum.OperationalErrors > 0 {
		return errFailed
	}
	if !a.withinBudget(f, run, proj, plan, a.stderr) {
		return errFailed
	}
	dry := finding.Totals{Summary: finding.Summary{Errors: sum.Errors, Warnings: sum.Warnings, Suggestions: sum.Suggestions}}
	return outcomeErr(dry.Outcome(f.failAt))
}

// prepareLint checks every setting of a lint run and builds its model client through the setup
// layer: the one path both a real run and a dry run take, so that they fail alike (exit 2, the
// same message). log receives the client's event log and stall reports.
func (a *app) prepareLint(env *envsource.Env, eps setup.Endpoints, proj *config.Project, f *lintFlags, log io.Writer) (*setup.Lint, error) {
	o := setup.LintOptions{
		Timeout:         f.timeoutValue,
		CacheDir:        f.cacheDir,
		NoCache:         f.noCache,
		CacheMaxSize:    f.cacheMaxSize,
		CacheMaxSizeSet: f.cacheMaxSizeSet,
		Verbose:         f.verbose && !f.dryRun, // a dry run makes no call to log
		ShowPrompt:      f.showPrompt || f.showPromptTrunc,
		PromptLimit:     promptLimit(f.showPromptTrunc),
		MinSeverity:     f.minLevel,
		Log:             log,
		CacheOnly:       f.batch != nil && f.batch.noLive,
	}
	if f.concurrencySet {
		o.Concurrency = f.concurrency
	}
	return a.host().Lint(env, eps, proj, o)
}

// evaluatePlan sets up the model client, the output and the progress bar, runs the plan
// (lint.Run), prints the results in the chosen format and maps them to the exit code.
func (a *app) evaluatePlan(ctx context.Context, f *lintFlags, proj *config.Project, plan *lint.Plan, env *envsource.Env, eps setup.Endpoints) error {
	var (
		errw  io.Writer = &syncWriter{w: a.stderr}
		bar   *progress.Bar
		model *setup.Model // set once the client exists; read by the bar's redraws after Start
	)
	if a.stderrIsTerminal && !f.quiet && len(plan.Files) > 0 {
		// The bar draws on the terminal itself; the log lines written through it are escaped.
		bar = progress.New(a.term, len(plan.Files), func() progress.Stats {
			if model == nil {
				return progress.Stats{}
			}
			return model.Progress()
		})
		barLog := a.humanLog(bar)
		errw = barLog
		defer bar.Stop()
		defer barLog.Flush()
	}
	run, err := a.prepareLint(env, eps, proj, f, errw)
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}
	defer run.Close()
	model = run.Model
	var batches *setup.Batches
	if f.batch != nil { // batch collect: the batch's replies go to the cache before the run
		if batches, err = a.batchCollect(ctx, env, run, proj, plan, f.batch, errw); err != nil {
			return err
		}
		defer batches.Close()
	}
	// --max-calls and --max-cost: the plan's cost is known before any call.
	if !a.withinBudget(f, run, proj, plan, errw) {
		return errFailed
	}
	ropts := report.Options{
		Version:  versionString(),
		Color:    a.stdoutIsTerminal && !f.noColor && a.getenv("NO_COLOR") == "",
		Verbose:  f.verbose,
		Problems: errw,
		// The formats escape untrusted text themselves (spec/trust.md §3).
		GitHubActions: a.githubActions,
		Rules:         rules.Describe(proj.Packs),
	}
	stdout := a.stdout
	if f.output == report.FormatGitHub {
		ropts.StepSummaryPath = a.getenv("GITHUB_STEP_SUMMARY")
		stdout = a.rawStdout // its annotations are workflow commands by design
	}
	if bar != nil && a.stdoutIsTerminal {
		stdout = bar.Writer(stdout) // the same terminal: keep results and the bar apart
	}
	session, flushFix := a.fixSession(f, stdout, errw)
	if session != nil {
		session.Root = proj.Root // files are rewritten inside the project root only
	}
	defer flushFix()
	var out report.Writer
	if session == nil || session.Mode == fix.ModeWrite {
		// --fix=diff and --fix on standard input print the diff or the text instead of a report.
		out, err = report.New(f.output, stdout, ropts)
		if err != nil {
			fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
			return errFailed
		}
	}
	if f.verbose && f.output != report.FormatLine && f.output != report.FormatJSON {
		for _, s := range plan.Skipped {
			fmt.Fprintf(errw, "vectorlint: skipped %s: %s\n", s.Path, s.Reason)
		}
	}

	bl, err := a.openBaseline(f)
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}
	opts := lintRunOptions(f, run, proj, session, out, errw)
	opts.Baseline, opts.RecordBaseline = bl.set, bl.record
	opts.KeepSource = opts.KeepSource || bl.set != nil || bl.record != nil // fingerprints read the text
	if bar != nil {
		opts.Progress = bar
	}
	var debugErr error
	if f.debugJSON {
		// The folder is made and proved writable before the first call.
		w, closeRoot, err := a.debugWriter(proj.Root, lint.DebugModel{Provider: string(run.Endpoint.Provider), Name: run.Endpoint.Model})
		if err != nil {
			fmt.Fprintf(a.stderr, "vectorlint: --debug-json: %v\n", err)
			return errFailed
		}
		defer closeRoot()
		opts.Debug = func(rec lint.DebugRecord) {
			rec.Prompt.Filename = a.rel(rec.Prompt.Filename)
			if _, err := w.Write(rec); err != nil && debugErr == nil {
				debugErr = err
			}
		}
		defer func() {
			if debugErr == nil {
				fmt.Fprintf(a.stderr, "vectorlint: debug JSON written to %s\n", a.rel(w.Dir))
			}
		}()
	}
	res, err := lint.Run(ctx, plan, opts)
	if res == nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}
	if batches != nil {
		batches.AddUsage(&res.Totals.Usage)
	}
	if err := a.closeBaseline(f, bl, errw); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
		return errFailed
	}
	return a.finishLint(f, res, out, session, errw, debugErr)
}

// lintRunOptions are the options of lint.Run: the evaluation's settings, the fixer (one of the
// processors after evaluation, internal/process: the report gets what the fixes left; --fix=diff
// and --fix on standard input print no report), where each file's result goes and the warnings.
func lintRunOptions(f *lintFlags, run *setup.Lint, proj *config.Project, session *fix.Session, out report.Writer, errw io.Writer) lint.RunOptions {
	opts := lint.RunOptions{EvalOptions: run.EvalOptions(proj)}
	opts.Fix = session
	opts.KeepSource = session != nil
	opts.File = func(finding.FileResult) error { return nil }
	if out != nil {
		opts.File = out.File
	}
	if f.verbose {
		opts.Warn = func(msg string) { fmt.Fprintf(errw, "vectorlint: warning: %s\n", msg) }
	}
	opts.DocumentWarn = func(msg string) { fmt.Fprintf(errw, "vectorlint: warning: %s\n", msg) }
	return opts
}

// finishLint writes what follows a run's last file — the report's totals, the fix summary (and,
// with --fix on standard input, the text given back when it was not fixed), the run-wide
// failures, a --debug-json failure, the files an interruption left — and returns the run's
// outcome.
func (a *app) finishLint(f *lintFlags, res *finding.Result, out report.Writer, session *fix.Session, errw io.Writer, debugErr error) error {
	totals := res.Totals // counted after the fixer: what the fixes left
	if out != nil {
		if err := out.Finish(totals); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
			return errFailed
		}
	}
	if session != nil {
		if session.Mode == fix.ModePrint && !session.Printed && len(f.stdinText) <= document.MaxDocumentSize {
			session.Out.Write(f.stdinText) // skipped or unreadable: given back as it was
		}
		fmt.Fprintf(errw, "vectorlint: %s\n", session.Summary())
	}

	// Each failure of the whole run once (not once per rule and file), naming what to fix.
	printRunErrors(errw, "vectorlint", res.RunErrors)
	if debugErr != nil {
		fmt.Fprintf(a.stderr, "vectorlint: --debug-json: %v\n", debugErr)
		return errFailed
	}
	if n := len(res.Interrupted); n > 0 {
		fmt.Fprintf(a.stderr, "vectorlint: interrupted: %s not finished and not reported: %s\n",
			pluralize(n, "file"), listSome(res.Interrupted, 5))
	}
	outcome := totals.Outcome(f.failAt)
	if session != nil && session.Failed > 0 {
		outcome = finding.OutcomeFailed // a file that could not be rewritten
	}
	return outcomeErr(outcome)
}

// --fix modes.
const (
	fixWrite = "write"
	fixDiff  = "diff"
)

// fixSession returns the session that applies the fixes of a --fix run (nil without --fix),
// and a function that flushes what it holds back. The diff or fixed text goes to stdout,
// escaped when it is a terminal or a GitHub Actions log (the document's text and a fix's, which
// comes from a model, could drive either); the lines saying what was fixed go to log.
func (a *app) fixSession(f *lintFlags, stdout, log io.Writer) (*fix.Session, func()) {
	if f.fix == "" {
		return nil, func() {}
	}
	s := &fix.Session{Mode: fix.ModeWrite, Out: stdout, Log: log}
	switch {
	case f.fix == fixDiff:
		s.Mode = fix.ModeDiff
	case f.stdinText != nil:
		s.Mode = fix.ModePrint
	}
	flush := func() {}
	if a.stdoutIsTerminal || a.githubActions {
		w := safetext.NewHumanWriter(stdout, a.githubActions)
		s.Out, flush = w, func() { w.Flush() }
	}
	return s, flush
}

// listSome joins the first n items and says how many more there are.
func listSome(items []string, n int) string {
	if len(items) <= n {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:n], ", ") + fmt.Sprintf(" and %d more", len(items)-n)
}

// check validates flag values that pflag cannot.
func (f *lintFlags) check(fs *pflag.FlagSet) error {
	f.concurrencySet, f.cacheMaxSizeSet = fs.Changed("concurrency"), fs.Changed("cache-max-size")
	f.dashed = fs.ArgsLenAtDash() >= 0
	var err error
	if f.failAt, err = failOnFlag(f.failOn); err != nil {
		return err
	}
	if f.output, err = outputFlag(f.output); err != nil {
		return err
	}
	if f.minLevel, err = severityFlag("--min-alert-level", f.minAlertLevel); err != nil {
		return err
	}
	if f.concurrencySet && (f.concurrency < 1 || f.concurrency > setup.MaxConcurrency) {
		return fmt.Errorf("--concurrency: expected %s, found %d", setup.ConcurrencyRange, f.concurrency)
	}
	if fs.Changed("samples") && (f.samples < 1 || f.samples > config.MaxSamples) {
		return fmt.Errorf("--samples: expected %s, found %d", config.SamplesRange, f.samples)
	}
	if fs.Changed("rules-per-call") && (f.rulesPerCall < 1 || f.rulesPerCall > config.MaxRulesPerCall) {
		return fmt.Errorf("--rules-per-call: expected %s, found %d", config.RulesPerCallRange, f.rulesPerCall)
	}
	if f.provider != "" && !setup.KnownProvider(f.provider) {
		return fmt.Errorf("--provider: expected one of %s, found %q", providerNames(), f.provider)
	}
	if f.fix != "" && f.fix != fixWrite && f.fix != fixDiff {
		return fmt.Errorf("--fix: expected --fix (rewrite the files) or --fix=diff, found --fix=%s", f.fix)
	}
	if f.fix != "" && f.dryRun {
		return errors.New("--fix and --dry-run cannot be combined (--fix=diff shows the fixes without writing)")
	}
	if f.baseline != "" && f.writeBaseline != "" {
		return errors.New("--baseline and --write-baseline cannot be combined: write the new baseline without the old one")
	}
	if f.quiet && f.verbose {
		return errors.New("--quiet and --verbose cannot be combined")
	}
	if f.timeoutValue, err = timeoutFlag(f.timeout, fs.Changed("timeout")); err != nil {
		return err
	}
	return f.cost.check(fs, f.stdinFilename != "")
}

// failOnUsage describes --fail-on (the lint and merge commands).
const failOnUsage = "exit 1 when a finding is at or above this severity: error, warning, suggestion or none"

// failOnFlag checks a --fail-on value: "none" (SeverityUnset: no finding fails the run) or a
// severity, any case.
func failOnFlag(v string) (finding.Severity, error) {
	l := strings.ToLower(v)
	sev, err := finding.ParseSeverity(l)
	if err != nil && l != "none" {
		return finding.SeverityUnset, fmt.Errorf("--fail-on: expected error, warning, suggestion or none, found %q", v)
	}
	return sev, nil
}

// severityFlag checks a flag whose value is a severity (--min-alert-level), any case.
func severityFlag(name, v string) (finding.Severity, error) {
	s, err := finding.ParseSeverity(strings.ToLower(v))
	if err != nil {
		return finding.SeverityUnset, fmt.Errorf("%s: expected suggestion, warning or error, found %q", name, v)
	}
	return s, nil
}

// outputFlag checks an --output value of the lint and merge commands, in any case ("JSON", as
// Vale's --output=JSON is written), and returns the format's name.
func outputFlag(v string) (string, error) {
	l := strings.ToLower(v)
	if !slices.Contains(report.Formats(), l) {
		return "", fmt.Errorf("--output: expected one of %s, found %q", strings.Join(report.Formats(), ", "), v)
	}
	return l, nil
}

// valeFlagNames accepts Vale's spelling of the flags vectorlint shares with it
// (--minAlertLevel), so a command line written for Vale runs unchanged.
func valeFlagNames(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if name == "minAlertLevel" {
		name = "min-alert-level"
	}
	return pflag.NormalizedName(name)
}

// printProblemsOrError prints input problems one per line (paths relative to the working
// directory), or any other error.
func (a *app) printProblemsOrError(err error) {
	if ps, ok := config.IsProblems(err); ok {
		a.printProblems(ps)
		return
	}
	fmt.Fprintf(a.stderr, "vectorlint: %v\n", err)
}

func (a *app) printProblems(ps finding.Problems) {
	for _, p := range ps {
		p.File = a.rel(p.File)
		fmt.Fprintln(a.stderr, p.Error())
	}
}

// rel shows a path relative to the working directory when it is inside it.
func (a *app) rel(path string) string { return a.host().Rel(path) }

// relErr shows the files an environment or trust error names relative to the working
// directory, as every other message does.
func (a *app) relErr(err error) error { return a.host().RelErr(err) }

func pluralize(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

// providerNames lists the providers --provider accepts.
func providerNames() string { return setup.ProviderNames() }

// debugWriter creates the run's --debug-json folder under lint.DefaultDebugDir in the working
// directory, as the original VectorLint does, through root (the project root when the working
// directory is inside it, else a root opened there, returned for the caller to close): the
// repository could have made that folder, or .vectorlint, a link to anywhere, and such a link
// is refused before anything is created (spec/trust.md §6).
func (a *app) debugWriter(root *tree.Root, model lint.DebugModel) (*lint.DebugWriter, func(), error) {
	closeRoot := func() {}
	if !root.Contains(a.dir) {
		r, err := a.openRoot()
		if err != nil {
			return nil, nil, err
		}
		root, closeRoot = r, func() { r.Close() }
	}
	w, err := lint.NewDebugWriter(root, a.abs(lint.DefaultDebugDir), a.clock()(), model)
	if err != nil {
		closeRoot()
		return nil, nil, err
	}
	return w, closeRoot, nil
}
