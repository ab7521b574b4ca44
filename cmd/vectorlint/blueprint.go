package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/evaluate"
	"github.com/vectorlint/vectorlint/internal/atomicfile"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/llm"
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
func (a *app) runBlueprint(ctx context.Context, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, blueprintUsage)
		return exitFailure
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
		return exitOK
	}
	fmt.Fprintf(a.stderr, "vectorlint blueprint: unknown command %q (expected check, run or compare)\n\n%s", args[0], blueprintUsage)
	return exitFailure
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

// blueprintCheck is "blueprint check FILE...": parse, normalise and report mistakes.
func (a *app) blueprintCheck(args []string) int {
	fs := blueprintFlagSet("vectorlint blueprint check", a.stderr)
	printJSON := fs.Bool("print", false, "write each normalised blueprint as JSON to stdout (diagnostics go to stderr)")
	collections := fs.String("collections", "", "folder of model collections (NAME.json); unresolvable placeholders such as CORE become errors")
	allowEnvFlag := fs.StringSlice("allow-env", nil, "variables ${VAR} references may read, as for run (repeatable, comma-separated); any other reference is an error")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "Usage: vectorlint blueprint check FILE... [--print] [--collections DIR] [--allow-env NAME]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v (see --help)\n", err)
		return exitFailure
	}
	files := fs.Args()
	if len(files) == 0 {
		fmt.Fprintln(a.stderr, "vectorlint blueprint check: expected one or more blueprint files, found none")
		return exitFailure
	}
	allow, err := blueprint.ParseAllowEnv(*allowEnvFlag)
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
		return exitFailure
	}
	var colls blueprint.Collections
	if *collections != "" {
		if colls, err = blueprint.LoadCollections(a.blueprintPath(*collections)); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
			return exitFailure
		}
	}
	// Diagnostics quote the blueprint: human text, escaped as a whole (stderr is already).
	var diagOut io.Writer = a.stderr
	if !*printJSON {
		stdout := a.humanStdout()
		defer stdout.Flush()
		diagOut = stdout
	}
	invalid, warnings := 0, 0
	for _, file := range files {
		data, err := blueprint.ReadFile(a.blueprintPath(file))
		if err != nil {
			fmt.Fprintf(diagOut, "%s: error: cannot read the file: %v\n", file, blueprintPathErr(err))
			invalid++
			continue
		}
		bp, err := blueprint.Parse(data, blueprint.ParseOptions{File: file})
		var diags []blueprint.Diagnostic
		var pe *blueprint.ParseError
		switch {
		case errors.As(err, &pe):
			diags = pe.Diagnostics
		case err != nil:
			diags = []blueprint.Diagnostic{{File: file, Severity: blueprint.SeverityError, Code: blueprint.CodeInvalid, Message: err.Error()}}
		default:
			diags = bp.Warnings
			if envDiags := blueprint.CheckEnvRefs(bp, blueprint.EnvRefs(bp), allow); envDiags != nil {
				diags = append(append([]blueprint.Diagnostic(nil), diags...), envDiags...)
				sortDiagnosticsByLine(diags)
			}
			if colls != nil {
				if _, rerr := blueprint.ResolveModels(bp.Models, colls); rerr != nil {
					diags = append(diags, blueprint.Diagnostic{File: file, Severity: blueprint.SeverityError, Code: blueprint.CodeCollection, Message: rerr.Error()})
				}
			}
		}
		bad := false
		for _, d := range diags {
			fmt.Fprintln(diagOut, d.String())
			if d.Severity == blueprint.SeverityError {
				bad = true
			} else {
				warnings++
			}
		}
		if bad {
			invalid++
			continue
		}
		if *printJSON {
			out, err := blueprintJSON(bp)
			if err != nil {
				fmt.Fprintf(a.stderr, "%s: error: %v\n", file, err)
				invalid++
				continue
			}
			if _, err := a.stdout.Write(safetext.JSON(out)); err != nil {
				fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
				return exitFailure
			}
		}
	}
	fmt.Fprintf(diagOut, "checked %d blueprint%s: %d invalid, %d warning%s\n", len(files), blueprintPlural(len(files)), invalid, warnings, blueprintPlural(warnings))
	if invalid > 0 {
		return exitFailure
	}
	return exitOK
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

// Defaults of blueprint run.
const (
	blueprintDefaultEmbeddingModel = "openai:text-embedding-3-small"
	blueprintEvalMethods           = "llm-coverage, similarity, embedding"
)

