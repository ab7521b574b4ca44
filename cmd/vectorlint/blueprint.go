package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/tree"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/internal/progress"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/internal/setup"
)

const blueprintUsage = `Usage:
  vectorlint blueprint check FILE... [--print] [--collections DIR]
  vectorlint blueprint run FILE [--models a,b] [--judge provider:model] [--html FILE] [--fail-under SCORE] [flags]
  vectorlint blueprint compare BASE.json NEW.json [--tolerance 0.05] [--output line|json|github|html]

check parses and normalises blueprints and reports errors and authoring mistakes.
run generates each model's responses (or reads them with --responses FILE), judges and scores
them, and writes a Weval result document (and, with --html, a report).
compare prints each prompt × model's score in two result documents and exits 1 when one fell
by more than the tolerance.
`

// runBlueprint is the "blueprint" command: check and run.
func (a *app) runBlueprint(ctx context.Context, args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, blueprintUsage)
		return errFailed
	}
	switch args[0] {
	case "check":
		return a.blueprintCheck(args[1:])
	case "run":
		return a.blueprintRun(ctx, args[1:])
	case "compare":
		return a.blueprintCompare(args[1:])
	case "-h", "--help", "help":
		fmt.Fprint(a.stdout, blueprintUsage)
		return nil
	}
	fmt.Fprintf(a.stderr, "vectorlint blueprint: unknown command %q (expected check, run or compare)\n\n%s", args[0], blueprintUsage)
	return errFailed
}

// blueprintPath resolves a path given on the command line against the app's working directory.
func (a *app) blueprintPath(p string) string {
	if filepath.IsAbs(p) || a.dir == "" {
		return p
	}
	return filepath.Join(a.dir, p)
}

// blueprintFlagSet returns a flag set that reports errors instead of exiting.
func blueprintFlagSet(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.SortFlags = false
	return fs
}

// blueprintCheckOptions are the options of "blueprint check", filled from its flags.
type blueprintCheckOptions struct {
	print       bool     // --print
	collections string   // --collections
	allowEnv    []string // --allow-env
	files       []string // the blueprints
}

// blueprintCheck is "blueprint check FILE...": parse, normalise and report mistakes.
func (a *app) blueprintCheck(args []string) error {
	o, err := a.parseBlueprintCheck(args)
	if o == nil || err != nil { // --help, or a mistake
		return err
	}
	return a.runBlueprintCheck(o)
}

// parseBlueprintCheck fills the options of "blueprint check" from args and checks them; nil
// options and a nil error for --help.
func (a *app) parseBlueprintCheck(args []string) (*blueprintCheckOptions, error) {
	o := &blueprintCheckOptions{}
	fs := blueprintFlagSet("vectorlint blueprint check", a.stderr)
	fs.BoolVar(&o.print, "print", false, "write each normalised blueprint as JSON to stdout (diagnostics go to stderr)")
	fs.StringVar(&o.collections, "collections", "", "folder of model collections (NAME.json); unresolvable placeholders such as CORE become errors")
	fs.StringSliceVar(&o.allowEnv, "allow-env", nil, "variables ${VAR} references may read, as for run (repeatable, comma-separated); any other reference is an error")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "Usage: vectorlint blueprint check FILE... [--print] [--collections DIR] [--allow-env NAME]")
		fs.PrintDefaults()
	}
	fail := func(format string, args ...any) error { return failf("vectorlint blueprint check", format, args...) }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil
		}
		return nil, fail("%v (see --help)", err)
	}
	if o.files = fs.Args(); len(o.files) == 0 {
		return nil, fail("expected one or more blueprint files, found none")
	}
	return o, nil
}

