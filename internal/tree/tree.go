// Package tree is the one way vectorlint reads and writes the files that a repository file or a
// path argument names (spec/trust.md §6; docs/security.md, "Inside the tree"): configuration,
// environment files, style guide, directive, rule packs, documents, blueprints and their
// collections and fixtures, result folders, reports, debug folders, and the files --fix
// rewrites.
//
// A pull request can commit symbolic links, and a link is only a path the tool will follow. So
// every such file is opened through a Root: a handle on the project root (the folder of the
// configuration file found, else the working directory), opened once per command with Go's
// os.Root, which refuses any path, link target or ".." that leaves it. A link whose target is a
// file or folder inside the root keeps working, also when the target is written as an absolute
// path (which os.Root alone refuses): Root resolves such links itself, component by component,
// and then opens the resolved path through the os.Root, so safety never rests on the resolver.
//
// Reads keep every check of internal/safefile: regular files only (never a FIFO, device, socket
// or /proc-style file), opened without blocking, checked again once open (fstat, fstatfs), and
// never more than a size limit. Writes are whole (a temporary file renamed into place, so a link
// at the destination is replaced, never written through), with mode 0666 less the umask.
//
// Paths given to a Root's methods are host paths: absolute, or relative to the root's folder.
// Errors are *fs.PathError values naming the path as given; a path that leaves the root is a
// *LeavesRootError inside one. No error quotes the content of a file.
package tree

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/vectorlint/vectorlint/internal/safefile"
)

// MaxLinks is how many symbolic links one path may go through before it is an error (ELOOP),
// as the kernel bounds it.
const MaxLinks = 40

// Root is a folder every repository file is opened through. It is safe for concurrent use.
type Root struct {
	dir  string // absolute and clean, as given
	real string // dir with its own symbolic links resolved: absolute link targets may name it so
	root *os.Root
}

// Open opens the folder dir as a Root. The caller closes it.
func Open(dir string) (*Root, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, err
	}
	return &Root{dir: abs, real: real, root: root}, nil
}

// Dir returns the root's folder (absolute).
func (r *Root) Dir() string { return r.dir }

// Close releases the root's handle. A nil Root closes without error.
func (r *Root) Close() error {
	if r == nil {
		return nil
	}
	return r.root.Close()
}

// LeavesRootError reports a path that leaves the root: it lies outside it (an absolute path
// elsewhere, or one that climbs out with ".."), or a symbolic link on the way leads out.
type LeavesRootError struct {
	// Path is the path that was asked for.
	Path string
	// Link is the symbolic link whose target leads out (a host path), "" when Path itself lies
	// outside the root.
	Link string
	// Root is the root's folder.
	Root string
}

// Error says where the path leads, without the path itself (an *fs.PathError around it names
// it): "outside the project root /repo", "a symbolic link leading outside the project root
// /repo", "the symbolic link /repo/docs leads outside the project root /repo".
func (e *LeavesRootError) Error() string {
	switch {
	case e.Link == "":
		return "outside the project root " + e.Root
	case e.Link == e.Path:
		return "a symbolic link leading outside the project root " + e.Root
	}
	return "the symbolic link " + e.Link + " leads outside the project root " + e.Root
}

// GitError reports a path inside a .git folder: git's own files are never read or written
// through a Root (its config holds the checkout's token on CI, its hooks run on the next git
// command), whatever link leads there.
type GitError struct {
	// Link tells whether a symbolic link on the way leads into .git (the path itself does not
	// name it).
	Link bool
	// Verb is what is never done to git's files: "linted" (a document), "read", "written".
	Verb string
}

// Error says why the path is refused (an *fs.PathError around it names the path).
func (e *GitError) Error() string {
	verb := e.Verb
	if verb == "" {
		verb = "read"
	}
	if e.Link {
		return "a symbolic link into .git: git's own files are never " + verb
	}
	return "inside .git: git's own files are never " + verb
}

