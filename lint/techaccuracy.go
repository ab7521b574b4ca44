package lint

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// technicalAccuracy is the kind of a rule with `evaluator: technical-accuracy` (spec/linter.md
// §6): on each chunk, one call extracts the factual claims, the search model checks each, and
// the rule then runs as its base kind (semi-objective or subjective) with the claims and the
// evidence in its prompt. Everything else is the base kind's.
type technicalAccuracy struct {
	base Kind
}

func (k technicalAccuracy) Name() string                    { return k.base.Name() }
func (k technicalAccuracy) Describe(pr *PlannedRule) string { return k.base.Describe(pr) }

// Estimate is the base kind's: the claim extraction and the searches are not counted.
func (k technicalAccuracy) Estimate(pr *PlannedRule, u *Unit) Estimate { return k.base.Estimate(pr, u) }

func (k technicalAccuracy) layout(r *rules.Rule) layout { return k.base.layout(r) }
func (k technicalAccuracy) modelCalls(u *Unit) int      { return k.base.modelCalls(u) }
func (k technicalAccuracy) runnable(u *Unit, opts EvalOptions) (bool, int) {
	return k.base.runnable(u, opts)
}
func (k technicalAccuracy) prompt(in PromptInput) []llm.Message { return k.base.prompt(in) }

// call gathers the evidence, then makes the base kind's call with it. A chunk that makes no
// checkable claim has nothing to check: the rule's own call is skipped, and the chunk passes
// (no violation; each criterion of a subjective rule rated 4), as the original's evaluator
// returns a perfect result without it ("should return perfect score when no claims are found",
// tests/scoring-types.test.ts of its v2.5.0).
func (k technicalAccuracy) call(ctx context.Context, e *evaluator, j job) reply {
	claims, evidence, err := e.gatherEvidence(ctx, j)
	if err != nil {
		return failed(ctx, err)
	}
	if len(claims) == 0 {
		return k.noClaims(j)
	}
	j.prompt.Rule, j.prompt.Extra = evidencePrompt(j.rule.Rule, claims, evidence)
	return k.base.call(ctx, e, j)
}

// noClaims is the reply of a chunk without claims: no violation, and for a subjective rule
// the best rating of each criterion of the call.
func (k technicalAccuracy) noClaims(j job) reply {
	if _, ok := k.base.(subjective); !ok {
		return reply{}
	}
	res := reply{ratings: make([]CriterionRating, len(j.prompt.Criteria))}
	for i, c := range j.prompt.Criteria {
		res.ratings[i] = CriterionRating{Criterion: c, Rating: scoring.MaxRating,
			Summary: "The text makes no checkable factual claim."}
	}
	return res
}

func (k technicalAccuracy) propose(doc *document.Document, r *ruleRun) ([]proposal, issues) {
	return k.base.propose(doc, r)
}

func (k technicalAccuracy) score(r *ruleRun, props []proposal) (*finding.Score, error) {
	return k.base.score(r, props)
}

