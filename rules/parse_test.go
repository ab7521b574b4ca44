package rules

import (
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

func problemStrings(ps finding.Problems) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Error()
	}
	return out
}

func TestParseValidRule(t *testing.T) {
	t.Parallel()
	src := `---
specVersion: 1.0.0
evaluator: base
type: judge
id: Headline
name: Headline Evaluator
severity: error
strictness: strict
evaluateAs: document
target:
  regex: '^#\s+(.+)$'
  flags: 'mu'
  group: 1
  required: true
  suggestion: Add an H1 headline for the article.
criteria:
  - name: Value Communication
    id: ValueCommunication
    weight: 12
    severity: error
  - name: Curiosity Gap
    id: CuriosityGap
    target:
      regex: 'why'
      flags: i
# A checklist (should) is not allowed on a subjective rule: see TestParseShould.
# (These comment lines keep the line numbers the assertions below expect.)
#
---

Rate the headline.

# Value Communication <weight=12>

### Excellent <score=4>
Specific benefit.

### Poor <score=1>
No benefit.

# 2. Curiosity Gap <weight=1>
`
	r, ps := Parse("acme/headline.md", []byte(src))
	if len(ps) != 0 {
		t.Fatalf("unexpected problems:\n%v", ps)
	}
	if r.ID != "Headline" || r.Name != "Headline Evaluator" || r.SpecVersion != "1.0.0" {
		t.Errorf("id/name/specVersion = %q/%q/%q", r.ID, r.Name, r.SpecVersion)
	}
	if r.Type != finding.Subjective || r.Evaluator != EvaluatorBase || r.Severity != finding.SeverityError {
		t.Errorf("type/evaluator/severity = %q/%q/%q", r.Type, r.Evaluator, r.Severity)
	}
	if r.Strictness != 20 || r.EvaluateAs != EvaluateDocument {
		t.Errorf("strictness/evaluateAs = %v/%q", r.Strictness, r.EvaluateAs)
	}
	wantTarget := Target{Regex: `^#\s+(.+)$`, Flags: "mu", Group: 1, Required: true, Suggestion: "Add an H1 headline for the article.", Line: 10}
	got := *r.Target
	got.re = nil
	if !reflect.DeepEqual(got, wantTarget) {
		t.Errorf("target = %+v, want %+v", got, wantTarget)
	}
	if len(r.Criteria) != 2 {
		t.Fatalf("criteria = %d, want 2", len(r.Criteria))
	}
	c0, c1 := r.Criteria[0], r.Criteria[1]
	if c0.ID != "ValueCommunication" || c0.Name != "Value Communication" || c0.Weight != 12 || c0.Severity != finding.SeverityError || c0.Line != 17 || c0.Target != nil {
		t.Errorf("criteria[0] = %+v", c0)
	}
	if c1.ID != "CuriosityGap" || c1.Weight != 1 || c1.Severity != finding.SeverityUnset || c1.Target == nil || c1.Target.Flags != "i" || c1.Target.Required {
		t.Errorf("criteria[1] = %+v", c1)
	}
	if r.Should != nil {
		t.Errorf("should = %v, want nil (the rule has none)", r.Should)
	}
	if r.BodyLine != 30 || !strings.HasPrefix(r.Body, "\nRate the headline.") {
		t.Errorf("body starts at line %d with %q", r.BodyLine, r.Body[:20])
	}
	if r.FullID() != "Headline" {
		t.Errorf("FullID without pack = %q", r.FullID())
	}
	r.Pack = "Acme"
	if r.FullID() != "Acme.Headline" || r.CriterionID(c1) != "Acme.Headline.CuriosityGap" {
		t.Errorf("ids = %q, %q", r.FullID(), r.CriterionID(c1))
	}
	wantRubric := []RubricCriterion{
		{Name: "Value Communication", Weight: 12, HasWeight: true, Line: 33, Levels: []RubricLevel{
			{Name: "Excellent", Score: 4, Line: 35, Text: "Specific benefit."},
			{Name: "Poor", Score: 1, Line: 38, Text: "No benefit."},
		}},
		{Name: "Curiosity Gap", Weight: 1, HasWeight: true, Line: 41},
	}
	if !reflect.DeepEqual(r.Rubric, wantRubric) {
		t.Errorf("rubric = %+v\nwant %+v", r.Rubric, wantRubric)
	}
}