// blueprintRunFlags are the flags of "blueprint run".
type blueprintRunFlags struct {
	responses, outDir, output, runLabel, collections, html, cacheDir, embeddingModel, timeout string
	cacheMaxSize, failUnder                                                                   string
	allowNet, noCache                                                                         bool
	models, judges, evalMethods, allowEnv                                                     []string
	concurrency, providerConcurrency                                                          int
}

// blueprintRun is "blueprint run FILE": generate (or read) responses, judge and score them,
// and write the result document (and the HTML report).
func (a *app) blueprintRun(ctx context.Context, args []string) int {
	fs := blueprintFlagSet("vectorlint blueprint run", a.stderr)
	var f blueprintRunFlags
	fs.StringSliceVar(&f.models, "models", nil, "models to run, comma-separated provider:model ids or custom model ids (default: the blueprint's models)")
	fs.StringArrayVar(&f.judges, "judge", nil, "judge model provider:model, repeatable; replaces the blueprint's and the default judges")
	fs.StringVar(&f.responses, "responses", "", "score these responses (JSON Lines or Weval fixtures JSON) instead of generating")
	fs.StringVar(&f.outDir, "out-dir", ".results", "folder for the result document (written to DIR/<configId>/)")
	fs.StringVar(&f.output, "output", "line", "output on stdout: line (a table) or json (the result document)")
	fs.StringVar(&f.html, "html", "", "also write a self-contained HTML report to FILE")
	fs.StringVar(&f.runLabel, "run-label", "", "name of the run (default: a hash of the blueprint)")
	fs.StringSliceVar(&f.evalMethods, "eval-method", []string{"llm-coverage", "similarity"}, "evaluation methods: "+blueprintEvalMethods)
	fs.StringVar(&f.embeddingModel, "embedding-model", blueprintDefaultEmbeddingModel, "embeddings model of --eval-method embedding")
	fs.IntVar(&f.concurrency, "concurrency", 0, "most model calls in flight at once (default: the blueprint's concurrency, else 8)")
	fs.IntVar(&f.providerConcurrency, "provider-concurrency", blueprint.DefaultProviderConcurrency, "most model calls in flight to one provider at once")
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
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v (see --help)\n", err)
		return exitFailure
	}
	fail := func(format string, args ...any) int {
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: "+format+"\n", args...)
		return exitFailure
	}
	// Ctrl-C: the replies already received are in the cache (each entry written whole), so the
	// same command resumes where this one stopped; a partial result document would look
	// like a finished run with failures, so none is written.
	interrupted := func() int {
		msg := "interrupted: no result written"
		if !f.noCache {
			msg += "; the replies received so far are cached, so running the same command again continues from there"
		}
		return fail("%s", msg)
	}
	if fs.NArg() != 1 {
		return fail("expected one blueprint file, found %d arguments", fs.NArg())
	}
	file := fs.Arg(0)
	if f.output != "line" && f.output != "json" {
		return fail("--output: expected line or json, found %q", f.output)
	}
	methods := map[string]bool{}
	for _, m := range f.evalMethods {
		switch m = strings.TrimSpace(m); m {
		case "llm-coverage", "similarity", "embedding":
			methods[m] = true
		default:
			return fail("--eval-method: expected %s, found %q", blueprintEvalMethods, m)
		}
	}
	if f.concurrency < 0 {
		return fail("--concurrency: expected a number ≥ 1, found %d", f.concurrency)
	}
	if f.providerConcurrency < 1 {
		return fail("--provider-concurrency: expected a number ≥ 1, found %d", f.providerConcurrency)
	}
	timeout, err := timeoutFlag(f.timeout, fs.Changed("timeout"))
	if err != nil {
		return fail("%v", err)
	}
	failUnder, err := failUnderFlag(f.failUnder, fs.Changed("fail-under"))
	if err != nil {
		return fail("%v", err)
	}
	var judgeSpecs []blueprint.JudgeSpec
	for _, j := range f.judges {
		if _, _, err := llm.ParseModelID(j); err != nil {
			return fail("--judge: %v", err)
		}
		provider, model, _ := llm.ParseModelID(j)
		judgeSpecs = append(judgeSpecs, blueprint.JudgeSpec{Model: provider + ":" + model, Approach: blueprint.ApproachHolistic})
	}

	data, err := blueprint.ReadFile(a.blueprintPath(file))
	if err != nil {
		return fail("cannot read %s: %v", file, blueprintPathErr(err))
	}
	bp, err := blueprint.Parse(data, blueprint.ParseOptions{File: file})
	if err != nil {
		var pe *blueprint.ParseError
		if errors.As(err, &pe) {
			for _, d := range pe.Diagnostics {
				fmt.Fprintln(a.stderr, d.String())
			}
			return fail("%s is not a valid blueprint", file)
		}
		return fail("%v", err)
	}
	for _, d := range bp.Warnings {
		fmt.Fprintln(a.stderr, d.String())
	}
	allow, err := blueprint.ParseAllowEnv(f.allowEnv)
	if err != nil {
		return fail("%v", err)
	}
	// Where the results go is checked before the first model call: finding an unusable folder
	// after paid generation would waste the run.
	if _, err := blueprint.PrepareOutDir(a.blueprintPath(f.outDir), bp.ID); err != nil {
		return fail("--out-dir %s cannot hold the results: %v (no model was called)", f.outDir, err)
	}
	// blueprint run uses no config file: .env files are read from the working directory.
	env, err := a.llmEnv(a.dir)
	if err != nil {
		return fail("%v", err)
	}
	trust, err := a.trust()
	if err != nil {
		return fail("%v", err)
	}
	var colls blueprint.Collections
	if f.collections != "" {
		if colls, err = blueprint.LoadCollections(a.blueprintPath(f.collections)); err != nil {
			return fail("%v", err)
		}
	}

	var resp *blueprint.Responses
	var models []blueprint.Model
	var defaultModels, scoredModels []string
	if f.responses != "" {
		respData, err := blueprint.ReadFile(a.blueprintPath(f.responses))
		if err != nil {
			return fail("cannot read %s: %v", f.responses, blueprintPathErr(err))
		}
		if resp, err = blueprint.ParseResponses(respData, f.responses); err != nil {
			return fail("%v", err)
		}
		scoredModels = f.models
		if len(f.models) == 0 && len(resp.Models()) == 0 && resp.HasDefaults() {
			resolved, err := blueprint.ResolveModels(bp.Models, colls)
			if err != nil {
				return fail("the responses give only default responses, so they apply to the blueprint's models: %v (or pass --models)", err)
			}
			for _, m := range resolved {
				defaultModels = append(defaultModels, m.ID)
			}
		}
	} else {
		if models, err = blueprint.ResolveModels(blueprintModels(bp, f.models), colls); err != nil {
			return fail("%v", err)
		}
		if len(models) == 0 {
			return fail("no model to run: the blueprint lists none (give --models)")
		}
	}

	// ${VAR} references the run would expand: custom models it generates with, and $call
	// points when the network is allowed. Each must be named by --allow-env, and a value the
	// user holds may go only to a trusted url; both are checked before any call.
	var refs []blueprint.EnvRef
	generating := map[string]bool{}
	for _, m := range models {
		generating[m.ID] = true
	}
	for _, r := range blueprint.EnvRefs(bp) {
		if (r.Call && f.allowNet) || (!r.Call && generating[r.Model]) {
			refs = append(refs, r)
		}
	}
	if diags := blueprint.CheckEnvRefs(bp, refs, allow); len(diags) > 0 {
		for _, d := range diags {
			fmt.Fprintln(a.stderr, d.String())
		}
		return fail("%s: %s not allowed (--allow-env): no call made", file, pluralize(len(diags), "environment variable reference"))
	}
	if errs := blueprint.CheckEnvTrust(bp, refs, env, allow, trust); len(errs) > 0 {
		for _, e := range errs[:len(errs)-1] {
			fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", a.relErr(e))
		}
		return fail("%v", a.relErr(errs[len(errs)-1]))
	}

	progress := &blueprintProgress{w: a.term, on: a.stderrIsTerminal} // its own escape codes: unguarded

	// One client for generation, judging and embeddings: one cache, one set of limits.
	concurrency := f.concurrency
	if concurrency == 0 && bp.Concurrency != nil {
		concurrency = *bp.Concurrency
	}
	limit, err := resolveCacheCap(env.Lookup, f.cacheMaxSize, fs.Changed("cache-max-size"), nil)
	if err != nil {
		return fail("%v", err)
	}
	client, _, err := a.newLLMClient(env.Lookup, llmOptions{concurrency: concurrency, timeout: timeout, cacheDir: f.cacheDir,
		noCache: f.noCache, cacheCap: limit, log: &syncWriter{w: a.stderr}})
	if err != nil {
		return fail("%v", err)
	}
	defer client.Close()

	opts := blueprint.RunOptions{
		RunLabel:      f.runLabel,
		Models:        scoredModels,
		DefaultModels: defaultModels,
		Now:           a.clock(),
		NoCoverage:    !methods["llm-coverage"],
		Env: blueprint.Env{
			AllowNet:   f.allowNet,
			HTTPClient: a.serviceClient(),
			LookupEnv:  env,
			AllowEnv:   allow,
			Trust:      trust,
		},
	}
	if methods["llm-coverage"] && blueprintHasTextPoints(bp) {
		judge, err := blueprint.NewLLMJudge(bp, blueprint.JudgeOptions{Client: client, LookupEnv: env, Judges: judgeSpecs,
			ProviderConcurrency: f.providerConcurrency})
		if err != nil {
			return fail("%v", err)
		}
		for _, e := range judge.Unavailable() {
			var untrusted *llm.UntrustedHostError
			if errors.As(e, &untrusted) {
				return fail("%v", a.relErr(untrusted))
			}
			fmt.Fprintln(a.stderr, "warning: "+e.Error())
		}
		opts.Env.Judge = judge
	}
	if methods["similarity"] || methods["embedding"] {
		opts.Similarity = &blueprint.Similarity{}
		if methods["similarity"] {
			opts.Similarity.Metrics = []blueprint.SimilarityMetric{
				{Name: "exact_match", Score: evaluate.ExactMatch},
				{Name: "f1", Score: evaluate.F1},
				{Name: "bleu", Score: evaluate.BLEU},
				{Name: "rouge_l", Score: evaluate.RougeL},
			}
		}
		if methods["embedding"] && blueprintHasIdeal(bp) {
			ep, err := llm.ModelEndpoint(env, f.embeddingModel)
			if err != nil {
				return fail("--eval-method embedding: the embeddings model %s cannot be used: %v (choose another with --embedding-model)", f.embeddingModel, err)
			}
			if err := client.CheckTrust(ep); err != nil {
				return fail("%v", a.relErr(err))
			}
			ep.MaxConcurrency = f.providerConcurrency
			ep.SettingNames.Model = "--embedding-model"
			opts.Similarity.Semantic = blueprintSemantic(evaluate.ModelEmbedder(client, ep))
		}
	}

	genOpts := blueprint.GenerateOptions{Client: client, LookupEnv: env, AllowEnv: allow, ProviderConcurrency: f.providerConcurrency}
	if resp == nil {
		for _, m := range models {
			if err := blueprint.CheckModel(bp, m, genOpts); err != nil {
				var untrusted *llm.UntrustedHostError
				if errors.As(err, &untrusted) {
					return fail("%v", a.relErr(untrusted))
				}
				fmt.Fprintf(a.stderr, "warning: model %s cannot be called: %v\n", m.ID, err)
			}
		}
		total := len(bp.Prompts) * len(blueprint.Variants(bp, models))
		var mu sync.Mutex
		generated := 0
		genOpts.OnPair = func(string, string, error) {
			mu.Lock()
			defer mu.Unlock()
			generated++
			progress.show("generating responses: %d/%d", generated, total)
		}
		resp, err = blueprint.Generate(ctx, bp, models, genOpts)
		progress.clear()
		if ctx.Err() != nil {
			return interrupted()
		}
		if err != nil {
			return fail("%v", err)
		}
	}
	opts.OnScored = func(done, total int) { progress.show("scoring: %d/%d", done, total) }

	res, err := blueprint.Run(ctx, bp, resp, opts)
	progress.clear()
	if ctx.Err() != nil {
		return interrupted()
	}
	if err != nil {
		return fail("%v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(a.stderr, "warning: "+w)
	}
	// The results are shown even when they cannot be saved: the run was paid for.
	_, writeErr := res.WriteFile(a.blueprintPath(f.outDir))
	shown := filepath.Join(f.outDir, res.Folder(), res.FileName())
	code := exitOK
	stops := client.Stopped()
	if !res.Complete() || len(stops) > 0 {
		code = exitFailure
	}
	htmlWritten := false
	if f.html != "" {
		if err := a.blueprintWriteHTML(res, f.html); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", err)
			code = exitFailure
		} else {
			htmlWritten = true
		}
	}
	if f.output == "json" {
		doc, err := res.JSON() // encoded safe to print (blueprint.Result.JSON)
		if err != nil {
			return fail("%v", err)
		}
		if _, err := a.stdout.Write(doc); err != nil {
			return fail("%v", err)
		}
		if writeErr == nil {
			fmt.Fprintf(a.stderr, "result written to %s\n", shown)
		}
	} else {
		if err := res.WriteTableWith(a.stdout, blueprint.TableOptions{GitHubActions: a.githubActions}); err != nil {
			return fail("%v", err)
		}
		stdout := a.humanStdout() // the result's path holds the blueprint's id
		if writeErr == nil {
			fmt.Fprintf(stdout, "\nResult written to %s\n", shown)
		}
		if htmlWritten {
			fmt.Fprintf(stdout, "Report written to %s\n", f.html)
		}
		stdout.Flush()
	}
	// Each stopped endpoint once (the table counts what it kept from being done).
	for _, se := range stops {
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", se)
	}
	if u := client.Usage(); u.Calls+u.CachedCalls > 0 {
		fmt.Fprintf(a.stderr, "model calls: %d (%d more from the cache), %d input + %d output tokens\n",
			u.Calls, u.CachedCalls, u.InputTokens, u.OutputTokens)
	}
	if writeErr != nil {
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v\n", writeErr)
		code = exitFailure
	}
	if failUnder != nil && !a.passesFailUnder(res, *failUnder) && code == exitOK {
		code = exitFindings
	}
	return code
}

