package fix

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safefile"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// ChangedError is a file whose content is no longer what was linted: its fixes were made for
// other bytes, so it is left alone.
type ChangedError struct {
	Path string
}

// Error says the file changed and that it was not rewritten.
func (e *ChangedError) Error() string {
	return e.Path + ": changed since it was linted; not rewritten (run vectorlint --fix again)"
}

// NotRewritableError is a file --fix does not rewrite: a symbolic link (renaming over it would
// replace the link, and its target may be anywhere), anything but a regular file, or a file the
// user named outside the project root (read, their choice, but never rewritten).
type NotRewritableError struct {
	Path string
	What string
}

// Error names the file and what it is.
func (e *NotRewritableError) Error() string {
	return e.Path + ": " + e.What + ", not rewritten"
}

// WriteFile replaces the file at path with fixed, provided its content is still original (the
// text that was linted): atomically, through a temporary file in the same folder renamed over
// it, with the file's mode kept, through root, the project root (internal/tree). A file outside
// the root, a symbolic link or anything but a regular file is a *NotRewritableError, a folder
// on the way that is a link leading out of the root a *tree.LeavesRootError, a file whose
// content differs from original a *ChangedError; the content is checked when the file is
// opened and again just before the rename. The file is not followed through a link and no
// other file is written.
func WriteFile(root *tree.Root, path string, original, fixed []byte) error {
	return writeFile(root, path, original, fixed, nil)
}

// writeFile is WriteFile; between, when not nil, runs after the first check (a test changes
// the file there, as another program could).
func writeFile(root *tree.Root, path string, original, fixed []byte, between func()) error {
	if root == nil {
		return &NotRewritableError{Path: path, What: "no project root to write through"}
	}
	if !root.Contains(path) {
		return &NotRewritableError{Path: path, What: "outside the project root " + root.Dir()}
	}
	fi, err := root.Lstat(path)
	if err != nil {
		return err
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &NotRewritableError{Path: path, What: "a symbolic link"}
	case !fi.Mode().IsRegular():
		return &NotRewritableError{Path: path, What: safefile.Describe(fi.Mode())}
	}
	same := func() error {
		now, err := root.ReadFile(path, int64(len(original))+1)
		var tl *safefile.TooLargeError
		switch {
		case errors.As(err, &tl):
			return &ChangedError{Path: path}
		case err != nil:
			return err
		case !bytes.Equal(now, original):
			return &ChangedError{Path: path}
		}
		return nil
	}
	if err := same(); err != nil {
		return err
	}
	if between != nil {
		between()
	}
	return root.Replace(path, fixed, fi.Mode(), func() error {
		// The same file still (not replaced by a link or another file), with the same bytes.
		now, err := root.Lstat(path)
		if err != nil {
			return err
		}
		if !os.SameFile(fi, now) {
			return &ChangedError{Path: path}
		}
		return same()
	})
}

// Diff is the unified diff of what r changes in src, with three lines of context and git's
// a/ and b/ prefixes on name, so `git apply` and `patch -p1` take it ("" when nothing
// changed).
func Diff(name string, src []byte, r Result) string {
	if !r.Changed() {
		return ""
	}
	edits := make([]udiff.Edit, len(r.edits))
	for i, e := range r.edits {
		edits[i] = udiff.Edit{Start: e.Start.Offset, End: e.End.Offset, New: e.NewText}
	}
	d, err := udiff.ToUnified("a/"+name, "b/"+name, string(src), edits, udiff.DefaultContextLines)
	if err != nil {
		// Apply's edits are sorted and never overlap, so this does not happen; a diff of the
		// texts says the same.
		return udiff.Unified("a/"+name, "b/"+name, string(src), string(r.Text))
	}
	return d
}

// File applies the fixes of a linted file's findings to the text that was linted (fr must come
// from a run with lint.EvalOptions.KeepSource) and, when write is set and a fix applies,
// rewrites the file it was read from through root, the project root (WriteFile). A file read
// from standard input (fr.SourceFile == "") is never written: its fixed text is in the result.
func File(root *tree.Root, fr finding.FileResult, write bool) Result {
	if fr.Source == nil && len(fr.Findings) > 0 && len(Fixes(fr.Findings)) > 0 {
		return Result{Path: fr.Path, Err: fmt.Errorf("%s: the linted text was not kept; nothing to apply the fixes to", fr.Path)}
	}
	out := Apply(fr.Source, Fixes(fr.Findings))
	out.Path = fr.Path
	if !write || !out.Changed() || fr.SourceFile == "" {
		return out
	}
	if err := WriteFile(root, fr.SourceFile, fr.Source, out.Text); err != nil {
		out.Err = named(err, fr.Path)
		return out
	}
	out.Written = true
	return out
}

// named gives an error of WriteFile the file's reported path, as every other message names it.
func named(err error, path string) error {
	var (
		ce *ChangedError
		nr *NotRewritableError
		pe *fs.PathError
	)
	switch {
	case errors.As(err, &ce):
		return &ChangedError{Path: path}
	case errors.As(err, &nr):
		return &NotRewritableError{Path: path, What: nr.What}
	case errors.As(err, &pe):
		return &fs.PathError{Op: pe.Op, Path: path, Err: pe.Err}
	}
	return fmt.Errorf("%s: %w", path, err)
}

// Remaining returns the findings of the linted file that o did not fix: all of them when the
// file could not be rewritten. A finding whose fix was applied is fixed, and so is one whose fix
// is a Duplicate of an applied one (the text has its change); one whose fix was skipped is not.
func (o Result) Remaining(findings []finding.Finding) []finding.Finding {
	if o.Err != nil || len(o.Applied) == 0 {
		return findings
	}
	fixed := make(map[int]bool, len(o.Applied)+len(o.Duplicates))
	for _, f := range o.Applied {
		fixed[f.Finding] = true
	}
	for _, d := range o.Duplicates {
		fixed[d.Finding] = true
	}
	out := make([]finding.Finding, 0, max(0, len(findings)-len(fixed)))
	for i, f := range findings {
		if !fixed[i] {
			out = append(out, f)
		}
	}
	return out
}
