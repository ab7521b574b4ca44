package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// TestLoadProjectChecklistScripts: the rules package parses a `should` list without the points
// engine, so LoadProject hands it the engine (rules.Loader with points.Prepare). A script that
// does not compile is then an error of its rule, reported at its line in order with the rule's
// other problems (as when rules parsed with the engine itself), the rule is left out of its
// pack, and the configuration is not blamed for naming a pack that lost a rule. The rules that
// load have their functions compiled once, for every file they are scored on.
func TestLoadProjectChecklistScripts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	testutil.WriteFiles(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[*.md]\nRunRules = Acme\nAcme.Bad.severity = error\n",
		"rules/Acme/bad.md": "---\nid: Bad\nname: Bad\nshould:\n  - $js: \"return (\"\n  - $icontans: x\n" +
			"  - - $tool_args_match: {name: a, where: \"args.x >\"}\n  - $contains: fine\n---\nBody\n",
		"rules/Acme/good.md": "---\nid: Good\nname: Good\nshould:\n  - $js: \"r.length > 2\"\n  - $imatches: \"^a\"\n  - says hi\n---\nBody\n",
	})
	_, err := LoadProject(ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err == nil {
		t.Fatal("a rule whose script does not compile loaded")
	}
	bad := filepath.Join(dir, "rules", "Acme", "bad.md")
	want := strings.Join([]string{
		bad + `:5: should: $js: JavaScript does not compile: SyntaxError: $js: Line 1:1 Illegal return statement`,
		bad + `:6: should: unknown point function "$icontans" (did you mean $icontains?)`,
		bad + `:7: should: $tool_args_match: where: JavaScript does not compile: SyntaxError: where: Line 2:1 Unexpected token ) (and 4 more errors)`,
		bad + `:7: warning: should: should item 3 is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting ("- - x" → "- x")`,
	}, "\n")
	if err.Error() != want {
		t.Errorf("problems:\n%s\nwant\n%s", err, want)
	}

	testutil.WriteFiles(t, dir, map[string]string{"vectorlint.ini": "RulesPath = rules\n[*.md]\nRunRules = Acme\n"})
	if err := os.Remove(bad); err != nil {
		t.Fatal(err)
	}
	proj, err := LoadProject(ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err != nil {
		t.Fatal(err)
	}
	good := proj.Pack("Acme").Rules[0]
	for _, pt := range good.Should.Points() {
		if pt.IsFunction() != (pt.Compiled != nil) {
			t.Errorf("%s: compiled %v", pt.KeyPointText(), pt.Compiled != nil)
		}
	}
}