// serviceClient is the HTTP client of $call and $factcheck: the default transport (its proxy
// from the process environment), or the test dial hook.
func (a *app) serviceClient() *http.Client {
	if a.dialContext == nil {
		return &http.Client{}
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = a.dialContext
	return &http.Client{Transport: t}
}

// sortDiagnosticsByLine orders diagnostics by line, keeping the order within a line.
func sortDiagnosticsByLine(ds []blueprint.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Line < ds[j].Line })
}

// blueprintWriteHTML writes the HTML report atomically, with mode 0666 less the umask.
func (a *app) blueprintWriteHTML(res *blueprint.Result, file string) error {
	path := a.blueprintPath(file)
	var b strings.Builder
	if err := res.WriteHTML(&b); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return fmt.Errorf("cannot write the report %s: %w", file, blueprintPathErr(err))
	}
	if err := atomicfile.Write(path, []byte(b.String())); err != nil {
		return fmt.Errorf("cannot write the report %s: %w", file, blueprintPathErr(err))
	}
	return nil
}

// blueprintModels returns the models to run: the blueprint's, or those --models names (a
// name matching one of the blueprint's custom models is that model).
func blueprintModels(bp *blueprint.Blueprint, names []string) []blueprint.Model {
	if len(names) == 0 {
		return bp.Models
	}
	custom := map[string]blueprint.Model{}
	for _, m := range bp.Models {
		if m.Custom != nil {
			custom[m.ID] = m
		}
	}
	var out []blueprint.Model
	for _, n := range names {
		n = strings.TrimSpace(n)
		if p, m, ok := strings.Cut(n, ":"); ok {
			n = strings.TrimSpace(p) + ":" + strings.TrimSpace(m)
		}
		if m, ok := custom[n]; ok {
			out = append(out, m)
		} else if n != "" {
			out = append(out, blueprint.Model{ID: n})
		}
	}
	return out
}