// notGit refuses the resolved rel (path as asked) when it lies in a .git folder.
func (r *Root) notGit(op, path, rel, verb string) error {
	if !InGit(rel) {
		return nil
	}
	lex, _ := r.lexical(path)
	return &fs.PathError{Op: op, Path: path, Err: &GitError{Link: !InGit(lex), Verb: verb}}
}

// Contains reports whether path lies inside the root's folder, by its name alone (no link is
// followed).
func (r *Root) Contains(path string) bool {
	_, ok := r.lexical(path)
	return ok
}

// Rel returns path relative to the root's folder, slash-separated ("." for the folder itself),
// by its name alone; a path outside is a *LeavesRootError.
func (r *Root) Rel(path string) (string, error) {
	rel, ok := r.lexical(path)
	if !ok {
		return "", &fs.PathError{Op: "open", Path: path, Err: &LeavesRootError{Path: path, Root: r.dir}}
	}
	return rel, nil
}

// Host returns the host path of a root-relative, slash-separated path.
func (r *Root) Host(rel string) string {
	if rel == "." || rel == "" {
		return r.dir
	}
	return filepath.Join(r.dir, filepath.FromSlash(rel))
}

// Resolve returns the root-relative, slash-separated path that path names once every symbolic
// link on the way is followed ("." for the root itself). A path or link that leads out of the
// root is a *LeavesRootError, more than MaxLinks links ELOOP. A path whose end does not exist
// resolves as far as it exists, the rest as written.
func (r *Root) Resolve(path string) (string, error) {
	return r.resolve("open", path, true)
}

// resolve is Resolve with the operation named in errors and, when follow is false, the last
// component left as it is (a link is not followed).
func (r *Root) resolve(op, path string, follow bool) (string, error) {
	rel, ok := r.lexical(path)
	if !ok {
		return "", &fs.PathError{Op: op, Path: path, Err: &LeavesRootError{Path: path, Root: r.dir}}
	}
	res, err := r.follow(rel, follow)
	if err != nil {
		var le *LeavesRootError
		if errors.As(err, &le) {
			le.Path = path
			if le.Link == r.Host(rel) {
				le.Link = path // the path itself is the link: named as the caller named it
			}
			return "", &fs.PathError{Op: op, Path: path, Err: le}
		}
		return "", r.pathErr(op, path, rel, err)
	}
	return res, nil
}

// lexical returns path relative to the root (slash-separated, clean) when its name lies inside
// the root's folder, as given or with links resolved.
func (r *Root) lexical(p string) (string, bool) {
	if p == "" {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(r.dir, p)
	}
	p = filepath.Clean(p)
	for _, base := range []string{r.dir, r.real} {
		if rel, ok := under(base, p); ok {
			return rel, true
		}
	}
	return "", false
}

// under returns p relative to base (slash-separated) when p is base or inside it.
func under(base, p string) (string, bool) {
	if p == base {
		return ".", true
	}
	prefix := base
	if !strings.HasSuffix(prefix, string(filepath.Separator)) {
		prefix += string(filepath.Separator)
	}
	rest, ok := strings.CutPrefix(p, prefix)
	if !ok {
		return "", false
	}
	return filepath.ToSlash(rest), true
}

