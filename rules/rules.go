// Package rules loads VectorLint rule packs: Markdown files with YAML frontmatter, grouped in
// pack folders under a RulesPath (spec/linter.md §3).
//
// Parse reads one rule file and validates every frontmatter field, returning all problems at once
// (file, line, field, what was expected and what was found). LoadPacks reads a whole RulesPath.
// Rule bodies are the model's instructions; a subjective rule's body may hold a rubric
// ("# Criterion <weight=N>" headings with "### Level <score=N>" levels), parsed with goldmark.
//
// The package does no evaluation: the lint package turns rules into an evaluation plan.
package rules

import (
	"slices"
	"strconv"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// Evaluator names the evaluation strategy of a rule.
type Evaluator string

// Evaluators (spec/linter.md §3, §6).
const (
	// EvaluatorBase sends the rule body and the text to the model.
	EvaluatorBase Evaluator = "base"
	// EvaluatorTechnicalAccuracy extracts factual claims and checks them with a search model
	// before running the rule body.
	EvaluatorTechnicalAccuracy Evaluator = "technical-accuracy"
)

// EvaluateAs says whether a long text may be split into chunks for a rule.
type EvaluateAs string

// EvaluateAs values.
const (
	// EvaluateChunks splits texts over 600 words into chunks of at most 500 words (the default).
	EvaluateChunks EvaluateAs = "chunk"
	// EvaluateDocument always sends the whole text in one call.
	EvaluateDocument EvaluateAs = "document"
)

// Strictness presets (spec/linter.md §3): the penalty per 1% violation density.
const (
	StrictnessLenient  = 5.0
	StrictnessStandard = 10.0
	StrictnessStrict   = 20.0
)

// ParseStrictness reads a strictness value written as a number greater than 0 and at most
// MaxStrictness ("20", "7.5") or a preset name (lenient, standard, strict).
func ParseStrictness(s string) (float64, bool) {
	switch s {
	case "lenient":
		return StrictnessLenient, true
	case "standard":
		return StrictnessStandard, true
	case "strict":
		return StrictnessStrict, true
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v > 0) || v > MaxStrictness {
		return 0, false
	}
	return v, true
}

// Pack is a folder of rules directly under RulesPath. Its folder name is the pack name used in
// RunRules and in rule ids ("Pack.RuleId").
type Pack struct {
	Name string
	// Dir is the pack's folder ("" for a built-in pack).
	Dir string
	// Builtin is true for a pack compiled into the binary (see BuiltinPacks and StyleGuidePack).
	Builtin bool
	// Rules are sorted by file path.
	Rules []*Rule
}

// Rule returns the pack's rule with the given frontmatter id, else the rule that has id as an
// alias (Rule.Aliases), or nil.
func (p *Pack) Rule(id string) *Rule {
	for _, r := range p.Rules {
		if r.ID == id {
			return r
		}
	}
	for _, r := range p.Rules {
		if r.HasID(id) {
			return r
		}
	}
	return nil
}

// Rule is one rule file: its frontmatter, typed and with defaults applied, and its body.
type Rule struct {
	// Pack is the name of the pack the rule belongs to ("" for a rule parsed on its own).
	Pack string
	// Path is the rule file's path, as given to Parse.
	Path string

	ID   string
	Name string
	// Aliases are other ids vectorlint.ini may name the rule by: the ids the original
	// VectorLint gave its presets where a built-in rule is named differently ("AIPattern" for
	// VectorLint.AIPatterns). Only built-in rules have aliases; output always uses ID.
	Aliases []string
	// SpecVersion is recorded as written (a string or a number); it is not enforced.
	SpecVersion string
	Evaluator   Evaluator
	Type        finding.RuleType
	// Severity is SeverityUnset when the frontmatter does not set it (DefaultSeverity applies).
	Severity finding.Severity
	// Strictness is the resolved number (10 when not set).
	Strictness float64
	// Target picks the text to evaluate; nil evaluates the whole document.
	Target     *Target
	Criteria   []*Criterion
	EvaluateAs EvaluateAs
	// Should is the rule's `should` list (Weval points) as the rubric parser read it; nil when
	// the rule has none. A rule with `should` is a checklist rule: the points engine scores it
	// by its points (coverage × 10) instead of by the model's violations, and its body is
	// context for the judge of its text points. The linter's project loading prepares its
	// functions (points.Prepare) once.
	Should *rubric.Rubric
	// Examples are the rule's examples (docs/rules.md, "Examples"): tests of the rule, never
	// sent to the model with it. A file example's text is read by LoadPacks and the built-in
	// packs, not by Parse alone (Example.Path is "" until then).
	Examples []*Example

	// Body is the Markdown after the frontmatter: the instructions for the model.
	Body string
	// BodyLine is the 1-based line of the rule file where Body starts.
	BodyLine int
	// Rubric holds the rubric criteria found in Body (empty when there is no rubric).
	Rubric []RubricCriterion
}

// HasID reports whether id is the rule's id or one of its aliases.
func (r *Rule) HasID(id string) bool {
	return r.ID == id || slices.Contains(r.Aliases, id)
}

// FullID returns the rule id used in output: "Pack.RuleId" (or "RuleId" without a pack).
func (r *Rule) FullID() string {
	if r.Pack == "" {
		return r.ID
	}
	return r.Pack + "." + r.ID
}

// CriterionID returns the id used in output for one of the rule's criteria:
// "Pack.RuleId.CriterionId".
func (r *Rule) CriterionID(c *Criterion) string {
	return r.FullID() + "." + c.ID
}

// Criterion is one weighted criterion of a rule.
type Criterion struct {
	ID   string
	Name string
	// Weight is > 0 (1 when not set).
	Weight float64
	// Target replaces the rule's target for this criterion when set.
	Target *Target
	// Severity is SeverityUnset when not set (the rule's severity applies).
	Severity finding.Severity
	// Line is the line of the criterion's entry in the rule file.
	Line int
	// weightRefused is set when the frontmatter's weight was refused (out of range): Weight is
	// then the default, and a rubric heading is not compared with it.
	weightRefused bool
}
