package tree

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// canaryText is the content of the file outside the tree: no test may ever read it back.
const canaryText = "CANARY-OUTSIDE-THE-TREE-7d41"

// fixture is a project tree built as a pull request could build it, beside a folder outside
// it that holds the canary.
type fixture struct {
	dir, outside, canary string
	root                 *Root
}

// newFixture writes the tree:
//
//	docs/a.md, docs/sub/b.md, .git/config      regular files
//	rel.md -> docs/a.md                        inside, relative target
//	abs.md -> <dir>/docs/a.md                  inside, absolute target
//	absdir -> <dir>/docs                       a folder inside, absolute target
//	updown -> docs/../docs/sub                 inside, through ".."
//	chain1 -> chain2 -> docs/a.md              a chain inside
//	docs/up.md -> ../rel.md                    a link to a link, climbing
//	out.md -> <outside>/canary.md              outside, absolute
//	outdir -> <outside>                        a folder outside
//	escape.md -> ../<outside>/canary.md        outside, relative
//	climb -> docs/../..                        outside through ".." of a link target
//	loop -> loop, dangling -> missing.md
//	gitlink.md -> .git/config                  into .git
func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{dir: t.TempDir(), outside: t.TempDir()}
	f.canary = filepath.Join(f.outside, "canary.md")
	write := func(path, content string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(f.canary, canaryText)
	write(filepath.Join(f.dir, "docs", "a.md"), "A")
	write(filepath.Join(f.dir, "docs", "sub", "b.md"), "B")
	write(filepath.Join(f.dir, ".git", "config"), "token")
	links := [][2]string{
		{"rel.md", "docs/a.md"},
		{"abs.md", filepath.Join(f.dir, "docs", "a.md")},
		{"absdir", filepath.Join(f.dir, "docs")},
		{"updown", "docs/../docs/sub"},
		{"chain1", "chain2"},
		{"chain2", "docs/a.md"},
		{"docs/up.md", "../rel.md"},
		{"out.md", f.canary},
		{"outdir", f.outside},
		{"escape.md", "../" + filepath.Base(f.outside) + "/canary.md"},
		{"climb", "docs/../.."},
		{"loop", "loop"},
		{"dangling", "missing.md"},
		{"gitlink.md", ".git/config"},
	}
	for _, l := range links {
		if err := os.Symlink(l[1], filepath.Join(f.dir, filepath.FromSlash(l[0]))); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(f.dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	f.root = r
	return f
}

// leaves reports whether err is a *LeavesRootError and returns it.
func leaves(err error) (*LeavesRootError, bool) {
	var le *LeavesRootError
	return le, errors.As(err, &le)
}

func TestResolve(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tests := []struct {
		path, want string
		link       string // the link named by the *LeavesRootError ("" for none expected)
		err        error  // errors.Is target
	}{
		{path: ".", want: "."},
		{path: "docs/a.md", want: "docs/a.md"},
		{path: "rel.md", want: "docs/a.md"},
		{path: "abs.md", want: "docs/a.md"},
		{path: "absdir/sub/b.md", want: "docs/sub/b.md"},
		{path: "updown/b.md", want: "docs/sub/b.md"},
		{path: "chain1", want: "docs/a.md"},
		{path: "docs/up.md", want: "docs/a.md"},
		{path: "docs/new/file.md", want: "docs/new/file.md"},
		{path: "absdir/new.md", want: "docs/new.md"},
		{path: filepath.Join(f.dir, "docs", "a.md"), want: "docs/a.md"},
		{path: "out.md", link: "out.md"},
		{path: "outdir/canary.md", link: filepath.Join(f.dir, "outdir")},
		{path: "escape.md", link: "escape.md"},
		{path: "climb/x", link: filepath.Join(f.dir, "climb")},
		{path: "../x"},
		{path: f.canary},
		{path: "loop", err: syscall.ELOOP},
		{path: "gitlink.md", want: ".git/config"},
		{path: "dangling", want: "missing.md"},
	}
	for _, tt := range tests {
		got, err := f.root.Resolve(tt.path)
		switch {
		case tt.err != nil:
			if !errors.Is(err, tt.err) {
				t.Errorf("%s: %q, %v; want %v", tt.path, got, err, tt.err)
			}
		case tt.want == "":
			le, ok := leaves(err)
			if !ok || le.Link != tt.link || le.Root != f.dir {
				t.Errorf("%s: %q, %v; want a *LeavesRootError through %q", tt.path, got, err, tt.link)
			}
			if strings.Contains(err.Error(), canaryText) {
				t.Errorf("%s: the error quotes the canary", tt.path)
			}
		case err != nil || got != tt.want:
			t.Errorf("%s: %q, %v; want %q", tt.path, got, err, tt.want)
		}
	}
}

func TestLeavesRootMessage(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tt := range []struct{ path, want string }{
		{"out.md", "open out.md: a symbolic link leading outside the project root " + f.dir},
		{"outdir/canary.md", "open outdir/canary.md: the symbolic link " + filepath.Join(f.dir, "outdir") + " leads outside the project root " + f.dir},
		{"../x.md", "open ../x.md: outside the project root " + f.dir},
	} {
		_, err := f.root.ReadFile(tt.path, 0)
		if err == nil || err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.path, err, tt.want)
		}
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, p := range []string{"docs/a.md", "rel.md", "abs.md", "chain1", "docs/up.md", "absdir/../docs/a.md"} {
		data, err := f.root.ReadFile(p, 10)
		if err != nil || string(data) != "A" {
			t.Errorf("%s: %q, %v", p, data, err)
		}
	}
	for _, p := range []string{"out.md", "outdir/canary.md", "escape.md", "climb/" + filepath.Base(f.outside) + "/canary.md", f.canary} {
		data, err := f.root.ReadFile(p, 0)
		if _, ok := leaves(err); !ok || data != nil {
			t.Errorf("%s: %q, %v; want a *LeavesRootError", p, data, err)
		}
	}
	// A folder, a loop and a missing file read as they do with os.ReadFile.
	for _, tt := range []struct {
		path string
		want error
	}{{"docs", syscall.EISDIR}, {"loop", syscall.ELOOP}, {"dangling", fs.ErrNotExist}, {"missing.md", fs.ErrNotExist}} {
		if _, err := f.root.ReadFile(tt.path, 0); !errors.Is(err, tt.want) {
			t.Errorf("%s: %v, want %v", tt.path, err, tt.want)
		}
	}
	// The size limit.
	if _, err := f.root.ReadFile("docs/a.md", 0); err != nil {
		t.Error(err)
	}
	big := filepath.Join(f.dir, "big.md")
	if err := os.WriteFile(big, []byte("0123456789x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := f.root.ReadFile("big.md", 10); err == nil || err.Error() != "read big.md: too large: expected at most 10 bytes, found 11 bytes" {
		t.Errorf("over the limit: %v", err)
	}
}

func TestReadDocumentRefusesGit(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, tt := range []struct{ path, want string }{
		{".git/config", "open .git/config: inside .git: git's own files are never linted"},
		{"gitlink.md", "open gitlink.md: a symbolic link into .git: git's own files are never linted"},
	} {
		data, err := f.root.ReadDocument(tt.path, 0)
		var ge *GitError
		if !errors.As(err, &ge) || err.Error() != tt.want || data != nil {
			t.Errorf("%s: %q, %v\nwant %s", tt.path, data, err, tt.want)
		}
		if err := f.root.CheckDocument(tt.path); !errors.As(err, &ge) {
			t.Errorf("CheckDocument %s: %v", tt.path, err)
		}
	}
	if data, err := f.root.ReadDocument("rel.md", 0); err != nil || string(data) != "A" {
		t.Errorf("rel.md: %q, %v", data, err)
	}
	// Nothing else of .git is read or written either: a guide, a rule or a configuration
	// linked there would send the token to the model, a result written there could land in
	// its hooks.
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"ReadFile", func() error { _, err := f.root.ReadFile("gitlink.md", 0); return err }(), "open gitlink.md: a symbolic link into .git: git's own files are never read"},
		{"WriteFile", f.root.WriteFile(".git/hooks-pre-commit", []byte("x")), "open .git/hooks-pre-commit: inside .git: git's own files are never written"},
		{"MkdirAll", f.root.MkdirAll(".git/hooks/x"), "mkdir .git/hooks/x: inside .git: git's own files are never written"},
		{"Mkdir", f.root.Mkdir(".git/x"), "mkdir .git/x: inside .git: git's own files are never written"},
		{"Probe", f.root.Probe(".git"), "open .git: inside .git: git's own files are never written"},
	} {
		var ge *GitError
		if !errors.As(tt.err, &ge) || tt.err.Error() != tt.want {
			t.Errorf("%s: %v\nwant %s", tt.name, tt.err, tt.want)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(f.dir, ".git")); len(entries) != 1 {
		t.Errorf(".git holds %d entries", len(entries))
	}
}

func TestStatLstatReadDir(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if fi, err := f.root.Stat("abs.md"); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Stat abs.md: %v, %v", fi, err)
	}
	if fi, err := f.root.Lstat("abs.md"); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("Lstat abs.md: %v, %v", fi, err)
	}
	if fi, err := f.root.Lstat("absdir/a.md"); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("Lstat absdir/a.md (a folder through a link): %v, %v", fi, err)
	}
	if _, err := f.root.Stat("outdir"); err == nil {
		t.Error("Stat outdir: no error")
	}
	entries, err := f.root.ReadDir("absdir")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if err != nil || !slices.Equal(names, []string{"a.md", "sub", "up.md"}) {
		t.Errorf("ReadDir absdir: %v, %v", names, err)
	}
	if _, err := f.root.ReadDir("outdir"); err == nil {
		t.Error("ReadDir outdir: no error")
	}
}

