package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/internal/tree"

	"github.com/vectorlint/vectorlint/rules"
)

func TestFindProject(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		files      map[string]string
		dir        string // working directory, relative to the tree
		flag, env  string
		wantConfig string // relative to the tree; "" for none
		wantGuide  string
		wantErr    string // "not found" for a *NotFoundError
	}{
		{name: "config only", files: map[string]string{"vectorlint.ini": ""}, dir: ".", wantConfig: "vectorlint.ini"},
		{name: "guide beside the config",
			files: map[string]string{"vectorlint.ini": "", "VECTORLINT.md": "g", "docs/a.md": ""}, dir: "docs",
			wantConfig: "vectorlint.ini", wantGuide: "VECTORLINT.md"},
		{name: "the working directory's guide first",
			files: map[string]string{"vectorlint.ini": "", "VECTORLINT.md": "g", "sub/VECTORLINT.md": "s"}, dir: "sub",
			wantConfig: "vectorlint.ini", wantGuide: "sub/VECTORLINT.md"},
		{name: "zero-config", files: map[string]string{"VECTORLINT.md": "g"}, dir: ".", wantGuide: "VECTORLINT.md"},
		{name: "a guide in a parent folder is not zero-config",
			files: map[string]string{"VECTORLINT.md": "g", "docs/a.md": ""}, dir: "docs", wantErr: "not found"},
		{name: "a folder named VECTORLINT.md is not a guide",
			files: map[string]string{"VECTORLINT.md/x": ""}, dir: ".", wantErr: "not found"},
		{name: "--config elsewhere: the guide beside it",
			files: map[string]string{"conf/lint.ini": "", "conf/VECTORLINT.md": "g", "docs/a.md": ""}, dir: "docs",
			flag: "../conf/lint.ini", wantConfig: "conf/lint.ini", wantGuide: "conf/VECTORLINT.md"},
		{name: "VECTORLINT_CONFIG", files: map[string]string{"c.ini": ""}, dir: ".", env: "c.ini", wantConfig: "c.ini"},
		{name: "missing --config is not zero-config",
			files: map[string]string{"VECTORLINT.md": "g"}, dir: ".", flag: "nope.ini",
			wantErr: "config file nope.ini (from --config) not found"},
		{name: "nothing", files: map[string]string{"docs/a.md": ""}, dir: "docs", wantErr: "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			testutil.WriteFiles(t, root, tt.files)
			dir := filepath.Join(root, tt.dir)
			opts, err := FindProject(dir, tt.flag, tt.env)
			switch {
			case tt.wantErr == "not found":
				var nf *NotFoundError
				if !errors.As(err, &nf) || nf.Start != dir {
					t.Fatalf("err = %v, want *NotFoundError from %s", err, dir)
				}
				return
			case tt.wantErr != "":
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			case err != nil:
				t.Fatal(err)
			}
			abs := func(rel string) string {
				if rel == "" {
					return ""
				}
				return filepath.Join(root, rel)
			}
			// The project root is the configuration's folder, else the working directory.
			rootDir := dir
			if tt.wantConfig != "" {
				rootDir = filepath.Dir(abs(tt.wantConfig))
			}
			want := ProjectOptions{ConfigPath: abs(tt.wantConfig), StyleGuidePath: abs(tt.wantGuide), RootDir: rootDir, WorkDir: dir}
			if opts != want {
				t.Errorf("got %+v, want %+v", opts, want)
			}
		})
	}
}

