package main

import (
	"context"
	"fmt"
)

// runLint is the "lint" command. Not built yet: see the issues.
func (a *app) runLint(ctx context.Context, args []string) int {
	fmt.Fprintln(a.stderr, "vectorlint: the lint command is not built yet")
	return exitFailure
}
