package main

import (
	"context"
	"fmt"
)

// runValidate is the "validate" command. Not built yet: see the issues.
func (a *app) runValidate(ctx context.Context, args []string) int {
	fmt.Fprintln(a.stderr, "vectorlint: the validate command is not built yet")
	return exitFailure
}
