package lint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/tree"

	"github.com/vectorlint/vectorlint/rules"
)

func TestFindProject(t *testing.T) {
	tests := []struct {
		name       string
		files      map[string]string
		dir        string // working directory, relative to the tree
		flag, env  string
		wantConfig string // relative to the tree; "" for none
		wantGuide  string
		wantErr    string // "not found" for a *ConfigNotFoundError
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
			writeTestFiles(t, root, tt.files)
			dir := filepath.Join(root, tt.dir)
			opts, err := FindProject(dir, tt.flag, tt.env)
			switch {
			case tt.wantErr == "not found":
				var nf *ConfigNotFoundError
				if !errors.As(err, &nf) || nf.Start != dir {
					t.Fatalf("err = %v, want *ConfigNotFoundError from %s", err, dir)
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
			writeTestFiles(t, dir, files)
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

// TestZeroConfig lints a tree that has a style guide and no configuration file: every Markdown
// file gets the StyleGuide rule, the guide itself and other files do not.
func TestZeroConfig(t *testing.T) {
	dir := t.TempDir()
	writeTestFiles(t, dir, map[string]string{
		"VECTORLINT.md":          "# Guide\n\nUse sentence case in headings.\n",
		"README.md":              "# Read Me\n",
		"docs/a.mdx":             "# A\n",
		"docs/b.markdown":        "# B\n",
		"docs/notes.txt":         "notes\n",
		"docs/sub/VECTORLINT.md": "# Sub guide\n",
	})
	opts, err := FindProject(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	proj, err := LoadProject(opts)
	if err != nil {
		t.Fatal(err)
	}
	if !proj.ZeroConfig || proj.Config.Path != filepath.Join(dir, "VECTORLINT.md") || proj.Config.Dir != dir ||
		proj.StyleGuide != "# Guide\n\nUse sentence case in headings." || len(proj.Warnings) != 0 {
		t.Fatalf("zero-config project: %+v", proj)
	}
	if len(proj.Packs) != 1 || proj.Packs[0].Name != rules.StyleGuidePackName || !proj.Packs[0].Builtin ||
		proj.Pack(rules.BuiltinPackName) != nil {
		t.Fatalf("packs = %v: zero-config runs only the style guide", proj.Packs)
	}
	var sections []string
	for _, s := range proj.Config.Sections {
		sections = append(sections, fmt.Sprintf("[%s] RunRules=%v", s.Pattern, s.RunRules))
	}
	if want := []string{"[**/*.{md,mdx,markdown}] RunRules=[StyleGuide]", "[**/VECTORLINT.md] RunRules=[]"}; !reflect.DeepEqual(sections, want) {
		t.Errorf("sections = %v, want %v", sections, want)
	}
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"."}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md [README.md]",
		"  StyleGuide.Compliance warning strictness=10",
		`    "# Read Me\n" offset=0 line=1 whole=true nosplit=false criteria=[]`,
		"docs/a.mdx [docs/a.mdx]",
		"  StyleGuide.Compliance warning strictness=10",
		`    "# A\n" offset=0 line=1 whole=true nosplit=false criteria=[]`,
		"docs/b.markdown [docs/b.markdown]",
		"  StyleGuide.Compliance warning strictness=10",
		`    "# B\n" offset=0 line=1 whole=true nosplit=false criteria=[]`,
		"skipped VECTORLINT.md: RunRules is empty in [**/VECTORLINT.md]",
		"skipped docs/notes.txt: no section of vectorlint.ini matches",
		"skipped docs/sub/VECTORLINT.md: RunRules is empty in [**/VECTORLINT.md]",
	}
	if got := renderPlan(plan); !reflect.DeepEqual(got, want) {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBuiltinPacksInProject covers the built-in packs in projects with a configuration file.
func TestBuiltinPacksInProject(t *testing.T) {
	const userRule = "---\nid: Mine\nname: Mine\n---\nMy rule.\n"
	tests := []struct {
		name      string
		files     map[string]string
		guide     bool // pass VECTORLINT.md as the style guide
		rulesOnly bool // load RulesPath "rules" without the configuration (validate --rules)
		wantPacks []string
		wantErrs  []string
		wantWarns []string
		wantRules []string // the rules planned for a.md
	}{
		{name: "RunRules = VectorLint without RulesPath",
			files:     map[string]string{"vectorlint.ini": "[**/*.md]\nRunRules = VectorLint\n"},
			wantPacks: []string{"VectorLint (built-in, 8 rules)"},
			wantRules: []string{"VectorLint.AIPatterns warning", "VectorLint.Capitalization warning", "VectorLint.Consistency warning",
				"VectorLint.InclusiveLanguage error strictness=20", "VectorLint.PassiveVoice warning strictness=5", "VectorLint.Repetition warning",
				"VectorLint.UnsupportedClaims warning", "VectorLint.Wordiness warning"}},
		{name: "overrides apply to built-in rules",
			files: map[string]string{"vectorlint.ini": "[**/*.md]\nRunRules = VectorLint\nVectorLint.AIPatterns = disabled\nVectorLint.Capitalization = disabled\n" +
				"VectorLint.Consistency = disabled\nVectorLint.InclusiveLanguage.severity = warning\nVectorLint.PassiveVoice.strictness = strict\n" +
				"VectorLint.Repetition = disabled\nUnsupportedClaims.severity = error\nVectorLint.Wordiness = disabled\n"},
			wantPacks: []string{"VectorLint (built-in, 8 rules)"},
			wantRules: []string{"VectorLint.InclusiveLanguage warning strictness=20", "VectorLint.PassiveVoice warning strictness=20",
				"VectorLint.UnsupportedClaims error"}},
		{name: "a user pack named VectorLint replaces the built-in one",
			files: map[string]string{"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = VectorLint\n",
				"rules/VectorLint/mine.md": userRule},
			wantPacks: []string{"VectorLint (1 rule)"},
			wantWarns: []string{"rules/VectorLint: note: pack VectorLint replaces the built-in pack of the same name"},
			wantRules: []string{"VectorLint.Mine warning"}},
		{name: "user and built-in packs together",
			files: map[string]string{"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme, VectorLint\nVectorLint.AIPatterns = disabled\n" +
				"[a.md]\nVectorLint.Capitalization = disabled\nVectorLint.Consistency = disabled\nVectorLint.InclusiveLanguage = disabled\n" +
				"VectorLint.PassiveVoice = disabled\nVectorLint.Repetition = disabled\nVectorLint.UnsupportedClaims = disabled\n",
				"rules/Acme/mine.md": userRule},
			wantPacks: []string{"Acme (1 rule)", "VectorLint (built-in, 8 rules)"},
			wantRules: []string{"Acme.Mine warning", "VectorLint.Wordiness warning"}},
		{name: "an unknown built-in rule is a warning",
			files:     map[string]string{"vectorlint.ini": "[**/*.md]\nRunRules = VectorLint\nVectorLint.Passive = disabled\nVectorLint.AIPatterns = disabled\n"},
			wantPacks: []string{"VectorLint (built-in, 8 rules)"},
			wantWarns: []string{`vectorlint.ini:3: warning: VectorLint.Passive: pack VectorLint has no rule with id "Passive" (its rules: AIPatterns, Capitalization, Consistency, InclusiveLanguage, PassiveVoice, Repetition, UnsupportedClaims, Wordiness); ignored`},
			wantRules: []string{"VectorLint.Capitalization warning", "VectorLint.Consistency warning",
				"VectorLint.InclusiveLanguage error strictness=20", "VectorLint.PassiveVoice warning strictness=5", "VectorLint.Repetition warning",
				"VectorLint.UnsupportedClaims warning", "VectorLint.Wordiness warning"}},
		// The original VectorLint's preset ids (its presets/VectorLint since 2.4: AIPattern,
		// Inclusivity) are aliases of the built-in rules; the presets it had in 2.2 and 2.3 and
		// removed (Directness, PseudoAdvice) are warnings that say so.
		{name: "the original's preset ids",
			files: map[string]string{"vectorlint.ini": "[**/*.md]\nRunRules = VectorLint\nVectorLint.AIPattern = disabled\n" +
				"Inclusivity.severity = warning\nVectorLint.Inclusivity.strictness = 5\nVectorLint.Directness = disabled\nPseudoAdvice.strictness = 50\n" +
				"VectorLint.Capitalization = disabled\nVectorLint.Consistency = disabled\nVectorLint.Repetition = disabled\n" +
				"VectorLint.UnsupportedClaims = disabled\nVectorLint.Wordiness = disabled\n"},
			wantPacks: []string{"VectorLint (built-in, 8 rules)"},
			wantWarns: []string{
				"vectorlint.ini:6: warning: VectorLint.Directness: VectorLint.Directness is a preset of the original VectorLint 2.2 and 2.3, removed in its 2.4; vectorlint has no such rule; ignored",
				"vectorlint.ini:7: warning: PseudoAdvice.strictness: PseudoAdvice is a preset of the original VectorLint 2.2 and 2.3, removed in its 2.4; vectorlint has no such rule; ignored"},
			wantRules: []string{"VectorLint.InclusiveLanguage warning strictness=5", "VectorLint.PassiveVoice warning strictness=5"}},
		{name: "StyleGuide needs a style guide",
			files:    map[string]string{"vectorlint.ini": "[**/*.md]\nRunRules = VectorLint, StyleGuide\n"},
			wantErrs: []string{`vectorlint.ini:2: RunRules: unknown pack "StyleGuide" (RulesPath is not set; built-in packs: VectorLint)`}},
		{name: "StyleGuide with a style guide",
			files: map[string]string{"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = StyleGuide\n", "VECTORLINT.md": "Use \"you\".\n",
				"rules/Acme/mine.md": userRule},
			guide:     true,
			wantPacks: []string{"Acme (1 rule)", "StyleGuide (built-in, 1 rule)", "VectorLint (built-in, 8 rules)"},
			wantRules: []string{"StyleGuide.Compliance warning"}},
		{name: "a user pack named StyleGuide replaces the built-in one",
			files: map[string]string{"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = StyleGuide\n", "VECTORLINT.md": "Use \"you\".\n",
				"rules/StyleGuide/mine.md": userRule},
			guide:     true,
			wantPacks: []string{"StyleGuide (1 rule)", "VectorLint (built-in, 8 rules)"},
			wantWarns: []string{"rules/StyleGuide: note: pack StyleGuide replaces the built-in pack of the same name"},
			wantRules: []string{"StyleGuide.Mine warning"}},
		{name: "a rules folder on its own has no built-in packs",
			files:     map[string]string{"rules/VectorLint/mine.md": userRule},
			rulesOnly: true,
			wantPacks: []string{"VectorLint (1 rule)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTestFiles(t, dir, tt.files)
			writeTestFiles(t, dir, map[string]string{"a.md": "# A\n"})
			opts := ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")}
			if tt.rulesOnly {
				opts = ProjectOptions{RulesPath: filepath.Join(dir, "rules")}
			}
			if tt.guide {
				opts.StyleGuidePath = filepath.Join(dir, "VECTORLINT.md")
			}
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
			var packs []string
			for _, p := range proj.Packs {
				origin := ""
				if p.Builtin {
					origin = "built-in, "
				}
				packs = append(packs, fmt.Sprintf("%s (%s%d rule%s)", p.Name, origin, len(p.Rules), map[bool]string{true: "s"}[len(p.Rules) != 1]))
			}
			if !reflect.DeepEqual(packs, tt.wantPacks) {
				t.Errorf("packs = %q, want %q", packs, tt.wantPacks)
			}
			if got := problemLines(proj.Warnings, dir); !reflect.DeepEqual(got, tt.wantWarns) {
				t.Errorf("warnings = %q, want %q", got, tt.wantWarns)
			}
			if tt.rulesOnly {
				return
			}
			plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"a.md"}})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range plan.Files[0].Rules {
				s := r.ID + " " + r.Severity.String()
				if r.Strictness != 10 {
					s += fmt.Sprintf(" strictness=%v", r.Strictness)
				}
				got = append(got, s)
			}
			if !reflect.DeepEqual(got, tt.wantRules) {
				t.Errorf("planned rules = %q\nwant %q", got, tt.wantRules)
			}
		})
	}
}

// TestCheckConfigBuiltinPacks checks that messages about unknown packs tell the packs of
// RulesPath from the built-in ones.
func TestCheckConfigBuiltinPacks(t *testing.T) {
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
		cfg, ps := ParseConfig("/p/vectorlint.ini", []byte(tt.ini))
		if len(ps) != 0 {
			t.Fatal(ps)
		}
		if got := problemLines(CheckConfig(cfg, tt.packs), "/p"); !reflect.DeepEqual(got, []string{tt.want}) {
			t.Errorf("%q:\n got %q\nwant %q", tt.ini, got, tt.want)
		}
	}
}

func TestZeroConfigParses(t *testing.T) {
	cfg, ps := ParseConfig("/p/VECTORLINT.md", []byte(zeroConfigINI))
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
