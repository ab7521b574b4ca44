package lint

import (
	"slices"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/gitdiff"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/points/rubric"
	"github.com/vectorlint/vectorlint/rules"
)

// PlannedRule is one rule on one file, with the configuration applied.
type PlannedRule struct {
	Rule *rules.Rule
	// Kind evaluates the rule (KindOf(Rule)).
	Kind Kind
	// ID is "Pack.RuleId".
	ID string
	// Severity and Strictness are the effective values: an override from the configuration,
	// else the frontmatter, else DefaultSeverity / 10.
	Severity   finding.Severity
	Strictness float64
	// SeverityOverridden is true when the configuration set the severity; it then applies to
	// the rule's criteria too.
	SeverityOverridden bool
	// Units are the texts to evaluate: units with a missing target first, then the others in
	// document order.
	Units []*Unit
	// Err is set when the rule cannot run on this file (a target regex that timed out, a
	// technical-accuracy rule without a search model): an operational error.
	Err error
	// NoProse is set when every text the rule would send the model has no words once its
	// skipped scopes are left out (an empty document, front matter only, code or markup only):
	// the rule makes no call and passes, its score marked finding.SkippedNoProse. A rule with a
	// missing required target, or a checklist (whose deterministic points still run), is
	// evaluated as usual.
	NoProse bool
	// SharedChars is the size, in characters, of what every call of the rule carries besides
	// the rule and the text: the project's directive and style guide (PlanInput.SharedPrompt).
	// The token estimates count it.
	SharedChars int
	// Samples is the number of samples each model evaluation of the rule takes
	// (config.Config.SamplesFor, or PlanInput.Samples): above 1, each chunk's evaluation is
	// that many calls and a violation is kept on a majority (docs/configuration.md,
	// "Samples"). 0 or 1 is one call, as without samples. Checklists take one.
	Samples int
}

// Unit is one text a rule evaluates, with the criteria evaluated on it. Criteria whose
// effective targets select the same text share one unit (and one model call per chunk).
type Unit struct {
	// Criteria evaluated on this text (all of a semi-objective rule's criteria, which only guide
	// the model; nil for a rule without criteria).
	Criteria []*rules.Criterion
	// Target is the effective target (nil: the rule has none).
	Target *rules.Target
	// WholeDocument is true when Text is the whole body: no target, or a target that is not
	// required and did not match.
	WholeDocument bool
	// Text is the evaluated text; Offset its byte offset in the document's Source and Line its
	// first line.
	Text   string
	Offset int
	Line   int
	// NoSplit is set for rules with evaluateAs: document, and for checklists.
	NoSplit bool
	// Checklist is the rule's `should` list when the rule is a checklist: its points are scored
	// on Text by the points engine, and only its LLM-judged points call the model.
	Checklist *rubric.Rubric
	// Missing is set when the target is required and did not match: no model call, score 0,
	// and this "target not found" finding.
	Missing *finding.Finding

	// noProse is set on the units of a rule with PlannedRule.NoProse: nothing is sent.
	noProse bool
	// kind is the kind of the unit's rule; doc its document (nil for a Unit made by hand),
	// whose skipped scopes the model is not sent.
	kind Kind
	doc  *document.Document
	// only, when set, keeps only the chunks that hold one of these lines (--changed-lines).
	only gitdiff.Lines
	// chunkWords is the most words of a chunk (the configuration's ChunkWords; 0 for
	// document.DefaultChunkWords).
	chunkWords int
	// samples is the rule's PlannedRule.samples(): each chunk's evaluation is that many calls.
	samples int
}

// NeedsCall reports whether the unit is evaluated (by the model, or by its checklist).
// A unit of a rule with no prose to evaluate (PlannedRule.NoProse) needs none.
func (u *Unit) NeedsCall() bool { return u.Missing == nil && !u.noProse }

// ModelCalls is the number of model calls the unit makes, as its rule's kind says: one per
// chunk, or for a checklist one per LLM-judged point (none when all its points are
// deterministic functions).
func (u *Unit) ModelCalls() int {
	switch {
	case u.Missing != nil, u.noProse:
		return 0
	case u.kind == nil: // a Unit made by hand: evaluated as a semi-objective rule's
		return len(u.Chunks())
	}
	return u.kind.modelCalls(u)
}

// Chunks returns the chunks the model evaluates for this unit: none for a missing target, one
// for evaluateAs: document, else SplitChunks.
func (u *Unit) Chunks() []document.Chunk {
	switch {
	case u.Missing != nil, u.noProse:
		return nil
	case u.NoSplit:
		return []document.Chunk{{Text: u.Text, Offset: u.Offset, Line: u.Line, Words: document.CountWords(u.Text)}}
	}
	chunks := document.SplitChunks(u.Text, u.Offset, u.Line, u.chunkWords)
	if u.only != nil {
		chunks = slices.DeleteFunc(chunks, func(c document.Chunk) bool { return !u.only.Overlaps(document.ChunkLines(c)) })
	}
	return chunks
}

// CriterionSeverity is the severity of a criterion's findings: the configuration's override for
// the rule when there is one, else the criterion's own, else the rule's.
func (pr *PlannedRule) CriterionSeverity(c *rules.Criterion) finding.Severity {
	return config.CriterionSeverity(c, pr.Severity, pr.SeverityOverridden)
}

