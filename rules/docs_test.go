package rules

import (
	"os"
	"path/filepath"
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