// runBlueprintCheck checks the blueprints check's options name.
func (a *app) runBlueprintCheck(o *blueprintCheckOptions) error {
	files := o.files
	allow, err := setup.AllowEnv(o.allowEnv)
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
		return errFailed
	}
	// Blueprints and collections are read through the working directory's root: a link in
	// the tree that leads out of it is refused (spec/trust.md §6).
	root, err := a.openRoot()
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
		return errFailed
	}
	defer root.Close()
	var coll tree.Named
	if o.collections != "" {
		// Each blueprint reads only the collections it names; the folder must exist.
		if coll, err = root.Named(a.blueprintPath(o.collections)); err == nil {
			defer coll.Close()
			_, err = blueprint.LoadCollectionsFor(coll.Root, coll.Path, nil)
		}
		if err != nil {
			fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
			return errFailed
		}
	}
	// Diagnostics quote the blueprint: human text, escaped as a whole (stderr is already).
	var diagOut io.Writer = a.stderr
	if !o.print {
		stdout := a.humanStdout()
		defer stdout.Flush()
		diagOut = stdout
	}
	invalid, warnings := 0, 0
	for _, file := range files {
		data, err := a.readNamed(root, file, blueprint.MaxFileSize)
		if err != nil {
			fmt.Fprintf(diagOut, "%s: error: cannot read the file: %v\n", file, blueprintPathErr(err))
			invalid++
			continue
		}
		bp, diags := checkBlueprint(file, data, coll, func(bp *blueprint.Blueprint) finding.Problems {
			return blueprint.CheckEnvRefs(bp, blueprint.EnvRefs(bp), allow)
		})
		bad := false
		for _, d := range diags {
			fmt.Fprintln(diagOut, d.Labeled())
			if d.Level == finding.LevelError {
				bad = true
			} else {
				warnings++
			}
		}
		if bad {
			invalid++
			continue
		}
		if o.print {
			out, err := blueprintJSON(bp)
			if err != nil {
				fmt.Fprintf(a.stderr, "%s: error: %v\n", file, err)
				invalid++
				continue
			}
			if _, err := a.stdout.Write(safetext.JSON(out)); err != nil {
				fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
				return errFailed
			}
		}
	}
	fmt.Fprintf(diagOut, "checked %d blueprint%s: %d invalid, %d warning%s\n", len(files), blueprintPlural(len(files)), invalid, warnings, blueprintPlural(warnings))
	if invalid > 0 {
		return errFailed
	}
	return nil
}