// gatherEvidence runs the first two steps of a technical-accuracy rule on a chunk: extract the
// claims, check each with the search model. It returns the claims and, for each, the evidence.
func (e *evaluator) gatherEvidence(ctx context.Context, j job) ([]Claim, []string, error) {
	if e.opts.Search == nil {
		return nil, nil, rules.ErrNoSearchModel
	}
	label := j.label
	var claims []Claim
	_, err := e.opts.Client.CompleteJSON(ctx, llm.Request{
		Endpoint: e.opts.Endpoint,
		Messages: []llm.Message{{Role: llm.RoleSystem, Content: claimsInstructions},
			{Role: llm.RoleUser, Content: NumberShownLines(j.prompt.Text, j.prompt.Line, j.prompt.Hidden)}},
		Schema: claimsSchema(),
		Label:  label + " claims",
	}, func(js string) error {
		cs, err := parseClaimsReply(js)
		claims = cs
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("extracting claims: %w", err)
	}

	evidence := make([]string, len(claims))
	errs := make([]error, len(claims))
	// Every claim is searched, also when one fails, so that the error reported is the first
	// claim's in order, whichever finished first.
	var g errgroup.Group
	for i, c := range claims {
		g.Go(func() error {
			resp, err := e.opts.Client.Complete(ctx, llm.Request{
				Endpoint: *e.opts.Search,
				Messages: []llm.Message{{Role: llm.RoleSystem, Content: searchInstructions},
					{Role: llm.RoleUser, Content: "Claim: " + c.Claim}},
				Label: fmt.Sprintf("%s search %d/%d", label, i+1, len(claims)),
			})
			if err != nil {
				errs[i] = fmt.Errorf("checking claim %d (%q): %w", i+1, c.Claim, err)
				return nil
			}
			evidence[i] = strings.TrimSpace(resp.Content)
			return nil
		})
	}
	_ = g.Wait() // the errors are in errs, by claim
	for _, err := range errs {
		if err != nil {
			return nil, nil, err
		}
	}
	return claims, evidence, nil
}

// evidencePrompt returns the rule to run with the claims and their evidence: its body with the
// original VectorLint's {{claims}}, {{searchResults}} and {{content}} placeholders filled in,
// when it has them, else the rule and the text to append to the system message.
func evidencePrompt(rule *rules.Rule, claims []Claim, evidence []string) (*rules.Rule, string) {
	claimList, evidenceList := formatClaims(claims, evidence)
	if body, ok := fillPlaceholders(rule.Body, map[string]string{"claims": claimList, "searchResults": evidenceList,
		"content": "(the text in the user message)"}); ok {
		r := *rule
		r.Body = body
		return &r, ""
	}
	var b strings.Builder
	b.WriteString("Claims found in the text, each with the evidence a search returned:")
	for i, c := range claims {
		fmt.Fprintf(&b, "\n\n%d. %s%s\nEvidence: %s", i+1, c.Claim, claimWhere(c), oneParagraph(evidence[i]))
	}
	return rule, b.String()
}

// formatClaims renders the claims and the evidence as two numbered lists (for the original's
// placeholders).
func formatClaims(claims []Claim, evidence []string) (string, string) {
	var c, e strings.Builder
	for i, cl := range claims {
		if i > 0 {
			c.WriteString("\n")
			e.WriteString("\n\n")
		}
		fmt.Fprintf(&c, "%d. %s%s", i+1, cl.Claim, claimWhere(cl))
		fmt.Fprintf(&e, "%d. %s\n%s", i+1, cl.Claim, oneParagraph(evidence[i]))
	}
	return c.String(), e.String()
}

// claimWhere is " (line N: "quote")" for a claim with hints.
func claimWhere(c Claim) string {
	switch {
	case c.Line > 0 && c.QuotedText != "":
		return " (line " + strconv.Itoa(c.Line) + ": " + strconv.Quote(c.QuotedText) + ")"
	case c.Line > 0:
		return " (line " + strconv.Itoa(c.Line) + ")"
	case c.QuotedText != "":
		return " (" + strconv.Quote(c.QuotedText) + ")"
	}
	return ""
}

// oneParagraph collapses blank lines so evidence stays one block under its claim.
func oneParagraph(s string) string {
	lines := strings.Split(strings.ReplaceAll(s, "\r\n", "\n"), "\n")
	var kept []string
	for _, l := range lines {
		if strings.TrimSpace(l) != "" {
			kept = append(kept, strings.TrimRight(l, " \t"))
		}
	}
	if len(kept) == 0 {
		return "(no evidence returned)"
	}
	return strings.Join(kept, "\n")
}

// placeholder matches a template variable of the original VectorLint's rule bodies: "{{claims}}"
// or, as its template renderer also accepts (src/prompts/template-renderer.ts), with spaces
// inside the braces, "{{ claims }}".
var placeholder = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\{\{\s*([\w.]+)\s*\}\}`) })

// fillPlaceholders replaces each placeholder of body that names one of vars by its value. It
// reports whether body names {{claims}} or {{searchResults}}: a rule written for the original's
// technical-accuracy evaluator, whose body places the evidence itself. Placeholders of other
// names are left as written.
func fillPlaceholders(body string, vars map[string]string) (string, bool) {
	evidence := false
	filled := placeholder().ReplaceAllStringFunc(body, func(m string) string {
		name := placeholder().FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			return m
		}
		if name == "claims" || name == "searchResults" {
			evidence = true
		}
		return v
	})
	return filled, evidence
}
