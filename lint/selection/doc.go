// Package selection chooses what a lint run evaluates and how much it may spend
// (spec/linter.md): the files and lines changed since a git ref (FindChanges,
// Changes.Keep), one share of the files of a run split into jobs (Shard), and the limits on a
// run's estimated cost (Budget, PlanCost).
//
//	changed.go  --changed and --changed-lines: what git says changed, and what that selects
//	shard.go    --shard K/N
//	budget.go   --max-calls and --max-cost against a plan's estimate
//
// The engine (package lint) applies a selection to its plan (lint.SelectChanged, Plan.Shard)
// and estimates the cost (lint.EstimateCost).
package selection