// blueprintPlural returns "s" unless n is 1.
func blueprintPlural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// blueprintPathErr drops the path that *fs.PathError repeats (the caller already names it).
func blueprintPathErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// blueprintJSON encodes v as indented JSON without HTML escaping.
func blueprintJSON(v any) ([]byte, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// blueprintEvalMethods lists the values of --eval-method.
const blueprintEvalMethods = "llm-coverage, similarity, embedding (comma-separated), all or none"

// checkBlueprint parses one blueprint and returns it with its problems: the parser's, or its
// warnings with the ${VAR} references envRefs refuses and, when coll is set, the model
// collections it names that cannot be resolved.
func checkBlueprint(file string, data []byte, coll tree.Named, envRefs func(*blueprint.Blueprint) finding.Problems) (*blueprint.Blueprint, finding.Problems) {
	bp, err := blueprint.Parse(data, blueprint.ParseOptions{File: file})
	var pe *blueprint.ParseError
	switch {
	case errors.As(err, &pe):
		return bp, pe.Problems
	case err != nil:
		return bp, finding.Problems{{File: file, Level: finding.LevelError, Code: blueprint.CodeInvalid, Message: err.Error()}}
	}
	diags := bp.Warnings
	if envDiags := envRefs(bp); envDiags != nil {
		diags = append(append(finding.Problems(nil), diags...), envDiags...)
		sortProblemsByLine(diags)
	}
	if coll.Root != nil {
		colls, rerr := blueprint.LoadCollectionsFor(coll.Root, coll.Path, bp.Models)
		if rerr == nil {
			_, rerr = blueprint.ResolveModels(bp.Models, colls)
		}
		if rerr != nil {
			diags = append(diags, finding.Problem{File: file, Level: finding.LevelError, Code: blueprint.CodeCollection, Message: rerr.Error()})
		}
	}
	return bp, diags
}

// blueprintRunFlags are the flags of "blueprint run".
type blueprintRunFlags struct {
	fixtures, responses, outDir, output, runLabel, collections, html, cacheDir, embeddingModel, timeout string
	cacheMaxSize, failUnder                                                                             string
	allowNet, noCache, fixturesStrict, judgeBatch                                                       bool
	models, judges, evalMethods, allowEnv                                                               []string
	concurrency, providerConcurrency, genTimeoutMS, genRetries                                          int
}

// blueprintRunOptions are the options of "blueprint run", filled from its flags and checked.
type blueprintRunOptions struct {
	blueprintRunFlags
	file            string
	methods         blueprint.Methods
	timeout         time.Duration
	failUnder       *float64
	judges          []blueprint.JudgeSpec
	cacheMaxSizeSet bool
}

// blueprintRunFail is an error of "blueprint run".
func blueprintRunFail(format string, args ...any) error {
	return failf("vectorlint blueprint run", format, args...)
}

// newBlueprintRunFlagSet registers the flags of "blueprint run" into f.
func (a *app) newBlueprintRunFlagSet(f *blueprintRunFlags) *pflag.FlagSet {
	fs := blueprintFlagSet("vectorlint blueprint run", a.stderr)
	fs.StringSliceVar(&f.models, "models", nil, "models to run, comma-separated provider:model ids or custom model ids (default: the blueprint's models)")
	fs.StringArrayVar(&f.judges, "judge", nil, "judge model provider:model, repeatable; replaces the blueprint's and the default judges")
	fs.BoolVar(&f.judgeBatch, "judge-batch", false, "send each judge every text point of a response in one call (a point missing from the reply is judged alone)")
	fs.StringVar(&f.responses, "responses", "", "score these responses (JSON Lines or Weval fixtures JSON) instead of generating")
	fs.StringVar(&f.fixtures, "fixtures", "", "use these responses (JSON Lines or Weval fixtures JSON) where they apply, and generate the others")
	fs.BoolVar(&f.fixturesStrict, "fixtures-strict", false, "with --fixtures: a prompt and model without a fixture response is an error instead of a generation")
	fs.StringVar(&f.outDir, "out-dir", ".results", "folder for the result document (written to DIR/<configId>/)")
	fs.StringVar(&f.output, "output", "line", "output on stdout: line (a table) or json (the result document)")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML report to FILE")
	fs.StringVar(&f.runLabel, "run-label", "", "name of the run (default: a hash of the blueprint)")
	fs.StringSliceVar(&f.evalMethods, "eval-method", []string{blueprint.MethodCoverage, blueprint.MethodSimilarity}, "evaluation methods: "+blueprintEvalMethods)
	fs.StringVar(&f.embeddingModel, "embedding-model", blueprint.DefaultEmbeddingModel, "embeddings model of --eval-method embedding")
	fs.IntVar(&f.concurrency, "concurrency", 0, "most model calls in flight at once (default: the blueprint's concurrency, else 8)")
	fs.IntVar(&f.providerConcurrency, "provider-concurrency", blueprint.DefaultProviderConcurrency, "most model calls in flight to one provider at once")
	fs.IntVar(&f.genTimeoutMS, "gen-timeout-ms", int(blueprint.DefaultGenTimeout/time.Millisecond), "time limit of each attempt of a generation call, in milliseconds (judges keep --timeout)")
	fs.IntVar(&f.genRetries, "gen-retries", blueprint.DefaultGenRetries, "retries of a generation call that failed in a way worth retrying (timeout, 429, 5xx, broken connection)")
	fs.BoolVar(&f.noCache, "no-cache", false, "neither read nor write cached model replies")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "folder of cached model replies (default: $XDG_CACHE_HOME/vectorlint or ~/.cache/vectorlint)")
	fs.StringVar(&f.timeout, "timeout", "", timeoutUsage)
	fs.StringVar(&f.cacheMaxSize, "cache-max-size", "", cacheMaxSizeUsage)
	fs.BoolVar(&f.allowNet, "allow-net", false, "let $call and $factcheck make HTTP requests")
	fs.StringSliceVar(&f.allowEnv, "allow-env", nil, "let ${VAR} in custom models' and $call's urls and headers read these variables (repeatable, comma-separated)")
	fs.StringVar(&f.collections, "collections", "", "folder of model collections (NAME.json) to resolve placeholders such as CORE")
	fs.StringVar(&f.failUnder, "fail-under", "", "exit 1 when any model's average score is below `SCORE` (0 to 1), for a CI gate")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "Usage: vectorlint blueprint run FILE [flags]")
		fs.PrintDefaults()
	}
	return fs
}

