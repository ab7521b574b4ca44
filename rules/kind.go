package rules

import "github.com/vectorlint/vectorlint/finding"

// Kind is how a rule is scored, read from its fields alone (spec/linter.md §3, §5): the linter
// evaluates each kind its own way (package lint has one file per kind), and the configuration
// asks a rule's kind to tell which settings apply to it.
type Kind int

// The kinds of rule, in the order they are decided: a rule with a `should` list is a
// checklist; else a subjective rule with criteria to rate is subjective; else it is
// semi-objective.
const (
	// KindSemiObjective: the model lists violations; the score falls with their density.
	KindSemiObjective Kind = iota
	// KindSubjective: the model rates weighted criteria 1–4.
	KindSubjective
	// KindChecklist: a `should` list of Weval points scored by the points engine.
	KindChecklist
)

// String is the kind as validate and --dry-run show it: "semi-objective", "subjective" or
// "checklist".
func (k Kind) String() string {
	switch k {
	case KindSubjective:
		return string(finding.Subjective)
	case KindChecklist:
		return "checklist"
	}
	return string(finding.SemiObjective)
}

// Kind returns how the rule is scored. A technical-accuracy rule (Evaluator) gathers its
// evidence first and is then scored as its kind says.
func (r *Rule) Kind() Kind {
	switch {
	case r.Should != nil:
		return KindChecklist
	case r.Type == finding.Subjective && len(r.Criteria) > 0:
		return KindSubjective
	}
	return KindSemiObjective
}
