package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/rules"
)

const validateUsage = `Usage: vectorlint validate [--rules DIR] [--config FILE]

Checks the configuration, the style guide (VECTORLINT.md), the project directive
(.vectorlint/directive.md) and every rule (frontmatter, targets, rubrics, examples) without calling a model, lists the packs and rules (built-in packs included), and
prints every problem with its file and line. Exit 0 when there is no error (warnings are
allowed), 2 otherwise.

With --rules DIR, DIR is a rules folder (its subfolders are packs) checked on its own; the
configuration is checked too only when --config is given.

Flags:
`

// validateOptions are the options of the "validate" command.
type validateOptions struct {
	rules, config string // --rules, --config
	help          string // the help to print instead of checking, for --help
}

// validateCommand is the "validate" command.
func (a *app) validateCommand(ctx context.Context, args []string) error {
	o, err := parseValidate(args)
	if err != nil {
		return a.usageError("vectorlint validate", err)
	}
	return a.runValidate(ctx, o)
}

// parseValidate fills the options of "validate" from args and checks them.
func parseValidate(args []string) (*validateOptions, error) {
	o := &validateOptions{}
	fs := pflag.NewFlagSet("vectorlint validate", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&o.rules, "rules", "", "rules folder to check instead of the configuration's RulesPath")
	fs.StringVar(&o.config, "config", "", "configuration file (default: discovered as for linting)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = validateUsage + fs.FlagUsages()
			return o, nil
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	return o, nil
}

// runValidate checks the project as validate's options ask.
func (a *app) runValidate(ctx context.Context, o *validateOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	rulesDir, configFlag := o.rules, o.config
	opts := config.ProjectOptions{}
	if rulesDir != "" {
		// The project root: the configuration's folder, else the working directory; a rules
		// folder named outside it is the user's choice (lint.LoadProject).
		opts.RulesPath, opts.RootDir, opts.WorkDir = a.abs(rulesDir), a.dir, a.dir
		if configFlag != "" {
			opts.ConfigPath = a.abs(configFlag)
			opts.RootDir = filepath.Dir(opts.ConfigPath)
			opts.StyleGuidePath = config.FindStyleGuide(a.dir, opts.ConfigPath)
			opts.DirectivePath = config.FindDirective(a.dir, opts.ConfigPath)
		}
	} else {
		found, err := config.FindProject(a.dir, configFlag, a.getenv("VECTORLINT_CONFIG"))
		if err != nil {
			fmt.Fprintf(a.stderr, "vectorlint validate: %v\n", err)
			return errFailed
		}
		opts = found
	}
	proj, err := config.LoadProject(opts)
	if proj != nil { // also with problems: its root is open
		defer proj.Close()
	}
	var problems finding.Problems
	if err != nil {
		ps, ok := config.IsProblems(err)
		if !ok {
			fmt.Fprintf(a.stderr, "vectorlint validate: %v\n", err)
			return errFailed
		}
		problems = ps
	} else {
		problems = proj.Warnings
	}
	searchModel := rules.SearchModelConfigured(a.lookupEnv)
	nRules := 0
	for _, p := range proj.Packs {
		for _, r := range p.Rules {
			nRules++
			if pr := rules.CheckRunnable(r, searchModel); pr != nil {
				problems = append(problems, *pr)
			}
		}
	}
	problems.Sort()

	// The listing quotes file and rule names: human text, escaped as a whole.
	stdout := a.humanStdout()
	defer stdout.Flush()
	switch {
	case proj.ZeroConfig:
		fmt.Fprintf(stdout, "config: none (zero-config: every Markdown file is checked against %s)\n", a.rel(proj.StyleGuidePath))
	case proj.Config != nil:
		fmt.Fprintf(stdout, "config: %s\n", a.rel(proj.Config.Path))
	}
	a.printGuides(stdout, proj)
	rulesPath := opts.RulesPath
	if rulesPath == "" && proj.Config != nil {
		rulesPath = proj.Config.RulesPath
	}
	if rulesPath != "" {
		fmt.Fprintf(stdout, "rules: %s\n", a.rel(rulesPath))
	} else {
		fmt.Fprintln(stdout, "rules: none (RulesPath is not set)")
	}
	a.printPacks(stdout, proj)

	a.printProblems(problems)
	nErr, nWarn := len(problems.Errors()), len(problems.Warnings())
	scope := fmt.Sprintf("%s, %s", pluralize(len(proj.Packs), "pack"), pluralize(nRules, "valid rule"))
	switch {
	case nErr > 0:
		fmt.Fprintf(stdout, "✖ %s and %s (%s).\n", pluralize(nErr, "error"), pluralize(nWarn, "warning"), scope)
		return errFailed
	case nWarn > 0:
		fmt.Fprintf(stdout, "✓ %s, no errors, %s.\n", scope, pluralize(nWarn, "warning"))
	default:
		fmt.Fprintf(stdout, "✓ %s, no problems.\n", scope)
	}
	return nil
}

// thousands formats n with comma separators ("4,000").
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// abs makes a command-line path absolute against the working directory.
func (a *app) abs(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return filepath.Join(a.dir, path)
}

// printGuides lists the project's style guide and directive with their sizes.
func (a *app) printGuides(stdout io.Writer, proj *config.Project) {
	if proj.StyleGuidePath != "" {
		size := "empty, ignored"
		if proj.ZeroConfig {
			size = "empty"
		}
		if proj.StyleGuide != "" {
			size = fmt.Sprintf("~%s tokens, sent with every rule", thousands(setup.EstimateTokens(proj.StyleGuide)))
		}
		fmt.Fprintf(stdout, "style guide: %s (%s)\n", a.rel(proj.StyleGuidePath), size)
	}
	if proj.DirectivePath != "" {
		size := "empty, ignored"
		if proj.Directive != "" {
			size = fmt.Sprintf("~%s tokens, sent with every rule", thousands(setup.EstimateTokens(proj.Directive)))
		}
		fmt.Fprintf(stdout, "directive: %s (%s)\n", a.rel(proj.DirectivePath), size)
	}
}

// printPacks lists the project's rule packs and rules, with the original VectorLint's ids.
func (a *app) printPacks(stdout io.Writer, proj *config.Project) {
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	for _, p := range proj.Packs {
		origin := ""
		if p.Builtin {
			origin = "built-in, "
		}
		fmt.Fprintf(tw, "pack %s (%s%s)\n", p.Name, origin, pluralize(len(p.Rules), "rule"))
		for _, r := range p.Rules {
			sev := r.Severity.String()
			if r.Severity == finding.SeverityUnset {
				sev = "default severity"
			}
			fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", r.FullID(), lint.KindOf(r).Name(), sev, a.rel(r.Path))
		}
		// The ids the original VectorLint gives these rules, which vectorlint.ini may use.
		var aliases []string
		for _, r := range p.Rules {
			for _, id := range r.Aliases {
				aliases = append(aliases, p.Name+"."+id+" = "+r.FullID())
			}
		}
		if len(aliases) > 0 {
			fmt.Fprintf(tw, "  aliases (the original VectorLint's ids): %s\n", strings.Join(aliases, ", "))
		}
	}
	tw.Flush()
}
