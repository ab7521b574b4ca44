package lint

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/rules"
)

// TestZeroConfig lints a tree that has a style guide and no configuration file: every Markdown
// file gets the StyleGuide rule, the guide itself and other files do not.
func TestZeroConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"VECTORLINT.md":          "# Guide\n\nUse sentence case in headings.\n",
		"README.md":              "# Read Me\n",
		"docs/a.mdx":             "# A\n",
		"docs/b.markdown":        "# B\n",
		"docs/notes.txt":         "notes\n",
		"docs/sub/VECTORLINT.md": "# Sub guide\n",
	})
	opts, err := config.FindProject(dir, "", "")
	if err != nil {
		t.Fatal(err)
	}
	proj, err := config.LoadProject(opts)
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
	t.Parallel()
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
			testutil.WriteFiles(t, dir, tt.files)
			testutil.WriteFiles(t, dir, map[string]string{"a.md": "# A\n"})
			opts := config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")}
			if tt.rulesOnly {
				opts = config.ProjectOptions{RulesPath: filepath.Join(dir, "rules")}
			}
			if tt.guide {
				opts.StyleGuidePath = filepath.Join(dir, "VECTORLINT.md")
			}
			proj, err := config.LoadProject(opts)
			if tt.wantErrs != nil {
				ps, ok := config.IsProblems(err)
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
