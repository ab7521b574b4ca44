package rules

import (
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

// TestBuiltinPacks loads the built-in packs through the same parser and validation as a user's
// rules: no problem at all (not even a warning), and the settings documented in
// docs/presets.md.
func TestBuiltinPacks(t *testing.T) {
	t.Parallel()
	packs, problems := BuiltinPacks()
	guide, guideProblems := StyleGuidePack()
	if len(problems) != 0 || len(guideProblems) != 0 {
		t.Fatalf("problems in built-in rules:\n%v\n%v", problems, guideProblems)
	}
	if len(packs) != 1 || packs[0].Name != BuiltinPackName || guide.Name != StyleGuidePackName {
		t.Fatalf("packs = %v, %v", packs, guide)
	}
	var got []string
	for _, p := range append(packs, guide) {
		if !p.Builtin || p.Dir != "" {
			t.Errorf("pack %s: Builtin %v, Dir %q", p.Name, p.Builtin, p.Dir)
		}
		for _, r := range p.Rules {
			got = append(got, fmt.Sprintf("%s %s %s %s %v %s", r.FullID(), r.Path, r.Type, r.Severity, r.Strictness, r.EvaluateAs))
		}
	}
	want := []string{
		"VectorLint.AIPatterns (built-in)/VectorLint/ai-patterns.md subjective warning 10 chunk",
		"VectorLint.Capitalization (built-in)/VectorLint/capitalization.md semi-objective warning 10 document",
		"VectorLint.Consistency (built-in)/VectorLint/consistency.md semi-objective warning 10 document",
		"VectorLint.InclusiveLanguage (built-in)/VectorLint/inclusive-language.md semi-objective error 20 chunk",
		"VectorLint.PassiveVoice (built-in)/VectorLint/passive-voice.md semi-objective warning 5 chunk",
		"VectorLint.Repetition (built-in)/VectorLint/repetition.md semi-objective warning 10 chunk",
		"VectorLint.UnsupportedClaims (built-in)/VectorLint/unsupported-claims.md semi-objective warning 10 chunk",
		"VectorLint.Wordiness (built-in)/VectorLint/wordiness.md semi-objective warning 10 chunk",
		"StyleGuide.Compliance (built-in)/StyleGuide/compliance.md semi-objective warning 10 chunk",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("built-in rules:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBuiltinRuleBodies checks what every built-in rule body owes its reader, the model: no
// target (the whole document is the subject), guards against false positives, an explicit
// severity, a body lean enough to send on every call, and for a
// subjective rule a complete rubric (every declared criterion, four levels scored 4 to 1).
func TestBuiltinRuleBodies(t *testing.T) {
	t.Parallel()
	packs, _ := BuiltinPacks()
	guide, _ := StyleGuidePack()
	for _, p := range append(packs, guide) {
		for _, r := range p.Rules {
			t.Run(r.FullID(), func(t *testing.T) {
				if r.Target != nil || r.Severity == finding.SeverityUnset {
					t.Errorf("target %v, severity %q: want no target and an explicit severity", r.Target, r.Severity)
				}
				if !strings.Contains(r.Body, "Do not flag") && !strings.Contains(r.Body, "Do not count") {
					t.Error("the body says what not to flag")
				}
				// About 4 characters per token: every body stays under ~800 tokens.
				if n := len(r.Body); n > 3200 {
					t.Errorf("body is %d characters; keep it under 3,200 (it is sent on every call)", n)
				}
				if r.Type != finding.Subjective {
					if len(r.Criteria) != 0 || len(r.Rubric) != 0 {
						t.Errorf("a semi-objective built-in rule has no criteria or rubric: %d, %d", len(r.Criteria), len(r.Rubric))
					}
					return
				}
				if len(r.Rubric) != len(r.Criteria) {
					t.Fatalf("rubric has %d criteria, frontmatter %d", len(r.Rubric), len(r.Criteria))
				}
				for i, rc := range r.Rubric {
					c := r.Criteria[i]
					if rc.Name != c.Name || !rc.HasWeight || rc.Weight != c.Weight {
						t.Errorf("rubric criterion %d = %q weight %v, frontmatter %q weight %v", i, rc.Name, rc.Weight, c.Name, c.Weight)
					}
					var scores []int
					for _, lv := range rc.Levels {
						scores = append(scores, lv.Score)
						if lv.Text == "" {
							t.Errorf("%s level %q has no description", rc.Name, lv.Name)
						}
					}
					if !reflect.DeepEqual(scores, []int{4, 3, 2, 1}) {
						t.Errorf("%s levels score %v, want 4, 3, 2, 1", rc.Name, scores)
					}
				}
			})
		}
	}
}

// TestBuiltinPacksAreFresh checks that each call returns its own rules: a caller that changes
// a rule (an override applied in place) cannot change what the next caller gets.
func TestBuiltinPacksAreFresh(t *testing.T) {
	t.Parallel()
	a, _ := BuiltinPacks()
	a[0].Rules[0].Severity = finding.SeverityError
	a[0].Rules = a[0].Rules[:1]
	b, _ := BuiltinPacks()
	if len(b[0].Rules) != 8 || b[0].Rules[0].Severity != finding.SeverityWarning {
		t.Errorf("second call sees the first caller's changes: %d rules, severity %q", len(b[0].Rules), b[0].Rules[0].Severity)
	}
}

// TestBuiltinExamples: every built-in rule ships examples (docs/rules.md, "Examples"), at least two it
// must find something in and two it must find nothing in, all valid (TestBuiltinPacks loads
// them without a problem) and each written once. A span marks words, not the space around
// them, and a subjective rule's example says what it expects of the ratings too.
func TestBuiltinExamples(t *testing.T) {
	t.Parallel()
	packs, _ := BuiltinPacks()
	guide, _ := StyleGuidePack()
	for _, p := range append(packs, guide) {
		for _, r := range p.Rules {
			t.Run(r.FullID(), func(t *testing.T) {
				checkShippedExamples(t, r)
			})
		}
	}
}

// checkShippedExamples checks the examples of a rule that vectorlint ships (built in, or
// written by vectorlint init).
func checkShippedExamples(t *testing.T, r *Rule) {
	t.Helper()
	find, clean := 0, 0
	seen := map[string]int{}
	for i, ex := range r.Examples {
		if ex.File != "" || ex.Text == "" {
			t.Errorf("example %d: file %q: a shipped example is given as text", i, ex.File)
		}
		if j, dup := seen[ex.Text]; dup {
			t.Errorf("examples %d and %d have the same text %q", j, i, ex.Text)
		}
		seen[ex.Text] = i
		if ex.MustFind() {
			find++
		} else {
			clean++
		}
		for _, s := range ex.Spans {
			if marked := ex.Text[s.Start:s.End]; strings.TrimSpace(marked) != marked {
				t.Errorf("example %d: span %q has space around it", i, marked)
			}
		}
		if r.Type == finding.Subjective && ex.Score == nil && len(ex.Criteria) == 0 {
			t.Errorf("example %d of a subjective rule sets no score or criteria range", i)
		}
	}
	if find < 2 || clean < 2 {
		t.Errorf("%d examples to find, %d to find nothing in; want at least 2 of each", find, clean)
	}
}