// blueprintHasTextPoints reports whether any prompt has an LLM-judged point.
func blueprintHasTextPoints(bp *blueprint.Blueprint) bool {
	for _, p := range bp.Prompts {
		r := p.Rubric()
		for _, pt := range r.Points() {
			if !pt.IsFunction() {
				return true
			}
		}
	}
	return false
}

// blueprintHasIdeal reports whether any prompt has an ideal response.
func blueprintHasIdeal(bp *blueprint.Blueprint) bool {
	for _, p := range bp.Prompts {
		if p.Ideal != nil {
			return true
		}
	}
	return false
}

// blueprintSemantic scores responses by the cosine of their embeddings with the ideal's
// (negative cosines count as 0), in one embeddings call per prompt.
func blueprintSemantic(emb evaluate.Embedder) func(ctx context.Context, ideal string, responses []string) ([]float64, error) {
	return func(ctx context.Context, ideal string, responses []string) ([]float64, error) {
		vecs, err := emb.Embed(ctx, append([]string{ideal}, responses...))
		if err != nil {
			return nil, err
		}
		if len(vecs) != len(responses)+1 {
			return nil, fmt.Errorf("expected %d embeddings, found %d", len(responses)+1, len(vecs))
		}
		out := make([]float64, len(responses))
		for i := range responses {
			c, err := evaluate.Cosine(vecs[0], vecs[i+1])
			if err != nil {
				return nil, err
			}
			out[i] = max(c, 0)
		}
		return out, nil
	}
}

// blueprintProgress rewrites one status line on a terminal (and writes nothing otherwise).
type blueprintProgress struct {
	w     io.Writer
	on    bool
	shown bool
}

func (p *blueprintProgress) show(format string, args ...any) {
	if p.on {
		fmt.Fprintf(p.w, "\r\033[K"+format, args...)
		p.shown = true
	}
}

func (p *blueprintProgress) clear() {
	if p.shown {
		fmt.Fprint(p.w, "\r\033[K")
		p.shown = false
	}
}
