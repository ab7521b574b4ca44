package rules_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// presetDir holds, per built-in rule, a document with the problems the rule is about
// (problem.md), the same document without them (clean.md) and expected.json: the reply a fake
// model gives for each document and what the linter must make of it (the located findings, the
// score). The engine's tests replay these replies through the fake server; the test below
// checks everything that needs no model.
const presetDir = "builtin/testdata"

// presetExpectation is the content of an expected.json.
type presetExpectation struct {
	// Rule is the full rule id ("VectorLint.Wordiness").
	Rule string `json:"rule"`
	// StyleGuide names the style guide (in the same folder) the documents are linted with;
	// the project is then zero-config.
	StyleGuide string     `json:"styleGuide,omitempty"`
	Problem    presetCase `json:"problem"`
	Clean      presetCase `json:"clean"`
}

// presetCase is one document: the scripted model reply and the expected result.
type presetCase struct {
	Document string `json:"document"`
	// Words is the evaluated text's word count (the score's denominator).
	Words int `json:"words"`
	// Reply is the JSON content the fake model answers with (spec/linter.md §6).
	Reply presetReply `json:"reply"`
	// Findings are the located findings, in output order (line, then column).
	Findings []presetFinding `json:"findings"`
	// Criteria are the subjective rule's criterion results.
	Criteria []presetCriterion `json:"criteria,omitempty"`
	Score    float64           `json:"score"`
}

type presetReply struct {
	Violations []presetViolation      `json:"violations,omitempty"`
	Criteria   []presetReplyCriterion `json:"criteria,omitempty"`
}

type presetViolation struct {
	Line       int     `json:"line"`
	QuotedText string  `json:"quoted_text"`
	Message    string  `json:"message"`
	Suggestion string  `json:"suggestion"`
	Fix        string  `json:"fix,omitempty"`
	Confidence float64 `json:"confidence"`
}

type presetReplyCriterion struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Score      int               `json:"score"`
	Summary    string            `json:"summary"`
	Reasoning  string            `json:"reasoning"`
	Violations []presetViolation `json:"violations"`
}

