package main

import (
	"cmp"
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/blueprint"
)

// sourceVersion is the version of this source tree, printed by a binary built from a checkout
// (go build, go run, go install ./cmd/vectorlint): bump it with each release tag. A binary
// installed with "go install github.com/vectorlint/vectorlint/cmd/vectorlint@vX.Y.Z" prints
// that module version instead (spec/linter.md §1: a version number, never "dev").
const sourceVersion = "0.1.0"

// Set at build time by a release build (.goreleaser.yaml's ldflags, docs/integrations.md):
// -X main.version=1.2.3 -X main.commit=<full hash> -X main.date=<RFC 3339 build time>. Each one
// left empty is taken from the build information Go records, when it has it.
var (
	version = ""
	commit  = ""
	date    = ""
)

// versionString returns the version of this binary, without a leading "v": the version set at
// build time, else the module's release version from the build information, else
// sourceVersion. It is the version the reports, the editor server and the user agent carry;
// only the version command reads the rest of the build information (buildFacts).
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

// semverRE matches a module release or pre-release version; pseudoRE the tail of a
// pseudo-version (its commit time and 12-digit commit hash prefix,
// https://go.dev/ref/mod#pseudo-versions). They are compiled when used, not at start-up, which
// every command pays (docs/benchmarks.md).
const (
	semverRE = `^v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)(?:\+[0-9A-Za-z.-]+)?$`
	pseudoRE = `(?:^|[-.])(?:0\.)?(\d{14})-([0-9a-f]{12})(?:\+[0-9A-Za-z.-]+)?$`
)

// releaseVersion returns a module version without its "v" when it is a release or a
// pre-release ("v1.2.3", "v1.3.0-rc.1"), the version "go install …@vX.Y.Z" records. Anything
// else is not one: "(devel)" and "" (a build from a checkout, or go test), and the
// pseudo-versions Go derives from a commit ("v0.0.0-20250102150405-abcdef123456", with
// "+dirty" for uncommitted changes), which say less than sourceVersion does.
func releaseVersion(v string) (string, bool) {
	m := regexp.MustCompile(semverRE).FindStringSubmatch(v)
	if m == nil || regexp.MustCompile(pseudoRE).MatchString(v) {
		return "", false
	}
	return m[1], true
}

// buildStamp is what a release build sets with -ldflags -X (the variables above).
type buildStamp struct {
	version, commit, date string
}

// buildFacts is what a binary can tell of the source it was built from.
type buildFacts struct {
	version string // without "v"
	// commit is the commit hash: stamped, vcs.revision, or the 12-digit prefix a pseudo-version
	// holds (go install …@<commit-sha>); "" when unknown.
	commit string
	// modified: the working tree had uncommitted changes (vcs.modified, or "+dirty").
	modified bool
	// built is the stamped build time; committed the commit's time (vcs.time, or the time a
	// pseudo-version holds), used when no build time is stamped.
	built, committed string
	// tag is the module release version of go install …@vX.Y.Z, which names its commit.
	tag string
}

// readBuildFacts combines the stamped values with the build information Go records (bi may
// be nil): each stamped value wins, and the build information fills what was not stamped —
// vcs.revision, vcs.time and vcs.modified for a go build in a git checkout, the module version
// for go install …@version.
func readBuildFacts(stamp buildStamp, bi *debug.BuildInfo) buildFacts {
	// GoReleaser stamps "none" for what it could not learn (a snapshot without a git remote).
	for _, v := range []*string{&stamp.version, &stamp.commit, &stamp.date} {
		if *v == "none" || *v == "unknown" {
			*v = ""
		}
	}
	f := buildFacts{version: sourceVersion, commit: stamp.commit, built: stamp.date}
	var mainVersion string
	if bi != nil {
		mainVersion = bi.Main.Version
		if v, ok := releaseVersion(mainVersion); ok {
			f.version, f.tag = v, mainVersion
		}
		var revision, vcsTime string
		var modified bool
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.time":
				vcsTime = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		// The checkout's time and state describe its own commit: with another commit stamped
		// (the Action builds a checkout it names by the commit it pinned), they say nothing of
		// the stamped one.
		if f.commit == "" || f.commit == revision {
			f.commit, f.committed, f.modified = cmp.Or(f.commit, revision), vcsTime, modified
		}
	}
	if m := regexp.MustCompile(pseudoRE).FindStringSubmatch(mainVersion); m != nil {
		if f.commit == "" {
			f.commit = m[2]
		}
		if t, err := time.Parse("20060102150405", m[1]); err == nil && f.committed == "" {
			f.committed = t.UTC().Format(time.RFC3339)
		}
		f.modified = f.modified || strings.Contains(mainVersion, "+dirty")
	}
	if stamp.version != "" {
		f.version = strings.TrimPrefix(stamp.version, "v")
	}
	return f
}

// String is the version command's line: "vectorlint 1.2.3 (commit 0123abc…, built
// 2025-01-02T15:04:05Z)", with only what is known in parentheses; "commit unknown" when no
// commit is (a build without version control information, such as go run's).
func (f buildFacts) String() string {
	var parts []string
	switch {
	case f.commit != "":
		parts = append(parts, "commit "+f.commit)
		if f.modified {
			parts = append(parts, "with uncommitted changes")
		}
	case f.tag != "":
		parts = append(parts, "tag "+f.tag)
	default:
		parts = append(parts, "commit unknown")
	}
	switch {
	case f.built != "":
		parts = append(parts, "built "+f.built)
	case f.committed != "":
		parts = append(parts, "committed "+f.committed)
	}
	return fmt.Sprintf("vectorlint %s (%s)", f.version, strings.Join(parts, ", "))
}

func (a *app) runVersion(args []string) error {
	if len(args) > 0 {
		fmt.Fprintf(a.stderr, "vectorlint version: unexpected argument %q\n", args[0])
		return errFailed
	}
	a.printVersion()
	return nil
}

// printVersion prints the version, commit and build (or commit) time (vectorlint version,
// --version, -V). Only this command reads the whole build information.
// toolVersion is the version and commit --version reports, for result documents.
func toolVersion() blueprint.ToolVersion {
	bi, _ := debug.ReadBuildInfo()
	f := readBuildFacts(buildStamp{version: version, commit: commit, date: date}, bi)
	return blueprint.ToolVersion{Version: f.version, Commit: f.commit}
}

func (a *app) printVersion() {
	bi, _ := debug.ReadBuildInfo()
	f := readBuildFacts(buildStamp{version: version, commit: commit, date: date}, bi)
	fmt.Fprintln(a.stdout, f.String())
}
