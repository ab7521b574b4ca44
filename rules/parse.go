package rules

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsregex"
	"github.com/vectorlint/vectorlint/internal/suggest"
	"github.com/vectorlint/vectorlint/internal/yamlerr"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// ruleFields lists the frontmatter keys a rule may use, in documentation order.
func ruleFields() []string {
	return []string{"id", "name", "specVersion", "evaluator", "type", "severity", "strictness",
		"target", "criteria", "evaluateAs", "should", "examples"}
}

func targetFields() []string {
	return []string{"regex", "flags", "group", "required", "suggestion"}
}

func criterionFields() []string {
	return []string{"id", "name", "weight", "target", "severity"}
}

// Parse reads one rule file (path is used in problems) and validates it. It returns the rule,
// with defaults applied, and every problem found; the rule is nil only when the file has no
// usable frontmatter. A rule whose problems include errors must not be run. It is Loader{}.Parse:
// a `should` list's scripts are not compiled (see Loader).
func Parse(path string, data []byte) (*Rule, finding.Problems) { return Loader{}.Parse(path, data) }

// Parse reads one rule file as the package-level Parse does, with the loader's Prepare.
func (l Loader) Parse(path string, data []byte) (*Rule, finding.Problems) {
	p := &ruleParser{path: path, prepare: l.Prepare}
	r := p.parse(data)
	p.problems.Sort()
	return r, p.problems
}

type ruleParser struct {
	path     string
	lineBase int // file line of the frontmatter's first line, minus one
	problems finding.Problems
	// prepare is Loader.Prepare.
	prepare func(*rubric.Point) error
}

// add records a problem at a YAML node (line converted to the file's numbering).
func (p *ruleParser) add(n *yaml.Node, field, expected, found string) {
	p.problems = append(p.problems, finding.Problem{File: p.path, Line: p.line(n), Field: field, Expected: expected, Found: found})
}

func (p *ruleParser) line(n *yaml.Node) int {
	if n == nil || n.Line == 0 {
		return 0
	}
	return p.lineBase + n.Line
}

// parse reads a rule file: UTF-8 text, its frontmatter fields, the fields it needs, then
// its should list, examples and rubric. It returns nil when there is no frontmatter to read.
func (p *ruleParser) parse(data []byte) *Rule {
	if !utf8.Valid(data) {
		line := bytes.Count(data[:firstInvalidUTF8(data)], []byte("\n")) + 1
		p.problems = append(p.problems, finding.Problem{File: p.path, Line: line, Expected: "UTF-8 text", Found: "bytes that are not UTF-8"})
		return nil
	}
	fm := SplitFrontmatter(data)
	switch {
	case fm.Unclosed:
		p.problems = append(p.problems, finding.Problem{File: p.path, Line: 1, Field: "frontmatter",
			Expected: `a closing "---" line after the frontmatter`, Found: "the end of the file"})
		return nil
	case !fm.Found:
		p.problems = append(p.problems, finding.Problem{File: p.path, Line: 1, Field: "frontmatter",
			Expected: `YAML frontmatter between "---" lines at the top of the file`, Found: "none"})
		return nil
	}
	p.lineBase = fm.Line - 1
	r := &Rule{
		Path:       p.path,
		Evaluator:  EvaluatorBase,
		Type:       finding.SemiObjective,
		Strictness: StrictnessStandard,
		EvaluateAs: EvaluateChunks,
		Body:       string(data[fm.BodyOffset:]),
		BodyLine:   bytes.Count(data[:fm.BodyOffset], []byte("\n")) + 1,
	}
	entries, ok := p.frontmatterFields(fm)
	if !ok {
		return r
	}
	present := map[string]*yaml.Node{}
	for _, e := range entries {
		present[e.name] = e.val
		p.field(r, e)
	}
	p.checkRequired(r, present, fm.Line-1)
	if v, ok := present["should"]; ok && v.Kind == yaml.SequenceNode && len(v.Content) > 0 {
		r.Should = p.should(r, v, present)
	}
	if v, ok := present["examples"]; ok {
		r.Examples = p.examples(r, v)
	}
	r.Rubric = p.rubric(r)
	return r
}