// presetFinding is a finding as the native JSON output reports it: 1-based line and column in
// code points, exclusive end, 0-based byte offsets.
type presetFinding struct {
	Rule      string `json:"rule"`
	Severity  string `json:"severity"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Offset    int    `json:"offset"`
	EndOffset int    `json:"endOffset"`
	Match     string `json:"match"`
	Message   string `json:"message"`
}

type presetCriterion struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	Rating int     `json:"rating"`
	Score  float64 `json:"score"`
}

func readPresetExpectation(t *testing.T, dir string) presetExpectation {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var exp presetExpectation
	if err := dec.Decode(&exp); err != nil {
		t.Fatalf("%s/expected.json: %v", dir, err)
	}
	return exp
}

// TestPresetSamples plans every sample document the way `vectorlint --dry-run` does, in a
// project that runs the built-in pack without any RulesPath (or, for the style guide, in a
// zero-config project), and checks that expected.json is consistent with the documents: the
// rule applies to the whole document in one call, each scripted quote occurs exactly once on
// its hinted line at the stated position, and the stated scores follow from the scripted
// replies.
func TestPresetSamples(t *testing.T) {
	t.Parallel()
	entries, err := os.ReadDir(presetDir)
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]string{}
	for _, e := range entries {
		if !e.IsDir() {
			t.Errorf("%s: unexpected file in %s", e.Name(), presetDir)
			continue
		}
		dir := filepath.Join(presetDir, e.Name())
		exp := readPresetExpectation(t, dir)
		if other, dup := covered[exp.Rule]; dup {
			t.Errorf("%s and %s both cover %s", other, e.Name(), exp.Rule)
		}
		covered[exp.Rule] = e.Name()
		t.Run(e.Name(), func(t *testing.T) { checkPresetSample(t, dir, exp) })
	}
	var want []string
	packs, _ := rules.BuiltinPacks()
	guidePack, _ := rules.StyleGuidePack()
	for _, p := range append(packs, guidePack) {
		for _, r := range p.Rules {
			want = append(want, r.FullID())
		}
	}
	var got []string
	for id := range covered {
		got = append(got, id)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("rules with sample documents:\n%v\nwant every built-in rule:\n%v", got, want)
	}
}

func checkPresetSample(t *testing.T, dir string, exp presetExpectation) {
	// Copy the documents into a fresh project that runs the built-in pack with no RulesPath,
	// or that has only the style guide (zero-config).
	root := t.TempDir()
	for _, name := range []string{exp.Problem.Document, exp.Clean.Document, exp.StyleGuide} {
		if name != "" {
			copyFile(t, filepath.Join(dir, name), filepath.Join(root, name))
		}
	}
	if exp.StyleGuide == "" {
		if err := os.WriteFile(filepath.Join(root, "vectorlint.ini"), []byte("[**/*.md]\nRunRules = VectorLint\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts, err := config.FindProject(root, "", "")
	if err != nil {
		t.Fatal(err)
	}
	proj, err := config.LoadProject(opts)
	if err != nil {
		t.Fatal(err)
	}
	if (exp.StyleGuide != "") != proj.ZeroConfig || len(proj.Warnings) != 0 {
		t.Fatalf("zero-config %v, warnings %v", proj.ZeroConfig, proj.Warnings)
	}
	if exp.StyleGuide != "" {
		guide, _ := os.ReadFile(filepath.Join(dir, exp.StyleGuide))
		if proj.StyleGuide != strings.TrimSpace(string(guide)) {
			t.Errorf("style guide text = %q", proj.StyleGuide)
		}
	}
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{Dir: root, Paths: []string{exp.Problem.Document, exp.Clean.Document}})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != 2 || len(plan.Skipped) != 0 {
		t.Fatalf("planned %d files, skipped %v", len(plan.Files), plan.Skipped)
	}
	for _, c := range []presetCase{exp.Problem, exp.Clean} {
		t.Run(c.Document, func(t *testing.T) {
			i := slices.IndexFunc(plan.Files, func(f *lint.FilePlan) bool { return f.Path == c.Document })
			if i < 0 {
				t.Fatalf("%s is not in the plan", c.Document)
			}
			checkPresetCase(t, plan.Files[i], exp.Rule, c)
		})
	}
	if len(exp.Clean.Findings) != 0 || exp.Clean.Score != 10 {
		t.Errorf("clean document: %d findings, score %v; want none and 10", len(exp.Clean.Findings), exp.Clean.Score)
	}
	if len(exp.Problem.Findings) < 3 {
		t.Errorf("problem document: %d findings; a sample should show the rule at work at least 3 times", len(exp.Problem.Findings))
	}
}

func checkPresetCase(t *testing.T, f *lint.FilePlan, ruleID string, c presetCase) {
	if f.Err != nil {
		t.Fatal(f.Err)
	}
	i := slices.IndexFunc(f.Rules, func(r *lint.PlannedRule) bool { return r.ID == ruleID })
	if i < 0 {
		t.Fatalf("rule %s does not apply", ruleID)
	}
	pr := f.Rules[i]
	if pr.Err != nil || len(pr.Units) != 1 {
		t.Fatalf("rule %s: err %v, %d units", ruleID, pr.Err, len(pr.Units))
	}
	u := pr.Units[0]
	// The whole document, with its code blanked (the samples have no frontmatter).
	if !u.WholeDocument || u.Text != f.Doc.Prose() || len(u.Text) != len(f.Doc.Source) || u.Line != 1 || u.Offset != 0 {
		t.Errorf("evaluated text: whole document %v, line %d, offset %d, text %q", u.WholeDocument, u.Line, u.Offset, u.Text)
	}
	if n := len(u.Chunks()); n != 1 {
		t.Errorf("%d model calls, want 1", n)
	}
	if w := u.Words(); w != c.Words {
		t.Errorf("words = %d, expected.json says %d", w, c.Words)
	}
	checkViolations := func(vs []presetViolation) {
		for _, v := range vs {
			if v.Confidence < config.DefaultConfidenceThreshold || v.QuotedText == "" || v.Message == "" || v.Suggestion == "" {
				t.Errorf("violation %q: confidence %v, message %q, suggestion %q: the reply must be complete and pass the threshold",
					v.QuotedText, v.Confidence, v.Message, v.Suggestion)
			}
		}
	}

	// The findings the scripted reply must produce, each with its violation.
	type scripted struct {
		v    presetViolation
		rule string
		sev  finding.Severity
	}
	var want []scripted
	switch pr.Rule.Type {
	case finding.SemiObjective:
		if c.Reply.Violations == nil || c.Reply.Criteria != nil || c.Criteria != nil {
			t.Fatalf("a semi-objective reply has a violations list and no criteria")
		}
		checkViolations(c.Reply.Violations)
		for _, v := range c.Reply.Violations {
			want = append(want, scripted{v, ruleID, pr.Severity})
		}
		d, err := scoring.ScoreDensity(len(c.Reply.Violations), c.Words, scoring.Strictness(pr.Strictness))
		if err != nil || scoring.Round1(d.Score) != c.Score {
			t.Errorf("score = %v (%v), expected.json says %v", scoring.Round1(d.Score), err, c.Score)
		}
	case finding.Subjective:
		if len(c.Reply.Criteria) != len(pr.Rule.Criteria) || c.Reply.Violations != nil || len(c.Criteria) != len(pr.Rule.Criteria) {
			t.Fatalf("a subjective reply rates each of the %d criteria", len(pr.Rule.Criteria))
		}
		var scored []scoring.Criterion
		for i, rc := range pr.Rule.Criteria {
			got := c.Reply.Criteria[i]
			if got.ID != rc.ID || got.Name != rc.Name || got.Summary == "" || got.Reasoning == "" {
				t.Errorf("reply criterion %d = %s %q (summary %q), want %s %q with a summary", i, got.ID, got.Name, got.Summary, rc.ID, rc.Name)
			}
			if got.Score <= 2 && len(got.Violations) == 0 {
				t.Errorf("criterion %s rated %d without violations: the summary finding's position is not scripted", rc.ID, got.Score)
			}
			checkViolations(got.Violations)
			norm, err := scoring.NormalizeRating(got.Score)
			if err != nil {
				t.Fatal(err)
			}
			wantCrit := presetCriterion{ID: rc.ID, Name: rc.Name, Weight: rc.Weight, Rating: got.Score, Score: scoring.Round1(norm)}
			if c.Criteria[i] != wantCrit {
				t.Errorf("criterion result = %+v, want %+v", c.Criteria[i], wantCrit)
			}
			scored = append(scored, scoring.Criterion{Name: rc.Name, Weight: rc.Weight, Rating: got.Score})
			sev, err := scoring.CriterionSeverity(got.Score, pr.CriterionSeverity(rc), pr.Severity, finding.SeverityWarning)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range got.Violations {
				want = append(want, scripted{v, pr.Rule.CriterionID(rc), sev})
			}
		}
		score, err := scoring.ScoreSubjective(scored)
		if err != nil || scoring.Round1(score) != c.Score {
			t.Errorf("score = %v (%v), expected.json says %v", scoring.Round1(score), err, c.Score)
		}
	}

	// Locate each quote the way the linter's first strategy does: exactly, on the hinted line.
	slices.SortStableFunc(want, func(a, b scripted) int {
		if a.v.Line != b.v.Line {
			return a.v.Line - b.v.Line
		}
		return strings.Index(lineText(f.Doc, a.v.Line), a.v.QuotedText) - strings.Index(lineText(f.Doc, b.v.Line), b.v.QuotedText)
	})
	if len(want) != len(c.Findings) {
		t.Fatalf("%d violations in the reply, %d findings in expected.json", len(want), len(c.Findings))
	}
	for i, s := range want {
		line := lineText(f.Doc, s.v.Line)
		if n := strings.Count(line, s.v.QuotedText); n != 1 {
			t.Errorf("%q occurs %d times on line %d (%q): want exactly once", s.v.QuotedText, n, s.v.Line, line)
			continue
		}
		start := f.Doc.LineStart(s.v.Line) + strings.Index(line, s.v.QuotedText)
		from, to := f.Doc.Position(start), f.Doc.Position(start+len(s.v.QuotedText))
		got := presetFinding{Rule: s.rule, Severity: s.sev.String(), Line: from.Line, Column: from.Column,
			EndLine: to.Line, EndColumn: to.Column, Offset: from.Offset, EndOffset: to.Offset,
			Match: s.v.QuotedText, Message: s.v.Message}
		if got != c.Findings[i] {
			t.Errorf("finding %d:\n got %+v\nwant %+v (expected.json)", i, got, c.Findings[i])
		}
	}
}

// lineText returns a 1-based line of the document without its line break.
func lineText(d *document.Document, line int) string {
	start, end := d.LineStart(line), d.LineStart(line+1)
	if line >= d.Lines() {
		end = len(d.Source)
	}
	return strings.TrimRight(string(d.Source[start:end]), "\r\n")
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
