package main

import (
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/rules"
)

// loadProject finds the project (lint.FindProject: --config, $VECTORLINT_CONFIG, else an
// upward search from the working directory for the configuration file; VECTORLINT.md in the
// working directory or beside the configuration as the style guide; zero-config when there is
// a style guide and no configuration file) and loads it with its rule packs, built-in packs
// included. Every command that lints goes through here, so discovery lives in one place.
//
// A warning about the style guide's size is printed whatever the verbosity: the guide is sent
// with every call, so its cost matters on every run. Other warnings are the caller's to print.
func (a *app) loadProject(configFlag string) (*lint.Project, error) {
	opts, err := lint.FindProject(a.dir, configFlag, a.getenv("VECTORLINT_CONFIG"))
	if err != nil {
		return nil, err
	}
	proj, err := lint.LoadProject(opts)
	if err != nil {
		return nil, err
	}
	var guide, others rules.Problems
	for _, p := range proj.Warnings {
		if p.File == proj.StyleGuidePath && p.Level == rules.LevelWarning {
			guide = append(guide, p)
		} else {
			others = append(others, p)
		}
	}
	a.printProblems(guide)
	proj.Warnings = others
	return proj, nil
}
