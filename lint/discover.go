package lint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// LintableExtensions are the extensions of the files a folder walk or a glob picks up
// (case-insensitive). A file named explicitly is linted whatever its extension.
func LintableExtensions() []string { return []string{".md", ".mdx", ".markdown", ".txt"} }

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
//   - an existing file is linted whatever its extension;
//   - a folder is walked recursively, skipping hidden entries (names starting with ".") and the
//     folders in skip (the RulesPath), keeping files with a LintableExtensions extension;
//   - anything else is a doublestar glob (relative to dir) whose matches are filtered like a walk.
//
// Symbolic links to files are followed; links to folders are not walked (no cycles). A PATH
// that yields no file is a *PathError.
func Discover(dir string, args []string, skip []string) ([]string, error) {
	skipSet := map[string]bool{}
	for _, s := range skip {
		if s != "" {
			skipSet[filepath.Clean(s)] = true
		}
	}
	seen := map[string]bool{}
	var out []string
	add := func(path string) {
		if !seen[path] {
			seen[path] = true
			out = append(out, path)
		}
	}
	for _, arg := range args {
		if arg == "" {
			return nil, &PathError{Arg: `""`, Reason: "empty path"}
		}
		path := arg
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		path = filepath.Clean(path)
		fi, err := os.Stat(path)
		switch {
		case err == nil && !fi.IsDir():
			add(path)
			continue
		case err == nil:
			files, err := walk(path, skipSet)
			if err != nil {
				return nil, &PathError{Arg: arg, Reason: err.Error()}
			}
			if len(files) == 0 {
				return nil, &PathError{Arg: arg, Reason: "no file to lint in this folder (" + extensionList() + ")"}
			}
			for _, f := range files {
				add(f)
			}
			continue
		case !strings.ContainsAny(arg, "*?[{"):
			return nil, &PathError{Arg: arg, Reason: "no such file or folder"}
		}
		files, err := glob(path, skipSet)
		if err != nil {
			return nil, &PathError{Arg: arg, Reason: err.Error()}
		}
		if len(files) == 0 {
			return nil, &PathError{Arg: arg, Reason: "matches no file to lint (globs pick " + extensionList() + " files)"}
		}
		for _, f := range files {
			add(f)
		}
	}
	slices.Sort(out)
	return out, nil
}

func extensionList() string { return strings.Join(LintableExtensions(), ", ") }

func lintable(name string) bool {
	ext := filepath.Ext(name)
	return slices.ContainsFunc(LintableExtensions(), func(e string) bool { return strings.EqualFold(e, ext) })
}

// walk lists the lintable files below root. A root that is a symbolic link to a folder is
// walked (it was named explicitly), reporting paths under the link's name.
func walk(root string, skip map[string]bool) ([]string, error) {
	target := root
	if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		if resolved, err := filepath.EvalSymlinks(root); err == nil {
			target = resolved
		}
	}
	files, err := walkDir(target, skip)
	if target != root {
		for i, f := range files {
			files[i] = root + strings.TrimPrefix(f, target)
		}
	}
	return files, err
}

func walkDir(root string, skip map[string]bool) ([]string, error) {
	var files []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path == root {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") || skip[path] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || !lintable(d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			fi, err := os.Stat(path)
			if err != nil || !fi.Mode().IsRegular() {
				return nil
			}
		} else if !d.Type().IsRegular() {
			return nil
		}
		files = append(files, path)
		return nil
	})
	return files, err
}

// glob expands an absolute doublestar pattern and filters its matches like a walk.
func glob(pattern string, skip map[string]bool) ([]string, error) {
	base, pat := doublestar.SplitPattern(filepath.ToSlash(pattern))
	if !doublestar.ValidatePattern(pat) {
		return nil, fmt.Errorf("invalid glob %q", pat)
	}
	base = filepath.FromSlash(base)
	// WithNoFollow: "**" does not descend into symbolic links to folders (no cycles).
	matches, err := doublestar.Glob(os.DirFS(base), pat, doublestar.WithNoFollow())
	if err != nil {
		return nil, err
	}
	var files []string
	for _, m := range matches {
		if slices.ContainsFunc(strings.Split(m, "/"), func(seg string) bool { return strings.HasPrefix(seg, ".") }) {
			continue
		}
		full := filepath.Join(base, filepath.FromSlash(m))
		if underAny(full, skip) {
			continue
		}
		fi, err := os.Stat(full)
		if err != nil {
			continue
		}
		if fi.IsDir() {
			sub, err := walk(full, skip)
			if err != nil {
				return nil, err
			}
			files = append(files, sub...)
			continue
		}
		if fi.Mode().IsRegular() && lintable(full) {
			files = append(files, full)
		}
	}
	return files, nil
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