func TestWalkDir(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	var got []string
	err := f.root.WalkDir("absdir", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		got = append(got, strings.TrimPrefix(p, f.dir+string(filepath.Separator))+":"+d.Type().String())
		return nil
	})
	want := []string{"absdir:d---------", "absdir/a.md:----------", "absdir/sub:d---------", "absdir/sub/b.md:----------", "absdir/up.md:L---------"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("walk: %v, %v\nwant %v", got, err, want)
	}
	if err := f.root.WalkDir("outdir", func(string, fs.DirEntry, error) error { return nil }); err == nil {
		t.Error("walk outdir: no error")
	}
}

// TestWrites: writes land inside the root; a link at the destination is replaced, a link on the
// way that leads out refuses the write before anything is created, and the canary is untouched.
func TestWrites(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	canaryBefore, _ := os.Stat(f.canary)

	if err := f.root.MkdirAll("results/run"); err != nil {
		t.Fatal(err)
	}
	if err := f.root.WriteFile("results/run/r.json", []byte("{}")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(f.dir, "results", "run", "r.json")); string(data) != "{}" {
		t.Errorf("written %q", data)
	}
	// Through a folder link inside the root.
	if err := f.root.WriteFile("absdir/w.md", []byte("W")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(f.dir, "docs", "w.md")); string(data) != "W" {
		t.Errorf("through absdir: %q", data)
	}
	// A link at the destination is replaced, not written through.
	if err := f.root.WriteFile("out.md", []byte("report")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(f.dir, "out.md")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("out.md after the write: %v, %v", fi, err)
	}
	// Links on the way out: refused, nothing created outside.
	for _, op := range []struct {
		name string
		do   func() error
	}{
		{"MkdirAll outdir/x", func() error { return f.root.MkdirAll("outdir/x/y") }},
		{"Mkdir outdir/x", func() error { return f.root.Mkdir("outdir/x") }},
		{"WriteFile outdir/x", func() error { return f.root.WriteFile("outdir/x.json", []byte("x")) }},
		{"WriteFile escape", func() error { return f.root.WriteFile("climb/x.json", []byte("x")) }},
		{"Probe outdir", func() error { return f.root.Probe("outdir") }},
		{"WriteFile ../x", func() error { return f.root.WriteFile("../x.json", []byte("x")) }},
	} {
		if _, ok := leaves(op.do()); !ok {
			t.Errorf("%s: not refused", op.name)
		}
	}
	entries, _ := os.ReadDir(f.outside)
	if len(entries) != 1 {
		t.Errorf("written outside: %v", entries)
	}
	canaryAfter, _ := os.Stat(f.canary)
	if data, _ := os.ReadFile(f.canary); string(data) != canaryText || !canaryAfter.ModTime().Equal(canaryBefore.ModTime()) {
		t.Error("the canary changed")
	}
	if err := f.root.Probe("results"); err != nil {
		t.Errorf("Probe: %v", err)
	}
	if err := f.root.Mkdir("results"); !errors.Is(err, fs.ErrExist) {
		t.Errorf("Mkdir of an existing folder: %v", err)
	}
	if err := f.root.WriteFile(strings.Repeat("a", 200)+".json", []byte("x")); err != nil {
		t.Errorf("a long name: %v", err)
	}
	if err := f.root.WriteFile("missing/x.json", []byte("x")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing folder: %v", err)
	}
	// No temporary file is left anywhere.
	_ = filepath.WalkDir(f.dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func TestReplace(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	path := filepath.Join(f.dir, "docs", "a.md")
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("changed")
	if err := f.root.Replace(path, []byte("B"), 0o640, func() error { return refused }); !errors.Is(err, refused) {
		t.Fatalf("refused replace: %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "A" {
		t.Errorf("replaced although refused: %q", data)
	}
	if err := f.root.Replace(path, []byte("B"), 0o640, nil); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if data, _ := os.ReadFile(path); string(data) != "B" || fi.Mode().Perm() != 0o640 {
		t.Errorf("after replace: %q, %v", data, fi.Mode())
	}
}

// TestNamed: a path inside the root is opened through it; one outside is the user's, opened
// through a root of its own at its folder.
func TestNamed(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	n, err := f.root.Named("docs/a.md")
	if err != nil || n.Root != f.root || n.Outside {
		t.Fatalf("inside: %+v, %v", n, err)
	}
	n.Close()
	if _, err := f.root.Stat("."); err != nil {
		t.Fatalf("Close of an inside path closed the project root: %v", err)
	}
	n, err = f.root.Named(f.canary)
	if err != nil || !n.Outside || n.Root.Dir() != mustEval(t, f.outside) {
		t.Fatalf("outside: %+v, %v", n, err)
	}
	if data, err := n.Root.ReadFile(n.Path, 0); err != nil || string(data) != canaryText {
		t.Errorf("outside read: %v", err)
	}
	n.Close()
	n, err = f.root.Named(filepath.Join(f.outside, "new", "folder"))
	if err != nil || !n.Outside || n.Root.Dir() != mustEval(t, f.outside) {
		t.Fatalf("outside, missing: %+v, %v", n, err)
	}
	if err := n.Root.MkdirAll(n.Path); err != nil {
		t.Error(err)
	}
	n.Close()
}

func mustEval(t testing.TB, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// FuzzResolve resolves random paths in the fixture tree: never a panic, never a path outside
// the root, the same answer as the kernel wherever the kernel's answer stays inside, and no read
// that returns the canary.
func FuzzResolve(f *testing.F) {
	for _, seed := range []string{".", "docs/a.md", "rel.md", "abs.md", "absdir/sub/../a.md", "updown/../../out.md",
		"climb", "climb/x", "chain1", "loop/x", "escape.md", "outdir/canary.md", "docs/up.md", "gitlink.md",
		"docs/../../x", "/etc/passwd", "a\x00b", "docs//a.md/", "absdir/../absdir/up.md"} {
		f.Add(seed)
	}
	// The fixture is only read: one for every input.
	fx := newFixture(f)
	real := mustEval(f, fx.dir)
	f.Fuzz(func(t *testing.T, p string) {
		got, err := fx.root.Resolve(p)
		if data, rerr := fx.root.ReadFile(p, 1<<10); rerr == nil && bytes.Contains(data, []byte(canaryText)) {
			t.Fatalf("%q read the canary", p)
		}
		if err != nil {
			if le, ok := leaves(err); ok && le.Root != fx.dir {
				t.Fatalf("%q: the error names root %s", p, le.Root)
			}
			return
		}
		if got != "." && (filepath.IsAbs(got) || got == ".." || strings.HasPrefix(got, "../") || strings.Contains("/"+got+"/", "/../")) {
			t.Fatalf("%q resolved to %q, outside the root", p, got)
		}
		host := p
		if !filepath.IsAbs(host) {
			host = filepath.Join(fx.dir, host)
		}
		if want, err := filepath.EvalSymlinks(host); err == nil {
			if rel, ok := under(real, want); ok && rel != got {
				t.Fatalf("%q resolved to %q, the kernel to %q", p, got, rel)
			}
			if _, ok := under(real, want); !ok {
				t.Fatalf("%q resolved to %q inside, the kernel to %s outside", p, got, want)
			}
		}
	})
}
