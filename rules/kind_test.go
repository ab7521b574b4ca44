package rules_test

import (
	"testing"

	"github.com/vectorlint/vectorlint/rules"
)

// TestRuleKind: a rule's kind comes from its fields: a `should` list makes a checklist (even
// with criteria), criteria make a subjective rule subjective, anything else is semi-objective.
func TestRuleKind(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      rules.Kind
		str       string
	}{
		{"plain", "---\nid: A\nname: A\n---\nBody.\n", rules.KindSemiObjective, "semi-objective"},
		{"criteria guide a semi-objective rule", "---\nid: A\nname: A\ncriteria: [{id: X, name: X}]\n---\nBody.\n", rules.KindSemiObjective, "semi-objective"},
		{"subjective", "---\nid: A\nname: A\ntype: subjective\ncriteria: [{id: X, name: X}]\n---\nBody.\n", rules.KindSubjective, "subjective"},
		{"checklist", "---\nid: A\nname: A\nshould:\n  - $contains: x\n---\nBody.\n", rules.KindChecklist, "checklist"},
		{"technical accuracy keeps its kind", "---\nid: A\nname: A\nevaluator: technical-accuracy\n---\nBody.\n", rules.KindSemiObjective, "semi-objective"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, problems := rules.Parse("a.md", []byte(tt.src))
			if len(problems) > 0 {
				t.Fatal(problems)
			}
			if got := r.Kind(); got != tt.want || got.String() != tt.str {
				t.Errorf("kind %v (%q), want %v (%q)", got, got.String(), tt.want, tt.str)
			}
		})
	}
}
