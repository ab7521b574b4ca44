package document

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// TestDiscoverUntrustedTree walks a tree built as an attacker would: links out of the tree (to a
// secret file and to /proc/self/environ), a FIFO, a socket, a loop and a dangling link. The walk
// keeps only regular files inside the folder walked, lists the rest as skipped with the reason,
// never opens the FIFO (the test fails by its time-out, not by hanging, if it did), and naming a
// FIFO or a /proc file on the command line is an error.
func TestDiscoverUntrustedTree(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	testutil.WriteFiles(t, root, map[string]string{"docs/a.md": "", "docs/sub/b.md": ""})
	if err := os.WriteFile(secret, []byte("API_KEY=sk-secret"), 0o600); err != nil {
		t.Fatal(err)
	}
	docs := filepath.Join(root, "docs")
	links := map[string]string{
		"inside.md":   filepath.Join(docs, "sub", "b.md"),
		"relative.md": "sub/b.md",
		"secret.md":   secret,
		"escape.md":   "../../" + filepath.Base(outside) + "/secret.md",
		"environ.md":  "/proc/self/environ",
		"loop.md":     "loop.md",
		"dangling.md": "missing.md",
		"outdir":      outside,
	}
	for name, target := range links {
		if err := os.Symlink(target, filepath.Join(docs, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(docs, "pipe.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(docs, "socket.md"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	resolvedOutside, _ := filepath.EvalSymlinks(outside)
	resolvedDocs, _ := filepath.EvalSymlinks(docs)

	var (
		files   []string
		skipped []finding.Skipped
	)
	within(t, func() { files, skipped, err = Discover(nil, root, []string{"docs"}, nil) })
	if err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string { return filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator))) }
	var got []string
	for _, f := range files {
		got = append(got, rel(f))
	}
	if want := []string{"docs/a.md", "docs/inside.md", "docs/relative.md", "docs/sub/b.md"}; !reflect.DeepEqual(got, want) {
		t.Errorf("files %v\nwant %v", got, want)
	}
	reasons := map[string]string{}
	for _, s := range skipped {
		reasons[rel(s.Path)] = s.Reason
	}
	outsideWalk := func(target string) string {
		return "a symbolic link to " + target + ", outside the folder walked (" + resolvedDocs + "): only links inside it are followed"
	}
	environ, _ := filepath.EvalSymlinks("/proc/self/environ") // /proc/<pid>/environ
	want := map[string]string{
		"docs/secret.md":   outsideWalk(filepath.Join(resolvedOutside, "secret.md")),
		"docs/escape.md":   outsideWalk(filepath.Join(resolvedOutside, "secret.md")),
		"docs/environ.md":  outsideWalk(environ),
		"docs/loop.md":     "a loop of symbolic links",
		"docs/dangling.md": "a symbolic link to nothing (its target does not exist)",
		"docs/pipe.md":     "a FIFO (named pipe), not a regular file",
		"docs/socket.md":   "a socket, not a regular file",
	}
	if !reflect.DeepEqual(reasons, want) {
		t.Errorf("skipped:\n%v\nwant\n%v", reasons, want)
	}

	// A glob walks the folder before its first wildcard: the same links stay out.
	within(t, func() { files, skipped, err = Discover(nil, root, []string{"docs/*.md"}, nil) })
	if err != nil || len(files) != 3 || len(skipped) != 7 {
		t.Errorf("glob: %d files %v, %d skipped %v, %v", len(files), files, len(skipped), skipped, err)
	}

	// Named on the command line: a FIFO, a device or a /proc file is an error naming it.
	for _, tt := range []struct{ arg, want string }{
		{"docs/pipe.md", "docs/pipe.md: a FIFO (named pipe), not a regular file: only regular files are linted"},
		{"docs/socket.md", "docs/socket.md: a socket, not a regular file: only regular files are linted"},
		{"/dev/null", "/dev/null: a character device, not a regular file: only regular files are linted"},
		{"/proc/self/environ", "/proc/self/environ: a file of the proc pseudo-filesystem, not a regular file: only regular files are linted"},
	} {
		within(t, func() { _, _, err = Discover(nil, root, []string{tt.arg}, nil) })
		var pe *PathError
		if !errors.As(err, &pe) || err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.arg, err, tt.want)
		}
	}
	// A link named on the command line that leads out of the project root is refused, naming
	// it (spec/trust.md §6: the repository chose the link, not the user), and so is a folder
	// named through one, and a glob whose fixed part goes through one.
	for _, tt := range []struct{ arg, want string }{
		{"docs/environ.md", "docs/environ.md: a symbolic link leading outside the project root " + root},
		{"docs/secret.md", "docs/secret.md: a symbolic link leading outside the project root " + root},
		{"docs/escape.md", "docs/escape.md: a symbolic link leading outside the project root " + root},
		{"docs/outdir", "docs/outdir: a symbolic link leading outside the project root " + root},
		{"docs/outdir/secret.md", "docs/outdir/secret.md: the symbolic link " + filepath.Join(docs, "outdir") + " leads outside the project root " + root},
		{"docs/outdir/*.md", "docs/outdir/*.md: the symbolic link " + filepath.Join(docs, "outdir") + " leads outside the project root " + root},
	} {
		within(t, func() { files, _, err = Discover(nil, root, []string{tt.arg}, nil) })
		var pe *PathError
		if !errors.As(err, &pe) || err.Error() != tt.want || files != nil {
			t.Errorf("%s: %v %v\nwant %s", tt.arg, files, err, tt.want)
		}
	}
	// The same file and folder named by their own absolute paths, outside the root: the user's
	// choice, read (the walk stays inside the folder named).
	files, _, err = Discover(nil, root, []string{secret, outside}, nil)
	if err != nil || !reflect.DeepEqual(files, []string{secret}) {
		t.Errorf("named outside: %v %v", files, err)
	}
}

// within runs f and fails the test if it does not return in 10 s: a regression that opens a
// FIFO fails the test instead of hanging the suite.
func within(t *testing.T, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("still running after 10 s: a FIFO was opened?")
	}
}
