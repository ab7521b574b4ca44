package document

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/safefile"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// lintableExtensions are the extensions of the files a folder walk or a glob picks up
// (case-insensitive): every format of spec/linter.md §14. A file named explicitly is linted
// whatever its extension.
func lintableExtensions() []string {
	return []string{".md", ".mdx", ".markdown", ".adoc", ".asciidoc", ".asc", ".rst", ".rest", ".html", ".htm", ".xhtml", ".txt"}
}

// MaxDocumentSize is the largest document linted, in bytes (10 MiB). A larger file is an error
// for that file; the others still run.
const MaxDocumentSize = 10 << 20

// PathError reports a PATH argument that names nothing to lint.
type PathError struct {
	Arg    string
	Reason string
}

// Error returns "PATH: reason".
func (e *PathError) Error() string { return e.Arg + ": " + e.Reason }

// Discover expands PATH arguments into the files to lint (spec/linter.md §1), as absolute
// paths, sorted and without duplicates. Every path is opened through root, the project root
// (spec/trust.md §6; nil opens one at dir for the call):
//
//   - an existing file is linted whatever its extension, when it is a regular file (following
//     symbolic links that stay inside the root); a FIFO, device, socket or file of a
//     pseudo-filesystem such as /proc is a *PathError;
//   - a folder is walked recursively, skipping hidden entries (names starting with ".") and the
//     folders in skip (the RulesPath), keeping files with a lintableExtensions extension;
//   - anything else is a doublestar glob (relative to dir) whose matches are filtered like a walk.
//
// A path, walk root or glob prefix that is (or goes through) a symbolic link leading out of the
// root is a *PathError naming it, and so is anything inside a .git folder: git's own files are
// never linted. A file or folder the user names outside the root (an absolute path elsewhere,
// or one that climbs out with "..") is their choice: it is read, through a root of its own at
// the folder it resolves to, so a walk of it stays inside that folder (BuildPlan never lets
// --fix rewrite it).
//
// A walk (or a glob) reads only regular files inside the folder it walks (the glob's fixed
// prefix): a symbolic link is followed only when its target resolves inside that folder, links
// to folders are not walked (no cycles), and FIFOs, devices, sockets and pseudo-filesystems are
// never opened. What it leaves out that way is returned in skipped (absolute paths, with the
// reason), for the report's skipped list. A PATH that yields no file is a *PathError.
func Discover(root *tree.Root, dir string, args []string, skip []string) (files []string, skipped []finding.Skipped, err error) {
	found, skipped, bad, err := Search(root, dir, args, skip)
	if err != nil {
		return nil, nil, err
	}
	if len(bad) > 0 {
		return nil, nil, bad[0]
	}
	files = make([]string, len(found))
	for i, f := range found {
		files[i] = f.Path
	}
	return files, skipped, nil
}

// File is a document Search found.
type File struct {
	// Path is the reported absolute path.
	Path string
	// Outside is set for a file the user named outside the project root: the folder a root is
	// opened at to read it, and Read the path to read through that root.
	Outside, Read string
}

// Search is Discover, with where each file is read from. An argument that names nothing to
// lint does not stop the others: it is one of bad, in the order given.
func Search(root *tree.Root, dir string, args []string, skip []string) (_ []File, _ []finding.Skipped, bad []*PathError, _ error) {
	if root == nil {
		r, err := tree.Open(dir)
		if err != nil {
			return nil, nil, nil, err
		}
		defer r.Close()
		root = r
	}
	skipSet := map[string]bool{}
	for _, s := range skip {
		if s != "" {
			skipSet[filepath.Clean(s)] = true
		}
	}
	w := &walker{skip: skipSet, seen: map[string]bool{}}
	for _, arg := range args {
		if arg == "" {
			bad = append(bad, &PathError{Arg: `""`, Reason: "empty path"})
			continue
		}
		path := arg
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		if err := w.arg(root, arg, filepath.Clean(path)); err != nil {
			var pe *PathError
			if !errors.As(err, &pe) {
				return nil, nil, nil, err
			}
			bad = append(bad, pe)
		}
	}
	slices.SortFunc(w.files, func(a, b File) int { return strings.Compare(a.Path, b.Path) })
	slices.SortFunc(w.skipped, func(a, b finding.Skipped) int { return strings.Compare(a.Path, b.Path) })
	return w.files, slices.CompactFunc(w.skipped, func(a, b finding.Skipped) bool { return a.Path == b.Path }), bad, nil
}

func extensionList() string { return strings.Join(lintableExtensions(), ", ") }

func lintable(name string) bool {
	ext := filepath.Ext(name)
	return slices.ContainsFunc(lintableExtensions(), func(e string) bool { return strings.EqualFold(e, ext) })
}