// frontmatterFields decodes the frontmatter's YAML into its fields; ok is false when it is not
// YAML or not a mapping (the problem is recorded).
func (p *ruleParser) frontmatterFields(fm Frontmatter) (entries []entry, ok bool) {
	var doc yaml.Node
	if err := yaml.Unmarshal(fm.Data, &doc); err != nil {
		line, msg := yamlerr.Split(err, fm.Data)
		if line > 0 {
			line += p.lineBase
		} else {
			line = fm.Line - 1
		}
		p.problems = append(p.problems, finding.Problem{File: p.path, Line: line, Field: "frontmatter",
			Expected: "valid YAML", Found: msg})
		return nil, false
	}
	var m *yaml.Node
	if len(doc.Content) > 0 {
		m = resolve(doc.Content[0])
	}
	if m != nil && m.Kind != yaml.MappingNode {
		p.add(m, "frontmatter", "a mapping of fields (id: ..., name: ...)", describe(m))
		return nil, false
	}
	if m != nil {
		entries = p.fields(m, "", ruleFields())
	}
	return entries, true
}

// field reads one frontmatter field into the rule.
func (p *ruleParser) field(r *Rule, e entry) {
	v := e.val
	switch e.name {
	case "id":
		r.ID, _ = p.identifier(v, "id", "a rule id")
	case "name":
		r.Name, _ = p.text(v, "name")
	case "specVersion":
		if v.Kind == yaml.ScalarNode && (v.Tag == "!!str" || v.Tag == "!!int" || v.Tag == "!!float") {
			r.SpecVersion = v.Value
		} else {
			p.add(v, "specVersion", "a version string or number", describe(v))
		}
	case "evaluator":
		if s, ok := p.enum(v, "evaluator", string(EvaluatorBase), string(EvaluatorTechnicalAccuracy)); ok {
			r.Evaluator = Evaluator(s)
		}
	case "type":
		if s, ok := p.enum(v, "type", string(finding.SemiObjective), string(finding.Subjective), "check", "judge"); ok {
			switch s {
			case "check":
				s = string(finding.SemiObjective)
			case "judge":
				s = string(finding.Subjective)
			}
			r.Type = finding.RuleType(s)
		}
	case "severity":
		if s, ok := p.enum(v, "severity", finding.SeveritySuggestion.String(), finding.SeverityWarning.String(), finding.SeverityError.String()); ok {
			r.Severity, _ = finding.ParseSeverity(s)
		}
	case "strictness":
		if s, ok := p.strictness(v); ok {
			r.Strictness = s
		}
	case "target":
		r.Target = p.target(e, "target")
	case "criteria":
		r.Criteria = p.criteria(v)
	case "evaluateAs":
		if s, ok := p.enum(v, "evaluateAs", string(EvaluateChunks), string(EvaluateDocument)); ok {
			r.EvaluateAs = EvaluateAs(s)
		}
	case "should":
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			p.add(v, "should", "a non-empty list of points", describe(v))
		}
		// Compiled after the loop, when the rule's id is known for the diagnostics.
	case "examples":
		// Read after the loop, when the rule's type and criteria are known.
	}
}

// checkRequired records the fields a rule lacks (id, name, a subjective rule's criteria) and
// the criterion targets a semi-objective rule may not have; openLine is the frontmatter's
// opening line.
func (p *ruleParser) checkRequired(r *Rule, present map[string]*yaml.Node, openLine int) {
	if _, ok := present["id"]; !ok {
		p.problems = append(p.problems, finding.Problem{File: p.path, Line: openLine, Field: "id", Expected: "a rule id (letters, digits, '_' or '-')", Found: "nothing"})
	}
	if _, ok := present["name"]; !ok {
		p.problems = append(p.problems, finding.Problem{File: p.path, Line: openLine, Field: "name", Expected: "a non-empty string", Found: "nothing"})
	}
	if r.Type == finding.Subjective && len(r.Criteria) == 0 {
		if v, ok := present["criteria"]; !ok {
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: openLine, Field: "criteria",
				Expected: "a non-empty list of criteria for a subjective rule", Found: "nothing"})
		} else if v.Kind == yaml.SequenceNode && len(v.Content) == 0 {
			p.add(v, "criteria", "a non-empty list of criteria for a subjective rule", "an empty list")
		}
	}
	if r.Type == finding.SemiObjective {
		for i, c := range r.Criteria {
			if c.Target != nil {
				p.problems = append(p.problems, finding.Problem{File: p.path, Line: c.Target.Line, Field: fmt.Sprintf("criteria[%d].target", i),
					Message:  "criterion targets apply only to subjective rules",
					Expected: "a target on the rule itself", Found: "a target on a criterion of a semi-objective rule"})
			}
		}
	}
}

