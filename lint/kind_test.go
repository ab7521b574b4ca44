package lint

import (
	"reflect"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/rules"
)

// TestKindOf: each kind of rule gets the kind that evaluates it, and the dry run's and
// validate's descriptions come from it.
func TestKindOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, kind, describe string
		whole                     bool
		groups                    int
	}{
		{"semi-objective", semiRuleSrc, "semi-objective", "semi-objective, warning, strictness 10", false, 1},
		{"semi-objective as a document",
			"---\nid: W\nname: W\nstrictness: strict\nevaluateAs: document\n---\nBody.\n",
			"semi-objective", "semi-objective, warning, strictness 20, evaluateAs document", false, 1},
		{"subjective", subjectiveRuleSrc, "subjective", "subjective, warning", false, 2}, // one group per criterion
		{"checklist", "---\nid: C\nname: C\nseverity: error\nshould:\n  - $contains: x\n  - says hello\n---\nBody.\n",
			"checklist", "checklist, error", true, 1},
		{"technical accuracy, semi-objective",
			"---\nid: F\nname: F\nevaluator: technical-accuracy\n---\nBody.\n",
			"semi-objective", "semi-objective, warning, strictness 10", false, 1},
		{"technical accuracy, subjective",
			"---\nid: F\nname: F\nevaluator: technical-accuracy\ntype: subjective\nevaluateAs: document\ncriteria: [{id: A, name: A}, {id: B, name: B}]\n---\nBody.\n",
			"subjective", "subjective, warning, evaluateAs document", false, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := mustRule(t, tt.src)
			k := KindOf(r)
			pr := &PlannedRule{Rule: r, Kind: k, ID: r.FullID(), Severity: finding.SeverityWarning, Strictness: r.Strictness}
			if r.Severity != finding.SeverityUnset {
				pr.Severity = r.Severity
			}
			l := k.layout(r)
			if k.Name() != tt.kind || k.Describe(pr) != tt.describe || l.whole != tt.whole || len(l.groups) != tt.groups {
				t.Errorf("kind %q, describe %q, whole %v, %d groups; want %q, %q, %v, %d",
					k.Name(), k.Describe(pr), l.whole, len(l.groups), tt.kind, tt.describe, tt.whole, tt.groups)
			}
			_, isTech := k.(technicalAccuracy)
			if isTech != (r.Evaluator == rules.EvaluatorTechnicalAccuracy) {
				t.Errorf("technical accuracy wrapper: %v", isTech)
			}
		})
	}
}

// TestKindsWithoutModel: without a client the model kinds do not run (their calls are counted
// as not made); a checklist runs, its judged points counted as not made without a judge.
func TestKindsWithoutModel(t *testing.T) {
	t.Parallel()
	semi := mustRule(t, semiRuleSrc)
	check := mustRule(t, "---\nid: C\nname: C\nshould:\n  - $contains: x\n  - says hello\n  - says goodbye\n---\nBody.\n")
	long := testutil.LongText(1700) // two chunks of at most DefaultChunkWords
	tests := []struct {
		name   string
		rule   *rules.Rule
		text   string
		whole  bool
		run    bool
		notRun int
	}{
		{"semi-objective, one chunk", semi, "Short text.", false, false, 1},
		{"semi-objective, two chunks", semi, long, false, false, 2},
		{"checklist", check, long, true, true, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := KindOf(tt.rule)
			u := &Unit{Text: tt.text, Line: 1, NoSplit: tt.whole, Checklist: tt.rule.Should, kind: k}
			if run, notRun := k.runnable(u, EvalOptions{}); run != tt.run || notRun != tt.notRun {
				t.Errorf("runnable = %v, %d; want %v, %d", run, notRun, tt.run, tt.notRun)
			}
			if got := u.ModelCalls(); got != tt.notRun {
				t.Errorf("ModelCalls = %d, want %d", got, tt.notRun)
			}
		})
	}
}

// TestChecklistEstimate: a checklist's dry-run cost is its judged points' calls, or nothing.
func TestChecklistEstimate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		src  string
		want Estimate
	}{
		{"---\nid: C\nname: C\nshould:\n  - $contains: x\n  - $not_contains: y\n---\nBody.\n",
			Estimate{Lines: []string{"checklist of 2 points, all deterministic: no LLM call"}}},
		// (2500 judge characters + 8 of text + 3) / 4 = 627 tokens a call.
		{"---\nid: C\nname: C\nshould:\n  - $contains: x\n  - says hello\n  - says goodbye\n---\nBody.\n",
			Estimate{Calls: 2, Tokens: 1254, Lines: []string{"checklist of 3 points: 2 LLM calls for the judged points, ~1,254 tokens"}}},
	}
	for _, tt := range tests {
		r := mustRule(t, tt.src)
		k := KindOf(r)
		u := &Unit{Text: "Hi there", Line: 1, NoSplit: true, Checklist: r.Should, kind: k}
		if got := k.Estimate(&PlannedRule{Rule: r, Kind: k}, u); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: estimate %+v, want %+v", r.ID, got, tt.want)
		}
	}
}

// TestKindsTable: every kind of rule package rules knows has its evaluator in the table, under
// the name validate shows.
func TestKindsTable(t *testing.T) {
	t.Parallel()
	if len(kinds) != int(rules.KindChecklist)+1 {
		t.Fatalf("kinds has %d entries, rules has %d kinds", len(kinds), rules.KindChecklist+1)
	}
	for k, ev := range kinds {
		if ev == nil || ev.Name() != rules.Kind(k).String() {
			t.Errorf("kind %v: evaluator %v", rules.Kind(k), ev)
		}
	}
}