// parseBlueprintRun fills the options of "blueprint run" from args and checks them; nil options
// and a nil error for --help.
func (a *app) parseBlueprintRun(args []string) (*blueprintRunOptions, error) {
	o := &blueprintRunOptions{}
	f := &o.blueprintRunFlags
	fs := a.newBlueprintRunFlagSet(f)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil
		}
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v (see --help)\n", err)
		return nil, errFailed
	}
	fail := blueprintRunFail
	if fs.NArg() != 1 {
		return nil, fail("expected one blueprint file, found %d arguments", fs.NArg())
	}
	o.file = fs.Arg(0)
	if f.output != "line" && f.output != "json" {
		return nil, fail("--output: expected line or json, found %q", f.output)
	}
	if f.responses != "" && f.fixtures != "" {
		return nil, fail("--responses and --fixtures: expected one of them, found both (--responses generates nothing, --fixtures generates what the fixtures lack)")
	}
	if f.fixturesStrict && f.fixtures == "" {
		return nil, fail("--fixtures-strict: expected --fixtures FILE, found none")
	}
	o.cacheMaxSizeSet = fs.Changed("cache-max-size")
	return o, o.check(fs)
}

// check checks the flag values pflag cannot.
func (o *blueprintRunOptions) check(fs *pflag.FlagSet) error {
	f, fail := &o.blueprintRunFlags, blueprintRunFail
	methods, err := blueprint.ParseMethods(f.evalMethods)
	if err != nil {
		return fail("--eval-method: %v", err)
	}
	if f.concurrency < 0 || f.concurrency > setup.MaxConcurrency {
		return fail("--concurrency: expected %s, found %d", setup.ConcurrencyRange, f.concurrency)
	}
	if f.providerConcurrency < 1 {
		return fail("--provider-concurrency: expected a number ≥ 1, found %d", f.providerConcurrency)
	}
	if f.genTimeoutMS < 1 {
		return fail("--gen-timeout-ms: expected a number of milliseconds ≥ 1, found %d", f.genTimeoutMS)
	}
	if f.genRetries < 0 {
		return fail("--gen-retries: expected a number ≥ 0, found %d", f.genRetries)
	}
	timeout, err := timeoutFlag(f.timeout, fs.Changed("timeout"))
	if err != nil {
		return fail("%v", err)
	}
	failUnder, err := failUnderFlag(f.failUnder, fs.Changed("fail-under"))
	if err != nil {
		return fail("%v", err)
	}
	judgeSpecs, err := setup.Judges(f.judges)
	if err != nil {
		return fail("--judge: %v", err)
	}

	o.methods, o.timeout, o.failUnder, o.judges = methods, timeout, failUnder, judgeSpecs
	return nil
}

// blueprintRun is "blueprint run FILE": flags → blueprint.Options → blueprint.Run (generate or
// read the responses, judge and score them, write the result document and the HTML report) →
// the table or the document on stdout, and the exit code.
func (a *app) blueprintRun(ctx context.Context, args []string) error {
	o, err := a.parseBlueprintRun(args)
	if o == nil || err != nil { // --help, or a mistake
		return err
	}
	return a.runBlueprintRun(ctx, o)
}

