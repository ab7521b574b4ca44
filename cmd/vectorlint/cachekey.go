package main

import "fmt"

// cacheKey is "vectorlint cache key [--config FILE]": the project's fingerprint
// (lint.Project.Fingerprint), which the GitHub Action keys its saved reply cache with.
func (a *app) cacheKey(configFile string) error {
	proj, err := a.loadProject(configFile)
	if err != nil {
		a.printProblemsOrError(err)
		return errFailed
	}
	defer proj.Close()
	key, err := proj.Fingerprint()
	if err != nil {
		return &commandError{prefix: "vectorlint cache key", err: err}
	}
	fmt.Fprintln(a.stdout, key)
	return nil
}
