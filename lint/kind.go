package lint

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/numfmt"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// Kind is how the rules of one kind are evaluated. Everything that differs between kinds is a
// method here, so the plan, the stages of a file's result (pipeline.go) and the dry run ask a
// rule's kind instead of switching on its fields, and a new kind is one file:
//
//	semiobjective.go  the model lists violations; the score falls with their density
//	subjective.go     the model rates weighted criteria 1–4
//	checklist.go      a `should` list of Weval points scored by the points engine
//	techaccuracy.go   claims checked with a search model first, then the rule's own kind
//
// The methods that the evaluation uses are unexported: kinds are defined in this package. A
// rule's kind is KindOf(rule); a PlannedRule carries it.
type Kind interface {
	// Name is the kind as validate and --dry-run show it: "semi-objective", "subjective" or
	// "checklist".
	Name() string
	// Describe is the dry run's summary of a planned rule: its kind and the settings that
	// matter for it ("semi-objective, warning, strictness 10").
	Describe(pr *PlannedRule) string
	// Estimate is what evaluating a unit of the rule is expected to cost, for the dry run.
	Estimate(pr *PlannedRule, u *Unit) Estimate

	// layout says how the rule is laid out in units (the plan): which criteria are evaluated
	// together on which target, and whether a long text may be split into chunks.
	layout(r *rules.Rule) layout
	// modelCalls is the number of model calls a unit (that has its text) makes.
	modelCalls(u *Unit) int
	// runnable says whether a unit is evaluated with these options, and how many of its model
	// calls cannot be made (no client, or no judge).
	runnable(u *Unit, opts EvalOptions) (run bool, notRun int)
	// prompt builds the messages of one model call (nil for a kind that sends no prompt of its
	// own).
	prompt(in PromptInput) []llm.Message
	// call is the call stage: it makes the calls of one chunk and reads the reply.
	call(ctx context.Context, e *evaluator, j job) reply
	// propose reads a rule's replies on a file into what they propose to report, in order:
	// the locate stage's input. It also returns the problems the replies show.
	propose(doc *document.Document, r *ruleRun) ([]proposal, issues)
	// score is the score stage: the rule's score from its replies and the filter's decisions
	// (nil when there is none to give).
	score(r *ruleRun, props []proposal) (*finding.Score, error)
}

// kinds maps each kind of rule (rules.Rule.Kind) to the kind that evaluates it: adding a kind
// is a constant in package rules, a file here, and its entry in this table. It is read, never
// written.
var kinds = [...]Kind{
	rules.KindSemiObjective: semiObjective{},
	rules.KindSubjective:    subjective{},
	rules.KindChecklist:     checklist{},
}

// KindOf returns the kind that evaluates a rule: the entry of kinds for the rule's kind; a
// technical-accuracy rule gathers its evidence first and is then evaluated by that kind.
func KindOf(r *rules.Rule) Kind {
	k := kinds[r.Kind()]
	if r.Evaluator == rules.EvaluatorTechnicalAccuracy {
		k = technicalAccuracy{base: k}
	}
	return k
}

// layout is how a rule is laid out in units.
type layout struct {
	// groups are the criteria evaluated together, each on its effective target: one unit
	// each, and one unit for the groups that select the same text.
	groups []criteriaGroup
	// whole keeps every unit's text in one piece (never split into chunks).
	whole bool
}

// criteriaGroup is criteria evaluated on one target.
type criteriaGroup struct {
	criteria []*rules.Criterion
	target   *rules.Target
	// own is set when the target is the criterion's own, not the rule's.
	own bool
}

// ruleLayout is the layout of a rule whose criteria (if any) only guide the model: one unit,
// on the rule's target.
func ruleLayout(r *rules.Rule) layout {
	return layout{groups: []criteriaGroup{{criteria: r.Criteria, target: r.Target}}}
}

// modelRunnable is runnable for the kinds whose every call goes to the model: without a client
// the unit is not evaluated.
func modelRunnable(u *Unit, opts EvalOptions) (bool, int) {
	if opts.Client == nil {
		return false, len(u.Chunks()) * max(1, u.samples)
	}
	return true, 0
}

// Estimate is what evaluating one unit is expected to cost: the model calls and their input
// tokens, and the lines the dry run prints about them.
type Estimate struct {
	Calls  int
	Tokens int
	// Lines describe the calls, one line each, without the dry run's indentation: "1 LLM
	// call, ~512 tokens", or a total and one indented line per chunk.
	Lines []string
}