// follow resolves the symbolic links of rel (root-relative, clean), the last component's only
// when last is set, reading each link through the os.Root. A link with an absolute target is
// followed when the target names a place inside the root; any other absolute target, and any
// ".." that climbs above the root, is a *LeavesRootError naming the link.
func (r *Root) follow(rel string, last bool) (string, error) {
	pending := split(rel)
	var done []string
	links := 0
	lastLink := ""
	for len(pending) > 0 {
		c := pending[0]
		pending = pending[1:]
		switch c {
		case "", ".":
			continue
		case "..":
			if len(done) == 0 {
				le := &LeavesRootError{Root: r.dir}
				if lastLink != "" {
					le.Link = r.Host(lastLink)
				}
				return "", le
			}
			done = done[:len(done)-1]
			continue
		}
		cur := path.Join(append(slices.Clip(done), c)...)
		if len(pending) == 0 && !last {
			done = append(done, c)
			break
		}
		fi, err := r.root.Lstat(cur)
		if errors.Is(err, fs.ErrNotExist) && !slices.Contains(pending, "..") {
			// Nothing further exists to be a link: the rest is as written (a file to create).
			done = append(done, c)
			for _, p := range pending {
				if p != "" && p != "." {
					done = append(done, p)
				}
			}
			break
		}
		if errors.Is(err, syscall.ENOTDIR) && len(done) > 0 {
			// A file on the way: named as mkdir names it.
			return "", &fs.PathError{Op: "lstat", Path: path.Join(done...), Err: syscall.ENOTDIR}
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			done = append(done, c)
			continue
		}
		if links++; links > MaxLinks {
			return "", syscall.ELOOP
		}
		target, err := r.root.Readlink(cur)
		if err != nil {
			return "", err
		}
		lastLink = cur
		if filepath.IsAbs(target) {
			inside, ok := r.lexical(target)
			if !ok {
				return "", &LeavesRootError{Link: r.Host(cur), Root: r.dir}
			}
			done = nil
			pending = append(split(inside), pending...)
			continue
		}
		pending = append(split(filepath.ToSlash(target)), pending...)
	}
	if len(done) == 0 {
		return ".", nil
	}
	return path.Join(done...), nil
}

// split cuts a slash-separated path into its components ("." has none).
func split(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

// InGit reports whether a root-relative path is inside a .git folder (or is one).
func InGit(rel string) bool {
	return slices.ContainsFunc(split(rel), func(c string) bool { return strings.EqualFold(c, ".git") })
}

// Within reports whether the root-relative path rel is dir or inside it.
func Within(dir, rel string) bool {
	return dir == "." || rel == dir || strings.HasPrefix(rel, dir+"/")
}

// pathErr names path in an error of the os.Root, whose messages name root-relative paths. An
// error about another component than the one asked for (a folder on the way that is a file)
// names that component's host path.
func (r *Root) pathErr(op, path, rel string, err error) error {
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return &fs.PathError{Op: op, Path: path, Err: err}
	}
	name := path
	if pe.Path != rel && pe.Path != "" && !filepath.IsAbs(pe.Path) && fs.ValidPath(pe.Path) {
		name = r.Host(pe.Path)
	}
	return &fs.PathError{Op: op, Path: name, Err: pe.Err}
}

// unwrapPath is the reason of an *fs.PathError, or err itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// Stat returns the file information of path, following symbolic links inside the root.
func (r *Root) Stat(path string) (fs.FileInfo, error) {
	rel, err := r.resolve("stat", path, true)
	if err != nil {
		return nil, err
	}
	fi, err := r.root.Stat(rel)
	if err != nil {
		return nil, r.pathErr("stat", path, rel, err)
	}
	return fi, nil
}

// Lstat returns the file information of path itself (a symbolic link is not followed; the
// folders on the way are).
func (r *Root) Lstat(path string) (fs.FileInfo, error) {
	rel, err := r.resolve("lstat", path, false)
	if err != nil {
		return nil, err
	}
	fi, err := r.root.Lstat(rel)
	if err != nil {
		return nil, r.pathErr("lstat", path, rel, err)
	}
	return fi, nil
}

// ReadDir lists the folder path, sorted by name (symbolic links inside the root followed to
// reach it; its entries are not followed).
func (r *Root) ReadDir(path string) ([]fs.DirEntry, error) {
	rel, err := r.resolve("open", path, true)
	if err != nil {
		return nil, err
	}
	entries, err := fs.ReadDir(r.root.FS(), rel)
	if err != nil {
		return entries, r.pathErr("open", path, rel, err)
	}
	return entries, nil
}

