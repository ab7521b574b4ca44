package gitdiff

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// lines is a document of n numbered lines.
func lines(n int, edit map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := edit[i]; ok {
			b.WriteString(s)
			continue
		}
		b.WriteString("line " + string(rune('a'+i%26)) + " number " + strings.Repeat("x", i) + "\n")
	}
	return b.String()
}

// branchRepo builds a repository with main and a feature branch that modifies, adds, renames
// (with an edit), deletes and leaves files alone, while main moves on after the branch point.
func branchRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	testutil.WriteFiles(t, dir, map[string]string{
		"docs/keep.md":     lines(10, nil),
		"docs/edit.md":     lines(20, nil),
		"docs/old name.md": lines(30, nil),
		"docs/gone.md":     lines(5, nil),
		"README.md":        "# Project\n",
		".gitignore":       "*.log\n",
	})
	testutil.GitCommitAll(t, dir, "base")
	testutil.Git(t, dir, "checkout", "-q", "-b", "feature")
	testutil.WriteFiles(t, dir, map[string]string{
		"docs/edit.md":      lines(20, map[int]string{3: "changed three\n", 15: "changed fifteen\nand a new line\n"}),
		"docs/new.md":       "# New\n\nText.\n",
		"docs/new name.md":  lines(30, map[int]string{30: "last line edited\n"}),
		"docs/::error::.md": "# Hostile name\n",
	})
	testutil.Git(t, dir, "rm", "-q", "docs/old name.md", "docs/gone.md")
	testutil.GitCommitAll(t, dir, "feature work")
	// main moves on: its later change must not count as the feature's.
	testutil.Git(t, dir, "checkout", "-q", "main")
	testutil.WriteFiles(t, dir, map[string]string{"docs/keep.md": lines(10, map[int]string{1: "main changed this\n"})})
	testutil.GitCommitAll(t, dir, "main moves on")
	testutil.Git(t, dir, "checkout", "-q", "feature")
	return dir
}

func TestRepoChangesSinceMergeBase(t *testing.T) {
	t.Parallel()
	dir := branchRepo(t)
	ctx := context.Background()
	r, err := Open(ctx, filepath.Join(dir, "docs"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Top != dir || r.Prefix != "docs/" {
		t.Errorf("Top %q, Prefix %q; want %q, docs/", r.Top, r.Prefix, dir)
	}
	base, err := r.MergeBase(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.TrimSpace(testutil.Git(t, dir, "rev-parse", "main~1"))
	if base != want {
		t.Fatalf("merge base %s, want main~1 = %s", base, want)
	}

	// Uncommitted work counts too: an edit in the working tree and an untracked file (not an
	// ignored one).
	testutil.WriteFiles(t, dir, map[string]string{"README.md": "# Project\n\nMore.\n", "docs/draft.md": "draft\n", "debug.log": "x\n"})

	changes, err := r.Changes(ctx, base)
	if err != nil {
		t.Fatal(err)
	}
	wantChanges := []Change{
		{Status: Modified, Path: "README.md"},
		{Status: Added, Path: "docs/::error::.md"},
		{Status: Modified, Path: "docs/edit.md"},
		{Status: Deleted, Path: "docs/gone.md"},
		{Status: Renamed, Score: 95, OldPath: "docs/old name.md", Path: "docs/new name.md"},
		{Status: Added, Path: "docs/new.md"},
		{Status: Untracked, Path: "docs/draft.md"},
	}
	if !reflect.DeepEqual(changes, wantChanges) {
		t.Fatalf("changes:\n%+v\nwant\n%+v", changes, wantChanges)
	}

	for _, tt := range []struct {
		change Change
		lines  Lines
		whole  bool
	}{
		{wantChanges[2], Lines{{3, 3}, {15, 16}}, false},
		{wantChanges[4], Lines{{30, 30}}, false}, // the rename is followed: only the edited line
		{wantChanges[5], nil, true},
		{wantChanges[6], nil, true},
		{wantChanges[3], nil, false},
		{wantChanges[0], Lines{{2, 3}}, false},
	} {
		got, whole, err := r.ChangedLines(ctx, base, tt.change)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, tt.lines) || whole != tt.whole {
			t.Errorf("%s: lines %v whole %v, want %v %v", tt.change.Path, got, whole, tt.lines, tt.whole)
		}
	}

	old, err := r.Show(ctx, base, "docs/old name.md")
	if err != nil || string(old) != lines(30, nil) {
		t.Errorf("Show: %q, %v", old, err)
	}
}

func TestRepoPatternCharactersInNames(t *testing.T) {
	t.Parallel()
	// A name with pathspec magic must name only itself: "*.md" must not select every file.
	dir := t.TempDir()
	testutil.GitInit(t, dir)
	testutil.WriteFiles(t, dir, map[string]string{"*.md": "one\ntwo\n", "a.md": "a\n", ":(glob)b.md": "b\n"})
	testutil.GitCommitAll(t, dir, "base")
	testutil.WriteFiles(t, dir, map[string]string{"*.md": "one\nTWO\n", "a.md": "a\nA\nAA\n", ":(glob)b.md": "b\nB\n"})
	ctx := context.Background()
	r, err := Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Lines{"*.md": {{2, 2}}, ":(glob)b.md": {{2, 2}}} {
		got, _, err := r.ChangedLines(ctx, "HEAD", Change{Status: Modified, Path: name})
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, %v; want %v", name, got, err, want)
		}
	}
}

func TestRepoErrors(t *testing.T) {
	testutil.RequireGit(t)
	ctx := context.Background()
	outside := t.TempDir()
	_, err := Open(ctx, outside, nil)
	var nr *NotRepositoryError
	if !errors.As(err, &nr) || !strings.Contains(err.Error(), outside+" is not inside a git working tree (git: fatal: not a git repository") {
		t.Errorf("Open outside a repository: %v", err)
	}

	dir := branchRepo(t)
	r, err := Open(ctx, dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.MergeBase(ctx, "no-such-branch")
	var ur *UnknownRefError
	if !errors.As(err, &ur) || err.Error() != `unknown revision "no-such-branch": not a branch, tag or commit of this repository (a shallow CI checkout may not have it: fetch it, or check out with fetch-depth: 0)` {
		t.Errorf("unknown ref: %v", err)
	}
	_, err = r.MergeBase(ctx, "--output=x")
	var br *BadRefError
	if !errors.As(err, &br) {
		t.Errorf("option as ref: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); err == nil {
		t.Error("git wrote a file named by the REF")
	}

	// An orphan branch shares no history with HEAD.
	testutil.Git(t, dir, "checkout", "-q", "--orphan", "lonely")
	testutil.GitCommitAll(t, dir, "unrelated")
	testutil.Git(t, dir, "checkout", "-q", "feature")
	_, err = r.MergeBase(ctx, "lonely")
	var nm *NoMergeBaseError
	if !errors.As(err, &nm) {
		t.Errorf("unrelated history: %v", err)
	}

	t.Run("no git", func(t *testing.T) {
		t.Setenv("PATH", t.TempDir())
		_, err := Open(ctx, dir, nil)
		if !errors.Is(err, ErrNoGit) {
			t.Errorf("without git: %v", err)
		}
	})
}
