package rules

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// RubricCriterion is a rubric heading "# Name <weight=N>" in a rule body, with its levels.
type RubricCriterion struct {
	// Name is the heading text without the weight tag and without a leading "1." numbering.
	Name string
	// Weight is the tag's weight; HasWeight is false when the tag's value is not a number.
	Weight    float64
	HasWeight bool
	// Line is the heading's line in the rule file.
	Line   int
	Levels []RubricLevel
}

// RubricLevel is a "### Level <score=N>" heading under a rubric criterion and its description.
type RubricLevel struct {
	Name  string
	Score int
	Line  int
	// Text is the description under the heading, up to the next heading.
	Text string
}

// rubricTagRE finds "<weight=N>" and "<score=N>" in a heading.
var rubricTagRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<\s*(weight|score)\s*=\s*([^>]*?)\s*>`) })

// numberingRE matches a leading "1." or "2)" numbering of a rubric heading.
var numberingRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d+[.)]\s+`) })

// ParseRubric finds the rubric of a rule body with goldmark: every heading carrying a
// "<weight=N>" tag starts a criterion, every heading carrying "<score=N>" is a level of the
// current criterion. bodyLine is the file line where body starts (for positions and problems).
// It returns the criteria and warnings about malformed tags; path names the file in them.
func ParseRubric(path, body string, bodyLine int) ([]RubricCriterion, finding.Problems) {
	src := []byte(body)
	doc := newMarkdownParser().Parse(text.NewReader(src))
	lines := strings.SplitAfter(body, "\n")
	lineStarts := make([]int, len(lines))
	off := 0
	for i, l := range lines {
		lineStarts[i] = off
		off += len(l)
	}
	lineOf := func(offset int) int { // 0-based line index of a body offset
		lo, hi := 0, len(lineStarts)-1
		for lo < hi {
			mid := (lo + hi + 1) / 2
			if lineStarts[mid] <= offset {
				lo = mid
			} else {
				hi = mid - 1
			}
		}
		return lo
	}

	var headings []rubricHeading
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if h.Lines().Len() == 0 {
			return ast.WalkSkipChildren, nil
		}
		seg := h.Lines().At(0)
		headings = append(headings, rubricHeading{
			level: h.Level,
			line:  lineOf(seg.Start),
			text:  strings.TrimSpace(string(h.Lines().Value(src))),
		})
		return ast.WalkSkipChildren, nil
	})

	var (
		out      []RubricCriterion
		problems finding.Problems
		current  = -1 // index in out of the open criterion
		curLevel int  // heading level of the open criterion
	)
	warn := func(line int, field, expected, found string) {
		problems = append(problems, finding.Problem{File: path, Line: line, Field: field, Expected: expected, Found: found, Level: finding.LevelWarning})
	}
	for i, h := range headings {
		fileLine := bodyLine + h.line
		tag := rubricTagRE().FindStringSubmatch(h.text)
		name := strings.TrimSpace(rubricTagRE().ReplaceAllString(h.text, ""))
		name = numberingRE().ReplaceAllString(name, "")
		switch {
		case tag != nil && tag[1] == "weight":
			c := RubricCriterion{Name: name, Line: fileLine}
			if w, err := strconv.ParseFloat(tag[2], 64); err == nil && w > 0 && !math.IsInf(w, 0) {
				c.Weight, c.HasWeight = w, true
			} else {
				warn(fileLine, "rubric", "a weight greater than 0 in <weight=N>", strconv.Quote(tag[0]))
			}
			out = append(out, c)
			current, curLevel = len(out)-1, h.level
		case tag != nil && tag[1] == "score":
			if current < 0 {
				warn(fileLine, "rubric", `a "<score=N>" level under a "<weight=N>" criterion heading`, strconv.Quote(h.text))
				continue
			}
			lv := RubricLevel{Name: name, Line: fileLine, Text: sectionText(lines, h.line, nextHeadingLine(headings, i, len(lines)))}
			if s, err := strconv.Atoi(tag[2]); err == nil && s >= 1 && s <= 4 {
				lv.Score = s
			} else {
				warn(fileLine, "rubric", "a score from 1 to 4 in <score=N>", strconv.Quote(tag[0]))
			}
			out[current].Levels = append(out[current].Levels, lv)
		default:
			if current >= 0 && h.level <= curLevel {
				current = -1 // a plain heading at the criterion's level or above ends the rubric section
			}
		}
	}
	return out, problems
}

