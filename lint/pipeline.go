package lint

import (
	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
)

// A file's result is made by a pipeline of stages, each in its own file, data flowing one way:
//
//	call    call.go    each chunk's model call: the kind's prompt and schema, its reply read
//	                   into violations, criterion ratings or a checklist's coverage
//	locate  locate.go  each violation's quote found in the chunk: a position in the file, or
//	                   not located (unverified)
//	filter  filter.go  a decision for each proposed finding: reported, or dropped for low
//	                   confidence, as a duplicate, inside a skipped scope (skip.go), or by an
//	                   inline control; quotes not located are listed as unverified
//	score   score.go   each rule's score, from its replies and the filter's decisions
//	result  result.go  the file's result: findings sorted, scores, unverified quotes, errors,
//	                   and the run-wide failures counted once
//
// Between call and locate, the rule's kind reads its replies into proposals: what they propose
// to report, in order. Evaluate runs the call stage in its pool; the other stages run when the
// file's last call is answered (assemble), on the collecting goroutine.

// proposal is one finding a rule's replies propose, on its way through the stages.
type proposal struct {
	// rule is the id the finding carries: "Pack.Rule" or "Pack.Rule.Criterion".
	rule string
	// group is the part of the rule the proposal counts for in the score: a criterion's index
	// in the rule, or 0.
	group    int
	severity finding.Severity
	// violation is a model's violation, reported on chunk; nil for a finding whose place is
	// already known (a placed proposal: finding is set and located from the start).
	violation *Violation
	chunk     document.Chunk
	// fallback marks a placed finding that stands for its group only when none of the group's
	// violations is reported (a low-rated criterion's summary).
	fallback bool
	// sample is the index of the sample whose reply gave the violation (0 when the rule takes
	// one): the vote counts the samples (samples.go).
	sample int

	// Set by the locate stage for a violation: whether it repeats an identical violation (it is
	// then not located: mergeIdentical), whether its quote was found, where, and the finding
	// there; fixRefused says why the model's fix was not kept as an edit (fixsafe.go), "" when
	// it was or none was given.
	merged     bool
	located    bool
	span       document.Span
	finding    finding.Finding
	fixRefused string

	// Set by the filter stage.
	decision decision
}

// violationProposal proposes a model's violation v, reported on chunk c, as a finding of rule.
func violationProposal(rule string, group int, sev finding.Severity, c document.Chunk, v *Violation) proposal {
	return proposal{rule: rule, group: group, severity: sev, violation: v, chunk: c}
}

// placedProposal proposes a finding whose place is known (a deterministic finding).
func placedProposal(f finding.Finding) proposal {
	return proposal{rule: f.Rule, severity: f.Severity, located: true, finding: f}
}

// issues are what a rule's replies show besides its findings: an error of the rule on the file,
// or an endpoint that was stopped while they were made.
type issues struct {
	err     error
	stopped *llm.StopError
}

// assemble runs a finished file's replies through the stages after the call, rule by rule.
func (e *evaluator) assemble(f *fileRun) finding.FileResult {
	out := e.newResult(f.fp.Path)
	if f.fp.Err != nil {
		return out.unreadable(f.fp.Err)
	}
	doc := f.fp.Doc
	if doc.ScopeError != nil && e.opts.DocumentWarn != nil {
		e.opts.DocumentWarn(doc.ScopeError.Error())
	}
	if e.opts.KeepSource {
		out.fr.Source, out.fr.SourceFile = doc.Source, f.fp.SourceFile()
	}
	supp := document.ParseSuppressions(doc) // the inline controls the filter applies
	for _, r := range f.rules {
		e.rule(out, doc, supp, r)
	}
	return out.finish() // then the processors (internal/process): --changed-lines, --min-alert-level, ...
}

// rule assembles one rule's part of a file's result. A rule that cannot run on the file, or
// whose calls could not all be made, reports its deterministic findings ("target not found")
// and why it did not complete; a rule that ran goes through every stage.
func (e *evaluator) rule(out *resultBuilder, doc *document.Document, supp *document.Suppressions, r *ruleRun) {
	pr := r.pr
	if pr.Err != nil {
		out.cannotRun(pr)
		return
	}
	if pr.NoProse {
		// Nothing was sent: the rule passes (docs/rules.md, "Nothing to say, nothing sent").
		out.rule(pr.ID, nil, issues{}, noProseScore(pr), nil)
		return
	}
	var props []proposal
	for _, f := range pr.Findings() {
		props = append(props, placedProposal(f))
	}
	ran := out.completion(r)
	var is issues
	if ran {
		var more []proposal
		more, is = pr.Kind.propose(doc, r)
		props = append(props, more...)
	}
	locate(doc, props)
	props = vote(props, pr.samples()) // a majority of samples, when the rule takes several
	e.filter(doc, supp, props)
	var (
		score *finding.Score
		err   error
	)
	if ran {
		score, err = pr.Kind.score(r, props)
		// The one place scores are made: a NaN or an infinity from any formula stops here, as
		// the rule's error on this file, and never reaches an output format.
		if ferr := checkFinite(score); err == nil && ferr != nil {
			score, err = nil, ferr
		}
		if n := pr.samples(); score != nil && n > 1 {
			score.Samples = n
		}
	}
	if e.opts.Debug != nil && len(r.units) > 0 {
		e.opts.Debug(e.debugRecord(doc, r, props))
	}
	out.rule(pr.ID, props, is, score, err)
}

// noProseScore is the score of a rule with no prose to evaluate (PlannedRule.NoProse): passed
// (10), no violation, marked finding.SkippedNoProse.
func noProseScore(pr *PlannedRule) *finding.Score {
	k := pr.Kind
	if ta, ok := k.(technicalAccuracy); ok {
		k = ta.base
	}
	if _, ok := k.(subjective); ok {
		return &finding.Score{Rule: pr.ID, Type: finding.Subjective, Score: 10, Skipped: finding.SkippedNoProse}
	}
	violations, words, strictness := 0, 0, pr.Strictness
	return &finding.Score{Rule: pr.ID, Type: finding.SemiObjective, Score: 10, Violations: &violations, Words: &words,
		Strictness: &strictness, Skipped: finding.SkippedNoProse}
}
