package main

import (
	"context"
	"fmt"
)

// runEvaluate is the "evaluate" command. Not built yet: see the issues.
func (a *app) runEvaluate(ctx context.Context, args []string) int {
	fmt.Fprintln(a.stderr, "vectorlint: the evaluate command is not built yet")
	return exitFailure
}
