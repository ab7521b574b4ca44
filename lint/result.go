package lint

import (
	"encoding/json"
	"strconv"

	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// Position is a place in a document's original bytes (frontmatter included).
// Line and Column are 1-based; Column counts Unicode code points. ByteColumn is the 1-based
// column in UTF-8 bytes (what reviewdog expects). Offset is the 0-based byte offset in the file.
type Position struct {
	Line       int
	Column     int
	ByteColumn int
	Offset     int
}

// Finding is one problem in a document: a diagnostic in the style of golang.org/x/tools/go/analysis,
// with a start, an exclusive end, a message, a category (the rule) and an optional fix.
type Finding struct {
	// Rule is "Pack.RuleId", or "Pack.RuleId.CriterionId" for a subjective criterion.
	Rule     string
	Severity rules.Severity
	Message  string
	// Suggestion is advice in prose; Fix is a drop-in replacement for Match (may be empty).
	Suggestion string
	Fix        string
	// Match is the document text between Start and End.
	Match    string
	Analysis string
	Start    Position
	End      Position
}

// findingJSON is the native JSON shape of a finding (spec/linter.md §7).
type findingJSON struct {
	Rule       string         `json:"rule"`
	Severity   rules.Severity `json:"severity"`
	Message    string         `json:"message"`
	Suggestion string         `json:"suggestion,omitempty"`
	Fix        string         `json:"fix,omitempty"`
	Match      string         `json:"match,omitempty"`
	Line       int            `json:"line"`
	Column     int            `json:"column"`
	EndLine    int            `json:"endLine"`
	EndColumn  int            `json:"endColumn"`
	Offset     int            `json:"offset"`
	EndOffset  int            `json:"endOffset"`
	Analysis   string         `json:"analysis,omitempty"`
}

// MarshalJSON writes the native JSON shape with flat position fields.
func (f Finding) MarshalJSON() ([]byte, error) {
	return json.Marshal(findingJSON{
		Rule: f.Rule, Severity: f.Severity, Message: f.Message, Suggestion: f.Suggestion, Fix: f.Fix,
		Match: f.Match, Line: f.Start.Line, Column: f.Start.Column, EndLine: f.End.Line,
		EndColumn: f.End.Column, Offset: f.Start.Offset, EndOffset: f.End.Offset, Analysis: f.Analysis,
	})
}

// RuleType is the evaluation mode of a rule.
type RuleType string

// Rule types (spec/linter.md §3).
const (
	SemiObjective RuleType = "semi-objective"
	Subjective    RuleType = "subjective"
)

// Score is one rule's score on one file. Semi-objective scores carry Violations, Words and
// Strictness; subjective scores carry Criteria. Score is on the 0–10 scale.
type Score struct {
	Rule       string           `json:"rule"`
	Type       RuleType         `json:"type"`
	Score      Rounded1         `json:"score"`
	Violations *int             `json:"violations,omitempty"`
	Words      *int             `json:"words,omitempty"`
	Strictness *float64         `json:"strictness,omitempty"`
	Criteria   []CriterionScore `json:"criteria,omitempty"`
	// Coverage is set for a rule's `should` list scored by the blueprint engine (0–1).
	Coverage *float64 `json:"coverage,omitempty"`
}

// CriterionScore is one subjective criterion's rating (1–4) and normalised score (1–10).
type CriterionScore struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Rating int      `json:"rating"`
	Score  Rounded1 `json:"score"`
	Weight float64  `json:"weight"`
}

// Rounded1 is a score serialised rounded to one decimal (spec/linter.md §5). The full
// precision value is kept for arithmetic.
type Rounded1 float64

// MarshalJSON writes the value rounded to one decimal, e.g. 3.5 or 10.0, rounding ties away
// from zero as the original VectorLint's toFixed(1) does (9.25 → 9.3, where %.1f gives 9.2).
func (r Rounded1) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(scoring.Round1(float64(r)), 'f', 1, 64)), nil
}

// Unverified is a violation the model reported whose quote could not be found in the text. It is
// not a finding and does not count in the score, but it is never dropped silently.
type Unverified struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
	Quote   string `json:"quote"`
	Line    int    `json:"line,omitempty"`
}

// RuleError is an operational failure of one rule on one file (an LLM call that failed after
// retries, a reply that broke the contract). Other rules' results on the file are kept.
type RuleError struct {
	Rule    string `json:"rule"`
	Message string `json:"message"`
}

// RunError is a failure of the whole run rather than of one rule on one file: no model is
// configured, or the model's endpoint refused the connection, could not be resolved or
// reached over TLS, rejected the key, refused access or has no such model (an llm.StopError).
// The rule runs it kept from completing are counted, never listed one by one: one cause,
// reported once, instead of the same error on every rule of every file.
type RunError struct {
	// Cause is the failure in a few words: "connection refused to 127.0.0.1:9", "no LLM
	// provider is configured".
	Cause string `json:"cause"`
	// Message is the whole message: the provider, the host, the cause and what to change.
	Message string `json:"message"`
	// NotRun is the number of rule runs (one rule on one file) it kept from completing.
	NotRun int `json:"notRun"`
}

// FileResult is everything the run produced for one file.
type FileResult struct {
	Path       string       `json:"path"`
	Findings   []Finding    `json:"findings"`
	Scores     []Score      `json:"scores"`
	Unverified []Unverified `json:"unverified,omitempty"`
	Errors     []RuleError  `json:"errors,omitempty"`
	// NotRun counts the rules that could not complete on this file because of a RunError
	// (the run's runErrors say why); their deterministic findings and scores are kept.
	NotRun int `json:"notRun,omitempty"`
}

// Skipped is a file that was found but not linted, with the reason.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Usage counts LLM calls and tokens. Cost is nil unless prices are configured.
type Usage struct {
	Calls        int      `json:"calls"`
	CachedCalls  int      `json:"cachedCalls"`
	InputTokens  int64    `json:"inputTokens"`
	OutputTokens int64    `json:"outputTokens"`
	Cost         *float64 `json:"cost"`
}

// Summary totals a run.
type Summary struct {
	Files             int `json:"files"`
	Errors            int `json:"errors"`
	Warnings          int `json:"warnings"`
	Unverified        int `json:"unverified"`
	OperationalErrors int `json:"operationalErrors"`
	// NotRun is the number of rule runs that could not complete because of the run's
	// RunErrors (absent when none).
	NotRun int `json:"notRun,omitempty"`
}

// Result is a whole lint run: every linted file sorted by path, the files skipped, totals and
// LLM usage. It serialises to the native JSON output (spec/linter.md §7) with Version set.
type Result struct {
	Version string       `json:"version"`
	Files   []FileResult `json:"files"`
	Skipped []Skipped    `json:"skipped,omitempty"`
	// RunErrors are the failures of the whole run, each with the count of rule runs it kept
	// from completing (absent when none).
	RunErrors []RunError `json:"runErrors,omitempty"`
	Summary   Summary    `json:"summary"`
	Usage     Usage      `json:"usage"`
}