// notReadable is the reason a path named on the command line is refused.
func notReadable(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// refused reports whether err refuses a path for where it leads: out of the root, or into .git.
func refused(err error) bool {
	var (
		le *tree.LeavesRootError
		ge *tree.GitError
	)
	return errors.As(err, &le) || errors.As(err, &ge)
}

// walker collects the files of a Discover call and what it skipped.
type walker struct {
	skip    map[string]bool
	seen    map[string]bool
	files   []File
	skipped []finding.Skipped
	// named is how the current argument is opened: through the project root, or a root of its
	// own for a path the user named outside it.
	named tree.Named
}

// arg expands one PATH argument (path is it made absolute).
func (w *walker) arg(root *tree.Root, arg, path string) error {
	n, err := root.Named(path)
	if err != nil {
		return &PathError{Arg: arg, Reason: notReadable(err)}
	}
	defer n.Close()
	w.named = n
	fi, err := n.Root.Stat(n.Path)
	switch {
	case err == nil && !fi.IsDir():
		if err := n.Root.CheckDocument(n.Path); err != nil {
			reason := notReadable(err)
			if !refused(err) {
				reason += ": only regular files are linted"
			}
			return &PathError{Arg: arg, Reason: reason}
		}
		w.add(path, n.Path)
		return nil
	case err == nil:
		count, err := w.walk(path, n.Path, n.Path)
		if err != nil {
			return &PathError{Arg: arg, Reason: notReadable(err)}
		}
		if count == 0 {
			return &PathError{Arg: arg, Reason: "no file to lint in this folder (" + extensionList() + ")"}
		}
		return nil
	case refused(err):
		return &PathError{Arg: arg, Reason: notReadable(err)}
	case !strings.ContainsAny(arg, "*?[{"):
		return &PathError{Arg: arg, Reason: "no such file or folder"}
	}
	count, err := w.glob(root, path)
	if errors.Is(err, errMissingGlobBase) {
		base, _ := doublestar.SplitPattern(filepath.ToSlash(arg))
		return &PathError{Arg: arg, Reason: "no such folder " + filepath.FromSlash(base) + " (where the glob starts)"}
	}
	if err != nil {
		return &PathError{Arg: arg, Reason: notReadable(err)}
	}
	if count == 0 {
		return &PathError{Arg: arg, Reason: "matches no file to lint (globs pick " + extensionList() + " files)"}
	}
	return nil
}

// add lists a file once, however many arguments yield it: report is its reported path, read
// the path to read it by through the current argument's root.
func (w *walker) add(report, read string) {
	if w.seen[report] {
		return
	}
	w.seen[report] = true
	f := File{Path: report}
	if w.named.Outside {
		f.Outside, f.Read = w.named.Root.Dir(), read
	}
	w.files = append(w.files, f)
}

func (w *walker) skipFile(path, reason string) {
	w.skipped = append(w.skipped, finding.Skipped{Path: path, Reason: reason})
}

// walk lists the lintable files below target, the current argument's folder (a symbolic link
// to a folder inside the root is walked: it was named explicitly), reporting them under report.
// container is the folder symbolic links must stay inside: target for a folder named on the
// command line, the fixed prefix of a glob for a folder a glob matched. It returns how many
// files it yielded (counting those an earlier argument listed already).
func (w *walker) walk(report, target, container string) (int, error) {
	r := w.named.Root
	targetRel, err := r.Resolve(target)
	if err != nil {
		return 0, err
	}
	if tree.InGit(targetRel) {
		lex, _ := r.Rel(target)
		return 0, &tree.GitError{Link: !tree.InGit(lex), Verb: "linted"}
	}
	inside, err := r.Resolve(container)
	if err != nil {
		return 0, err
	}
	if what := r.PseudoFS(target); what != "" {
		return 0, errors.New(strings.Replace(what, "a file of", "a folder of", 1) + ", not read")
	}
	walked := filepath.Clean(target)
	n := 0
	err = r.WalkDir(target, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == walked {
			return nil
		}
		rep := report + strings.TrimPrefix(path, walked)
		if strings.HasPrefix(d.Name(), ".") || w.skip[path] || w.skip[rep] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			// A mount point inside the tree (rare) could hold /proc or /sys: its files look
			// regular but are the kernel's.
			if what := r.PseudoFS(path); what != "" {
				w.skipFile(rep, strings.Replace(what, "a file of", "a folder of", 1)+", not read")
				return filepath.SkipDir
			}
			return nil
		}
		if !lintable(d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if reason := w.followLink(path, inside); reason != "" {
				if reason != linkToFolder {
					w.skipFile(rep, reason)
				}
				return nil
			}
		} else if !d.Type().IsRegular() {
			w.skipFile(rep, safefile.Describe(d.Type())+", not a regular file")
			return nil
		}
		w.add(rep, path)
		n++
		return nil
	})
	return n, err
}

// linkToFolder is followLink's reason for a link to a folder, which a walk leaves out without a
// word, as it always has (walking it could loop).
const linkToFolder = "a symbolic link to a folder"

