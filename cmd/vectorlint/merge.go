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

// runMerge is "vectorlint merge FILE...".
func (a *app) runMerge(args []string) error {
	fs := pflag.NewFlagSet("vectorlint merge", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	output := fs.String("output", "line", "output format: "+strings.Join(report.Formats(), ", "))
	failOn := fs.String("fail-on", "error", failOnUsage)
	configFlag := fs.String("config", "", "configuration file whose rule packs describe the rules in sarif output (default: found as the lint command finds it; with none, generic descriptions)")
	verbose := fs.Bool("verbose", false, "more detail: skipped files, passing scores")
	noColor := fs.Bool("no-color", false, "no colour (also when NO_COLOR is set or output is not a terminal)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprintf(a.stdout, "%s\nFlags:\n%s", mergeUsage, fs.FlagUsages())
			return nil
		}
		return a.usageError("vectorlint merge", err)
	}
	var err error
	if *output, err = outputFlag(*output); err != nil {
		return a.usageError("vectorlint merge", err)
	}
	failAt, err := failOnFlag(*failOn)
	if err != nil {
		return a.usageError("vectorlint merge", err)
	}
	files := fs.Args()
	if len(files) == 0 {
		return a.usageError("vectorlint merge", errors.New("expected one or more json results (vectorlint --output json), found none"))
	}
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
	if *output == report.FormatRDJSON || *output == report.FormatRDJSONL {
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
		Color:         a.stdoutIsTerminal && !*noColor && a.getenv("NO_COLOR") == "",
		Verbose:       *verbose,
		Problems:      a.stderr,
		GitHubActions: a.githubActions,
	}
	// The rule files describe the rules as a single run's report does (sarif's descriptors).
	if popts, err := config.FindProject(a.dir, *configFlag, a.getenv("VECTORLINT_CONFIG")); err == nil {
		proj, err := config.LoadProject(popts)
		if proj != nil { // also with problems: its root is open
			defer proj.Close()
		}
		if err != nil && *configFlag != "" {
			a.printProblemsOrError(err)
			return errFailed
		}
		if err == nil {
			opts.Rules = rules.Describe(proj.Packs)
		}
	} else if *configFlag != "" {
		fmt.Fprintf(a.stderr, "vectorlint merge: %v\n", err)
		return errFailed
	}
	stdout := a.stdout
	if *output == report.FormatGitHub {
		opts.StepSummaryPath = a.getenv("GITHUB_STEP_SUMMARY")
		stdout = a.rawStdout // its annotations are workflow commands by design
	}
	out, err := report.New(*output, stdout, opts)
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