// should parses a rule's `should` list with the rubric parser of the points engine (the same
// point syntax and functions as Weval blueprints), its functions prepared by Loader.Prepare when
// there is one, and checks that the rule is one a checklist can score: a semi-objective rule of
// the base evaluator without criteria.
func (p *ruleParser) should(r *Rule, v *yaml.Node, present map[string]*yaml.Node) *rubric.Rubric {
	for _, field := range []string{"criteria", "type", "evaluator"} {
		n, ok := present[field]
		if !ok {
			continue
		}
		switch {
		case field == "criteria" && len(r.Criteria) > 0,
			field == "type" && r.Type != finding.SemiObjective,
			field == "evaluator" && r.Evaluator != EvaluatorBase:
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: p.line(n), Field: field,
				Message:  "a rule with `should` is scored by its points, not by the model's " + string(r.Type) + " evaluation",
				Expected: "no " + field + " (or " + field + " of a semi-objective base rule) next to `should`",
				Found:    describe(n)})
		}
	}
	points, errs := rubric.Parse(v, rubric.Options{
		File: p.path, Owner: r.ID, OwnerKind: "rule", LineOffset: p.lineBase, Prepare: p.prepare})
	for _, d := range errs {
		p.problems = append(p.problems, p.pointProblem(d, finding.LevelError))
	}
	failing := false
	for _, d := range points.Warnings {
		// In a blueprint an unknown function or a regex that does not compile only warns (the
		// point scores 0 with the error). A rule with such a point could never pass, and a rule
		// that silently cannot work is worse than a run that does not start: it is an error.
		level := finding.LevelWarning
		if d.Code == rubric.CodeUnknownFunction || d.Code == rubric.CodeBadFunction {
			level, failing = finding.LevelError, true
		}
		p.problems = append(p.problems, p.pointProblem(d, level))
	}
	if failing {
		return nil
	}
	if len(errs) > 0 {
		return nil
	}
	return &points
}

// pointProblem turns a problem of a `should` point into a rule problem: the rule file's form,
// on the field "should", at the level the rule gives it.
func (p *ruleParser) pointProblem(d finding.Problem, level finding.Level) finding.Problem {
	return finding.Problem{File: p.path, Line: d.Line, Field: "should", Code: d.Code, Message: d.Message, Level: level}
}

// entry is one known key of a YAML mapping and its value (aliases resolved).
type entry struct {
	name     string
	key, val *yaml.Node
}

// fields checks a mapping's keys (unknown and repeated keys are problems) and returns the known
// keys with their values in file order. prefix is the field path of the mapping ("" for the top
// level).
func (p *ruleParser) fields(m *yaml.Node, prefix string, known []string) []entry {
	var out []entry
	firstLine := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], resolve(m.Content[i+1])
		field := prefix + k.Value
		if k.Kind != yaml.ScalarNode {
			p.add(k, prefix+"?", "a field name", describe(k))
			continue
		}
		if line, dup := firstLine[k.Value]; dup {
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: p.line(k), Field: field,
				Message: fmt.Sprintf("given twice (first on line %d)", line)})
			continue
		}
		firstLine[k.Value] = p.line(k)
		if !contains(known, k.Value) {
			msg := "unknown field (known fields: " + strings.Join(known, ", ") + ")"
			if s := suggest.Closest(k.Value, known, 2); s != "" {
				msg = fmt.Sprintf("unknown field (did you mean %q?)", s)
			}
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: p.line(k), Field: field, Message: msg})
			continue
		}
		out = append(out, entry{name: k.Value, key: k, val: v})
	}
	return out
}

// lookup returns the value of a key among entries, or nil.
func lookup(entries []entry, name string) (*yaml.Node, bool) {
	for _, e := range entries {
		if e.name == name {
			return e.val, true
		}
	}
	return nil, false
}