// TestLoadProjectStyleGuide loads a style guide with and without a configuration file.
func TestLoadProjectStyleGuide(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("Write short sentences. ", 700)[:16004] // 4,001 tokens
	limit := long[:16000]                                          // 4,000 tokens: no warning
	tests := []struct {
		name       string
		guide      string
		zeroConfig bool
		wantGuide  string
		wantErrs   []string // the problems when loading fails
		wantWarns  []string
	}{
		{name: "trimmed", guide: "\ufeff\n# Guide\n\nUse \"you\".\n\n", wantGuide: "# Guide\n\nUse \"you\"."},
		{name: "zero-config", guide: "Use \"you\".\n", zeroConfig: true, wantGuide: "Use \"you\"."},
		{name: "4,000 tokens", guide: limit, wantGuide: strings.TrimSpace(limit)},
		{name: "over 4,000 tokens", guide: long, wantGuide: long,
			wantWarns: []string{"VECTORLINT.md: warning: style guide: about 4,001 tokens, more than 4,000: the guide is sent with every rule on every file, so every model call pays for it; keep it short and turn detailed checks into rules"}},
		{name: "empty beside a config is ignored", guide: " \n\n",
			wantWarns: []string{"VECTORLINT.md: warning: style guide: ignored (expected your writing guidelines in prose (vectorlint init --style-guide writes a template), found an empty file)"}},
		{name: "empty in zero-config is an error", guide: "", zeroConfig: true,
			wantErrs: []string{"VECTORLINT.md: style guide: expected your writing guidelines in prose (vectorlint init --style-guide writes a template), found an empty file"}},
		{name: "not UTF-8", guide: "# Guide\n\nCaf\xe9\n",
			wantErrs: []string{"VECTORLINT.md:3: style guide: expected UTF-8 text, found bytes that are not UTF-8"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{"VECTORLINT.md": tt.guide}
			opts := ProjectOptions{StyleGuidePath: filepath.Join(dir, "VECTORLINT.md")}
			if !tt.zeroConfig {
				files["vectorlint.ini"] = "[**/*.md]\nRunRules = VectorLint\n"
				opts.ConfigPath = filepath.Join(dir, "vectorlint.ini")
			}
			testutil.WriteFiles(t, dir, files)
			proj, err := LoadProject(opts)
			if tt.wantErrs != nil {
				ps, ok := IsProblems(err)
				if got := problemLines(ps, dir); !ok || !reflect.DeepEqual(got, tt.wantErrs) {
					t.Errorf("err = %v\nwant %q", err, tt.wantErrs)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if proj.StyleGuide != tt.wantGuide || proj.StyleGuidePath != opts.StyleGuidePath || proj.ZeroConfig != tt.zeroConfig {
				t.Errorf("guide %q (%s), zero-config %v", proj.StyleGuide, proj.StyleGuidePath, proj.ZeroConfig)
			}
			if got := problemLines(proj.Warnings, dir); !reflect.DeepEqual(got, tt.wantWarns) {
				t.Errorf("warnings = %q\nwant %q", got, tt.wantWarns)
			}
		})
	}
	if _, err := LoadProject(ProjectOptions{StyleGuidePath: filepath.Join(t.TempDir(), "VECTORLINT.md")}); err == nil ||
		!strings.HasPrefix(err.Error(), "cannot read the style guide: open ") {
		t.Errorf("unreadable guide: %v", err)
	}
}

// TestCheckConfigBuiltinPacks checks that messages about unknown packs tell the packs of
// RulesPath from the built-in ones.
func TestCheckConfigBuiltinPacks(t *testing.T) {
	t.Parallel()
	builtin, _ := rules.BuiltinPacks()
	user := &rules.Pack{Name: "Acme", Dir: "/p/rules/Acme"}
	tests := []struct {
		ini   string
		packs []*rules.Pack
		want  string
	}{
		{"[*.md]\nRunRules = Nope\n", builtin, `vectorlint.ini:2: RunRules: unknown pack "Nope" (RulesPath is not set; built-in packs: VectorLint)`},
		{"RulesPath = rules\n[*.md]\nRunRules = Nope\n", builtin, `vectorlint.ini:3: RunRules: unknown pack "Nope" (no packs found in RulesPath; built-in packs: VectorLint)`},
		{"RulesPath = rules\n[*.md]\nRunRules = Nope\n", append([]*rules.Pack{user}, builtin...), `vectorlint.ini:3: RunRules: unknown pack "Nope" (packs found in RulesPath: Acme; built-in packs: VectorLint)`},
		{"[*.md]\nRunRules = Nope\n", nil, `vectorlint.ini:2: RunRules: unknown pack "Nope" (no packs: RulesPath is not set)`},
	}
	for _, tt := range tests {
		cfg, ps := Parse("/p/vectorlint.ini", []byte(tt.ini))
		if len(ps) != 0 {
			t.Fatal(ps)
		}
		if got := problemLines(Check(cfg, tt.packs), "/p"); !reflect.DeepEqual(got, []string{tt.want}) {
			t.Errorf("%q:\n got %q\nwant %q", tt.ini, got, tt.want)
		}
	}
}

func TestZeroConfigParses(t *testing.T) {
	t.Parallel()
	cfg, ps := Parse("/p/VECTORLINT.md", []byte(zeroConfigINI))
	if len(ps) != 0 || cfg.RulesPath != "" || len(cfg.Sections) != 2 {
		t.Fatalf("zero-config ini: %v %+v", ps, cfg)
	}
	for path, want := range map[string][]string{
		"a.md": {"StyleGuide"}, "docs/b.mdx": {"StyleGuide"}, "c.markdown": {"StyleGuide"},
		"VECTORLINT.md": nil, "docs/VECTORLINT.md": nil, "notes.txt": nil,
	} {
		if got := cfg.Settings(path).RunRules; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: RunRules = %v, want %v", path, got, want)
		}
	}
}

// FuzzLoadStyleGuide checks that no style guide makes loading panic, that every problem names
// the file, and that a loaded guide is the trimmed text.
func FuzzLoadStyleGuide(f *testing.F) {
	for _, s := range []string{"", " \n", "\ufeff# Guide\n", "Use \"you\".\n", "Caf\xe9\n", "a\r\nb\r\n", strings.Repeat("x", 16004)} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	dir := f.TempDir()
	opts := ProjectOptions{RootDir: dir}
	root, err := tree.Open(dir)
	if err != nil {
		f.Fatal(err)
	}
	defer root.Close()
	read := func(path string, limit int64) ([]byte, error) { return opts.readFile(root, path, limit) }
	f.Fuzz(func(t *testing.T, data []byte, zeroConfig bool) {
		path := filepath.Join(dir, "VECTORLINT.md")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		guide, ps, err := loadStyleGuide(read, path, zeroConfig)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if p.File != path || p.Field != "style guide" {
				t.Fatalf("problem without the file and field: %v", p)
			}
		}
		if ps.HasErrors() != (guide == "" && (zeroConfig || !utf8.Valid(data))) {
			t.Fatalf("guide %q with problems %v (zero-config %v)", guide, ps, zeroConfig)
		}
		if guide != "" && guide != strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff")) {
			t.Fatalf("guide %q is not the trimmed text", guide)
		}
	})
}
