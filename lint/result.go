package lint

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// FileErrorRule is the rule name of a file's RuleError when the file itself could not be read
// (no rule ran on it).
const FileErrorRule = "vectorlint"

// The result stage (pipeline.go): the file's result from each rule's decided proposals, issues
// and score, and the failures of the whole run, counted once per cause across files.

// resultBuilder builds one file's result.
type resultBuilder struct {
	e  *evaluator
	fr finding.FileResult
}

func (e *evaluator) newResult(path string) *resultBuilder {
	return &resultBuilder{e: e, fr: finding.FileResult{Path: path}}
}

// unreadable is the result of a file that could not be read: no rule ran. The path is already
// the result's, so the message does not repeat it.
func (b *resultBuilder) unreadable(err error) finding.FileResult {
	msg := strings.TrimSpace(strings.TrimPrefix(err.Error(), b.fr.Path+":"))
	b.fr.Errors = append(b.fr.Errors, finding.RuleError{Rule: FileErrorRule, Message: msg})
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
			for i := range u.results {
				for _, res := range u.results[i].sampleReplies() {
					for _, w := range res.warnings {
						warn(fmt.Sprintf("%s: %s (%s): %s", b.fr.Path, r.pr.ID, lineRange(u.chunks[i]), w))
					}
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
func (b *resultBuilder) rule(id string, props []proposal, is issues, score *finding.Score, scoreErr error) {
	for _, p := range props {
		switch p.decision {
		case reported:
			// A finding below --min-alert-level is left out by the processors (internal/process),
			// and says nothing of its fix.
			b.fr.Findings = append(b.fr.Findings, p.finding)
			if warn := b.e.opts.Warn; warn != nil && p.fixRefused != "" && p.finding.Severity >= b.e.opts.MinSeverity {
				f := p.finding
				warn(fmt.Sprintf("%s:%d:%d: %s: the model's fix is not offered: %s", b.fr.Path, f.Start.Line, f.Start.Column, f.Rule, p.fixRefused))
			}
		case unverified:
			v := p.violation
			b.fr.Unverified = append(b.fr.Unverified, finding.Unverified{Rule: p.rule, Message: v.Message, Quote: v.QuotedText, Line: v.Line})
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
	b.fr.Errors = append(b.fr.Errors, finding.RuleError{Rule: id, Message: err.Error()})
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
func (b *resultBuilder) finish() finding.FileResult {
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
	list  []finding.RunError
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
		b.list = append(b.list, finding.RunError{Cause: cause, Message: message})
	}
	b.list[i].NotRun++
}
