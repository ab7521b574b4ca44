//go:build bench

// Command bench is the benchmark program of docs/benchmarks.md (package internal/bench):
//
//	go run -tags bench ./internal/cmd/bench -quick
//
// It is behind the build tag bench so that `go install ./...`, which pre-commit runs to install
// the hook (docs/integrations.md), builds the vectorlint command only.
package main

import (
	"os"

	"github.com/vectorlint/vectorlint/internal/bench"
)

func main() { os.Exit(bench.Main(os.Args[1:], os.Stdout, os.Stderr)) }