// WalkDir walks the folder path as fs.WalkDir does, calling fn with host paths under path as
// given. Symbolic links inside the root lead to the folder; the walk itself follows none (a
// link found is an entry of type fs.ModeSymlink, for the caller to resolve and judge).
func (r *Root) WalkDir(path string, fn fs.WalkDirFunc) error {
	rel, err := r.resolve("open", path, true)
	if err != nil {
		return err
	}
	host := path
	if !filepath.IsAbs(host) {
		host = filepath.Join(r.dir, host)
	}
	host = filepath.Clean(host)
	return fs.WalkDir(r.root.FS(), rel, func(p string, d fs.DirEntry, err error) error {
		sub := p
		if rel != "." {
			sub = strings.TrimPrefix(strings.TrimPrefix(p, rel), "/")
		} else if p == "." {
			sub = ""
		}
		name := host
		if sub != "" {
			name = filepath.Join(host, filepath.FromSlash(sub))
		}
		if err != nil {
			err = &fs.PathError{Op: "open", Path: name, Err: unwrapPath(err)}
		}
		return fn(name, d, err)
	})
}

// FS returns the root as a file system of root-relative, slash-separated paths (for globbing):
// it follows links whose relative targets stay inside the root, and refuses the others.
func (r *Root) FS() fs.FS { return r.root.FS() }

// PseudoFS names the pseudo-filesystem the folder or file path is on ("a file of the proc
// pseudo-filesystem"), "" for an ordinary one or when it cannot be opened. The opened folder is
// checked, not its name.
func (r *Root) PseudoFS(path string) string {
	rel, err := r.resolve("open", path, true)
	if err != nil {
		return ""
	}
	f, err := r.root.OpenFile(rel, os.O_RDONLY|safefile.OpenFlags, 0)
	if err != nil {
		return ""
	}
	defer f.Close()
	return safefile.PseudoFSOf(f)
}

// ReadFile reads the regular file path, of at most limit bytes (no limit when limit ≤ 0).
// Anything else — a FIFO, a device, a socket, a folder, a file of a pseudo-filesystem — is a
// *safefile.NotRegularError and a file over the limit a *safefile.TooLargeError, each in an
// *fs.PathError naming path; nothing is read from them. A FIFO or device is never opened. A
// file in a .git folder is a *GitError.
func (r *Root) ReadFile(path string, limit int64) ([]byte, error) {
	rel, err := r.resolve("open", path, true)
	if err != nil {
		return nil, err
	}
	if err := r.notGit("open", path, rel, "read"); err != nil {
		return nil, err
	}
	return r.read(path, rel, limit)
}

// ReadDocument is ReadFile for a document (a .git file's *GitError says it is never linted).
func (r *Root) ReadDocument(path string, limit int64) ([]byte, error) {
	rel, err := r.document(path)
	if err != nil {
		return nil, err
	}
	return r.read(path, rel, limit)
}

// CheckDocument reports whether ReadDocument would accept path, without reading it: nil for a
// regular file inside the root and outside .git, else the error ReadDocument would return (the
// size limit aside). A FIFO or device is not opened.
func (r *Root) CheckDocument(path string) error {
	rel, err := r.document(path)
	if err != nil {
		return err
	}
	f, err := r.open(path, rel)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = safefile.CheckOpened(f, path)
	return err
}

// document resolves a document's path and refuses one in .git.
func (r *Root) document(path string) (string, error) {
	rel, err := r.resolve("open", path, true)
	if err != nil {
		return "", err
	}
	if err := r.notGit("open", path, rel, "linted"); err != nil {
		return "", err
	}
	return rel, nil
}

// open opens the resolved rel for reading once a stat says it is a regular file: a FIFO or a
// device is never opened, and one swapped in since cannot block the open (OpenFlags).
func (r *Root) open(path, rel string) (*os.File, error) {
	fi, err := r.root.Stat(rel)
	if err != nil {
		return nil, r.pathErr("open", path, rel, err)
	}
	if fi.IsDir() {
		// As os.ReadFile says it, which messages have always shown.
		return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &safefile.NotRegularError{What: safefile.Describe(fi.Mode())}}
	}
	f, err := r.root.OpenFile(rel, os.O_RDONLY|safefile.OpenFlags, 0)
	if err != nil {
		return nil, r.pathErr("open", path, rel, err)
	}
	return f, nil
}

