package main

import (
	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/config"
)

// loadProject finds the project (config.FindProject: --config, $VECTORLINT_CONFIG, else an
// upward search from the working directory for the configuration file; VECTORLINT.md in the
// working directory or beside the configuration as the style guide; zero-config when there is
// a style guide and no configuration file) and loads it with its rule packs, built-in packs
// included. Every command that lints goes through here, so discovery lives in one place.
//
// Two kinds of warning are printed whatever the verbosity: those of the style guide and the
// project directive (they are sent with every call, so their cost matters on every run) and the
// configuration's own (an
// override that names no rule or no setting, a setting a rule has no use for: a configuration
// written for the original VectorLint runs, but the user learns what it does not do;
// spec/linter.md §1–2). Other warnings are the caller's to print.
//
// The project holds the command's one root-confined handle on the project root (Project.Root,
// spec/trust.md §6), through which every repository file is read and written: the caller
// closes it (Project.Close).
func (a *app) loadProject(configFlag string) (*config.Project, error) {
	opts, err := config.FindProject(a.dir, configFlag, a.getenv("VECTORLINT_CONFIG"))
	if err != nil {
		return nil, err
	}
	proj, err := config.LoadProject(opts)
	if err != nil {
		proj.Close()
		return nil, err
	}
	var always, others finding.Problems
	for _, p := range proj.Warnings {
		if p.Level == finding.LevelWarning && p.File != "" && (p.File == proj.StyleGuidePath || p.File == proj.DirectivePath ||
			proj.Config != nil && p.File == proj.Config.Path) {
			always = append(always, p)
		} else {
			others = append(others, p)
		}
	}
	a.printProblems(always)
	proj.Warnings = others
	return proj, nil
}
