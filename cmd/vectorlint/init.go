package main

import (
	"context"
	"fmt"
)

// runInit is the "init" command. Not built yet: see the issues.
func (a *app) runInit(ctx context.Context, args []string) int {
	fmt.Fprintln(a.stderr, "vectorlint: the init command is not built yet")
	return exitFailure
}
