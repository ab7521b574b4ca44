package main

import (
	"context"
	"fmt"
)

// runBlueprint is the "blueprint" command. Not built yet: see the issues.
func (a *app) runBlueprint(ctx context.Context, args []string) int {
	fmt.Fprintln(a.stderr, "vectorlint: the blueprint command is not built yet")
	return exitFailure
}