// text reads a non-empty string.
func (p *ruleParser) text(v *yaml.Node, field string) (string, bool) {
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || strings.TrimSpace(v.Value) == "" {
		p.add(v, field, "a non-empty string", describe(v))
		return "", false
	}
	return v.Value, true
}

// identifier reads an id: it appears in rule ids ("Pack.Rule.Criterion") and ini keys, so it
// may not contain dots, commas or spaces.
func (p *ruleParser) identifier(v *yaml.Node, field, what string) (string, bool) {
	expected := what + " (letters, digits, '_' or '-')"
	if v.Kind != yaml.ScalarNode || v.Tag != "!!str" || !isIdentifier(v.Value) {
		p.add(v, field, expected, describe(v))
		return "", false
	}
	return v.Value, true
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !unicode.IsLetter(c) && !unicode.IsDigit(c) && c != '_' && c != '-' {
			return false
		}
	}
	return true
}

// enum reads a string that must be one of values.
func (p *ruleParser) enum(v *yaml.Node, field string, values ...string) (string, bool) {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!str" && contains(values, v.Value) {
		return v.Value, true
	}
	p.add(v, field, quoteList(values), describe(v))
	return "", false
}

func (p *ruleParser) strictness(v *yaml.Node) (float64, bool) {
	const expected = StrictnessExpected
	if v.Kind == yaml.ScalarNode && (v.Tag == "!!str" || v.Tag == "!!int" || v.Tag == "!!float") {
		if s, ok := ParseStrictness(v.Value); ok {
			return s, true
		}
	}
	p.add(v, "strictness", expected, describe(v))
	return 0, false
}

// number reads a finite number.
func (p *ruleParser) number(v *yaml.Node) (float64, bool) {
	if v.Kind != yaml.ScalarNode || (v.Tag != "!!int" && v.Tag != "!!float") {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.ReplaceAll(v.Value, "_", ""), 64)
	if err != nil {
		var n int64
		if v.Decode(&n) != nil {
			return 0, false
		}
		f = float64(n)
	}
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func (p *ruleParser) target(e entry, field string) *Target {
	v := e.val
	if v.Kind != yaml.MappingNode {
		p.add(v, field, "a mapping with regex, flags, group, required, suggestion", describe(v))
		return nil
	}
	fs := p.fields(v, field+".", targetFields())
	t := &Target{Flags: DefaultTargetFlags, Line: p.line(e.key)}
	ok := true
	regexNode, hasRegex := lookup(fs, "regex")
	if !hasRegex {
		p.problems = append(p.problems, finding.Problem{File: p.path, Line: t.Line, Field: field + ".regex",
			Expected: "a JavaScript regular expression", Found: "nothing"})
		ok = false
	} else if s, good := p.text(regexNode, field+".regex"); good {
		t.Regex = s
	} else {
		ok = false
	}
	flagsOK := true
	if n, has := lookup(fs, "flags"); has {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" && validTargetFlags(n.Value) {
			t.Flags = n.Value
		} else {
			p.add(n, field+".flags", fmt.Sprintf("some of the flags %q, each at most once", TargetFlags), describe(n))
			flagsOK = false // the regex is still checked, with the default flags
		}
	}
	groupOK := true
	groupNode, hasGroup := lookup(fs, "group")
	if hasGroup {
		var g int
		if groupNode.Kind == yaml.ScalarNode && groupNode.Tag == "!!int" && groupNode.Decode(&g) == nil && g >= 0 {
			t.Group = g
		} else {
			p.add(groupNode, field+".group", "a capture group number (0 or more)", describe(groupNode))
			groupOK = false
		}
	}
	if n, has := lookup(fs, "required"); has {
		if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" && n.Decode(&t.Required) == nil {
		} else {
			p.add(n, field+".required", "true or false", describe(n))
		}
	}
	if n, has := lookup(fs, "suggestion"); has {
		t.Suggestion, _ = p.text(n, field+".suggestion")
	}
	if !ok {
		return nil
	}
	re, err := jsregex.Compile(t.Regex, t.Flags)
	if err == nil && (!flagsOK || !groupOK) {
		return nil
	}
	if err != nil {
		reason := err.Error()
		var se *jsregex.SyntaxError
		if errors.As(err, &se) {
			reason = se.Reason
		}
		p.add(regexNode, field+".regex", "a valid JavaScript regular expression", fmt.Sprintf("%s (%s)", quote(t.Regex), reason))
		return nil
	}
	if t.Group > re.NumGroups() {
		p.add(groupNode, field+".group", fmt.Sprintf("a capture group of /%s/ (0 to %d)", t.Regex, re.NumGroups()), groupNode.Value)
		return nil
	}
	t.re = re
	return t
}

