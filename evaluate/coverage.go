package evaluate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/yamlerr"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
	"github.com/vectorlint/vectorlint/scoring"
)

// CoveragePoint is one point's verdict in a coverage result ("coverage_points").
type CoveragePoint struct {
	// Point is the point as Weval names it: the text of an LLM-judged point, or
	// "Function: contains(\"Paris\")" for a function point.
	Point string `json:"point"`
	// Score is how far the point is met, 0–1, with a should_not point already inverted,
	// rounded to 3 decimals.
	Score float64 `json:"score"`
	// Weight is the point's multiplier when it is not 1.
	Weight float64 `json:"weight,omitempty"`
	// Path names the alternative path the point belongs to ("path_3"), "" for a required point.
	Path string `json:"path,omitempty"`
	// Inverted marks a should_not point.
	Inverted bool `json:"inverted,omitempty"`
	// Reflection is the judge's (or the function's) explanation.
	Reflection string `json:"reflection,omitempty"`
}

// RunCoverageEvaluator checks how far a response meets a rubric of Weval points: the points
// engine's coverage score, exposed as an evaluator.
//
// Purpose: assert that a response does what it should (and nothing it should not) — names the
// right facts, follows a format, avoids forbidden words — with points that are plain-language
// criteria for a model judge or deterministic functions such as $contains and $matches.
//
// Method: [points.ScoreRubric], exactly as a blueprint run scores a prompt: each function
// point deterministically, each text point by judge; should_not points inverted; required points
// and the best alternative path averaged, weighted by their multipliers (the seed's worked
// examples give 0.425 and 0.875). The score is rounded to 3 decimals. A point that cannot be
// evaluated (a function error, a failed judge, a text point without a judge) makes the
// evaluation an error, not a fail: a coverage that leaves points out would overstate the score.
//
// Granularity: High — point by point, weighted, with alternative paths.
//
// Inputs: a [points.Judge] (nil when every point is a function), the response, the rubric
// ([ParseCoveragePoints] reads one from YAML or JSON; [rubric.Parse] builds one block, its
// functions best prepared with Options.Prepare set to [points.Prepare]), threshold (0–1).
// Outputs: {"response", "threshold", "coverage_score": 0–1, "coverage_points": [{"point",
// "score", "weight", "path", "inverted", "reflection"}…], "coverage_result"}.
func RunCoverageEvaluator(judge points.Judge, response string, r rubric.Rubric, threshold float64) *BaseScoreEvaluator {
	return &BaseScoreEvaluator{
		Inputs: []Field{{"response", response}},
		Metric: func(ctx context.Context) (Measurement, error) {
			return measureCoverage(ctx, judge, response, r)
		},
		Threshold:      threshold,
		Min:            0,
		Max:            1,
		Decimals:       ratioDecimals,
		ScoreKey:       "coverage_score",
		ResultKey:      "coverage_result",
		FailureMessage: "coverage score",
	}
}