func TestParseDefaults(t *testing.T) {
	t.Parallel()
	r, ps := Parse("g.md", []byte("---\nid: GrammarChecker\nname: Grammar Checker\n---\nCheck grammar.\n"))
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	want := &Rule{Path: "g.md", ID: "GrammarChecker", Name: "Grammar Checker", Evaluator: EvaluatorBase,
		Type: finding.SemiObjective, Strictness: 10, EvaluateAs: EvaluateChunks, Body: "Check grammar.\n", BodyLine: 5}
	if !reflect.DeepEqual(r, want) {
		t.Errorf("got %+v\nwant %+v", r, want)
	}
}

func TestParseTypeAliasesAndStrictness(t *testing.T) {
	t.Parallel()
	tests := []struct {
		typ, strictness string
		wantType        finding.RuleType
		wantStrictness  float64
	}{
		{"check", "lenient", finding.SemiObjective, 5},
		{"judge", "standard", finding.Subjective, 10},
		{"semi-objective", "strict", finding.SemiObjective, 20},
		{"subjective", "7.5", finding.Subjective, 7.5},
		{"semi-objective", "'12'", finding.SemiObjective, 12},
	}
	for _, tt := range tests {
		src := "---\nid: R\nname: R\ntype: " + tt.typ + "\nstrictness: " + tt.strictness + "\ncriteria:\n  - {id: A, name: A}\n---\n"
		r, ps := Parse("r.md", []byte(src))
		if len(ps) != 0 {
			t.Errorf("%s/%s: problems %v", tt.typ, tt.strictness, ps)
			continue
		}
		if r.Type != tt.wantType || r.Strictness != tt.wantStrictness {
			t.Errorf("%s/%s: got %s/%v", tt.typ, tt.strictness, r.Type, r.Strictness)
		}
	}
}

