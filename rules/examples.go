package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/suggest"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// ExamplesFolder is the name of the folders whose files are rule examples: a file below a
// folder of this name inside a pack is never loaded as a rule (docs/rules.md, "Examples").
const ExamplesFolder = "examples"

// The scales of the ranges a subjective rule's example may give: the rule's score (0 to 10)
// and each criterion's rating (1 to 4).
const (
	ExampleScoreMin  = 0
	ExampleScoreMax  = 10
	ExampleRatingMin = 1
	ExampleRatingMax = 4
)

func exampleFields() []string { return []string{"text", "file", "score", "criteria"} }

// Example is one entry of a rule's `examples` list: a text the rule must find something in,
// or must find nothing in, written by the rule's author as a test of the rule
// (docs/rules.md, "Examples"). The markers "{==…==}" of the written text are gone from Text:
// the model never sees them; Spans say where they were.
type Example struct {
	// Index is the entry's position in the list, from 0, as in the field "examples[2]".
	Index int
	// Line is the line of the entry in the rule file.
	Line int
	// File is the example file as the entry names it, relative to the rule file's folder
	// ("examples/long-page.md"); "" for an example given as text.
	File string
	// Path is the example file's path as the rule loader read it (for a pack on disk, the
	// rule folder joined with File); "" for a text example, and for a file example of a rule
	// parsed on its own (Parse does not read files; LoadPacks and the built-in packs do).
	Path string
	// Text is the example without its markers: what a lint of the example evaluates.
	Text string
	// Spans are the marked spans, byte offsets in Text, in order, none empty. A finding of the
	// rule must overlap each; none may land elsewhere. No span: the rule must find nothing.
	Spans []Span
	// Score is the range the score of a subjective rule must fall in (0 to 10); nil when the
	// example sets none.
	Score *Range
	// Criteria are the ranges the ratings (1 to 4) of a subjective rule's criteria must fall
	// in, in the order the example lists them.
	Criteria []CriterionRange
}

// MustFind reports whether the rule must report something in the example: it has a marked span.
func (e *Example) MustFind() bool { return len(e.Spans) > 0 }

// Marked returns the example's text with its markers put back.
func (e *Example) Marked() string { return MarkSpans(e.Text, e.Spans) }

// Range is an inclusive range of scores or ratings, Lo ≤ Hi.
type Range struct {
	Lo, Hi float64
}

// Contains reports whether v is in the range.
func (r Range) Contains(v float64) bool { return v >= r.Lo && v <= r.Hi }

// CriterionRange is the range a subjective rule's example gives a criterion's rating.
type CriterionRange struct {
	// ID is the criterion's id in the rule (Criterion.ID).
	ID string
	Range
}

// examples parses the rule's `examples` list; r's type and criteria are known. A text example
// is complete when it returns; a file example has its File and Line, and is read by the pack
// loader (readExampleFiles).
func (p *ruleParser) examples(r *Rule, v *yaml.Node) []*Example {
	if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
		p.add(v, "examples", "a non-empty list of examples ({text: ...} or {file: ...})", describe(v))
		return nil
	}
	var out []*Example
	for i, item := range v.Content {
		item = resolve(item)
		field := fmt.Sprintf("examples[%d]", i)
		if item.Kind != yaml.MappingNode {
			p.add(item, field, "a mapping with text or file (and score, criteria for a subjective rule)", describe(item))
			continue
		}
		ex := &Example{Index: i, Line: p.line(item)}
		good := true
		fs := p.fields(item, field+".", exampleFields())
		textNode, hasText := lookup(fs, "text")
		fileNode, hasFile := lookup(fs, "file")
		switch {
		case hasText && hasFile:
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: ex.Line, Field: field,
				Expected: "either text or file", Found: "both"})
			good = false
		case !hasText && !hasFile:
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: ex.Line, Field: field,
				Expected: "text (the example itself) or file (a file of the pack)", Found: "neither"})
			good = false
		case hasText:
			if textNode.Kind != yaml.ScalarNode || textNode.Tag != "!!str" || strings.TrimSpace(textNode.Value) == "" {
				p.add(textNode, field+".text", "a non-empty string (quote a text that starts with {==)", describe(textNode))
				good = false
			} else if text, spans, err := ParseMarkers(textNode.Value); err != nil {
				p.markerProblem(p.line(textNode), field+".text", "the text", err)
				good = false
			} else {
				ex.Text, ex.Spans = text, spans
			}
		case hasFile:
			if f, ok := p.exampleFile(fileNode, field+".file"); ok {
				ex.File = f
			} else {
				good = false
			}
		}
		if n, ok := lookup(fs, "score"); ok {
			if p.subjectiveOnly(r, n, field+".score") {
				if rg, ok := p.exampleRange(n, field+".score", ExampleScoreMin, ExampleScoreMax, "score"); ok {
					ex.Score = &rg
				} else {
					good = false
				}
			} else {
				good = false
			}
		}
		if n, ok := lookup(fs, "criteria"); ok {
			if p.subjectiveOnly(r, n, field+".criteria") {
				crs, ok := p.exampleCriteria(r, n, field+".criteria")
				ex.Criteria, good = crs, good && ok
			} else {
				good = false
			}
		}
		if good {
			out = append(out, ex)
		}
	}
	return out
}

