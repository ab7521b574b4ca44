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
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/blueprint"
)

const blueprintUsage = `Usage:
  vectorlint blueprint check FILE... [--print] [--collections DIR]
  vectorlint blueprint run FILE --responses FILE [flags]

check parses and normalises blueprints and reports errors and authoring mistakes.
run scores model responses against a blueprint and writes a Weval result document.
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
	case "-h", "--help", "help":
		fmt.Fprint(a.stdout, blueprintUsage)
		return exitOK
	}
	fmt.Fprintf(a.stderr, "vectorlint blueprint: unknown command %q (expected check or run)\n\n%s", args[0], blueprintUsage)
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
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "Usage: vectorlint blueprint check FILE... [--print] [--collections DIR]")
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
	var colls blueprint.Collections
	if *collections != "" {
		var err error
		if colls, err = blueprint.LoadCollections(a.blueprintPath(*collections)); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint blueprint check: %v\n", err)
			return exitFailure
		}
	}
	diagOut := a.stdout
	if *printJSON {
		diagOut = a.stderr
	}
	invalid, warnings := 0, 0
	for _, file := range files {
		data, err := os.ReadFile(a.blueprintPath(file))
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
			if _, err := a.stdout.Write(out); err != nil {
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

// blueprintRun is "blueprint run FILE": score responses and write the result document.
func (a *app) blueprintRun(ctx context.Context, args []string) int {
	fs := blueprintFlagSet("vectorlint blueprint run", a.stderr)
	responses := fs.String("responses", "", "score these responses (JSON Lines or Weval fixtures JSON) instead of generating")
	outDir := fs.String("out-dir", ".results", "folder for the result document (written to DIR/<configId>/)")
	output := fs.String("output", "line", "output on stdout: line (a table) or json (the result document)")
	runLabel := fs.String("run-label", "", "name of the run (default: a hash of the blueprint)")
	allowNet := fs.Bool("allow-net", false, "let $call and $factcheck make HTTP requests")
	collections := fs.String("collections", "", "folder of model collections (NAME.json) to resolve placeholders such as CORE")
	models := fs.StringSlice("models", nil, "models to score, comma-separated (default: every model in the responses)")
	judges := fs.StringArray("judge", nil, "judge model provider:model, repeatable (replaces the blueprint's judges)")
	html := fs.String("html", "", "also write a self-contained HTML report to FILE")
	concurrency := fs.Int("concurrency", 0, "parallel model calls (generation and judging)")
	noCache := fs.Bool("no-cache", false, "do not use cached model responses")
	evalMethods := fs.StringSlice("eval-method", []string{"llm-coverage"}, "evaluation methods: llm-coverage, similarity, embedding")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "Usage: vectorlint blueprint run FILE --responses FILE [flags]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return exitOK
		}
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: %v (see --help)\n", err)
		return exitFailure
	}
	_, _ = concurrency, noCache // they tune generation and judging, which --responses runs do not do
	fail := func(format string, args ...any) int {
		fmt.Fprintf(a.stderr, "vectorlint blueprint run: "+format+"\n", args...)
		return exitFailure
	}
	if fs.NArg() != 1 {
		return fail("expected one blueprint file, found %d arguments", fs.NArg())
	}
	file := fs.Arg(0)
	if *output != "line" && *output != "json" {
		return fail("--output: expected line or json, found %q", *output)
	}
	if len(*judges) > 0 {
		return fail("--judge: LLM judging is not available in this build yet; text points are reported as not evaluated")
	}
	if *html != "" {
		return fail("--html: the HTML report is not available in this build yet")
	}
	for _, m := range *evalMethods {
		switch m {
		case "llm-coverage":
		case "similarity", "embedding":
			return fail("--eval-method %s: not available in this build yet (only llm-coverage)", m)
		default:
			return fail("--eval-method: expected llm-coverage, similarity or embedding, found %q", m)
		}
	}
	if *responses == "" {
		return fail("generating responses is not available in this build yet: pass --responses FILE with the models' responses")
	}

	data, err := os.ReadFile(a.blueprintPath(file))
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
	respData, err := os.ReadFile(a.blueprintPath(*responses))
	if err != nil {
		return fail("cannot read %s: %v", *responses, blueprintPathErr(err))
	}
	resp, err := blueprint.ParseResponses(respData, *responses)
	if err != nil {
		return fail("%v", err)
	}

	opts := blueprint.RunOptions{
		RunLabel: *runLabel,
		Models:   *models,
		Env: blueprint.Env{
			AllowNet:   *allowNet,
			HTTPClient: &http.Client{},
			LookupEnv:  a.lookupEnv,
		},
	}
	if len(opts.Models) == 0 && len(resp.Models()) == 0 && resp.HasDefaults() {
		var colls blueprint.Collections
		if *collections != "" {
			if colls, err = blueprint.LoadCollections(a.blueprintPath(*collections)); err != nil {
				return fail("%v", err)
			}
		}
		resolved, err := blueprint.ResolveModels(bp.Models, colls)
		if err != nil {
			return fail("the responses give only default responses, so they apply to the blueprint's models: %v (or pass --models)", err)
		}
		for _, m := range resolved {
			opts.DefaultModels = append(opts.DefaultModels, m.ID)
		}
	}
	res, err := blueprint.Run(ctx, bp, resp, opts)
	if err != nil {
		return fail("%v", err)
	}
	for _, w := range res.Warnings {
		fmt.Fprintln(a.stderr, "warning: "+w)
	}
	if _, err := res.WriteFile(a.blueprintPath(*outDir)); err != nil {
		return fail("%v", err)
	}
	shown := filepath.Join(*outDir, res.ConfigID, res.FileName())
	if *output == "json" {
		doc, err := res.JSON()
		if err != nil {
			return fail("%v", err)
		}
		if _, err := a.stdout.Write(doc); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(a.stderr, "result written to %s\n", shown)
	} else {
		if err := res.WriteTable(a.stdout); err != nil {
			return fail("%v", err)
		}
		fmt.Fprintf(a.stdout, "\nResult written to %s\n", shown)
	}
	if !res.Complete() {
		return exitFailure
	}
	return exitOK
}