// blueprintInputs reads what "blueprint run" starts from, through root: the blueprint (its
// problems written before the error), the --allow-env names, the environment (.env files from
// the working directory: blueprint run uses no config file), the trust rule, and the
// --responses and --fixtures files. They are returned in a blueprint.Options, with the
// environment.
func (a *app) blueprintInputs(o *blueprintRunOptions, root *tree.Root) (blueprint.Options, *envsource.Env, error) {
	f, fail, file := &o.blueprintRunFlags, blueprintRunFail, o.file
	var in blueprint.Options
	data, err := a.readNamed(root, file, blueprint.MaxFileSize)
	if err != nil {
		return in, nil, fail("cannot read %s: %v", file, blueprintPathErr(err))
	}
	bp, err := blueprint.Parse(data, blueprint.ParseOptions{File: file})
	if err != nil {
		var pe *blueprint.ParseError
		if errors.As(err, &pe) {
			for _, d := range pe.Problems {
				fmt.Fprintln(a.stderr, d.Labeled())
			}
			return in, nil, fail("%s is not a valid blueprint", file)
		}
		return in, nil, fail("%v", err)
	}
	for _, d := range bp.Warnings {
		fmt.Fprintln(a.stderr, d.Labeled())
	}
	allow, err := setup.AllowEnv(f.allowEnv)
	if err != nil {
		return in, nil, fail("%v", err)
	}
	// blueprint run uses no config file: .env files are read from the working directory.
	h := a.host()
	env, err := h.Env(root, a.dir)
	if err != nil {
		return in, nil, fail("%v", err)
	}
	trust, err := h.Trust()
	if err != nil {
		return in, nil, fail("%v", err)
	}
	var resp, fixtures *blueprint.Responses
	for _, rf := range []struct {
		file string
		into **blueprint.Responses
	}{{f.responses, &resp}, {f.fixtures, &fixtures}} {
		if rf.file == "" {
			continue
		}
		data, err := a.readNamed(root, rf.file, blueprint.MaxFileSize)
		if err != nil {
			return in, nil, fail("cannot read %s: %v", rf.file, blueprintPathErr(err))
		}
		if *rf.into, err = blueprint.ParseResponses(data, rf.file); err != nil {
			return in, nil, fail("%v", err)
		}
	}

	in.Blueprint, in.Responses, in.Fixtures, in.AllowEnv, in.LookupEnv, in.Trust = bp, resp, fixtures, allow, env, trust
	return in, env, nil
}

// interrupted is the error of a run stopped by Ctrl-C: the replies already received are in the
// cache (each entry written whole), so the same command resumes where this one stopped; a
// partial result document would look like a finished run with failures, so none is written.
func (o *blueprintRunOptions) interrupted() error {
	msg := "interrupted: no result written"
	if !o.noCache {
		msg += "; the replies received so far are cached, so running the same command again continues from there"
	}
	return blueprintRunFail("%s", msg)
}

// runBlueprintRun runs "blueprint run" with checked options.
func (a *app) runBlueprintRun(ctx context.Context, o *blueprintRunOptions) error {
	f, fail := &o.blueprintRunFlags, blueprintRunFail
	judgeSpecs, methods, timeout := o.judges, o.methods, o.timeout
	// The blueprint, its responses, fixtures and collections, and the results and report are
	// read and written through the working directory's root: a link in the tree that leads out
	// of it is refused (spec/trust.md §6).
	root, err := a.openRoot()
	if err != nil {
		return fail("%v", err)
	}
	defer root.Close()
	in, env, err := a.blueprintInputs(o, root)
	if err != nil {
		return err
	}
	h, bp := a.host(), in.Blueprint

	// One client for generation, judging and embeddings: one cache, one set of limits.
	concurrency := f.concurrency
	if concurrency == 0 && bp.Concurrency != nil {
		concurrency = *bp.Concurrency
	}
	limit, err := setup.ResolveCacheCap(env.Lookup, f.cacheMaxSize, o.cacheMaxSizeSet, nil)
	if err != nil {
		return fail("%v", err)
	}
	client, _, err := h.Client(env.Lookup, setup.ClientOptions{Concurrency: concurrency, Timeout: timeout, CacheDir: f.cacheDir,
		NoCache: f.noCache, CacheMaxSize: limit.Limit, Log: &syncWriter{w: a.stderr}})
	if err != nil {
		return fail("%v", err)
	}
	defer client.Close()

	opts := blueprint.Options{
		Blueprint:           bp,
		Responses:           in.Responses,
		Fixtures:            in.Fixtures,
		FixturesStrict:      f.fixturesStrict,
		Models:              f.models,
		CollectionsDir:      f.collections,
		Client:              client,
		LookupEnv:           in.LookupEnv,
		AllowEnv:            in.AllowEnv,
		Trust:               in.Trust,
		AllowNet:            f.allowNet,
		HTTPClient:          h.ServiceClient(),
		JSTimeout:           a.jsTimeout,
		Judges:              judgeSpecs,
		JudgeBatch:          f.judgeBatch,
		ProviderConcurrency: f.providerConcurrency,
		GenTimeout:          time.Duration(f.genTimeoutMS) * time.Millisecond,
		GenAttempts:         f.genRetries + 1,
		Methods:             methods,
		EmbeddingModel:      f.embeddingModel,
		RunLabel:            f.runLabel,
		// What --version reports: the stamped version and commit, else the build information's.
		Tool:   toolVersion(),
		Now:    a.clock(),
		Dir:    a.dir,
		Root:   root,
		OutDir: f.outDir,
		HTML:   f.html,
		Warn:   func(msg string) { fmt.Fprintln(a.stderr, "warning: "+msg) },
	}
	if a.stderrIsTerminal {
		opts.Progress = progress.NewStatus(a.term) // its own escape codes: unguarded
	}
	res, err := blueprint.Run(ctx, opts)
	if ctx.Err() != nil {
		return o.interrupted()
	}
	if err != nil {
		var outDir *blueprint.OutDirError
		var refs *blueprint.EnvRefError
		var untrusted *blueprint.EnvTrustError
		switch {
		case errors.As(err, &outDir):
			return fail("--out-dir %s cannot hold the results: %v (no model was called)", f.outDir, outDir.Err)
		case errors.As(err, &refs):
			for _, d := range refs.Problems {
				fmt.Fprintln(a.stderr, d.Labeled())
			}
		case errors.As(err, &untrusted):
			for _, e := range untrusted.Errs[:len(untrusted.Errs)-1] {
				fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", a.relErr(e))
			}
			err = untrusted.Errs[len(untrusted.Errs)-1]
		}
		return fail("%v", a.relErr(err))
	}
	return a.blueprintRunOutput(res, o)
}