// markerProblem reports the markers of an example's text (what: "the text", or the file) at the
// example's line.
func (p *ruleParser) markerProblem(line int, field, what string, err error) {
	p.problems = append(p.problems, markerProblem(p.path, line, field, what, err))
}

func markerProblem(file string, line int, field, what string, err error) finding.Problem {
	return finding.Problem{File: file, Line: line, Field: field,
		Message: "markers out of place in " + what + ", " + err.Error()}
}

// subjectiveOnly reports whether the rule is subjective, and a problem at n when it is not:
// score and criteria ranges are the results of a subjective evaluation.
func (p *ruleParser) subjectiveOnly(r *Rule, n *yaml.Node, field string) bool {
	if r.Type == finding.Subjective {
		return true
	}
	p.problems = append(p.problems, finding.Problem{File: p.path, Line: p.line(n), Field: field,
		Message:  "score and criteria ranges apply only to subjective rules",
		Expected: "no " + field[strings.LastIndexByte(field, '.')+1:] + " on a " + string(r.Type) + " rule (mark the spans to find with {==…==})",
		Found:    describeRange(n)})
	return false
}

// exampleRange reads a range [lo, hi] of numbers with min ≤ lo ≤ hi ≤ max.
func (p *ruleParser) exampleRange(n *yaml.Node, field string, min, max float64, what string) (Range, bool) {
	expected := fmt.Sprintf("a %s range [lo, hi] with %v ≤ lo ≤ hi ≤ %v", what, min, max)
	if n.Kind == yaml.SequenceNode && len(n.Content) == 2 {
		lo, okLo := p.number(resolve(n.Content[0]))
		hi, okHi := p.number(resolve(n.Content[1]))
		if okLo && okHi && min <= lo && lo <= hi && hi <= max {
			return Range{Lo: lo, Hi: hi}, true
		}
	}
	p.add(n, field, expected, describeRange(n))
	return Range{}, false
}

// exampleCriteria reads the mapping of criterion ids to rating ranges.
func (p *ruleParser) exampleCriteria(r *Rule, n *yaml.Node, field string) ([]CriterionRange, bool) {
	if n.Kind != yaml.MappingNode || len(n.Content) == 0 {
		p.add(n, field, "a mapping of criterion ids to rating ranges ({Clarity: [3, 4]})", describe(n))
		return nil, false
	}
	ids := make([]string, len(r.Criteria))
	for i, c := range r.Criteria {
		ids[i] = c.ID
	}
	var out []CriterionRange
	good := true
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], resolve(n.Content[i+1])
		if k.Kind != yaml.ScalarNode {
			p.add(k, field+".?", "a criterion id", describe(k))
			good = false
			continue
		}
		sub := field + "." + k.Value
		if line, dup := seen[k.Value]; dup {
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: p.line(k), Field: sub,
				Message: fmt.Sprintf("given twice (first on line %d)", line)})
			good = false
			continue
		}
		seen[k.Value] = p.line(k)
		if !contains(ids, k.Value) {
			msg := "not a criterion of the rule (its criteria: " + strings.Join(ids, ", ") + ")"
			if s := suggest.Closest(k.Value, ids, 2); s != "" {
				msg = fmt.Sprintf("not a criterion of the rule (did you mean %q?)", s)
			}
			p.problems = append(p.problems, finding.Problem{File: p.path, Line: p.line(k), Field: sub, Message: msg})
			good = false
			continue
		}
		rg, ok := p.exampleRange(v, sub, ExampleRatingMin, ExampleRatingMax, "rating")
		if !ok {
			good = false
			continue
		}
		out = append(out, CriterionRange{ID: k.Value, Range: rg})
	}
	return out, good
}

// exampleFile reads an example's `file`: a relative path, slash-separated, that stays inside
// the pack by its name (the pack loader checks where it leads once links are followed).
func (p *ruleParser) exampleFile(n *yaml.Node, field string) (string, bool) {
	const expected = "a path relative to the rule file's folder, inside the pack (examples/page.md)"
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || strings.TrimSpace(n.Value) == "" {
		p.add(n, field, expected, describe(n))
		return "", false
	}
	f := n.Value
	if path.IsAbs(f) || filepath.IsAbs(f) || strings.ContainsAny(f, "\\\x00") || filepath.VolumeName(f) != "" {
		p.add(n, field, expected, quote(f))
		return "", false
	}
	return f, true
}