func validTargetFlags(flags string) bool {
	seen := map[rune]bool{}
	for _, f := range flags {
		if !strings.ContainsRune(TargetFlags, f) || seen[f] {
			return false
		}
		seen[f] = true
	}
	return true
}

func (p *ruleParser) criteria(v *yaml.Node) []*Criterion {
	if v.Kind != yaml.SequenceNode {
		p.add(v, "criteria", "a list of criteria ({id, name, weight})", describe(v))
		return nil
	}
	var out []*Criterion
	firstLine := map[string]int{}
	for i, item := range v.Content {
		item = resolve(item)
		field := fmt.Sprintf("criteria[%d]", i)
		if item.Kind != yaml.MappingNode {
			p.add(item, field, "a mapping with id, name, weight", describe(item))
			continue
		}
		fs := p.fields(item, field+".", criterionFields())
		c := &Criterion{Weight: 1, Line: p.line(item)}
		good := true
		if n, ok := lookup(fs, "id"); ok {
			if id, ok := p.identifier(n, field+".id", "a criterion id"); ok {
				if line, dup := firstLine[id]; dup {
					p.add(n, field+".id", "an id unique within the rule", fmt.Sprintf("%q, already used on line %d", id, line))
				} else {
					firstLine[id] = p.line(n)
				}
				c.ID = id
			} else {
				good = false
			}
		} else {
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: c.Line, Field: field + ".id", Expected: "a criterion id (letters, digits, '_' or '-')", Found: "nothing"})
			good = false
		}
		if n, ok := lookup(fs, "name"); ok {
			c.Name, _ = p.text(n, field+".name")
		} else {
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: c.Line, Field: field + ".name", Expected: "a non-empty string", Found: "nothing"})
		}
		if n, ok := lookup(fs, "weight"); ok {
			if w, ok := p.number(n); ok && ValidWeight(w) {
				c.Weight = w
			} else {
				p.add(n, field+".weight", WeightExpected, describe(n))
				c.weightRefused = true
			}
		}
		for _, e := range fs {
			if e.name == "target" {
				c.Target = p.target(e, field+".target")
			}
		}
		if n, ok := lookup(fs, "severity"); ok {
			if s, ok := p.enum(n, field+".severity", finding.SeveritySuggestion.String(), finding.SeverityWarning.String(), finding.SeverityError.String()); ok {
				c.Severity, _ = finding.ParseSeverity(s)
			}
		}
		if good {
			out = append(out, c)
		}
	}
	return out
}

// resolve follows YAML aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 100; depth++ {
		n = n.Alias
	}
	return n
}

// describe says what a YAML value is, for the "found" part of a problem.
func describe(n *yaml.Node) string {
	n = resolve(n)
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		if len(n.Content) == 0 {
			return "an empty list"
		}
		return "a list"
	case yaml.ScalarNode:
		switch n.Tag {
		case "!!null":
			if n.Value == "" || n.Value == "~" {
				return "an empty value"
			}
			return n.Value
		case "!!str":
			return quote(n.Value)
		default:
			return n.Value
		}
	}
	return "nothing"
}

// quote quotes s for a message, shortened to 60 characters.
func quote(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		s = string([]rune(s)[:60]) + "…"
	}
	return strconv.Quote(s)
}

func quoteList(values []string) string {
	q := make([]string, len(values))
	for i, v := range values {
		q[i] = strconv.Quote(v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// firstInvalidUTF8 returns the offset of the first byte that is not valid UTF-8.
func firstInvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return len(b)
}

// FirstInvalidUTF8 returns the byte offset of the first byte of b that is not valid UTF-8, or
// len(b) when b is valid.
func FirstInvalidUTF8(b []byte) int { return firstInvalidUTF8(b) }
