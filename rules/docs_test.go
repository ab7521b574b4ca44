package rules

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// TestDocsCompleteRule: docs/rules.md shows one complete ordinary rule, and it is valid as
// written (no problem at all, not even a warning), a semi-objective rule with every field it
// shows. The page stands on its own: it sends readers to nothing they do not have (the project's
// specification, its test corpus, its internal packages).
func TestDocsCompleteRule(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	_, section, ok := strings.Cut(doc, "\n## A complete rule\n")
	if !ok {
		t.Fatal("docs/rules.md has no \"A complete rule\" section")
	}
	m := regexp.MustCompile("(?s)```markdown\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("the section has no markdown block")
	}
	r, ps := Parse("wordiness.md", []byte(m[1]))
	if len(ps) != 0 {
		t.Fatalf("the documented rule has problems:\n%v", ps)
	}
	if r.ID != "Wordiness" || r.Type != finding.SemiObjective || r.Severity != finding.SeverityWarning || r.Strictness != 10 ||
		!strings.Contains(r.Body, "Do not flag:") {
		t.Errorf("rule %+v", r)
	}
	for _, ref := range []string{"spec/", "spec §", "shared", "corpus", "internal/"} {
		if strings.Contains(doc, ref) {
			t.Errorf("docs/rules.md refers to %q, which users do not have", ref)
		}
	}
}

// TestDocsExamples: docs/rules.md's worked example is valid as written: the examples shown
// first are the rule's, two to find and three to leave alone; and the validation output it
// shows is what loading the rules it describes gives, line for line.
func TestDocsExamples(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(testutil.RepoRoot(t), "docs", "rules.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(data), "\n## Examples: write them before the rule\n")
	if !ok {
		t.Fatal("docs/rules.md has no \"Examples: write them before the rule\" section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	yamlBlock := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindStringSubmatch(section)
	ruleBlock := regexp.MustCompile("(?s)```markdown\n(.*?)```").FindStringSubmatch(section)
	outBlock := regexp.MustCompile("(?s)```\n(rules/.*?)```").FindStringSubmatch(section)
	if yamlBlock == nil || ruleBlock == nil || outBlock == nil {
		t.Fatal("the section lacks its yaml, markdown or output block")
	}
	r, ps := Parse("minimizers.md", []byte(ruleBlock[1]))
	if len(ps) != 0 {
		t.Fatalf("the documented rule has problems:\n%v", ps)
	}
	var find, clean int
	for _, ex := range r.Examples {
		if ex.MustFind() {
			find++
		} else {
			clean++
		}
	}
	if find != 2 || clean != 3 || !strings.Contains(r.Body, "Do not flag:") {
		t.Errorf("%d examples to find, %d to leave alone; body %q", find, clean, r.Body)
	}
	// The examples shown first are the rule's, comments aside.
	shown, ps := Parse("shown.md", []byte("---\nid: A\nname: A\n"+yamlBlock[1]+"---\n"))
	if len(ps) != 0 || !reflect.DeepEqual(lineless(shown.Examples), lineless(r.Examples)) {
		t.Errorf("the examples shown first are not the rule's: %v", ps)
	}

	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"Acme/minimizers.md": "---\nid: Minimizers\nname: Minimizers\nseverity: warning\nexamples:\n" +
			"  - text: \"To publish the site, {==simply==} run `acme deploy`.\"\n" +
			"  - text: \"Rotating a key is {==easy: open **Keys** and choose **Rotate**.\"\n" +
			"  - text: \"Run `acme deploy` to publish the site.\"\n    file: examples/deploy.md\n" +
			"  - file: examples/long.md\n---\nFlag words that tell the reader a task is easy.\n",
		"Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\ncriteria:\n  - {id: Clarity, name: Clarity}\nexamples:\n" +
			"  - text: \"# {==Everything you need to know==}\"\n    criteria: {Clarty: [1, 2]}\n" +
			"  - text: \"# Deploy a static site with the CLI\"\n    score: [8, 3]\n---\nRate the headline.\n",
	})
	_, problems, err := LoadPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, p := range problems {
		got.WriteString("rules/" + filepath.ToSlash(strings.TrimPrefix(p.Error(), dir+string(filepath.Separator))) + "\n")
	}
	if got.String() != outBlock[1] {
		t.Errorf("validation output:\n%s\ndocs/rules.md shows:\n%s", got.String(), outBlock[1])
	}
}

// lineless returns copies of examples without their lines and indexes.
func lineless(exs []*Example) []Example {
	out := make([]Example, len(exs))
	for i, ex := range exs {
		out[i] = *ex
		out[i].Line, out[i].Index = 0, 0
	}
	return out
}