// describeRange shows a YAML value for a problem about a range: a list of scalars as written
// ("[8, 3]"), anything else as describe does.
func describeRange(n *yaml.Node) string {
	n = resolve(n)
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return describe(n)
	}
	parts := make([]string, len(n.Content))
	for i, c := range n.Content {
		c = resolve(c)
		if c == nil || c.Kind != yaml.ScalarNode {
			return describe(n)
		}
		parts[i] = c.Value
		if c.Tag == "!!str" {
			parts[i] = strconv.Quote(c.Value)
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// exampleReader reads an example file of a pack: rel is the file's path relative to the pack's
// folder, slash-separated and clean, never leaving it by its name. It returns the path to name
// the file by in problems and Example.Path, and the file's content.
type exampleReader func(rel string) (name string, data []byte, err error)

// readExampleFiles reads the file examples of a rule of a pack: ruleRel is the rule file's path
// relative to the pack's folder (slash-separated). It fills in each file example's Path, Text
// and Spans, and returns the problems (errors) of those it could not: a file outside the pack,
// missing or unreadable, not UTF-8, with markers out of place, or that the loader would take
// for a rule.
func readExampleFiles(r *Rule, ruleRel string, read exampleReader) finding.Problems {
	var problems finding.Problems
	for _, ex := range r.Examples {
		if ex.File == "" {
			continue
		}
		field := fmt.Sprintf("examples[%d].file", ex.Index)
		add := func(expected, found, msg string) {
			problems = append(problems, finding.Problem{File: r.Path, Line: ex.Line, Field: field,
				Expected: expected, Found: found, Message: msg})
		}
		rel := path.Join(path.Dir(ruleRel), ex.File)
		if rel == ".." || strings.HasPrefix(rel, "../") {
			add("a file inside the pack", quote(ex.File)+", outside it", "")
			continue
		}
		if !inExamplesFolder(rel) && isRuleFile(path.Base(rel)) {
			add("a file below a folder named "+ExamplesFolder+" (a .md file elsewhere in the pack is loaded as a rule)",
				quote(ex.File), "")
			continue
		}
		name, data, err := read(rel)
		if err != nil {
			var le *tree.LeavesRootError
			switch {
			case errors.As(err, &le), errors.Is(err, errOutsidePack):
				add("a file inside the pack", quote(ex.File)+", "+pathErrorReason(err), "")
			case errors.Is(err, fs.ErrNotExist):
				add("an existing file inside the pack", quote(ex.File)+", which does not exist", "")
			default:
				add("", "", "cannot read the example file "+quote(ex.File)+": "+pathErrorReason(err))
			}
			continue
		}
		if !utf8.Valid(data) {
			line, col := lineColumn(string(data), firstInvalidUTF8(data))
			add("UTF-8 text", fmt.Sprintf("bytes that are not UTF-8 at line %d, column %d of %s", line, col, quote(ex.File)), "")
			continue
		}
		text, spans, err := ParseMarkers(string(data))
		if err != nil {
			problems = append(problems, markerProblem(r.Path, ex.Line, field, ex.File, err))
			continue
		}
		ex.Path, ex.Text, ex.Spans = name, text, spans
	}
	return problems
}

// errOutsidePack is an example file whose links lead out of its pack.
var errOutsidePack = errors.New("a symbolic link that leads out of the pack")

// inExamplesFolder reports whether a pack-relative, slash-separated path has a folder named
// ExamplesFolder on the way.
func inExamplesFolder(rel string) bool {
	dirs := strings.Split(rel, "/")
	for _, d := range dirs[:len(dirs)-1] {
		if d == ExamplesFolder {
			return true
		}
	}
	return false
}

// packExampleReader reads the example files of the pack folder dir through root: a file is
// read only when it resolves, links followed, inside the pack (inside: the pack folder resolved,
// root-relative).
func packExampleReader(root *tree.Root, dir string) exampleReader {
	return func(rel string) (string, []byte, error) {
		name := filepath.Join(dir, filepath.FromSlash(rel))
		packResolved, err := root.Resolve(dir)
		if err != nil {
			return name, nil, err
		}
		resolved, err := root.Resolve(name)
		if err != nil {
			return name, nil, err
		}
		if !tree.Within(packResolved, resolved) {
			return name, nil, &fs.PathError{Op: "open", Path: name,
				Err: fmt.Errorf("%w to %s", errOutsidePack, root.Resolved(resolved))}
		}
		data, err := root.ReadFile(name, MaxFileSize)
		return name, data, err
	}
}
