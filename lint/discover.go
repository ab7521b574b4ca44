package lint

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

	"github.com/vectorlint/vectorlint/internal/safefile"
)

// LintableExtensions are the extensions of the files a folder walk or a glob picks up
// (case-insensitive): every format of spec/linter.md §14. A file named explicitly is linted
// whatever its extension.
func LintableExtensions() []string {
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
// paths, sorted and without duplicates:
//
//   - an existing file is linted whatever its extension, when it is a regular file (following
//     symbolic links: the user named it); a FIFO, device, socket or file of a pseudo-filesystem
//     such as /proc is a *PathError;
//   - a folder is walked recursively, skipping hidden entries (names starting with ".") and the
//     folders in skip (the RulesPath), keeping files with a LintableExtensions extension;
//   - anything else is a doublestar glob (relative to dir) whose matches are filtered like a walk.
//
// A walk (or a glob) reads only regular files inside the folder it walks (the glob's fixed
// prefix): a symbolic link is followed only when its target resolves inside that folder, links
// to folders are not walked (no cycles), and FIFOs, devices, sockets and pseudo-filesystems are
// never opened. What it leaves out that way is returned in skipped (absolute paths, with the
// reason), for the report's skipped list. A PATH that yields no file is a *PathError.
func Discover(dir string, args []string, skip []string) (files []string, skipped []Skipped, err error) {
	skipSet := map[string]bool{}
	for _, s := range skip {
		if s != "" {
			skipSet[filepath.Clean(s)] = true
		}
	}
	w := &walker{skip: skipSet, seen: map[string]bool{}}
	for _, arg := range args {
		if arg == "" {
			return nil, nil, &PathError{Arg: `""`, Reason: "empty path"}
		}
		path := arg
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		path = filepath.Clean(path)
		fi, err := os.Stat(path)
		switch {
		case err == nil && !fi.IsDir():
			if err := safefile.Check(path); err != nil {
				return nil, nil, &PathError{Arg: arg, Reason: notReadable(err) + ": only regular files are linted"}
			}
			w.add(path)
			continue
		case err == nil:
			n, err := w.walk(path, path)
			if err != nil {
				return nil, nil, &PathError{Arg: arg, Reason: err.Error()}
			}
			if n == 0 {
				return nil, nil, &PathError{Arg: arg, Reason: "no file to lint in this folder (" + extensionList() + ")"}
			}
			continue
		case !strings.ContainsAny(arg, "*?[{"):
			return nil, nil, &PathError{Arg: arg, Reason: "no such file or folder"}
		}
		n, err := w.glob(path)
		if err != nil {
			return nil, nil, &PathError{Arg: arg, Reason: err.Error()}
		}
		if n == 0 {
			return nil, nil, &PathError{Arg: arg, Reason: "matches no file to lint (globs pick " + extensionList() + " files)"}
		}
	}
	slices.Sort(w.files)
	slices.SortFunc(w.skipped, func(a, b Skipped) int { return strings.Compare(a.Path, b.Path) })
	return w.files, slices.CompactFunc(w.skipped, func(a, b Skipped) bool { return a.Path == b.Path }), nil
}

func extensionList() string { return strings.Join(LintableExtensions(), ", ") }

func lintable(name string) bool {
	ext := filepath.Ext(name)
	return slices.ContainsFunc(LintableExtensions(), func(e string) bool { return strings.EqualFold(e, ext) })
}

// notReadable is the reason a path named on the command line is refused, from safefile.Check.
func notReadable(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// walker collects the files of a Discover call and what it skipped.
type walker struct {
	skip    map[string]bool
	seen    map[string]bool
	files   []string
	skipped []Skipped
}

// add lists a file once, however many arguments yield it.
func (w *walker) add(path string) {
	if !w.seen[path] {
		w.seen[path] = true
		w.files = append(w.files, path)
	}
}

func (w *walker) skipFile(path, reason string) {
	w.skipped = append(w.skipped, Skipped{Path: path, Reason: reason})
}

// walk lists the lintable files below root. A root that is a symbolic link to a folder is
// walked (it was named explicitly), reporting paths under the link's name. container is the
// folder symbolic links must stay inside: root for a folder named on the command line, the
// fixed prefix of a glob for a folder a glob matched. It returns how many files it yielded
// (counting those an earlier argument listed already).
func (w *walker) walk(root, container string) (int, error) {
	target, err := filepath.EvalSymlinks(root)
	if err != nil {
		return 0, err
	}
	inside, err := filepath.EvalSymlinks(container)
	if err != nil {
		return 0, err
	}
	if what := safefile.PseudoFS(target); what != "" {
		return 0, errors.New(strings.Replace(what, "a file of", "a folder of", 1) + ", not read")
	}
	n := 0
	err = filepath.WalkDir(target, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == target {
			return nil
		}
		report := root + strings.TrimPrefix(path, target)
		if strings.HasPrefix(d.Name(), ".") || w.skip[path] || w.skip[report] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			// A mount point inside the tree (rare) could hold /proc or /sys: its files look
			// regular but are the kernel's.
			if what := safefile.PseudoFS(path); what != "" {
				w.skipFile(report, strings.Replace(what, "a file of", "a folder of", 1)+", not read")
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
					w.skipFile(report, reason)
				}
				return nil
			}
		} else if !d.Type().IsRegular() {
			w.skipFile(report, safefile.Describe(d.Type())+", not a regular file")
			return nil
		}
		w.add(report)
		n++
		return nil
	})
	return n, err
}