// EstimateMessageChars is what the token estimate counts for each message of a request besides
// its text: four tokens, as the providers' chat formats add (and llm.EstimateInputTokens counts).
const EstimateMessageChars = 16

// chunkEstimate is the estimate of a unit sent to the model chunk by chunk, one call each.
func chunkEstimate(pr *PlannedRule, u *Unit) Estimate {
	chunks := u.Chunks()
	est := Estimate{Calls: len(chunks)}
	tokens := make([]int, len(chunks))
	for i, c := range chunks {
		tokens[i] = callTokens(pr, u, c)
		est.Tokens += tokens[i]
	}
	n := pr.samples() // each chunk's call is made once per sample
	est.Calls, est.Tokens = est.Calls*n, est.Tokens*n
	each := ""
	if n > 1 {
		each = fmt.Sprintf(" (%d samples of each)", n)
	}
	if len(chunks) == 1 && u.only == nil {
		if n > 1 {
			each = fmt.Sprintf(" (%d samples)", n)
		}
		est.Lines = []string{numfmt.Count(est.Calls, "LLM call") + each + ", ~" + numfmt.Thousands(int64(est.Tokens)) + " tokens"}
		return est
	}
	changed := ""
	if u.only != nil {
		changed = " for the chunks holding a changed line"
	}
	est.Lines = append(est.Lines, fmt.Sprintf("%s%s%s, ~%s tokens:", numfmt.Count(est.Calls, "LLM call"), changed, each, numfmt.Thousands(int64(est.Tokens))))
	for i, c := range chunks {
		end := c.Line + finding.NewLineIndex(c.Text).Lines() - 1
		est.Lines = append(est.Lines, fmt.Sprintf("  chunk %d: lines %d-%d, %s, ~%s tokens", i+1, c.Line, end,
			numfmt.Count(c.Words, "word"), numfmt.Thousands(int64(tokens[i]))))
	}
	return est
}

// callTokens estimates one call's input tokens as ceil(characters / 4) of what the request
// carries: its messages as the kind builds them (the reviewer instructions, the rule body and
// the criteria; EstimateMessageChars a message), what every call of the file carries (the
// directive and style guide: PlannedRule.SharedChars), the numbered text as the model is sent it
// (skipped scopes left out, lines wholly inside them not sent, each chunk numbered from 1, and
// the sentence on placeholders when it has some), and the response schema sent with it.
func callTokens(pr *PlannedRule, u *Unit, c document.Chunk) int {
	_, placeholders := u.doc.ModelText(c.Text, c.Offset)
	msgs := pr.Kind.prompt(PromptInput{Rule: pr.Rule, Criteria: u.Criteria, Placeholders: placeholders})
	return requestTokens(pr.SharedChars, msgs, requestSchema(pr, u), u, c)
}

// requestTokens estimates a request's input tokens: sharedChars (the directive and style
// guide), msgs (built without the chunk's text), the schema and chunk c of unit u as it is
// sent (numbered, its hidden lines left out).
func requestTokens(sharedChars int, msgs []llm.Message, schema *llm.Schema, u *Unit, c document.Chunk) int {
	text, _ := u.doc.ModelText(c.Text, c.Offset)
	chars := sharedChars
	for _, m := range msgs {
		chars += utf8.RuneCountInString(m.Content) + EstimateMessageChars
	}
	if schema != nil {
		js, _ := json.Marshal(schema.Schema)
		chars += utf8.RuneCount(js)
	}
	hidden := u.doc.HiddenLines(c.Text, c.Offset)
	lines := finding.NewLineIndex(text)
	for i := range lines.Lines() {
		if i < len(hidden) && hidden[i] {
			continue // not sent (NumberShownLines)
		}
		line := text[lines.LineStart(i+1):lines.LineEnd(i+1)]
		line = line[:len(line)-lineBreakLen(line)]
		chars += len(strconv.Itoa(1+i)) + 1 + utf8.RuneCountInString(line) + 1
	}
	return (chars + 3) / 4
}

// lineBreakLen is the length of the line break that ends line ("\n", "\r\n", "\r" or none).
func lineBreakLen(line string) int {
	switch {
	case len(line) >= 2 && line[len(line)-2:] == "\r\n":
		return 2
	case len(line) >= 1 && (line[len(line)-1] == '\n' || line[len(line)-1] == '\r'):
		return 1
	}
	return 0
}
