package main

import (
	"runtime/debug"
	"testing"
)

// TestBuildFacts: what the version command prints for each way a binary is built — a release
// build's stamped values (.goreleaser.yaml), go build in a git checkout (vcs.*), go install
// …@vX.Y.Z (a module release version) and …@<commit-sha> (a pseudo-version holding the
// commit's time and hash prefix), go run and go test (nothing). integration.TestVersionBuilds
// builds real binaries both ways.
func TestBuildFacts(t *testing.T) {
	t.Parallel()
	const sha = "0123456789abcdef0123456789abcdef01234567"
	vcs := func(rev, when, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: when}, {Key: "vcs.modified", Value: modified}}
	}
	info := func(version string, settings []debug.BuildSetting) *debug.BuildInfo {
		bi := &debug.BuildInfo{Path: "github.com/vectorlint/vectorlint/cmd/vectorlint", Settings: settings}
		bi.Main.Path, bi.Main.Version = "github.com/vectorlint/vectorlint", version
		return bi
	}
	tests := []struct {
		name  string
		stamp buildStamp
		bi    *debug.BuildInfo
		want  string
	}{
		{"release build: every value stamped", buildStamp{"1.2.3", sha, "2026-03-04T05:06:07Z"}, info("(devel)", nil),
			"vectorlint 1.2.3 (commit " + sha + ", built 2026-03-04T05:06:07Z)"},
		{"stamped values win over the build information", buildStamp{"v1.2.3", sha, "2026-03-04T05:06:07Z"},
			info("v9.9.9", vcs("fedcba9876543210fedcba9876543210fedcba98", "2020-01-01T00:00:00Z", "true")),
			"vectorlint 1.2.3 (commit " + sha + ", built 2026-03-04T05:06:07Z)"},
		// The Action stamps the commit it pinned and builds a checkout of it: the checkout's own
		// revision, time and state describe another commit and are not mixed in.
		{"a stamped commit over another checkout's information", buildStamp{commit: sha},
			info("(devel)", vcs("fedcba9876543210fedcba9876543210fedcba98", "2020-01-01T00:00:00Z", "true")),
			"vectorlint " + sourceVersion + " (commit " + sha + ")"},
		{"a stamped commit the checkout is at", buildStamp{commit: sha},
			info("(devel)", vcs(sha, "2020-01-01T00:00:00Z", "true")),
			"vectorlint " + sourceVersion + " (commit " + sha + ", with uncommitted changes, committed 2020-01-01T00:00:00Z)"},
		{"what GoReleaser could not learn is stamped as none", buildStamp{"0.0.1-SNAPSHOT-none", "none", "2026-03-04T05:06:07Z"},
			info("(devel)", vcs(sha, "2026-01-02T15:04:05Z", "false")),
			"vectorlint 0.0.1-SNAPSHOT-none (commit " + sha + ", built 2026-03-04T05:06:07Z)"},
		{"a snapshot's version", buildStamp{"0.1.0-SNAPSHOT-0123456", sha, "2026-03-04T05:06:07Z"}, nil,
			"vectorlint 0.1.0-SNAPSHOT-0123456 (commit " + sha + ", built 2026-03-04T05:06:07Z)"},
		{"go build in a clean checkout", buildStamp{}, info("v0.0.0-20260102150405-0123456789ab", vcs(sha, "2026-01-02T15:04:05Z", "false")),
			"vectorlint " + sourceVersion + " (commit " + sha + ", committed 2026-01-02T15:04:05Z)"},
		{"go build with uncommitted changes", buildStamp{}, info("v0.0.0-20260102150405-0123456789ab+dirty", vcs(sha, "2026-01-02T15:04:05Z", "true")),
			"vectorlint " + sourceVersion + " (commit " + sha + ", with uncommitted changes, committed 2026-01-02T15:04:05Z)"},
		{"go build at a tag", buildStamp{}, info("v1.4.0", vcs(sha, "2026-01-02T15:04:05Z", "false")),
			"vectorlint 1.4.0 (commit " + sha + ", committed 2026-01-02T15:04:05Z)"},
		{"go install …@vX.Y.Z", buildStamp{}, info("v1.4.0", nil), "vectorlint 1.4.0 (tag v1.4.0)"},
		{"go install …@<commit-sha>", buildStamp{}, info("v0.0.0-20260102150405-0123456789ab", nil),
			"vectorlint " + sourceVersion + " (commit 0123456789ab, committed 2026-01-02T15:04:05Z)"},
		{"go install …@<commit-sha> after a tag", buildStamp{}, info("v1.4.1-0.20260102150405-0123456789ab", nil),
			"vectorlint " + sourceVersion + " (commit 0123456789ab, committed 2026-01-02T15:04:05Z)"},
		{"go run, go test, -buildvcs=false", buildStamp{}, info("(devel)", []debug.BuildSetting{{Key: "CGO_ENABLED", Value: "0"}}),
			"vectorlint " + sourceVersion + " (commit unknown)"},
		{"no build information", buildStamp{}, nil, "vectorlint " + sourceVersion + " (commit unknown)"},
		{"only the version stamped", buildStamp{version: "2.0.0"}, info("(devel)", vcs(sha, "2026-01-02T15:04:05Z", "false")),
			"vectorlint 2.0.0 (commit " + sha + ", committed 2026-01-02T15:04:05Z)"},
	}
	for _, tt := range tests {
		if got := readBuildFacts(tt.stamp, tt.bi).String(); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}