// Findings returns the rule's deterministic findings ("target not found").
func (pr *PlannedRule) Findings() []finding.Finding {
	var out []finding.Finding
	for _, u := range pr.Units {
		if u.Missing != nil {
			out = append(out, *u.Missing)
		}
	}
	return out
}

// TargetNotFound is the message of a missing required target's finding.
const TargetNotFound = "target not found"

// targetCache runs each distinct target once per document.
type targetCache struct {
	doc     *document.Document
	results []targetResult
}

type targetResult struct {
	target *rules.Target
	match  rules.TargetMatch
	found  bool
	err    error
}

func (c *targetCache) find(t *rules.Target) targetResult {
	for _, r := range c.results {
		if r.target.Equal(t) {
			return r
		}
	}
	m, found, err := c.doc.FindTarget(t)
	r := targetResult{target: t, match: m, found: found, err: err}
	c.results = append(c.results, r)
	return r
}

// planRule works out one rule's units on a document.
func planRule(doc *document.Document, r *rules.Rule, rs config.RuleSettings, cfg *config.Config, searchModel bool, targets *targetCache) *PlannedRule {
	pr := &PlannedRule{Rule: r, Kind: KindOf(r), ID: r.FullID(), Strictness: r.Strictness, Severity: cfg.DefaultSeverity,
		Samples: cfg.SamplesFor(rs)}
	if r.Severity != finding.SeverityUnset {
		pr.Severity = r.Severity
	}
	if rs.Severity != nil {
		pr.Severity, pr.SeverityOverridden = *rs.Severity, true
	}
	if rs.Strictness != nil {
		pr.Strictness = *rs.Strictness
	}
	if rules.CheckRunnable(r, searchModel) != nil {
		pr.Err = rules.ErrNoSearchModel
		return pr
	}

	// The kind groups the criteria by the text they evaluate: a semi-objective rule (or one
	// without criteria) is one unit with the rule's target, a subjective rule's criteria may
	// have targets of their own.
	layout := pr.Kind.layout(r)
	for _, g := range layout.groups {
		u := &Unit{Criteria: g.criteria, Target: g.target, NoSplit: r.EvaluateAs == rules.EvaluateDocument || layout.whole,
			Checklist: r.Should, kind: pr.Kind, doc: doc, chunkWords: cfg.ChunkWordLimit()}
		res := targetResult{}
		if g.target != nil {
			res = targets.find(g.target)
			if res.err != nil {
				pr.Err = res.err
				pr.Units = nil
				return pr
			}
		}
		switch {
		case g.target != nil && res.found:
			u.Text = res.match.Text
			u.Offset = doc.BodyOffset + res.match.Start
		case g.target != nil && g.target.Required:
			id, sev := pr.ID, pr.Severity
			if g.own {
				id, sev = r.CriterionID(g.criteria[0]), pr.CriterionSeverity(g.criteria[0])
			}
			start := finding.Position{Line: 1, Column: 1, ByteColumn: 1, Offset: 0}
			u.Missing = &finding.Finding{Rule: id, Severity: sev, Message: TargetNotFound,
				Suggestion: g.target.EffectiveSuggestion(), Start: start, End: start}
		default:
			u.WholeDocument = true
			u.Text = doc.Prose()
			u.Offset = doc.BodyOffset
		}
		if u.Missing == nil {
			u.Line = doc.Position(u.Offset).Line
		}
		pr.Units = mergeUnit(pr.Units, u, g.own)
	}
	slices.SortStableFunc(pr.Units, func(a, b *Unit) int {
		switch {
		case (a.Missing == nil) != (b.Missing == nil):
			if a.Missing != nil {
				return -1
			}
			return 1
		}
		return a.Offset - b.Offset
	})
	if hasNoProse(pr) {
		pr.NoProse = true
		for _, u := range pr.Units {
			u.noProse = true
		}
	}
	return pr
}

// hasNoProse reports whether none of the rule's texts has a word to send the model, for a rule
// whose every call goes to the model (not a checklist, whose deterministic points still run)
// and whose required targets are all found (a missing one is a finding and a score of 0).
func hasNoProse(pr *PlannedRule) bool {
	if _, ok := pr.Kind.(checklist); ok || len(pr.Units) == 0 {
		return false
	}
	for _, u := range pr.Units {
		if u.Missing != nil || u.Words() > 0 {
			return false
		}
	}
	return true
}

// mergeUnit adds u to units, joining the unit that evaluates the same text. A missing target
// of the rule is reported once; a criterion's own missing target once per criterion.
func mergeUnit(units []*Unit, u *Unit, own bool) []*Unit {
	for _, x := range units {
		switch {
		case u.Missing == nil && x.Missing == nil && x.Offset == u.Offset && len(x.Text) == len(u.Text):
			x.Criteria = append(x.Criteria, u.Criteria...)
			return units
		case u.Missing != nil && x.Missing != nil && !own && x.Missing.Rule == u.Missing.Rule:
			x.Criteria = append(x.Criteria, u.Criteria...)
			return units
		}
	}
	return append(units, u)
}

// ModelText is the unit's text as the model is sent it: the skipped scopes left out, every
// line where it is in the file (what --dry-run shows).
func (u *Unit) ModelText() string {
	s, _ := u.doc.ModelText(u.Text, u.Offset)
	return s
}

// Words is the number of words of the unit's text as the model is sent it (ModelText), the
// semi-objective score's denominator: skipped code and markup do not count, and a code span or
// a URL inside a sentence counts as the one word it stands for.
func (u *Unit) Words() int { return document.CountWords(u.ModelText()) }
