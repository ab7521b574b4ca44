package main

import (
	"github.com/vectorlint/vectorlint/lint"
)

// loadProject finds the configuration (--config, $VECTORLINT_CONFIG, else an upward search from
// the working directory) and loads it with its rule packs. Every command that lints goes through
// here, so discovery rules (built-in pack, VECTORLINT.md) live in one place.
func (a *app) loadProject(configFlag string) (*lint.Project, error) {
	cfgPath, err := lint.FindConfig(a.dir, configFlag, a.getenv("VECTORLINT_CONFIG"))
	if err != nil {
		return nil, err
	}
	return lint.LoadProject(lint.ProjectOptions{ConfigPath: cfgPath})
}
