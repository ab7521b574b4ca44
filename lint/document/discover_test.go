package document

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

func TestDiscover(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{
		"docs/a.md":                  "",
		"docs/b.MDX":                 "",
		"docs/c.markdown":            "",
		"docs/d.txt":                 "",
		"docs/e.xml":                 "",
		"docs/f.adoc":                "",
		"docs/g.RST":                 "",
		"docs/h.htm":                 "",
		"docs/image.png":             "",
		"docs/.hidden.md":            "",
		"docs/.private/x.md":         "",
		"docs/sub/deep/f.md":         "",
		"styles/Acme/rule.md":        "",
		"docs/styles-not-rules/g.md": "",
		"notes/only.xml":             "",
		".github/docs/h.md":          "",
	})
	if err := os.Symlink(filepath.Join(root, "docs", "a.md"), filepath.Join(root, "docs", "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(root, "docs"), filepath.Join(root, "docs", "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	skip := []string{filepath.Join(root, "styles")}
	tests := []struct {
		name string
		args []string
		want []string
		err  string
	}{
		{"folder walk: lintable extensions, no hidden entries, symlinked files, no symlinked folders", []string{"docs"},
			[]string{"docs/a.md", "docs/b.MDX", "docs/c.markdown", "docs/d.txt", "docs/f.adoc", "docs/g.RST", "docs/h.htm", "docs/link.md", "docs/styles-not-rules/g.md", "docs/sub/deep/f.md"}, ""},
		{"the working folder skips the RulesPath and hidden folders", []string{"."},
			[]string{"docs/a.md", "docs/b.MDX", "docs/c.markdown", "docs/d.txt", "docs/f.adoc", "docs/g.RST", "docs/h.htm", "docs/link.md", "docs/styles-not-rules/g.md", "docs/sub/deep/f.md"}, ""},
		{"an explicit file is linted whatever its extension", []string{"docs/e.xml", "docs/.hidden.md"},
			[]string{"docs/.hidden.md", "docs/e.xml"}, ""},
		{"a hidden folder named explicitly is walked", []string{".github/docs"}, []string{".github/docs/h.md"}, ""},
		{"duplicates once, sorted", []string{"docs/sub", "docs/sub/deep/f.md", "docs/a.md"}, []string{"docs/a.md", "docs/sub/deep/f.md"}, ""},
		{"glob", []string{"docs/**/*.md"}, []string{"docs/a.md", "docs/link.md", "docs/styles-not-rules/g.md", "docs/sub/deep/f.md"}, ""},
		{"glob with braces filters like a walk", []string{"docs/*.{md,xml,png}"}, []string{"docs/a.md", "docs/link.md"}, ""},
		{"glob skips the RulesPath", []string{"**/rule.md"}, nil, `**/rule.md: matches no file to lint (globs pick .md, .mdx, .markdown, .adoc, .asciidoc, .asc, .rst, .rest, .html, .htm, .xhtml, .txt files)`},
		{"glob matching a folder walks it", []string{"docs/su?"}, []string{"docs/sub/deep/f.md"}, ""},
		{"a symbolic link to a folder named explicitly is walked, under its own name", []string{"docs/sub/loop"},
			[]string{"docs/sub/loop/a.md", "docs/sub/loop/b.MDX", "docs/sub/loop/c.markdown", "docs/sub/loop/d.txt", "docs/sub/loop/f.adoc",
				"docs/sub/loop/g.RST", "docs/sub/loop/h.htm", "docs/sub/loop/link.md",
				"docs/sub/loop/styles-not-rules/g.md", "docs/sub/loop/sub/deep/f.md"}, ""},
		{"missing file", []string{"docs/missing.md"}, nil, "docs/missing.md: no such file or folder"},
		{"folder without lintable files", []string{"notes"}, nil, "notes: no file to lint in this folder (.md, .mdx, .markdown, .adoc, .asciidoc, .asc, .rst, .rest, .html, .htm, .xhtml, .txt)"},
		{"empty argument", []string{""}, nil, `"": empty path`},
		{"invalid glob", []string{"docs/[a"}, nil, `docs/[a: invalid glob "[a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, skipped, err := Discover(nil, root, tt.args, skip)
			if tt.err != "" {
				var pe *PathError
				if !errors.As(err, &pe) || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var rel []string
			for _, p := range got {
				rel = append(rel, filepath.ToSlash(strings.TrimPrefix(p, root+string(filepath.Separator))))
			}
			if !reflect.DeepEqual(rel, tt.want) {
				t.Errorf("got %v\nwant %v", rel, tt.want)
			}
			if len(skipped) != 0 {
				t.Errorf("skipped %v", skipped)
			}
		})
	}
	abs, _, err := Discover(nil, "/", []string{filepath.Join(root, "docs", "a.md")}, nil)
	if err != nil || !reflect.DeepEqual(abs, []string{filepath.Join(root, "docs", "a.md")}) {
		t.Errorf("absolute path: %v %v", abs, err)
	}
}

// TestDiscoverGit: git's own files are never linted, however they are named: the .git folder,
// a file in it, a glob into it, or a link into it named or found by a walk (spec/trust.md §6: a
// document linked to .git/config would send the checkout's token to the model).
func TestDiscoverGit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	testutil.WriteFiles(t, root, map[string]string{".git/config.md": "token", ".git/sub/x.md": "", "docs/a.md": ""})
	for name, target := range map[string]string{"docs/git.md": "../.git/config.md", "docs/gitdir": "../.git", "abs.md": filepath.Join(root, ".git", "config.md")} {
		if err := os.Symlink(target, filepath.Join(root, filepath.FromSlash(name))); err != nil {
			t.Fatal(err)
		}
	}
	const never = "git's own files are never linted"
	for _, tt := range []struct{ arg, want string }{
		{".git", ".git: inside .git: " + never},
		{".git/config.md", ".git/config.md: inside .git: " + never},
		{".git/*.md", ".git/*.md: inside .git: " + never},
		{"docs/git.md", "docs/git.md: a symbolic link into .git: " + never},
		{"abs.md", "abs.md: a symbolic link into .git: " + never},
		{"docs/gitdir", "docs/gitdir: a symbolic link into .git: " + never},
	} {
		files, _, err := Discover(nil, root, []string{tt.arg}, nil)
		var pe *PathError
		if !errors.As(err, &pe) || err.Error() != tt.want {
			t.Errorf("%s: %v %v\nwant %s", tt.arg, files, err, tt.want)
		}
	}
	files, skipped, err := Discover(nil, root, []string{"."}, nil)
	if err != nil || len(files) != 1 || filepath.Base(files[0]) != "a.md" {
		t.Fatalf("walk: %v %v", files, err)
	}
	want := []finding.Skipped{
		{Path: filepath.Join(root, "abs.md"), Reason: "a symbolic link into .git: " + never},
		{Path: filepath.Join(root, "docs", "git.md"), Reason: "a symbolic link into .git: " + never},
	}
	if !reflect.DeepEqual(skipped, want) {
		t.Errorf("skipped %v\nwant %v", skipped, want)
	}
}