// followLink decides whether a walk follows the symbolic link at path: "" when its target
// resolves to a regular file inside the folder inside (resolved, root-relative) and outside
// .git, else why not.
func (w *walker) followLink(path, inside string) string {
	r := w.named.Root
	resolved, err := r.Resolve(path)
	var le *tree.LeavesRootError
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "a loop of symbolic links"
	case errors.As(err, &le):
		return linkOutside(linkTarget(path), r.Resolved(inside))
	case err != nil:
		return "a symbolic link that cannot be followed: " + notReadable(err)
	}
	fi, err := r.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "a symbolic link to nothing (its target does not exist)"
	case err != nil:
		return "a symbolic link that cannot be followed: " + notReadable(err)
	case !tree.Within(inside, resolved):
		return linkOutside(r.Resolved(resolved), r.Resolved(inside))
	case tree.InGit(resolved):
		return "a symbolic link into .git: git's own files are never linted"
	case fi.IsDir():
		return linkToFolder
	}
	if err := r.CheckDocument(path); err != nil {
		return "a symbolic link to " + notReadable(err)
	}
	return ""
}

// linkOutside is the reason a walk skips a link to target, outside the folder walked.
func linkOutside(target, folder string) string {
	return fmt.Sprintf("a symbolic link to %s, outside the folder walked (%s): only links inside it are followed", target, folder)
}

// linkTarget names where a link out of the root points, for messages only: its target is
// never opened.
func linkTarget(path string) string {
	if t, err := filepath.EvalSymlinks(path); err == nil {
		return t
	}
	if t, err := os.Readlink(path); err == nil {
		return t
	}
	return "a place outside the project root"
}

// glob expands an absolute doublestar pattern and filters its matches like a walk of the
// pattern's fixed prefix, opened through root (or a root of its own when the prefix is a folder
// the user named outside it). It returns how many files the pattern yielded.
func (w *walker) glob(root *tree.Root, pattern string) (int, error) {
	base, pat := doublestar.SplitPattern(filepath.ToSlash(pattern))
	if !doublestar.ValidatePattern(pat) {
		return 0, fmt.Errorf("invalid glob %q", pat)
	}
	base = filepath.FromSlash(base)
	named, err := root.Named(base)
	if err != nil {
		return 0, err
	}
	defer named.Close()
	w.named = named
	r := named.Root
	inside, err := r.Resolve(named.Path)
	if err != nil {
		return 0, err
	}
	if tree.InGit(inside) {
		lex, _ := r.Rel(named.Path)
		return 0, &tree.GitError{Link: !tree.InGit(lex), Verb: "linted"}
	}
	if fi, err := r.Stat(named.Path); errors.Is(err, fs.ErrNotExist) || (err == nil && !fi.IsDir()) {
		// The folder the glob starts from is missing (or a file): say so, rather than that the
		// pattern matched nothing, which reads as a pattern to fix.
		return 0, errMissingGlobBase
	}
	// WithNoFollow: "**" does not descend into symbolic links to folders (no cycles).
	sub, err := fs.Sub(r.FS(), inside)
	if err != nil {
		return 0, err
	}
	matches, err := doublestar.Glob(sub, pat, doublestar.WithNoFollow())
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range matches {
		if slices.ContainsFunc(strings.Split(m, "/"), func(seg string) bool { return strings.HasPrefix(seg, ".") }) {
			continue
		}
		full := filepath.Join(named.Path, filepath.FromSlash(m))
		rep := filepath.Join(base, filepath.FromSlash(m))
		if underAny(rep, w.skip) {
			continue
		}
		fi, err := r.Lstat(full)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			reason := w.followLink(full, inside)
			switch {
			case reason == linkToFolder:
				// A link to a folder inside the glob's folder is walked, as a folder would be.
				if fi, err = r.Stat(full); err != nil {
					continue
				}
			case reason == "":
				if lintable(full) {
					w.add(rep, full)
					n++
				}
				continue
			default:
				if target, err := r.Stat(full); lintable(full) || (err == nil && target.IsDir()) {
					w.skipFile(rep, reason)
				}
				continue
			}
		}
		switch {
		case fi.IsDir():
			found, err := w.walk(rep, full, named.Path)
			if err != nil {
				return 0, err
			}
			n += found
		case !lintable(full):
		case fi.Mode().IsRegular():
			w.add(rep, full)
			n++
		default:
			w.skipFile(rep, safefile.Describe(fi.Mode())+", not a regular file")
		}
	}
	return n, nil
}

// underAny reports whether path is one of dirs or inside one.
func underAny(path string, dirs map[string]bool) bool {
	for d := range dirs {
		if path == d || strings.HasPrefix(path, d+string(filepath.Separator)) {
			return true
		}
	}
	return false
}

// errMissingGlobBase is glob's error for a pattern whose fixed part (the folder it starts
// from) does not exist; arg names that folder as the user wrote it.
var errMissingGlobBase = errors.New("the folder a glob starts from does not exist")
