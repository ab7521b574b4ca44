package lint

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// Finding is one problem in a document: a diagnostic in the style of golang.org/x/tools/go/analysis,
// with a start, an exclusive end, a message, a category (the rule) and an optional fix.
type Finding struct {
	// Rule is "Pack.RuleId", or "Pack.RuleId.CriterionId" for a subjective criterion.
	Rule     string
	Severity finding.Severity
	Message  string
	// Suggestion is advice in prose; Fix is a drop-in replacement for Match (may be empty),
	// kept only when the model's quote was found exactly, and then also given as SuggestedFix.
	Suggestion string
	Fix        string
	// Match is the document text between Start and End.
	Match    string
	Analysis string
	Start    finding.Position
	End      finding.Position
	// SuggestedFix is the change that fixes the finding (nil when there is none): a model's
	// fix on an exactly located quote, or a deterministic check's replacement (edit.go).
	SuggestedFix *SuggestedFix
}

// findingJSON is the native JSON shape of a finding (spec/linter.md §7).
type findingJSON struct {
	Rule       string           `json:"rule"`
	Severity   finding.Severity `json:"severity"`
	Message    string           `json:"message"`
	Suggestion string           `json:"suggestion,omitempty"`
	Fix        string           `json:"fix,omitempty"`
	Match      string           `json:"match,omitempty"`
	Line       int              `json:"line"`
	Column     int              `json:"column"`
	EndLine    int              `json:"endLine"`
	EndColumn  int              `json:"endColumn"`
	Offset     int              `json:"offset"`
	EndOffset  int              `json:"endOffset"`
	Analysis   string           `json:"analysis,omitempty"`
	Edits      []TextEdit       `json:"edits,omitempty"`
}

// MarshalJSON writes the native JSON shape with flat position fields, and the fix's edits
// ("edits") when there is a fix.
func (f Finding) MarshalJSON() ([]byte, error) {
	return json.Marshal(findingJSON{
		Rule: f.Rule, Severity: f.Severity, Message: f.Message, Suggestion: f.Suggestion, Fix: f.Fix,
		Match: f.Match, Line: f.Start.Line, Column: f.Start.Column, EndLine: f.End.Line,
		EndColumn: f.End.Column, Offset: f.Start.Offset, EndOffset: f.End.Offset, Analysis: f.Analysis,
		Edits: f.Edits(),
	})
}

// Score is one rule's score on one file. Semi-objective scores carry Violations, Words and
// Strictness; subjective scores carry Criteria. Score is on the 0–10 scale.
type Score struct {
	Rule       string           `json:"rule"`
	Type       finding.RuleType `json:"type"`
	Score      Rounded1         `json:"score"`
	Violations *int             `json:"violations,omitempty"`
	Words      *int             `json:"words,omitempty"`
	Strictness *float64         `json:"strictness,omitempty"`
	Criteria   []CriterionScore `json:"criteria,omitempty"`
	// Coverage is set for a rule's `should` list scored by the points engine (0–1).
	Coverage *float64 `json:"coverage,omitempty"`
	// Partial is set when the score was computed from part of the rule's text: with
	// --changed-lines, only the chunks that hold a changed line were sent to the model.
	Partial bool `json:"partial,omitempty"`
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
	// Ignored counts the violations the model reported inside skipped scopes (code, URLs,
	// markup: spec/linter.md §9), dropped (absent when none).
	Ignored int `json:"ignored,omitempty"`
	// Source is the file's content as it was linted and SourceFile the file it was read from
	// ("" for standard input), set only with EvalOptions.KeepSource: the bytes the findings'
	// offsets and edits refer to.
	Source     []byte `json:"-"`
	SourceFile string `json:"-"`
}

// Skipped is a file that was found but not linted, with the reason.
type Skipped struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Usage counts LLM calls and tokens: the model client's own totals (llm.Usage), as the
// native JSON output's "usage" writes them. Cost is nil unless prices are configured.
type Usage = llm.Usage

// Summary totals a run.
type Summary struct {
	Files    int `json:"files"`
	Errors   int `json:"errors"`
	Warnings int `json:"warnings"`
	// Suggestions counts findings at suggestion severity (absent when none).
	Suggestions       int `json:"suggestions,omitempty"`
	Unverified        int `json:"unverified"`
	OperationalErrors int `json:"operationalErrors"`
	// NotRun is the number of rule runs that could not complete because of the run's
	// RunErrors (absent when none).
	NotRun int `json:"notRun,omitempty"`
	// Ignored is the number of violations dropped because they lie inside skipped scopes
	// (absent when none).
	Ignored int `json:"ignored,omitempty"`
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
	// Interrupted lists, in path order, the files an interruption (Ctrl-C) left unfinished:
	// not in Files, not reported. The JSON output has no place for it; the totals line and
	// standard error say it.
	Interrupted []string `json:"-"`
}

// FileErrorRule is the rule name of a file's RuleError when the file itself could not be read
// (no rule ran on it).
const FileErrorRule = "vectorlint"

// The result stage (pipeline.go): the file's result from each rule's decided proposals, issues
// and score, and the failures of the whole run, counted once per cause across files.

// resultBuilder builds one file's result.
type resultBuilder struct {
	e  *evaluator
	fr FileResult
}

func (e *evaluator) newResult(path string) *resultBuilder {
	return &resultBuilder{e: e, fr: FileResult{Path: path}}
}

