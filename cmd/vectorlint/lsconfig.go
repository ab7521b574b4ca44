package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/safetext"
)

const lsConfigUsage = `Usage: vectorlint ls-config [--config FILE] [FILE...]

ls-config prints the resolved configuration as JSON, as Vale's ls-config does: the configuration
file found (or zero-config), every global setting with its default, the packs and the sections;
and, for each FILE, the sections that match it, the packs they run, each rule with its effective
severity and strictness, the rules turned off and by which line, and the skipped scopes and
ignore patterns. A FILE need not exist: its path is what the sections match.
`

// lsConfigOptions are the options of "vectorlint ls-config".
type lsConfigOptions struct {
	config string   // --config
	files  []string // the FILE operands
	help   string   // the help to print instead of listing, for --help
}

// lsConfigCommand is "vectorlint ls-config [FILE...]".
func (a *app) lsConfigCommand(args []string) error {
	o, err := parseLsConfig(args)
	if err != nil {
		return a.usageError("vectorlint ls-config", err)
	}
	return a.runLsConfig(o)
}

// parseLsConfig fills the options of "vectorlint ls-config" from args.
func parseLsConfig(args []string) (*lsConfigOptions, error) {
	fs := pflag.NewFlagSet("vectorlint ls-config", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	o := &lsConfigOptions{}
	fs.StringVar(&o.config, "config", "", "configuration file (default: found as the lint command finds it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = fmt.Sprintf("%s\nFlags:\n%s", lsConfigUsage, fs.FlagUsages())
			return o, nil
		}
		return nil, err
	}
	o.files = fs.Args()
	return o, nil
}

// runLsConfig lists the configuration as ls-config's options ask.
func (a *app) runLsConfig(o *lsConfigOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	proj, err := a.loadProject(o.config)
	if err != nil {
		a.printProblemsOrError(err)
		return errFailed
	}
	defer proj.Close()
	base := a.dir // what the sections' globs are relative to
	if proj.Config != nil && proj.Config.Dir != "" {
		base = proj.Config.Dir
	}
	files := o.files
	rels := make([]string, len(files))
	for i, f := range files {
		rel, err := filepath.Rel(base, a.abs(f))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			rel = a.abs(f) // outside the project: no section can match a path that leaves it
		}
		rels[i] = rel
	}
	l := proj.ListConfig(files, rels)
	l.Config, l.RulesPath, l.StyleGuide, l.Directive = a.rel(l.Config), a.rel(l.RulesPath), a.rel(l.StyleGuide), a.rel(l.Directive)
	for i := range l.Packs {
		l.Packs[i].Dir = a.rel(l.Packs[i].Dir)
	}
	for i := range l.Files {
		for j := range l.Files[i].Rules {
			if r := &l.Files[i].Rules[j]; !strings.HasPrefix(r.File, "(built-in)") {
				r.File = a.rel(r.File)
			}
		}
	}
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint ls-config: %v\n", err)
		return errFailed
	}
	// Paths, globs and rule ids come from the repository: written through the escaping layer
	// every JSON output uses (spec/trust.md §3).
	w := safetext.NewJSONWriter(a.stdout)
	w.Write(append(b, '\n'))
	if err := w.Flush(); err != nil {
		fmt.Fprintf(a.stderr, "vectorlint ls-config: %v\n", err)
		return errFailed
	}
	return nil
}