// read reads the resolved rel (named path in errors).
func (r *Root) read(path, rel string, limit int64) ([]byte, error) {
	f, err := r.open(path, rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return safefile.ReadOpened(f, path, limit)
}

// MkdirAll creates the folder path and its parents inside the root, with mode 0777 less the
// umask. A link on the way that leads out is refused before anything is created.
func (r *Root) MkdirAll(path string) error {
	rel, err := r.resolve("mkdir", path, true)
	if err != nil {
		return err
	}
	if err := r.notGit("mkdir", path, rel, "written"); err != nil {
		return err
	}
	if err := r.root.MkdirAll(rel, 0o777); err != nil {
		if fi, serr := r.root.Stat(rel); errors.Is(err, fs.ErrExist) && serr == nil && !fi.IsDir() {
			err = syscall.ENOTDIR // a file in the way, as os.MkdirAll says it
		}
		return r.pathErr("mkdir", path, rel, err)
	}
	return nil
}

// Mkdir creates the folder path (its parent must exist), with mode 0777 less the umask; an
// existing file, folder or link at path is an error wrapping fs.ErrExist.
func (r *Root) Mkdir(path string) error {
	dir, base, err := r.parent("mkdir", path)
	if err != nil {
		return err
	}
	rel := joinRel(dir, base)
	if err := r.notGit("mkdir", path, rel, "written"); err != nil {
		return err
	}
	if err := r.root.Mkdir(rel, 0o777); err != nil {
		return r.pathErr("mkdir", path, rel, err)
	}
	return nil
}

// parent resolves the folder of path (links inside the root followed) and returns it with the
// last component of path, which must be a name (not the root itself).
func (r *Root) parent(op, name string) (dir, base string, err error) {
	rel, ok := r.lexical(name)
	if !ok {
		return "", "", &fs.PathError{Op: op, Path: name, Err: &LeavesRootError{Path: name, Root: r.dir}}
	}
	if rel == "." {
		return "", "", &fs.PathError{Op: op, Path: name, Err: syscall.EISDIR}
	}
	dir, err = r.resolve(op, r.Host(path.Dir(rel)), true)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = name
		}
		return "", "", err
	}
	return dir, path.Base(rel), nil
}

// joinRel joins a root-relative folder and a name.
func joinRel(dir, name string) string {
	if dir == "." {
		return name
	}
	return dir + "/" + name
}

// Probe proves that files can be created in the existing folder dir, by creating and removing
// a probe file: commands call it before work that costs money.
func (r *Root) Probe(dir string) error {
	rel, err := r.resolve("open", dir, true)
	if err != nil {
		return err
	}
	if err := r.notGit("open", dir, rel, "written"); err != nil {
		return err
	}
	f, name, err := r.createTemp(rel, ".vectorlint-probe")
	if err != nil {
		return r.pathErr("open", dir, rel, err)
	}
	cerr := f.Close()
	rerr := r.root.Remove(name)
	if err := errors.Join(cerr, rerr); err != nil {
		return r.pathErr("write", dir, rel, err)
	}
	return nil
}

