package main

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"; otherwise it is taken
// from the module's build information.
var version = ""

// versionString returns the version of this binary.
func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func (a *app) runVersion(args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(a.stderr, "vectorlint version: unexpected argument %q\n", args[0])
		return exitFailure
	}
	fmt.Fprintf(a.stdout, "vectorlint %s\n", versionString())
	return exitOK
}
