package blueprint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/tree"
)

func TestSafeFileName(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"example", "example"},
		{"subdir__my-test", "subdir__my-test"},
		{"..", "blueprint"},
		{".", "blueprint"},
		{"...", "blueprint"},
		{"", "blueprint"},
		{"../../etc/cron.d/x", "_._etc_cron.d_x"},
		{`..\..\windows`, "_._windows"},
		{"a..b", "a.b"},
		{".hidden", "hidden"},
		{"trailing. ", "trailing"},
		{"nul\x00byte", "nulbyte"},
		{"bell\a and esc\x1b[31m", "bell and esc[31m"},
		{"c1\u0085x", "c1x"},
		{"rtl\u202eoverride", "rtloverride"},
		{"a:b*c?d\"e<f>g|h", "a_b_c_d_e_f_g_h"},
		{"Ünïcödé 🚀", "Ünïcödé 🚀"},
		{strings.Repeat("é", 150), strings.Repeat("é", 100)},
	} {
		if got := safeFileName(tt.in); got != tt.want {
			t.Errorf("SafeFileName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzSafeFileName checks that no id can name anything but one file inside the folder it is
// joined to.
func FuzzSafeFileName(f *testing.F) {
	for _, s := range []string{"..", "...", "../x", `..\x`, "a/b", "\x00", ".\u202e.", "é", strings.Repeat("..", 200)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		name := safeFileName(id)
		switch {
		case name == "" || name == "." || name == "..":
			t.Fatalf("%q → %q", id, name)
		case strings.ContainsAny(name, "/\\\x00") || strings.Contains(name, ".."):
			t.Fatalf("%q → %q holds a separator, NUL or ..", id, name)
		case len(name) > maxFileNameBytes:
			t.Fatalf("%q → %d bytes", id, len(name))
		case utf8.ValidString(id) && !utf8.ValidString(name):
			t.Fatalf("%q → %q is not UTF-8", id, name)
		}
		for _, r := range name {
			if unicode.IsControl(r) || isBidiControl(r) {
				t.Fatalf("%q → %q holds the control %U", id, name, r)
			}
		}
		dir := filepath.FromSlash("/out")
		if got := filepath.Dir(filepath.Join(dir, name)); got != dir {
			t.Fatalf("%q → %q lands in %s", id, name, got)
		}
	})
}

// TestPrepareOutDir checks the output folder before any model call: a file in its place, a link
// planted in the tree that leads out of it, and an id that would climb out of it.
func TestPrepareOutDir(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	tr, err := tree.Open(root)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	out := filepath.Join(root, ".results")
	dir, err := prepareOutDir(tr, out, "..")
	if err != nil || dir != filepath.Join(out, "blueprint") {
		t.Fatalf("PrepareOutDir(..) = %s, %v", dir, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the probe file stayed: %v", entries)
	}

	file := filepath.Join(root, "results.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := prepareOutDir(tr, file, "c"); err == nil || err.Error() != file+": not a directory" {
		t.Errorf("out-dir a file: %v", err)
	}

	// A link planted in the results folder that leads out of the project root: refused before
	// anything is created (spec/trust.md §6).
	elsewhere := t.TempDir()
	if err := os.Symlink(elsewhere, filepath.Join(out, "planted")); err != nil {
		t.Fatal(err)
	}
	_, err = prepareOutDir(tr, out, "planted")
	if want := filepath.Join(out, "planted") + ": a symbolic link leading outside the project root " + root; err == nil || err.Error() != want {
		t.Errorf("planted link: %v\nwant %s", err, want)
	}
	res := &Result{ConfigID: "planted", RunLabel: "l", Timestamp: "t"}
	if _, err := res.WriteFile(tr, out); err == nil || !strings.HasPrefix(err.Error(), "cannot write the result: ") {
		t.Errorf("WriteFile through the planted link: %v", err)
	}
	if entries, _ := os.ReadDir(elsewhere); len(entries) != 0 {
		t.Errorf("written outside the output folder: %v", entries)
	}
	// One that leads elsewhere inside the tree, out of the results folder: refused too.
	if err := os.Mkdir(filepath.Join(root, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../docs", filepath.Join(out, "sideways")); err != nil {
		t.Fatal(err)
	}
	_, err = prepareOutDir(tr, out, "sideways")
	if want := filepath.Join(out, "sideways") + " resolves to " + filepath.Join(root, "docs") + ", which is not inside the output folder " + out; err == nil || err.Error() != want {
		t.Errorf("sideways link: %v\nwant %s", err, want)
	}

	res = &Result{ConfigID: "..", RunLabel: "../label", Timestamp: "2025"}
	path, err := res.WriteFile(tr, out)
	if err != nil || path != filepath.Join(out, "blueprint", "_label_2025_comparison.json") {
		t.Errorf("WriteFile = %s, %v", path, err)
	}
}