// createTemp creates a new file named prefix plus a random suffix in the resolved folder dir,
// with mode 0666 less the umask (os.CreateTemp would make it 0600 whatever the umask), and
// returns it with its root-relative name.
func (r *Root) createTemp(dir, prefix string) (*os.File, string, error) {
	var (
		f    *os.File
		name string
		err  error
	)
	for range 100 {
		var suffix [6]byte
		_, _ = rand.Read(suffix[:])
		name = joinRel(dir, prefix+".tmp-"+hex.EncodeToString(suffix[:]))
		f, err = r.root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return f, name, err
}

// WriteFile writes data to path whole: into a temporary file beside it, renamed over path, so
// a reader never sees half a file and a symbolic link at path is replaced, never written
// through. The file gets mode 0666 less the umask. The folder must exist (folders on the way
// may be links inside the root, but not into .git: nothing is written there). On failure path
// is left as it was.
func (r *Root) WriteFile(path string, data []byte) error {
	return r.write(path, data, nil, nil)
}

// Replace rewrites the existing file path with data as WriteFile does, keeping its permission
// bits (mode's permission, setuid, setgid and sticky bits are set on the new file whatever the
// umask), for a tool that edits a file in place (vectorlint --fix). When unchanged is not nil it
// is called after the new content is written and just before the rename: an error from it
// leaves path as it was and is returned, so a caller can refuse to replace a file that changed
// meanwhile.
func (r *Root) Replace(path string, data []byte, mode fs.FileMode, unchanged func() error) error {
	perm := mode & (fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky)
	return r.write(path, data, &perm, unchanged)
}

// write is WriteFile, with the mode set explicitly when perm is not nil and a check before the
// rename.
func (r *Root) write(path string, data []byte, perm *fs.FileMode, beforeRename func() error) error {
	dir, base, err := r.parent("open", path)
	if err != nil {
		return err
	}
	if err := r.notGit("open", path, joinRel(dir, base), "written"); err != nil {
		return err
	}
	prefix := "." + base
	if len(prefix) > 100 {
		prefix = prefix[:100] // the temporary name must stay a valid file name
	}
	f, tmp, err := r.createTemp(dir, prefix)
	if err != nil {
		return &fs.PathError{Op: "open", Path: path, Err: unwrapPath(err)}
	}
	_, werr := f.Write(data)
	var merr error
	if perm != nil {
		merr = f.Chmod(*perm)
	}
	cerr := f.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		_ = r.root.Remove(tmp)
		return &fs.PathError{Op: "write", Path: path, Err: unwrapPath(err)}
	}
	if beforeRename != nil {
		if err := beforeRename(); err != nil {
			_ = r.root.Remove(tmp)
			return err
		}
	}
	if err := r.root.Rename(tmp, joinRel(dir, base)); err != nil {
		_ = r.root.Remove(tmp)
		return &fs.PathError{Op: "rename", Path: path, Err: unwrapPath(err)}
	}
	return nil
}

// Resolved returns the host path of a root-relative path under the root's folder with its own
// symbolic links resolved (as filepath.EvalSymlinks would name it), for messages.
func (r *Root) Resolved(rel string) string {
	if rel == "." || rel == "" {
		return r.real
	}
	return filepath.Join(r.real, filepath.FromSlash(rel))
}

// Named is a path the user named on the command line, with the Root it is opened through.
type Named struct {
	// Root is the project root, or, when Outside, a Root opened for this path (Close closes it).
	Root *Root
	// Path is the path to give Root's methods.
	Path string
	// Outside is set for a path the user named outside the project root (an absolute path, or
	// one that climbs out with ".."): their choice, so it is read, through a Root opened at the
	// folder it resolves to (a folder walk stays inside the folder named), but never rewritten
	// by --fix.
	Outside bool
}

// Close closes the Root opened for an outside path; it leaves the project root open.
func (n Named) Close() error {
	if n.Outside {
		return n.Root.Close()
	}
	return nil
}

// Named returns how a path the user named is opened: through r when its name lies inside r's
// folder (links on the way must then stay inside), else through a new Root at the folder the
// path resolves to (itself when it is a folder, else its parent; the nearest existing folder
// when it does not exist). Only a Root that cannot be opened is an error.
func (r *Root) Named(p string) (Named, error) {
	if r.Contains(p) {
		return Named{Root: r, Path: p}, nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return Named{}, err
	}
	// The user's own path, outside the project: its links are theirs and are followed to find
	// the folder it is in.
	real, rest := abs, ""
	for {
		if resolved, err := filepath.EvalSymlinks(real); err == nil {
			real = filepath.Join(resolved, rest)
			break
		}
		parent := filepath.Dir(real)
		if parent == real {
			real = abs
			break
		}
		rest = filepath.Join(filepath.Base(real), rest)
		real = parent
	}
	anchor := real
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		anchor = filepath.Dir(real)
	}
	for {
		if fi, err := os.Stat(anchor); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(anchor)
		if parent == anchor {
			break
		}
		anchor = parent
	}
	nr, err := Open(anchor)
	if err != nil {
		return Named{}, err
	}
	return Named{Root: nr, Path: real, Outside: true}, nil
}

// String describes the root for messages and debugging.
func (r *Root) String() string { return fmt.Sprintf("tree.Root(%s)", r.dir) }