// unreadable is the result of a file that could not be read: no rule ran. The path is already
// the result's, so the message does not repeat it.
func (b *resultBuilder) unreadable(err error) FileResult {
	msg := strings.TrimSpace(strings.TrimPrefix(err.Error(), b.fr.Path+":"))
	b.fr.Errors = append(b.fr.Errors, RuleError{Rule: FileErrorRule, Message: msg})
	return b.fr
}

// cannotRun reports a rule that cannot run on the file (PlannedRule.Err). Without a search
// model, that is a fact about the run's settings, like a missing provider: counted, said once.
func (b *resultBuilder) cannotRun(pr *PlannedRule) {
	if errors.Is(pr.Err, rules.ErrNoSearchModel) {
		b.fr.NotRun++
		b.e.runErrors.count(rules.ErrNoSearchModel, "no search model is configured", pr.Err.Error())
		return
	}
	b.ruleError(pr.ID, pr.Err)
}

// completion reports what kept a rule's calls from completing, and whether its replies can be
// used: not when the model is not configured or a call failed (a partial result would be
// misleading). Warnings about the replies go to EvalOptions.Warn first.
func (b *resultBuilder) completion(r *ruleRun) bool {
	if r.notRun {
		b.notConfigured()
		return false
	}
	if warn := b.e.opts.Warn; warn != nil {
		for _, u := range r.units {
			for i, res := range u.results {
				for _, w := range res.warnings {
					warn(fmt.Sprintf("%s: %s (%s): %s", b.fr.Path, r.pr.ID, lineRange(u.chunks[i]), w))
				}
			}
		}
	}
	if err := r.failure(); err != nil {
		var se *llm.StopError
		if errors.As(err, &se) {
			b.stopped(se)
		} else {
			b.ruleError(r.pr.ID, err)
		}
		return false
	}
	if r.unjudged > 0 {
		// What ran still scores; the calls that could not be made make the rule run
		// incomplete, counted under the run error that names what to configure.
		b.notConfigured()
	}
	return true
}

// rule adds a rule's reported findings and unverified quotes, its issues and its score.
func (b *resultBuilder) rule(id string, props []proposal, is issues, score *Score, scoreErr error) {
	for _, p := range props {
		switch p.decision {
		case reported:
			if p.finding.Severity < b.e.opts.MinSeverity {
				continue // below --min-alert-level: not shown, not counted
			}
			b.fr.Findings = append(b.fr.Findings, p.finding)
			if warn := b.e.opts.Warn; warn != nil && p.fixRefused != "" {
				f := p.finding
				warn(fmt.Sprintf("%s:%d:%d: %s: the model's fix is not offered: %s", b.fr.Path, f.Start.Line, f.Start.Column, f.Rule, p.fixRefused))
			}
		case unverified:
			v := p.violation
			b.fr.Unverified = append(b.fr.Unverified, Unverified{Rule: p.rule, Message: v.Message, Quote: v.QuotedText, Line: v.Line})
		case ignored:
			b.fr.Ignored++
		}
	}
	if is.stopped != nil {
		// The judge's endpoint was stopped: counted once for the rule run, under the run
		// error, not listed as the rule's failure.
		b.stopped(is.stopped)
	}
	if is.err != nil {
		b.ruleError(id, is.err)
	}
	if scoreErr != nil {
		b.ruleError(id, scoreErr)
	}
	if score != nil {
		b.fr.Scores = append(b.fr.Scores, *score)
	}
}

func (b *resultBuilder) ruleError(id string, err error) {
	b.fr.Errors = append(b.fr.Errors, RuleError{Rule: id, Message: err.Error()})
}

// notConfigured counts one rule run not done for want of a model.
func (b *resultBuilder) notConfigured() {
	b.fr.NotRun++
	opts := b.e.opts
	cause, msg := DefaultNotRunReason, DefaultNotRunReason
	var nc *llm.NotConfiguredError
	if errors.As(opts.NotConfigured, &nc) && nc.Provider != "" {
		cause = fmt.Sprintf("LLM provider %s is not fully configured", nc.Provider)
	}
	if opts.NotConfigured != nil {
		msg = opts.NotConfigured.Error()
	}
	b.e.runErrors.count(notConfiguredKey{}, cause, msg)
}

// stopped counts one rule run kept from completing by a stopped endpoint.
func (b *resultBuilder) stopped(se *llm.StopError) {
	b.fr.NotRun++
	b.e.runErrors.count(se, se.Cause(), se.Error())
}

// finish sorts the findings by position, then rule, then end, and returns the result.
func (b *resultBuilder) finish() FileResult {
	sort.SliceStable(b.fr.Findings, func(i, j int) bool {
		x, y := b.fr.Findings[i], b.fr.Findings[j]
		if x.Start.Offset != y.Start.Offset {
			return x.Start.Offset < y.Start.Offset
		}
		if x.Rule != y.Rule {
			return x.Rule < y.Rule
		}
		return x.End.Offset < y.End.Offset
	})
	return b.fr
}

// runErrorBook collects RunErrors in the order they are met, one per cause.
type runErrorBook struct {
	index map[any]int // *llm.StopError, notConfiguredKey or rules.ErrNoSearchModel → position in list
	list  []RunError
}

// notConfiguredKey is the runErrorBook key of the rules not run for want of a model.
type notConfiguredKey struct{}

// count adds one rule run kept from completing by the failure key identifies.
func (b *runErrorBook) count(key any, cause, message string) {
	if b.index == nil {
		b.index = map[any]int{}
	}
	i, ok := b.index[key]
	if !ok {
		i = len(b.list)
		b.index[key] = i
		b.list = append(b.list, RunError{Cause: cause, Message: message})
	}
	b.list[i].NotRun++
}