// measureCoverage scores the rubric and reports every point that could not be evaluated.
func measureCoverage(ctx context.Context, judge points.Judge, response string, r rubric.Rubric) (Measurement, error) {
	pts := r.Points()
	if len(pts) == 0 {
		return Measurement{}, errors.New("coverage: expected at least one point, found none")
	}
	if judge == nil {
		text := 0
		for _, p := range pts {
			if !p.IsFunction() {
				text++
			}
		}
		if text > 0 {
			return Measurement{}, fmt.Errorf("coverage: %d of the %d points are judged by a model: %w", text, len(pts), ErrNoModel)
		}
	}
	env := points.Env{Judge: judge}
	res := points.ScoreRubric(ctx, r, points.Subject{Text: response}, env)
	if err := ctx.Err(); err != nil {
		return Measurement{}, fmt.Errorf("coverage: %w", err)
	}
	var failures []string
	var stop *llm.StopError
	stopped := 0
	out := make([]CoveragePoint, 0, len(res.PointAssessments))
	for _, pa := range res.PointAssessments {
		var se *llm.StopError
		if errors.As(pa.Stopped(), &se) {
			// The judge's endpoint was stopped: said once below, not once per point.
			stop = se
			stopped++
			continue
		}
		if pa.Error != "" || pa.CoverageExtent == nil {
			why := pa.Error
			if why == "" {
				why = "not evaluated"
			}
			failures = append(failures, fmt.Sprintf("%s: %s", pa.KeyPointText, why))
			continue
		}
		cp := CoveragePoint{Point: pa.KeyPointText, Score: roundRatio(*pa.CoverageExtent), Path: pa.PathID,
			Inverted: pa.IsInverted, Reflection: pa.Reflection}
		if pa.Multiplier != 1 {
			cp.Weight = pa.Multiplier
		}
		out = append(out, cp)
	}
	failed := len(failures) + stopped
	if stop != nil {
		points := "1 judged point"
		if stopped != 1 {
			points = fmt.Sprintf("%d judged points", stopped)
		}
		failures = append(failures, points+": "+stop.Error())
	}
	if failed > 0 {
		return Measurement{}, &coverageError{msg: fmt.Sprintf("coverage: %d of the %d points could not be evaluated: %s",
			failed, len(res.PointAssessments), strings.Join(failures, "; ")), stop: stop}
	}
	if res.Score == nil { // impossible once every point has a score; never report a made-up 0
		return Measurement{}, errors.New("coverage: no point could be scored")
	}
	return Measurement{Score: *res.Score, Extra: []Field{{"coverage_points", out}}}, nil
}

// coverageError is a coverage that left points out; it unwraps to the stopped endpoint
// (llm.StopError) behind them, if one was.
type coverageError struct {
	msg  string
	stop *llm.StopError
}

func (e *coverageError) Error() string { return e.msg }

func (e *coverageError) Unwrap() error {
	if e.stop == nil {
		return nil
	}
	return e.stop
}

// roundRatio rounds a 0–1 value as the evaluators record it.
func roundRatio(x float64) float64 {
	return scoring.Round(x, ratioDecimals)
}

