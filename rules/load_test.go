package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// writeFiles creates files (slash-separated paths relative to dir) with their contents.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func rule(id string) string { return "---\nid: " + id + "\nname: " + id + "\n---\nBody.\n" }

func TestLoadPacks(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Acme/b.md":              rule("Beta"),
		"Acme/a.md":              rule("Alpha"),
		"Acme/Technical/deep.md": rule("Deep"),
		"Acme/README.md":         "# About this pack\n",
		"Acme/notes.txt":         "not a rule",
		"Acme/.hidden/secret.md": rule("Secret"),
		"Acme/.draft.md":         rule("Draft"),
		"Acme/dup.md":            rule("Alpha"),
		"Acme/broken.md":         "---\nid: Broken\n---\n",
		"Zeta/z.md":              rule("Z"),
		"Empty/readme.md":        "nothing",
		"loose.md":               rule("Loose"),
		".git/HEAD.md":           rule("Git"),
		"Bad.Name/r.md":          rule("R"),
	})
	packs, problems, err := LoadPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range packs {
		var ids []string
		for _, r := range p.Rules {
			ids = append(ids, r.FullID()+"="+strings.TrimPrefix(r.Path, dir+string(filepath.Separator)))
		}
		got = append(got, p.Name+": "+strings.Join(ids, " "))
	}
	want := []string{
		"Acme: Acme.Deep=Acme/Technical/deep.md Acme.Alpha=Acme/a.md Acme.Beta=Acme/b.md",
		"Empty: ",
		"Zeta: Zeta.Z=Zeta/z.md",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("packs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	var gotProblems []string
	for _, p := range problems {
		p.File = strings.TrimPrefix(p.File, dir+string(filepath.Separator))
		gotProblems = append(gotProblems, p.Error())
	}
	wantProblems := []string{
		`Acme/broken.md:1: name: expected a non-empty string, found nothing`,
		`Acme/dup.md: id: expected an id unique within pack Acme, found "Alpha", already used by a.md`,
		`Bad.Name: pack name: pack folder names appear in rule ids (Pack.Rule) and RunRules lists (expected a name without '.' or ',', found "Bad.Name")`,
		`Empty: warning: pack Empty has no rule files`,
		`loose.md: warning: ignored: a rule file must be inside a pack folder (RulesPath/Pack/rule.md)`,
	}
	if !reflect.DeepEqual(gotProblems, wantProblems) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(gotProblems, "\n"), strings.Join(wantProblems, "\n"))
	}
	if packs[0].Rule("Beta") == nil || packs[0].Rule("Nope") != nil {
		t.Error("Pack.Rule lookup is wrong")
	}
}

func TestLoadPacksMissingFolder(t *testing.T) {
	t.Parallel()
	if _, _, err := LoadPacks(filepath.Join(t.TempDir(), "nope")); !os.IsNotExist(err) {
		t.Errorf("err = %v, want a not-exist error", err)
	}
}

// TestCorpusRulesLoad loads every real VectorLint rule pack of the shared corpus: all must load
// without a problem, except that the technical-accuracy rule needs a search model.
func TestCorpusRulesLoad(t *testing.T) {
	t.Parallel()
	corpus := filepath.Join(testutil.SharedDir(t), "corpus", "vectorlint-rules")
	rulesPaths := []string{
		filepath.Join(corpus, "v2.1.1", "rules"),
		filepath.Join(corpus, "head", "presets"),
	}
	fixtures, err := filepath.Glob(filepath.Join(corpus, "head", "tests", "fixtures", "*", "rules"))
	if err != nil || len(fixtures) < 7 {
		t.Fatalf("expected at least 7 fixture rule folders, found %d (%v)", len(fixtures), err)
	}
	rulesPaths = append(rulesPaths, fixtures...)
	total := 0
	for _, rp := range rulesPaths {
		packs, problems, err := LoadPacks(rp)
		if err != nil {
			t.Fatalf("%s: %v", rp, err)
		}
		if len(problems) > 0 {
			t.Errorf("%s: problems:\n%v", rp, problems)
		}
		for _, p := range packs {
			for _, r := range p.Rules {
				total++
				if r.Name == "" || r.Body == "" {
					t.Errorf("%s: empty name or body", r.FullID())
				}
				problem := CheckRunnable(r, false)
				switch {
				case r.ID == "TechnicalAccuracy" && problem == nil:
					t.Errorf("%s: a technical-accuracy rule must need a search model", r.FullID())
				case r.ID != "TechnicalAccuracy" && problem != nil:
					t.Errorf("%s: %v", r.FullID(), problem)
				}
				if CheckRunnable(r, true) != nil {
					t.Errorf("%s: not runnable with a search model", r.FullID())
				}
			}
		}
	}
	// 4 (v2.1.1) + 8 (presets) + 7 (fixture packs).
	if total != 19 {
		t.Errorf("loaded %d rules, want 19", total)
	}
}

func TestCorpusHeadlineRule(t *testing.T) {
	t.Parallel()
	path := filepath.Join(testutil.SharedDir(t), "corpus", "vectorlint-rules", "v2.1.1", "rules", "TinyRocket", "headline-evaluator.md")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, ps := Parse("headline-evaluator.md", data)
	if len(ps) != 0 {
		t.Fatal(ps)
	}
	if r.Type != finding.Subjective || r.Severity != finding.SeverityError || r.Target.String() != `/^#\s+(.+)$/mu group 1` || !r.Target.Required {
		t.Errorf("rule = %+v, target %v", r, r.Target)
	}
	var weights []float64
	for _, c := range r.Criteria {
		weights = append(weights, c.Weight)
	}
	if !reflect.DeepEqual(weights, []float64{12, 4, 2, 2}) {
		t.Errorf("weights = %v", weights)
	}
	var names []string
	for _, rc := range r.Rubric {
		names = append(names, rc.Name)
		if len(rc.Levels) != 4 || rc.Levels[0].Score != 4 || rc.Levels[3].Score != 1 {
			t.Errorf("rubric %q levels = %+v", rc.Name, rc.Levels)
		}
	}
	if !reflect.DeepEqual(names, []string{"Value Communication", "Audience Relevance", "Curiosity Gap", "Language Authenticity"}) {
		t.Errorf("rubric criteria = %v", names)
	}
}

func TestSearchModelConfigured(t *testing.T) {
	t.Parallel()
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"PERPLEXITY_API_KEY": "k"}, true},
		{map[string]string{"PERPLEXITY_API_KEY": ""}, false},
		{map[string]string{"SEARCH_MODEL": "m"}, false},
		{map[string]string{"SEARCH_MODEL": "m", "PERPLEXITY_BASE_URL": "http://x"}, true},
	}
	for _, tt := range tests {
		got := SearchModelConfigured(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
		if got != tt.want {
			t.Errorf("%v: got %v", tt.env, got)
		}
	}
}