// TestParseProblems checks the exact message of every kind of frontmatter problem, and that all
// problems of a file are reported at once.
func TestParseProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		src  string
		want []string
	}{
		{"no frontmatter", "Just a body.\n", []string{
			`r.md:1: frontmatter: expected YAML frontmatter between "---" lines at the top of the file, found none`}},
		{"unclosed", "---\nid: A\nname: B\n", []string{
			`r.md:1: frontmatter: expected a closing "---" line after the frontmatter, found the end of the file`}},
		{"invalid yaml", "---\nid: A\nname: [unclosed\n---\n", []string{
			// yaml.v3 reports this parser error at the 0-based line of the flow sequence's start;
			// internal/yamlerr makes it the 1-based line 3, where the "[" is.
			`r.md:3: frontmatter: expected valid YAML, found did not find expected ',' or ']'`}},
		{"not a mapping", "---\n- a\n- b\n---\n", []string{
			`r.md:2: frontmatter: expected a mapping of fields (id: ..., name: ...), found a list`}},
		{"empty frontmatter", "---\n---\nbody\n", []string{
			`r.md:1: id: expected a rule id (letters, digits, '_' or '-'), found nothing`,
			`r.md:1: name: expected a non-empty string, found nothing`}},
		{"not utf-8", "---\nid: A\nname: \xff\n---\n", []string{
			`r.md:3: expected UTF-8 text, found bytes that are not UTF-8`}},
		{"every field wrong", `---
id: Acme.Rule
name: 42
specVersion: [1]
evaluator: smart
type: objective
severity: fatal
strictness: -3
evaluateAs: whole
should: yes please
severty: error
---
`, []string{
			`r.md:2: id: expected a rule id (letters, digits, '_' or '-'), found "Acme.Rule"`,
			`r.md:3: name: expected a non-empty string, found 42`,
			`r.md:4: specVersion: expected a version string or number, found a list`,
			`r.md:5: evaluator: expected "base" or "technical-accuracy", found "smart"`,
			`r.md:6: type: expected "semi-objective", "subjective", "check" or "judge", found "objective"`,
			`r.md:7: severity: expected "suggestion", "warning" or "error", found "fatal"`,
			`r.md:8: strictness: expected a number greater than 0 and at most 1000, or "lenient", "standard" or "strict", found -3`,
			`r.md:9: evaluateAs: expected "chunk" or "document", found "whole"`,
			`r.md:10: should: expected a non-empty list of points, found "yes please"`,
			`r.md:11: severty: unknown field (did you mean "severity"?)`}},
		{"unknown field without suggestion", "---\nid: A\nname: B\nauthor: me\n---\n", []string{
			`r.md:4: author: unknown field (known fields: id, name, specVersion, evaluator, type, severity, strictness, target, criteria, evaluateAs, should, examples)`}},
		{"duplicate key", "---\nid: A\nname: B\nid: C\n---\n", []string{
			`r.md:4: id: given twice (first on line 2)`}},
		{"empty severity", "---\nid: A\nname: B\nseverity:\n---\n", []string{
			`r.md:4: severity: expected "suggestion", "warning" or "error", found an empty value`}},
		{"subjective without criteria", "---\nid: A\nname: B\ntype: subjective\n---\n", []string{
			`r.md:1: criteria: expected a non-empty list of criteria for a subjective rule, found nothing`}},
		{"subjective with empty criteria", "---\nid: A\nname: B\ntype: subjective\ncriteria: []\n---\n", []string{
			`r.md:5: criteria: expected a non-empty list of criteria for a subjective rule, found an empty list`}},
		{"target problems", `---
id: A
name: B
target:
  regex: '(unclosed'
  flags: mux
  group: -1
  required: maybe
  suggestion: ""
  color: red
---
`, []string{
			`r.md:5: target.regex: expected a valid JavaScript regular expression, found "(unclosed" (missing closing ))`,
			`r.md:6: target.flags: expected some of the flags "gimsuy", each at most once, found "mux"`,
			`r.md:7: target.group: expected a capture group number (0 or more), found -1`,
			`r.md:8: target.required: expected true or false, found "maybe"`,
			`r.md:9: target.suggestion: expected a non-empty string, found ""`,
			`r.md:10: target.color: unknown field (known fields: regex, flags, group, required, suggestion)`}},
		{"target without regex", "---\nid: A\nname: B\ntarget:\n  group: 1\n---\n", []string{
			`r.md:4: target.regex: expected a JavaScript regular expression, found nothing`}},
		{"target group out of range", "---\nid: A\nname: B\ntarget:\n  regex: '^# (.+)$'\n  group: 2\n---\n", []string{
			`r.md:6: target.group: expected a capture group of /^# (.+)$/ (0 to 1), found 2`}},
		{"target duplicate flag", "---\nid: A\nname: B\ntarget:\n  regex: a\n  flags: mm\n---\n", []string{
			`r.md:6: target.flags: expected some of the flags "gimsuy", each at most once, found "mm"`}},
		{"target not a mapping", "---\nid: A\nname: B\ntarget: '^# .*'\n---\n", []string{
			`r.md:4: target: expected a mapping with regex, flags, group, required, suggestion, found "^# .*"`}},
		{"criteria problems", `---
id: A
name: B
type: subjective
criteria:
  - id: Clarity
    weight: 0
  - id: Clarity
    name: Again
    weight: heavy
    severity: info
  - name: No id
  - just a string
  - id: Bad Id
    name: X
    weigth: 2
---
`, []string{
			`r.md:6: criteria[0].name: expected a non-empty string, found nothing`,
			`r.md:7: criteria[0].weight: expected a number greater than 0 and at most 1000000, found 0`,
			`r.md:8: criteria[1].id: expected an id unique within the rule, found "Clarity", already used on line 6`,
			`r.md:10: criteria[1].weight: expected a number greater than 0 and at most 1000000, found "heavy"`,
			`r.md:11: criteria[1].severity: expected "suggestion", "warning" or "error", found "info"`,
			`r.md:12: criteria[2].id: expected a criterion id (letters, digits, '_' or '-'), found nothing`,
			`r.md:13: criteria[3]: expected a mapping with id, name, weight, found "just a string"`,
			`r.md:14: criteria[4].id: expected a criterion id (letters, digits, '_' or '-'), found "Bad Id"`,
			`r.md:16: criteria[4].weigth: unknown field (did you mean "weight"?)`}},
		{"criteria not a list", "---\nid: A\nname: B\ncriteria: Clarity\n---\n", []string{
			`r.md:4: criteria: expected a list of criteria ({id, name, weight}), found "Clarity"`}},
		{"criterion target on a semi-objective rule", "---\nid: A\nname: B\ncriteria:\n  - id: C\n    name: C\n    target:\n      regex: x\n---\n", []string{
			`r.md:7: criteria[0].target: criterion targets apply only to subjective rules (expected a target on the rule itself, found a target on a criterion of a semi-objective rule)`}},
		{"rubric warnings", `---
id: A
name: B
type: subjective
criteria:
  - {id: Clarity, name: Clarity, weight: 3}
---
# Clarity <weight=2>
### Great <score=5>
# Tone <weight=1>
# Depth <weight=heavy>
`, []string{
			`r.md:8: warning: rubric: the weight of "Clarity" disagrees with the frontmatter (expected <weight=3> (criteria[0].weight), found <weight=2>)`,
			`r.md:9: warning: rubric: expected a score from 1 to 4 in <score=N>, found "<score=5>"`,
			`r.md:10: warning: rubric: heading "Tone" names no criterion declared in the frontmatter (expected the name or id of a criterion, found declared criteria: Clarity)`,
			`r.md:11: warning: rubric: expected a weight greater than 0 in <weight=N>, found "<weight=heavy>"`,
			`r.md:11: warning: rubric: heading "Depth" names no criterion declared in the frontmatter (expected the name or id of a criterion, found declared criteria: Clarity)`}},
		{"level outside criterion", "---\nid: A\nname: B\n---\n### Good <score=3>\n", []string{
			`r.md:5: warning: rubric: expected a "<score=N>" level under a "<weight=N>" criterion heading, found "Good <score=3>"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ps := Parse("r.md", []byte(tt.src))
			got := problemStrings(ps)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func TestParseStrictness(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"lenient", 5, true}, {"standard", 10, true}, {"strict", 20, true},
		{"8", 8, true}, {"0.5", 0.5, true}, {"0", 0, false}, {"-1", 0, false},
		{"Strict", 0, false}, {"NaN", 0, false}, {"Inf", 0, false}, {"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ParseStrictness(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ParseStrictness(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestProblemError(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p    finding.Problem
		want string
	}{
		{finding.Problem{File: "a.md", Line: 3, Field: "id", Expected: "x", Found: "y"}, "a.md:3: id: expected x, found y"},
		{finding.Problem{File: "a.md", Message: "broken"}, "a.md: broken"},
		{finding.Problem{File: "a.md", Line: 1, Message: "m", Expected: "x", Found: "y", Level: finding.LevelWarning}, "a.md:1: warning: m (expected x, found y)"},
		{finding.Problem{File: "rules/VectorLint", Message: "pack VectorLint replaces the built-in pack of the same name", Level: finding.LevelNote}, "rules/VectorLint: note: pack VectorLint replaces the built-in pack of the same name"},
	}
	for _, tt := range tests {
		if got := tt.p.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
	ps := finding.Problems{{File: "b", Line: 2, Message: "x"}, {File: "a", Line: 9, Message: "y", Level: finding.LevelWarning}, {File: "a", Line: 1, Message: "z"}}
	ps.Sort()
	if got := ps.Error(); got != "a:1: z\na:9: warning: y\nb:2: x" {
		t.Errorf("sorted = %q", got)
	}
	if !ps.HasErrors() || len(ps.Errors()) != 2 || len(ps.Warnings()) != 1 {
		t.Errorf("HasErrors/Errors/Warnings wrong: %v %d %d", ps.HasErrors(), len(ps.Errors()), len(ps.Warnings()))
	}
	// A note is neither an error nor a warning.
	notes := finding.Problems{{File: "a", Message: "n", Level: finding.LevelNote}}
	if notes.HasErrors() || len(notes.Errors()) != 0 || len(notes.Warnings()) != 0 || finding.LevelNote.String() != "note" {
		t.Errorf("a note counted as %d errors, %d warnings (%s)", len(notes.Errors()), len(notes.Warnings()), finding.LevelNote)
	}
}

func TestParseShould(t *testing.T) {
	t.Parallel()
	const checklist = `---
id: Intro
name: Introduction checklist
severity: error
should:
  - $not_icontains: "simply"
  - $word_count_between: [5, 400]
  - states who the page is for
---
The introduction of every page.
`
	r, ps := Parse("acme/intro.md", []byte(checklist))
	if len(ps) != 0 {
		t.Fatalf("unexpected problems:\n%s", ps)
	}
	if r.Should == nil || len(r.Should.Points()) != 3 {
		t.Fatalf("should = %v, want 3 compiled points", r.Should)
	}
	if p := r.Should.Points()[0]; p.Fn != "not_icontains" || p.Line != 6 {
		t.Errorf("first point = %s at line %d, want not_icontains at line 6", p.Fn, p.Line)
	}

	tests := []struct {
		name, rule string
		want       []string
	}{
		{"unknown function with a hint", "should:\n  - $icontans: x\n",
			[]string{`r.md:5: should: unknown point function "$icontans" (did you mean $icontains?)`}},
		{"regex that does not compile", "should:\n  - $matches: \"(abc\"\n",
			[]string{`r.md:5: should: $matches: invalid regular expression /(abc/: `}},
		{"subjective rule", "type: subjective\ncriteria:\n  - {id: A, name: A}\nshould:\n  - $contains: x\n",
			[]string{"r.md:4: type: a rule with `should` is scored by its points, not by the model's subjective evaluation",
				"r.md:6: criteria: a rule with `should` is scored by its points"}},
		{"quoted function warns", "should:\n  - \"$icontains: 'x'\"\n",
			[]string{`r.md:5: warning: should: `}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ps := Parse("r.md", []byte("---\nid: R\nname: R\n"+tc.rule+"---\nBody.\n"))
			got := ps.Error()
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("problems:\n%s\nwant a line containing %q", got, w)
				}
			}
		})
	}
}

// TestSeveritySuggestion: Vale's three levels are the severities of a rule and of a criterion,
// ordered suggestion < warning < error (Vale's internal/core/alert.go LevelToInt), and every
// name reads back as itself.
func TestSeveritySuggestion(t *testing.T) {
	t.Parallel()
	src := "---\nid: Tone\nname: Tone\ntype: subjective\nseverity: suggestion\n" +
		"criteria:\n  - {id: Warmth, name: Warmth, severity: suggestion}\n  - {id: Clarity, name: Clarity, severity: error}\n---\nRate it.\n"
	r, ps := Parse("r.md", []byte(src))
	if len(ps) != 0 {
		t.Fatalf("problems: %v", ps)
	}
	if r.Severity != finding.SeveritySuggestion || r.Criteria[0].Severity != finding.SeveritySuggestion || r.Criteria[1].Severity != finding.SeverityError {
		t.Errorf("severities %v, %v, %v", r.Severity, r.Criteria[0].Severity, r.Criteria[1].Severity)
	}
	if !(finding.SeverityUnset < finding.SeveritySuggestion && finding.SeveritySuggestion < finding.SeverityWarning && finding.SeverityWarning < finding.SeverityError) {
		t.Error("severities are not ordered suggestion < warning < error")
	}
	for i, name := range finding.SeverityNames() {
		s, err := finding.ParseSeverity(name)
		b, merr := s.MarshalText()
		if err != nil || merr != nil || string(b) != name || s.String() != name || int(s) != i+1 {
			t.Errorf("%s: parsed %v (%v), marshalled %q (%v)", name, s, err, b, merr)
		}
	}
	if _, err := finding.SeverityUnset.MarshalText(); err == nil {
		t.Error("the unset severity marshals")
	}
}
