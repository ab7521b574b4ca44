package main

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
)

// sourceVersion is the version of this source tree, printed by a binary built from a checkout
// (go build, go run, go install ./cmd/vectorlint): bump it with each release tag. A binary
// installed with "go install github.com/vectorlint/vectorlint/cmd/vectorlint@vX.Y.Z" prints
// that module version instead (spec/linter.md §1: a version number, never "dev").
const sourceVersion = "0.1.0"

// version, when set at build time (-ldflags "-X main.version=v1.2.3"), replaces both.
var version = ""

// versionString returns the version of this binary, without a leading "v": the version set at
// build time, else the module's release version from the build information, else
// sourceVersion.
func versionString() string {
	if version != "" {
		return strings.TrimPrefix(version, "v")
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v, ok := releaseVersion(bi.Main.Version); ok {
			return v
		}
	}
	return sourceVersion
}

// releaseVersion returns a module version without its "v" when it is a release or a
// pre-release ("v1.2.3", "v1.3.0-rc.1"), the version "go install …@vX.Y.Z" records. Anything
// else is not one: "(devel)" and "" (a build from a checkout, or go test), and the
// pseudo-versions Go derives from a commit ("v0.0.0-20250102150405-abcdef123456", with
// "+dirty" for uncommitted changes), which say less than sourceVersion does.
func releaseVersion(v string) (string, bool) {
	semver := regexp.MustCompile(`^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\+[0-9A-Za-z.-]+)?$`)
	pseudo := regexp.MustCompile(`(?:^|[-.])(?:0\.)?\d{14}-[0-9a-f]{12}(?:\+[0-9A-Za-z.-]+)?$`)
	m := semver.FindStringSubmatch(v)
	if m == nil || pseudo.MatchString(v) {
		return "", false
	}
	return m[1], true
}

func (a *app) runVersion(args []string) int {
	if len(args) > 0 {
		fmt.Fprintf(a.stderr, "vectorlint version: unexpected argument %q\n", args[0])
		return exitFailure
	}
	a.printVersion()
	return exitOK
}

// printVersion prints "vectorlint 1.2.3" (vectorlint version, --version, -V).
func (a *app) printVersion() { fmt.Fprintf(a.stdout, "vectorlint %s\n", versionString()) }
