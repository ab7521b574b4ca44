package gitdiff

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"unicode"
)

// ErrNoGit is returned when the git program cannot be found on PATH.
var ErrNoGit = errors.New("git is not installed or not on PATH")

// NotRepositoryError reports a folder that is not inside a git working tree.
type NotRepositoryError struct {
	Dir string
	// Git is git's own explanation (its standard error), e.g. "fatal: not a git repository".
	Git string
}

// Error names the folder and quotes git.
func (e *NotRepositoryError) Error() string {
	msg := e.Dir + " is not inside a git working tree"
	if e.Git != "" {
		msg += " (git: " + e.Git + ")"
	}
	return msg
}

// BadRefError is a REF that cannot name a revision safely (empty, an option, control
// characters).
type BadRefError struct {
	Ref    string
	Reason string
}

// Error names the REF and what is wrong with it.
func (e *BadRefError) Error() string { return fmt.Sprintf("REF %q: %s", e.Ref, e.Reason) }

// UnknownRefError is a REF that names no commit of the repository.
type UnknownRefError struct {
	Ref string
}

// Error names the REF and the usual cause in CI.
func (e *UnknownRefError) Error() string {
	return fmt.Sprintf("unknown revision %q: not a branch, tag or commit of this repository (a shallow CI checkout may not have it: fetch it, or check out with fetch-depth: 0)", e.Ref)
}

// NoMergeBaseError is a REF that shares no history with HEAD.
type NoMergeBaseError struct {
	Ref string
}

// Error names the REF.
func (e *NoMergeBaseError) Error() string {
	return fmt.Sprintf("%q and HEAD have no common ancestor (no merge base): a shallow checkout may have cut the history (check out with fetch-depth: 0)", e.Ref)
}

// Error is a git command that failed.
type Error struct {
	Args   []string
	Stderr string
	Err    error
}

// Error names the command and quotes git.
func (e *Error) Error() string {
	msg := "git " + strings.Join(e.Args, " ") + ": " + e.Err.Error()
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

// Unwrap returns the process error.
func (e *Error) Unwrap() error { return e.Err }

// Repo is a git working tree.
type Repo struct {
	// Top is the working tree's top folder: Dir joined with the way up git gives
	// (--show-cdup), so it is written the way Dir is (not resolved through symbolic links) and
	// compares with paths built from Dir.
	Top string
	// Prefix is Dir relative to Top, with slashes and a trailing slash ("" at the top).
	Prefix string
	// Env is the environment git runs with; nil means the process's.
	Env []string
}

// Open returns the working tree that holds dir (absolute).
func Open(ctx context.Context, dir string, env []string) (*Repo, error) {
	r := &Repo{Env: env}
	out, err := r.run(ctx, dir, "rev-parse", "--show-cdup", "--show-prefix")
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) {
			return nil, &NotRepositoryError{Dir: dir, Git: ge.Stderr}
		}
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	if len(lines) != 2 {
		return nil, &Error{Args: []string{"rev-parse", "--show-cdup", "--show-prefix"}, Err: fmt.Errorf("expected two lines, found %q", out)}
	}
	r.Top = filepath.Clean(filepath.Join(dir, filepath.FromSlash(lines[0])))
	r.Prefix = lines[1]
	return r, nil
}

// CheckRef rejects a REF that git could read as something else: empty, starting with "-" (an
// option), or holding control characters or white space.
func CheckRef(ref string) error {
	switch {
	case ref == "":
		return &BadRefError{Ref: ref, Reason: "expected a branch, tag or commit, found nothing"}
	case strings.HasPrefix(ref, "-"):
		return &BadRefError{Ref: ref, Reason: "a revision may not start with \"-\" (it would be read as an option)"}
	case strings.ContainsFunc(ref, func(r rune) bool { return unicode.IsControl(r) || unicode.IsSpace(r) }):
		return &BadRefError{Ref: ref, Reason: "a revision may not hold white space or control characters"}
	}
	return nil
}

// MergeBase returns the commit (its full hash) where HEAD's history and ref's meet: what a
// pull request's changes are measured from.
func (r *Repo) MergeBase(ctx context.Context, ref string) (string, error) {
	if err := CheckRef(ref); err != nil {
		return "", err
	}
	out, err := r.run(ctx, r.Top, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		var ge *Error
		if errors.As(err, &ge) && ge.Stderr == "" {
			return "", &UnknownRefError{Ref: ref}
		}
		return "", err
	}
	commit := strings.TrimSpace(string(out))
	out, err = r.run(ctx, r.Top, "merge-base", commit, "HEAD")
	if err != nil {
		var ge *Error
		var ee *exec.ExitError
		if errors.As(err, &ge) && errors.As(ge.Err, &ee) && ee.ExitCode() == 1 && ge.Stderr == "" {
			return "", &NoMergeBaseError{Ref: ref}
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Changes returns the files of the working tree that differ from base (a commit hash): what
// git diff base shows (renames followed, deleted files included with status Deleted), and the
// untracked files that are not ignored (status Untracked).
func (r *Repo) Changes(ctx context.Context, base string) ([]Change, error) {
	if err := CheckRef(base); err != nil {
		return nil, err
	}
	out, err := r.run(ctx, r.Top, "-c", "core.quotePath=false", "diff", "-z", "--name-status", "-M",
		"--no-ext-diff", "--no-textconv", "--no-color", "--ignore-submodules", base, "--")
	if err != nil {
		return nil, err
	}
	changes, err := ParseNameStatus(out)
	if err != nil {
		return nil, err
	}
	out, err = r.run(ctx, r.Top, "ls-files", "-z", "--others", "--exclude-standard")
	if err != nil {
		return nil, err
	}
	return append(changes, ParseNames(out)...), nil
}

// ChangedLines returns the lines of c's file in the working tree that differ from base. An
// added or untracked file is changed as a whole: nil with whole set.
func (r *Repo) ChangedLines(ctx context.Context, base string, c Change) (lines Lines, whole bool, err error) {
	switch c.Status {
	case Added, Untracked:
		return nil, true, nil
	case Deleted:
		return nil, false, nil
	}
	if err := CheckRef(base); err != nil {
		return nil, false, err
	}
	args := []string{"--literal-pathspecs", "diff", "-U0", "-M", "--no-ext-diff", "--no-textconv", "--no-color", base, "--"}
	if c.OldPath != "" {
		args = append(args, c.OldPath)
	}
	args = append(args, c.Path)
	out, err := r.run(ctx, r.Top, args...)
	if err != nil {
		return nil, false, err
	}
	lines, err = ParseHunks(out)
	return lines, false, err
}

// Show returns the content of a file (a path relative to Top, with slashes) at a commit.
func (r *Repo) Show(ctx context.Context, commit, file string) ([]byte, error) {
	if err := CheckRef(commit); err != nil {
		return nil, err
	}
	return r.run(ctx, r.Top, "cat-file", "blob", commit+":"+path.Clean(file))
}

// Abs is the absolute path of a path relative to Top (with slashes), written as Top is.
func (r *Repo) Abs(rel string) string { return filepath.Join(r.Top, filepath.FromSlash(rel)) }

// run runs git with args in dir and returns its standard output.
func (r *Repo) run(ctx context.Context, dir string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = r.Env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if errors.Is(err, exec.ErrNotFound) {
			return nil, ErrNoGit
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Args: args, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	return stdout.Bytes(), nil
}