// rubricHeading is a heading of a rule body.
type rubricHeading struct {
	level int
	line  int // 0-based line in the body
	text  string
}

// nextHeadingLine returns the body line of the heading after headings[i], or end.
func nextHeadingLine(headings []rubricHeading, i, end int) int {
	if i+1 < len(headings) {
		return headings[i+1].line
	}
	return end
}

// sectionText returns the text between a heading line and the next heading, without a trailing
// thematic break.
func sectionText(lines []string, headingLine, next int) string {
	from := headingLine + 1
	if from < len(lines) && isSetextUnderline(lines[from]) {
		from++
	}
	if from >= next {
		return ""
	}
	s := strings.TrimSpace(strings.Join(lines[from:next], ""))
	for _, hr := range []string{"---", "***", "___"} {
		if strings.HasSuffix(s, hr) {
			s = strings.TrimSpace(strings.TrimSuffix(s, hr))
		}
	}
	return s
}

func isSetextUnderline(line string) bool {
	t := strings.TrimSpace(line)
	return t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "")
}

// checkRubric warns when a rubric heading names no declared criterion or its weight disagrees
// with the frontmatter.
func checkRubric(path string, rubric []RubricCriterion, criteria []*Criterion) finding.Problems {
	var problems finding.Problems
	declared := make([]string, len(criteria))
	for i, c := range criteria {
		declared[i] = c.Name
	}
	for _, rc := range rubric {
		i := matchCriterion(rc.Name, criteria)
		if i < 0 {
			found := "none"
			if len(declared) > 0 {
				found = strings.Join(declared, ", ")
			}
			problems = append(problems, finding.Problem{File: path, Line: rc.Line, Field: "rubric", Level: finding.LevelWarning,
				Message:  fmt.Sprintf("heading %q names no criterion declared in the frontmatter", rc.Name),
				Expected: "the name or id of a criterion", Found: "declared criteria: " + found})
			continue
		}
		if rc.HasWeight && rc.Weight != criteria[i].Weight && !criteria[i].weightRefused {
			problems = append(problems, finding.Problem{File: path, Line: rc.Line, Field: "rubric", Level: finding.LevelWarning,
				Message:  fmt.Sprintf("the weight of %q disagrees with the frontmatter", rc.Name),
				Expected: fmt.Sprintf("<weight=%s> (criteria[%d].weight)", formatNumber(criteria[i].Weight), i),
				Found:    fmt.Sprintf("<weight=%s>", formatNumber(rc.Weight))})
		}
	}
	return problems
}

// matchCriterion finds the declared criterion a rubric heading names: by name or id, ignoring
// case, spaces and punctuation. It returns -1 when none matches.
func matchCriterion(name string, criteria []*Criterion) int {
	key := normalizeName(name)
	for i, c := range criteria {
		if key == normalizeName(c.Name) || key == normalizeName(c.ID) {
			return i
		}
	}
	return -1
}

func normalizeName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// formatNumber prints a weight without a needless ".0".
func formatNumber(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// rubric parses the rule's rubric and records its problems.
func (p *ruleParser) rubric(r *Rule) []RubricCriterion {
	rubric, problems := ParseRubric(p.path, r.Body, r.BodyLine)
	p.problems = append(p.problems, problems...)
	p.problems = append(p.problems, checkRubric(p.path, rubric, r.Criteria)...)
	return rubric
}

// newMarkdownParser returns goldmark's CommonMark parser, as goldmark.New().Parser() builds it,
// without the root package: that would link goldmark's HTML renderer, which a rubric never
// needs, into every start-up.
func newMarkdownParser() parser.Parser {
	return parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
		parser.WithInlineParsers(parser.DefaultInlineParsers()...),
		parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
}