// linkToFolder is followLink's reason for a link to a folder, which a walk leaves out without a
// word, as it always has (walking it could loop).
const linkToFolder = "a symbolic link to a folder"

// followLink decides whether a walk follows the symbolic link at path: "" when its target
// resolves to a regular file inside the folder inside (resolved), else why not.
func (w *walker) followLink(path, inside string) string {
	// os.Stat tells a loop (ELOOP) and a dangling link apart; EvalSymlinks does not.
	_, err := os.Stat(path)
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "a loop of symbolic links"
	case errors.Is(err, fs.ErrNotExist):
		return "a symbolic link to nothing (its target does not exist)"
	case err != nil:
		return "a symbolic link that cannot be followed: " + notReadable(err)
	}
	resolved, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "a symbolic link that cannot be followed: " + notReadable(err)
	}
	if !withinDir(inside, resolved) {
		return fmt.Sprintf("a symbolic link to %s, outside the folder walked (%s): only links inside it are followed", resolved, inside)
	}
	fi, err := os.Stat(resolved)
	if err != nil {
		return "a symbolic link that cannot be followed: " + notReadable(err)
	}
	if fi.IsDir() {
		return linkToFolder
	}
	if err := safefile.Check(resolved); err != nil {
		return "a symbolic link to " + notReadable(err)
	}
	return ""
}

// glob expands an absolute doublestar pattern and filters its matches like a walk of the
// pattern's fixed prefix. It returns how many files the pattern yielded.
func (w *walker) glob(pattern string) (int, error) {
	base, pat := doublestar.SplitPattern(filepath.ToSlash(pattern))
	if !doublestar.ValidatePattern(pat) {
		return 0, fmt.Errorf("invalid glob %q", pat)
	}
	base = filepath.FromSlash(base)
	// WithNoFollow: "**" does not descend into symbolic links to folders (no cycles).
	matches, err := doublestar.Glob(os.DirFS(base), pat, doublestar.WithNoFollow())
	if err != nil {
		return 0, err
	}
	inside, err := filepath.EvalSymlinks(base)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, m := range matches {
		if slices.ContainsFunc(strings.Split(m, "/"), func(seg string) bool { return strings.HasPrefix(seg, ".") }) {
			continue
		}
		full := filepath.Join(base, filepath.FromSlash(m))
		if underAny(full, w.skip) {
			continue
		}
		fi, err := os.Lstat(full)
		if err != nil {
			continue
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			reason := w.followLink(full, inside)
			switch {
			case reason == linkToFolder:
				// A link to a folder inside the glob's folder is walked, as a folder would be.
				if fi, err = os.Stat(full); err != nil {
					continue
				}
			case reason == "":
				if lintable(full) {
					w.add(full)
					n++
				}
				continue
			default:
				if target, err := os.Stat(full); lintable(full) || (err == nil && target.IsDir()) {
					w.skipFile(full, reason)
				}
				continue
			}
		}
		switch {
		case fi.IsDir():
			found, err := w.walk(full, base)
			if err != nil {
				return 0, err
			}
			n += found
		case !lintable(full):
		case fi.Mode().IsRegular():
			w.add(full)
			n++
		default:
			w.skipFile(full, safefile.Describe(fi.Mode())+", not a regular file")
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
