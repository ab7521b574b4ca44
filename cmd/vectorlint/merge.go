package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/report"
	"github.com/vectorlint/vectorlint/rules"
)

const mergeUsage = `Usage: vectorlint merge [--output FORMAT] [--fail-on SEVERITY] FILE.json...

merge joins the --output json results of several runs over different files (the jobs of a
--shard K/N run) into one report, in any output format, with the exit code a single run would
have had: 2 when any run could not do all its work, else 1 for findings at or above --fail-on.
`

// readResults reads the json results merge joins, through root.
func (a *app) readResults(root *tree.Root, files []string) ([]*finding.Result, error) {
	results := make([]*finding.Result, 0, len(files))
	for _, name := range files {
		data, err := a.readNamed(root, name, finding.MaxJSONSize)
		if err != nil {
			return nil, failf("vectorlint merge", "%s: cannot read the file: %v", name, blueprintPathErr(err))
		}
		r, err := finding.ReadJSON(bytes.NewReader(data), name)
		if err != nil {
			return nil, &commandError{prefix: "vectorlint merge", err: err}
		}
		results = append(results, r)
	}
	return results, nil
}

// mergeOptions are the options of "vectorlint merge".
type mergeOptions struct {
	output, failOn, config string // --output, --fail-on, --config
	verbose, noColor       bool   // --verbose, --no-color
	failAt                 finding.Severity
	files                  []string // the json results
	help                   string   // the help to print instead of merging, for --help
}

// mergeCommand is "vectorlint merge FILE...".
func (a *app) mergeCommand(args []string) error {
	o, err := parseMerge(args)
	if err != nil {
		return a.usageError("vectorlint merge", err)
	}
	return a.runMerge(o)
}

// parseMerge fills the options of "vectorlint merge" from args and checks them.
func parseMerge(args []string) (*mergeOptions, error) {
	o := &mergeOptions{}
	fs := pflag.NewFlagSet("vectorlint merge", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVar(&o.output, "output", "line", "output format: "+strings.Join(report.Formats(), ", "))
	fs.StringVar(&o.failOn, "fail-on", "error", failOnUsage)
	fs.StringVar(&o.config, "config", "", "configuration file whose rule packs describe the rules in sarif output (default: found as the lint command finds it; with none, generic descriptions)")
	fs.BoolVar(&o.verbose, "verbose", false, "more detail: skipped files, passing scores")
	fs.BoolVar(&o.noColor, "no-color", false, "no colour (also when NO_COLOR is set or output is not a terminal)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = fmt.Sprintf("%s\nFlags:\n%s", mergeUsage, fs.FlagUsages())
			return o, nil
		}
		return nil, err
	}
	var err error
	if o.output, err = outputFlag(o.output); err != nil {
		return nil, err
	}
	if o.failAt, err = failOnFlag(o.failOn); err != nil {
		return nil, err
	}
	if o.files = fs.Args(); len(o.files) == 0 {
		return nil, errors.New("expected one or more json results (vectorlint --output json), found none")
	}
	return o, nil
}

// runMerge joins the results merge's options name into one report.
func (a *app) runMerge(o *mergeOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	files, failAt := o.files, o.failAt
	// The results and the documents they name are read through the working directory's root
	// (spec/trust.md §6).
	root, err := a.openRoot()
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint merge: %v\n", err)
		return errFailed
	}
	defer root.Close()
	results, err := a.readResults(root, files)
	if err != nil {
		return err
	}
	res, err := finding.Merge(results, files)
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint merge: %v\n", err)
		return errFailed
	}
	if o.output == report.FormatRDJSON || o.output == report.FormatRDJSONL {
		// reviewdog's columns are bytes, which the json output does not hold: they are read
		// from the documents when they are here and unchanged.
		for i := range res.Files {
			if doc, err := root.ReadDocument(a.path(res.Files[i].Path), document.MaxDocumentSize); err == nil {
				finding.FillByteColumns(&res.Files[i], doc)
			}
		}
	}
	opts := report.Options{
		Version:       versionString(),
		Color:         a.stdoutIsTerminal && !o.noColor && a.getenv("NO_COLOR") == "",
		Verbose:       o.verbose,
		Problems:      a.stderr,
		GitHubActions: a.githubActions,
	}
	// The rule files describe the rules as a single run's report does (sarif's descriptors).
	if popts, err := config.FindProject(a.dir, o.config, a.getenv("VECTORLINT_CONFIG")); err == nil {
		proj, err := config.LoadProject(popts)
		if proj != nil { // also with problems: its root is open
			defer proj.Close()
		}
		if err != nil && o.config != "" {
			a.printProblemsOrError(err)
			return errFailed
		}
		if err == nil {
			opts.Rules = rules.Describe(proj.Packs)
		}
	} else if o.config != "" {
		fmt.Fprintf(a.stderr, "vectorlint merge: %v\n", err)
		return errFailed
	}
	stdout := a.stdout
	if o.output == report.FormatGitHub {
		opts.StepSummaryPath = a.getenv("GITHUB_STEP_SUMMARY")
		stdout = a.rawStdout // its annotations are workflow commands by design
	}
	out, err := report.New(o.output, stdout, opts)
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint merge: %v\n", err)
		return errFailed
	}
	for _, fr := range res.Files {
		if err := out.File(fr); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint merge: %v\n", err)
			return errFailed
		}
	}
	if err := out.Finish(res.Totals); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint merge: %v\n", err)
		return errFailed
	}
	return outcomeErr(res.Outcome(failAt))
}

// path resolves a command-line path against the working directory.
func (a *app) path(p string) string {
	if filepath.IsAbs(p) || a.dir == "" {
		return p
	}
	return filepath.Join(a.dir, filepath.FromSlash(p))
}
