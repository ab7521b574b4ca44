package finding

// RuleType is a rule's evaluation mode (spec/linter.md §3): how its rule file asks to be
// evaluated, and how its scores are written.
type RuleType string

// Rule types. The frontmatter aliases "check" and "judge" resolve to these.
const (
	SemiObjective RuleType = "semi-objective"
	Subjective    RuleType = "subjective"
)
