package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// cacheKey is "vectorlint cache key [--config FILE]": the project's fingerprint
// (config.Project.Fingerprint), which the GitHub Action keys its saved reply cache with.
func (a *app) cacheKey(args []string) int {
	const name = "vectorlint cache key"
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	config := fs.String("config", "", "configuration file (default: found as the lint command finds it)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(a.stdout, cacheUsage+fs.FlagUsages())
			return exitOK
		}
		return a.usageError(name, err)
	}
	if fs.NArg() > 0 {
		return a.usageError(name, fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	proj, err := a.loadProject(*config)
	if err != nil {
		a.printProblemsOrError(err)
		return exitFailure
	}
	defer proj.Close()
	key, err := proj.Fingerprint()
	if err != nil {
		fmt.Fprintf(a.stderr, "%s: %v\n", name, err)
		return exitFailure
	}
	fmt.Fprintln(a.stdout, key)
	return exitOK
}