// ParseCoveragePoints reads the points of [RunCoverageEvaluator] from YAML (or JSON, which is
// YAML): either a list of points — the `should` block, written as in a blueprint prompt — or a
// mapping with a `should` list, a `should_not` list or both:
//
//   - "Names Paris as the capital"          # judged by a model
//
//   - $contains_word: Paris                 # a function: no model
//
//   - - "Answers in one sentence"           # a nested list is an alternative path
//
//   - $word_count_between: [3, 30]
//
//     should: ["Names Paris"]
//     should_not: [{$icontains_any_of: ["I don't know", "as an AI"]}]
//
// file names the source in errors, which give its line. A file with no point, an unknown key,
// a second YAML document, a point that does not parse, an unknown function or a function whose
// arguments, regex or script do not compile is an error (in a blueprint the last two only warn
// and score 0; a check that can never pass is worth stopping for), and so is $call or
// $factcheck, which need network access [RunCoverageEvaluator] does not give. Other authoring
// mistakes (a one-point alternative path…) are in the returned Rubric's Warnings.
func ParseCoveragePoints(file string, data []byte) (rubric.Rubric, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return rubric.Rubric{}, fmt.Errorf("%s: expected a list of points (or should/should_not lists), found an empty file", file)
		}
		if line, msg := yamlerr.Split(err, data); line > 0 {
			return rubric.Rubric{}, fmt.Errorf("%s:%d: expected YAML or JSON points, found invalid YAML: %s", file, line, msg)
		}
		return rubric.Rubric{}, fmt.Errorf("%s: expected YAML or JSON points, found invalid YAML: %v", file, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		line := extra.Line
		if extra.Kind == yaml.DocumentNode && len(extra.Content) > 0 {
			line = extra.Content[0].Line
		}
		if err != nil {
			return rubric.Rubric{}, fmt.Errorf("%s: expected one YAML document: %v", file, err)
		}
		return rubric.Rubric{}, fmt.Errorf("%s:%d: expected one YAML document of points, found a second document", file, line)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	var out rubric.Rubric
	var problems []string
	parse := func(n *yaml.Node, owner string) []rubric.Entry {
		r, errs := rubric.Parse(n, rubric.Options{File: file, Owner: owner, OwnerKind: "list", Prepare: points.Prepare})
		for _, d := range errs {
			problems = append(problems, d.Labeled())
		}
		for _, d := range r.Warnings {
			if d.Code == rubric.CodeUnknownFunction || d.Code == rubric.CodeBadFunction {
				d.Level = finding.LevelError
				problems = append(problems, d.Labeled())
				continue
			}
			out.Warnings = append(out.Warnings, d)
		}
		return r.Should
	}
	switch root.Kind {
	case yaml.SequenceNode:
		out.Should = parse(root, "")
	case yaml.MappingNode:
		seen := map[string]bool{}
		for i := 0; i+1 < len(root.Content); i += 2 {
			k, v := root.Content[i], root.Content[i+1]
			switch k.Value {
			case "should", "should_not":
				if seen[k.Value] {
					problems = append(problems, fmt.Sprintf("%s:%d: error: %q is given twice", file, k.Line, k.Value))
					continue
				}
				seen[k.Value] = true
				entries := parse(v, k.Value)
				if k.Value == "should" {
					out.Should = entries
				} else {
					out.ShouldNot = entries
				}
			default:
				problems = append(problems, fmt.Sprintf("%s:%d: error: expected the key should or should_not, found %q", file, k.Line, k.Value))
			}
		}
	default:
		return rubric.Rubric{}, fmt.Errorf("%s:%d: expected a list of points or a mapping with should/should_not lists, found %s",
			file, root.Line, describeYAML(root))
	}
	for _, p := range out.Points() {
		if p.Fn == "call" || p.Fn == "factcheck" {
			problems = append(problems, fmt.Sprintf("%s:%d: error: $%s makes HTTP requests, which a coverage evaluation does not make (a blueprint run does, with --allow-net)",
				file, p.Line, p.Fn))
		}
	}
	if len(problems) > 0 {
		return rubric.Rubric{}, errors.New(strings.Join(problems, "\n"))
	}
	if len(out.Points()) == 0 {
		return rubric.Rubric{}, fmt.Errorf("%s: expected at least one point, found none", file)
	}
	return out, nil
}

// describeYAML names a node's kind for "found …" messages.
func describeYAML(n *yaml.Node) string {
	switch n.Kind {
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "nothing (null)"
		}
		return fmt.Sprintf("the scalar %q", shorten(n.Value, 40))
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "an empty document"
	}
	return "an unsupported YAML value"
}

// shorten cuts s to n runes with an ellipsis.
func shorten(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// CoveragePoints is the --points list of the coverage metric, parsed: what a command needs of
// it without naming the rubric package.
type CoveragePoints struct {
	rubric rubric.Rubric
}

// ReadCoveragePoints parses a --points list as ParseCoveragePoints does.
func ReadCoveragePoints(file string, data []byte) (*CoveragePoints, error) {
	r, err := ParseCoveragePoints(file, data)
	if err != nil {
		return nil, err
	}
	return &CoveragePoints{rubric: r}, nil
}

// Warnings returns the authoring mistakes found in the list.
func (c *CoveragePoints) Warnings() finding.Problems { return c.rubric.Warnings }

// NeedsModel reports whether a point needs a model judge (a point that is not a function).
func (c *CoveragePoints) NeedsModel() bool {
	for _, p := range c.rubric.Points() {
		if !p.IsFunction() {
			return true
		}
	}
	return false
}

// Evaluator returns the coverage evaluator of response against the list; judge may be nil
// when NeedsModel is false.
func (c *CoveragePoints) Evaluator(judge points.Judge, response string, threshold float64) *BaseScoreEvaluator {
	return RunCoverageEvaluator(judge, response, c.rubric, threshold)
}
