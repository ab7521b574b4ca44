package config

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/rules"
)

// The configuration behaviour of the original VectorLint that vectorlint.ini keeps
// (spec/linter.md §2), each case reproducing a test of the original's repository
// (TRocket-Labs/vectorlint).

// TestRunRulesAddUp reproduces the original's scan-path resolver tests
// (tests/file-sections.test.ts and tests/scanpaths-refactor.test.ts): the packs of every
// matching section add up, least specific first, whatever the order of the sections in the
// file; overrides merge with the most specific section winning. The one deliberate difference:
// an explicit empty "RunRules =" clears the less specific sections' packs here, where the
// original ignores it ("should inherit packs if specific rule has empty RunRules").
func TestRunRulesAddUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, path string
		want            []string
		// rule and strictness, when set: the strictness override that must apply to that
		// packless rule id.
		rule       string
		strictness float64
	}{
		{name: "file-sections: matches file to single section",
			src: "[docs/**/*.md]\nRunRules = VectorLint\n", path: "docs/guide.md", want: []string{"VectorLint"}},
		{name: "file-sections: parses comma-separated pack names",
			src: "[content/**/*.md]\nRunRules = VectorLint, CustomPack, BlogPack\n", path: "content/a.md",
			want: []string{"VectorLint", "CustomPack", "BlogPack"}},
		{name: "file-sections: last matching section wins for RunRules (BlogPack applies on top of BasePack)",
			src:  "[content/**/*.md]\nRunRules = BasePack\n[content/blog/*.md]\nRunRules = BlogPack\n",
			path: "content/blog/post.md", want: []string{"BasePack", "BlogPack"}},
		{name: "scanpaths-refactor: most specific pattern applies regardless of order, merged with the general one",
			src:  "[content/blog/**/*.md]\nRunRules = Marketing\n[content/**/*.md]\nRunRules = VectorLint\n",
			path: "content/blog/post.md", want: []string{"VectorLint", "Marketing"}},
		{name: "scanpaths-refactor: should merge overrides (cascading configuration)",
			src:  "[**/*.md]\nRunRules = VectorLint\nGrammar.strictness = 5\n[docs/**/*.md]\nRunRules = Technical\n",
			path: "docs/api.md", want: []string{"VectorLint", "Technical"}, rule: "Grammar", strictness: 5},
		{name: "file-sections: integration, APIPack applies on top of VectorLint and the later strictness wins",
			src:  "[**/*.md]\nRunRules = VectorLint\nclarity.strictness = 7\n[docs/api/**/*.md]\nRunRules = APIPack\nclarity.strictness = 9\n",
			path: "docs/api/users.md", want: []string{"VectorLint", "APIPack"}, rule: "clarity", strictness: 9},
		{name: "a pack named by two sections runs once",
			src: "[**/*.md]\nRunRules = A, B\n[docs/**]\nRunRules = B, C\n", path: "docs/x.md", want: []string{"A", "B", "C"}},
		{name: "a section without RunRules adds nothing",
			src: "[**/*.md]\nRunRules = A\n[docs/**]\nA.R = disabled\n", path: "docs/x.md", want: []string{"A"}},
		{name: "our extension: an empty RunRules clears the less specific sections (the original inherits them)",
			src: "[**/*.md]\nRunRules = VectorLint\n[archived/**/*.md]\nRunRules =\n", path: "archived/old.md", want: nil},
		{name: "a more specific section adds packs again after a clearing one",
			src:  "[**/*.md]\nRunRules = A\n[drafts/**]\nRunRules =\n[drafts/keep/**]\nRunRules = B\n",
			path: "drafts/keep/x.md", want: []string{"B"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ps := Parse("/p/vectorlint.ini", []byte(tt.src))
			if len(ps) != 0 {
				t.Fatal(ps)
			}
			fs := cfg.Settings(tt.path)
			if !reflect.DeepEqual(fs.RunRules, tt.want) {
				t.Errorf("RunRules = %q, want %q", fs.RunRules, tt.want)
			}
			if tt.rule != "" {
				if st := fs.Rule("AnyPack", tt.rule).Strictness; st == nil || *st != tt.strictness {
					t.Errorf("%s.strictness = %v, want %v", tt.rule, st, tt.strictness)
				}
			}
		})
	}
}

// TestOriginalConfigLoaderSections reproduces the original's config-loader test "loads config
// with multiple file sections and various overrides" (tests/config-loader-integration.test.ts),
// its ini verbatim: the original loads it, so vectorlint runs with it. "strictness = 7" names
// no rule and "clarity.depth" is no setting: warnings naming key and line, not errors
// (spec/linter.md §2, issue 32).
func TestOriginalConfigLoaderSections(t *testing.T) {
	t.Parallel()
	src := `
RulesPath = ./prompts

[content/**/*.md]
RunRules = Base
strictness = 7

[content/api/**/*.md]
RunRules = APIPack
strictness = 9
clarity.depth = high

[content/archived/**/*.md]
RunRules = 
`
	cfg, ps := Parse("/p/vectorlint.ini", []byte(src))
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	if len(cfg.Sections) != 3 {
		t.Fatalf("%d sections, want 3", len(cfg.Sections))
	}
	if fs := cfg.Settings("content/archived/old.md"); len(fs.RunRules) != 0 {
		t.Errorf("archived RunRules = %q, want none", fs.RunRules)
	}
	packs := []*rules.Pack{
		{Name: "Base", Rules: []*rules.Rule{{Pack: "Base", ID: "Clarity"}}},
		{Name: "APIPack", Rules: []*rules.Rule{{Pack: "APIPack", ID: "Endpoints"}}},
	}
	got := problemLines(Check(cfg, packs), "/p")
	want := []string{
		`vectorlint.ini:6: warning: strictness: names no rule (a rule's strictness is set with Pack.Rule.strictness or Rule.strictness); ignored`,
		`vectorlint.ini:10: warning: strictness: names no rule (a rule's strictness is set with Pack.Rule.strictness or Rule.strictness); ignored`,
		`vectorlint.ini:11: warning: clarity.depth: vectorlint has no setting "depth" for rule "clarity" (a rule's settings are severity and strictness, and Pack.Rule = disabled or enabled); ignored`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The warnings change nothing: no rule gets a strictness.
	if st := cfg.Settings("content/api/x.md").Rule("Base", "Clarity").Strictness; st != nil {
		t.Errorf("Base.Clarity strictness = %v, want none", *st)
	}
}
