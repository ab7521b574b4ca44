package evaluate

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// tableJudge is an in-test points.Judge: it rates each criterion from a table and fails on
// the others. (The command's tests judge through a real model client and the fake server.)
type tableJudge map[string]float64

func (j tableJudge) JudgeText(_ context.Context, req points.JudgeRequest) (points.JudgeResult, error) {
	s, ok := j[req.Criterion]
	if !ok {
		return points.JudgeResult{}, errors.New("judge: no rating for " + req.Criterion)
	}
	return points.JudgeResult{Score: s, Reflection: fmt.Sprintf("rated %v", s), JudgeModelID: "table"}, nil
}

// seedJudge rates the points of the seed's two worked examples (seed 002, "How scores are
// calculated").
var seedJudge = tableJudge{"Point A": 1, "Point B": 0.75, "Point C": 0.5, "Path 1A": 0.2, "Path 1B": 0,
	"Path 2A": 0, "Path 2B": 0, "Critical requirement": 1, "Standard point": 0.5}

const (
	// seedPaths is the seed's first example: required 0.75, best path 0.10 → 0.425.
	seedPaths = `
- "Point A"
- "Point B"
- "Point C"
- - "Path 1A"
  - "Path 1B"
- - "Path 2A"
  - "Path 2B"
`
	// seedWeights is the seed's second example: (1.0 × 3 + 0.5 × 1) / 4 = 0.875.
	seedWeights = `
- point: "Critical requirement"
  weight: 3.0
- "Standard point"
`
	// seedPathsByFunctions is seedPaths with function points that score the same on
	// functionText (3 of 4, 2 of 4, 1 of 5 words present), so no judge is needed.
	seedPathsByFunctions = `
- $contains: alpha
- $contains_all_of: [alpha, beta, gamma, zeta]
- $contains_all_of: [alpha, beta, omega, sigma]
- - $contains_all_of: [alpha, iota, kappa, lambda, mu]
  - $contains: nu
- - $contains: xi
  - $contains: omicron
`
	functionText = "alpha beta gamma"
)

func mustPoints(t *testing.T, src string) rubric.Rubric {
	t.Helper()
	r, err := ParseCoveragePoints("points.yml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestCoverageEvaluator(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		judge     points.Judge
		response  string
		points    string
		threshold float64
		score     float64
		passed    bool
		assertion string
	}{
		{"seed paths pass", seedJudge, "x", seedPaths, 0.4, 0.425, true, ""},
		{"seed paths fail", seedJudge, "x", seedPaths, 0.5, 0.425, false, "coverage score 0.425 below threshold 0.50"},
		{"seed weights", seedJudge, "x", seedWeights, 0.875, 0.875, true, ""},
		{"seed weights fail", seedJudge, "x", seedWeights, 0.9, 0.875, false, "coverage score 0.875 below threshold 0.90"},
		{"seed paths by functions, no judge", nil, functionText, seedPathsByFunctions, 0.425, 0.425, true, ""},
		{"should_not is inverted", nil, "Paris is the capital. As an AI, I think so.",
			"should: [{$contains: Paris}]\nshould_not: [{$icontains: 'as an ai'}]\n", 0.5, 0.5, true, ""},
		{"should_not met", nil, "Paris is the capital.",
			"should: [{$contains: Paris}]\nshould_not: [{$icontains: 'as an ai'}]\n", 1, 1, true, ""},
		{"mixed text and function points", seedJudge, "Paris",
			"- Point B\n- {$contains: Paris, weight: 2}\n", 0.9, 0.917, true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev := RunCoverageEvaluator(tt.judge, tt.response, mustPoints(t, tt.points), tt.threshold)
			r, err := ev.Evaluate(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			if score, ok := r.Score(); !ok || score != tt.score || r.Passed() != tt.passed {
				t.Errorf("score %v (%v), passed %v; want %v, %v\n%s", score, ok, r.Passed(), tt.score, tt.passed, r)
			}
			msg := ""
			if err := ev.Assert(t.Context()); err != nil {
				msg = err.Error()
			}
			if msg != tt.assertion {
				t.Errorf("Assert() = %q, want %q", msg, tt.assertion)
			}
			if got := r.Keys(); strings.Join(got, ",") != "response,threshold,coverage_score,coverage_points,coverage_result" {
				t.Errorf("keys = %v", got)
			}
		})
	}
}

// TestCoverageEvaluatorGolden pins the whole result of the seed's first example: every point
// with its score, path and reflection.
func TestCoverageEvaluatorGolden(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		ev   Evaluator
	}{
		{"coverage_seed_paths", RunCoverageEvaluator(seedJudge, "x", mustPoints(t, seedPaths), 0.5)},
		{"coverage_functions", RunCoverageEvaluator(nil, "Paris is the capital. As an AI, I think so.",
			mustPoints(t, "should:\n  - {$contains: Paris, weight: 2}\n  - $word_count_between: [1, 5]\nshould_not:\n  - {$icontains: 'as an ai'}\n"), 0.5)},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			r, err := tt.ev.Evaluate(t.Context())
			if err != nil {
				t.Fatal(err)
			}
			verdict := "assert: passed"
			if err := r.Err(); err != nil {
				verdict = "assert: " + err.Error()
			}
			got := r.String() + "\n" + r.Line() + "\n" + verdict + "\n"
			testutil.Golden(t, filepath.Join("testdata", "results", tt.name+".golden"), got)
		})
	}
}

func TestCoverageEvaluatorErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		judge     points.Judge
		rubric    rubric.Rubric
		threshold float64
		want      string
		noModel   bool
	}{
		{"text points without a judge", nil, mustPoints(t, "- Point A\n- $contains: x\n- Point B\n"), 0.5,
			"coverage: 2 of the 3 points are judged by a model: needs a model: none configured", true},
		{"a judge that fails", seedJudge, mustPoints(t, "- Point A\n- Unknown point\n"), 0.5,
			"coverage: 1 of the 2 points could not be evaluated: Unknown point: judging failed: judge: no rating for Unknown point", false},
		{"a function that fails", nil, mustPoints(t, "- $js: \"throw new Error('boom')\"\n- $contains: x\n"), 0.5,
			"coverage: 1 of the 2 points could not be evaluated: Function: js(\"throw new Error('boom')\"): ", false},
		{"no points", nil, rubric.Rubric{}, 0.5, "coverage: expected at least one point, found none", false},
		{"threshold out of range", nil, mustPoints(t, "- $contains: x\n"), 2,
			"coverage score: threshold 2 out of range: expected a number from 0 to 1", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RunCoverageEvaluator(tt.judge, "x", tt.rubric, tt.threshold).Evaluate(t.Context())
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want %q", err, tt.want)
			}
			if errors.Is(err, ErrNoModel) != tt.noModel {
				t.Errorf("errors.Is(err, ErrNoModel) = %v", !tt.noModel)
			}
		})
	}
}

func TestCoverageEvaluatorCanceled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := RunCoverageEvaluator(nil, "x", mustPoints(t, "- $contains: x\n"), 0.5).Evaluate(ctx)
	if err == nil || err.Error() != "coverage score: context canceled" {
		t.Errorf("error = %v", err)
	}
}

func TestParseCoveragePoints(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		// want is "should/should_not" point counts, or the error.
		want     string
		warnings int
	}{
		{"list", "- a\n- $contains: x\n- - b\n  - c\n", "3/0", 0},
		{"json list", `["a", {"$contains": "x"}]`, "2/0", 0},
		{"mapping", "should: [a]\nshould_not: [b, c]\n", "1/2", 0},
		{"only should_not", "should_not: [{$contains: x}]\n", "0/1", 0},
		{"single-point path warns", "- - a\n- b\n", "2/0", 1},
		{"empty file", "", "points.yml: expected a list of points (or should/should_not lists), found an empty file", 0},
		{"empty list", "[]\n", "points.yml: expected at least one point, found none", 0},
		{"scalar", "just text\n", `points.yml:1: expected a list of points or a mapping with should/should_not lists, found the scalar "just text"`, 0},
		{"null", "~\n", "points.yml:1: expected a list of points or a mapping with should/should_not lists, found nothing (null)", 0},
		{"unknown key", "should: [a]\nshoud_not: [b]\n", `points.yml:2: error: expected the key should or should_not, found "shoud_not"`, 0},
		{"duplicate key", "should: [a]\nshould: [b]\n", `points.yml:2: error: "should" is given twice`, 0},
		{"not a list", "should: a\n", `points.yml:1: error: list "should": expected should to be a list of points, found the string "a"`, 0},
		{"unknown function", "- $contians: x\n", `points.yml:1: error: unknown point function "$contians" (did you mean $contains?)`, 0},
		{"bad regex", "- $matches: \"(\"\n", "points.yml:1: error: $matches: invalid regular expression /(/: missing closing )", 0},
		{"quoted call warns and is a text point", "- \"$contains: x\"\n", "1/0", 1},
		{"network functions", "- $contains: x\n- $call: {url: 'http://127.0.0.1:1/'}\n",
			"points.yml:2: error: $call makes HTTP requests, which a coverage evaluation does not make (a blueprint run does, with --allow-net)", 0},
		{"two documents", "- a\n---\n- b\n", "points.yml:3: expected one YAML document of points, found a second document", 0},
		{"bad YAML", "- [a\n", "points.yml:1: expected YAML or JSON points, found invalid YAML: did not find expected ',' or ']'", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := ParseCoveragePoints("points.yml", []byte(tt.src))
			got := ""
			if err != nil {
				got = err.Error()
			} else {
				got = fmt.Sprintf("%d/%d", len(r.Should), len(r.ShouldNot))
			}
			if got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
			if len(r.Warnings) != tt.warnings {
				t.Errorf("warnings = %v, want %d", r.Warnings, tt.warnings)
			}
		})
	}
}

func FuzzParseCoveragePoints(f *testing.F) {
	for _, s := range []string{seedPaths, seedWeights, seedPathsByFunctions, "should: [a]\nshould_not: [b]\n",
		`["a", {"$contains": "x"}]`, "- - a\n", "~", "- $matches: \"(\"\n", "a: &x [*x]\n", "- a\n---\n- b\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseCoveragePoints("f.yml", data)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.yml") {
				t.Errorf("error does not name the file: %v", err)
			}
			return
		}
		if len(r.Points()) == 0 {
			t.Error("no error and no points")
		}
		// Every function point parsed without error scores without panicking.
		funcs := true
		for _, p := range r.Points() {
			funcs = funcs && p.IsFunction() && p.Fn != "js" && p.Fn != "call" && p.Fn != "factcheck"
		}
		if funcs {
			_, _ = RunCoverageEvaluator(nil, "some text", r, 0.5).Evaluate(t.Context())
		}
	})
}