// blueprintRunOutput writes a finished run's warnings, table or document, stopped endpoints and
// usage, and returns its outcome: errFailed when the run is incomplete or a file could not be
// written, errFindings when --fail-under is not met.
func (a *app) blueprintRunOutput(res *blueprint.Result, o *blueprintRunOptions) error {
	f, fail, failUnder := &o.blueprintRunFlags, blueprintRunFail, o.failUnder
	for _, w := range res.Warnings {
		fmt.Fprintln(a.stderr, "warning: "+w)
	}
	var result error // nil, errFailed or errFindings: written already
	if !res.Complete() || len(res.Stopped) > 0 {
		result = errFailed
	}
	if res.HTMLErr != nil {
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", res.HTMLErr)
		result = errFailed
	}
	if f.output == "json" {
		doc, err := res.JSON() // encoded safe to print (blueprint.Result.JSON)
		if err != nil {
			return fail("%v", err)
		}
		if _, err := a.stdout.Write(doc); err != nil {
			return fail("%v", err)
		}
		if res.Path != "" {
			fmt.Fprintf(a.stderr, "result written to %s\n", res.Path)
		}
	} else {
		if err := res.WriteTableWith(a.stdout, blueprint.TableOptions{GitHubActions: a.githubActions}); err != nil {
			return fail("%v", err)
		}
		stdout := a.humanStdout() // the result's path holds the blueprint's id
		if res.Path != "" {
			fmt.Fprintf(stdout, "\nResult written to %s\n", res.Path)
		}
		if f.html != "" && res.HTMLErr == nil {
			fmt.Fprintf(stdout, "Report written to %s\n", f.html)
		}
		stdout.Flush()
	}
	// Each stopped endpoint once (the table counts what it kept from being done).
	for _, se := range res.Stopped {
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", se)
	}
	if u := res.Usage; u.Calls+u.CachedCalls > 0 {
		fmt.Fprintf(a.stderr, "model calls: %d (%d more from the cache), %d input + %d output tokens\n",
			u.Calls, u.CachedCalls, u.InputTokens, u.OutputTokens)
	}
	if res.WriteErr != nil {
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", res.WriteErr)
		result = errFailed
	}
	if failUnder != nil && !a.passesFailUnder(res, *failUnder) && result == nil {
		result = errFindings
	}
	return result
}

// sortProblemsByLine orders problems by line, keeping the order within a line.
func sortProblemsByLine(ds finding.Problems) {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Line < ds[j].Line })
}
