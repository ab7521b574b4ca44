package points

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/points/rubric"
)

// fakeJudge scores each criterion from a table; criteria not in it fail.
type fakeJudge struct {
	mu     sync.Mutex
	scores map[string]float64
	seen   []JudgeRequest
}

func (j *fakeJudge) JudgeText(_ context.Context, req JudgeRequest) (JudgeResult, error) {
	j.mu.Lock()
	j.seen = append(j.seen, req)
	j.mu.Unlock()
	s, ok := j.scores[req.Criterion]
	if !ok {
		return JudgeResult{}, errors.New("all judges failed")
	}
	return JudgeResult{Score: s, Reflection: fmt.Sprintf("judged %v", s), JudgeModelID: "fake",
		Individual: []IndividualJudgement{{JudgeModelID: "fake", CoverageExtent: s, Reflection: "r"}}}, nil
}

// rubricFromYAML parses should and should_not blocks as a blueprint's prompt has them, the
// functions prepared as they are parsed.
func rubricFromYAML(t *testing.T, should, shouldNot string) rubric.Rubric {
	t.Helper()
	parse := func(src string) []rubric.Entry {
		if src == "" {
			return nil
		}
		var n yaml.Node
		if err := yaml.Unmarshal([]byte(src), &n); err != nil {
			t.Fatal(err)
		}
		r, errs := rubric.Parse(&n, rubric.Options{File: "t.yml", Owner: "p", Prepare: Prepare})
		if errs != nil {
			t.Fatal(errs)
		}
		return r.Should
	}
	return rubric.Rubric{Should: parse(should), ShouldNot: parse(shouldNot)}
}

func TestScoreRubricSeedExamples(t *testing.T) {
	t.Parallel()
	judge := &fakeJudge{scores: map[string]float64{"Point A": 1, "Point B": 0.75, "Point C": 0.5,
		"Path 1A": 0.2, "Path 1B": 0, "Path 2A": 0, "Path 2B": 0, "Critical requirement": 1, "Standard point": 0.5}}
	r := rubricFromYAML(t, `
- "Point A"
- "Point B"
- "Point C"
- - "Path 1A"
  - "Path 1B"
- - "Path 2A"
  - "Path 2B"
`, "")
	res := ScoreRubric(context.Background(), r, Subject{Text: "x"}, Env{Judge: judge})
	if res.Score == nil || *res.Score != 0.425 || *res.AvgCoverageExtent != 0.42 || res.KeyPointsCount != 7 {
		t.Errorf("seed example 1: score %v avg %v count %d", deref(res.Score), deref(res.AvgCoverageExtent), res.KeyPointsCount)
	}
	if got := res.PointAssessments[3].PathID; got != "path_3" {
		t.Errorf("pathId = %q, want path_3 (the entry's index, as the seed)", got)
	}

	r = rubricFromYAML(t, "- point: \"Critical requirement\"\n  weight: 3.0\n- \"Standard point\"\n", "")
	res = ScoreRubric(context.Background(), r, Subject{Text: "x"}, Env{Judge: judge})
	if *res.Score != 0.875 || *res.AvgCoverageExtent != 0.88 {
		t.Errorf("seed example 2: %v / %v", *res.Score, *res.AvgCoverageExtent)
	}
	if len(judge.seen) != 9 || len(judge.seen[0].Criteria) != 7 || judge.seen[0].Criteria[0] != "[should] Point A" {
		t.Errorf("judge requests = %d, criteria %q", len(judge.seen), judge.seen[0].Criteria)
	}
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

func TestScoreRubricDeterministic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, should, shouldNot, text string
		want                          any // float64 or nil (no score)
		errs, notEvaluated            int
	}{
		{"all pass", `["$is_json", {$contains: "a"}]`, "", `{"a": 1}`, 1.0, 0, 0},
		{"graded", `[{$contains_all_of: ["a", "b", "c", "d"]}]`, "", "a b", 0.5, 0, 0},
		{"error scores 0", `[{$contains: "x"}, {$matches: "("}]`, "", "x", 0.5, 1, 0},
		{"unknown function scores 0", `[{$contains: "x"}, "$nope"]`, "", "x", 0.5, 1, 0},
		{"should_not is inverted", `[{$contains: "x"}]`, `[{$contains: "bad"}]`, "x bad", 0.5, 0, 0},
		{"should_not error still scores 0", `[{$contains: "x"}]`, `[{$matches: "("}]`, "x", 0.5, 1, 0},
		{"should_not paths: meeting one fails the block", `[{$contains: "x"}]`, `[[{$contains: "a"}, {$contains: "b"}], [{$contains: "z"}]]`, "x a b", 0.5, 0, 0},
		{"should_not paths: meeting none", `[{$contains: "x"}]`, `[[{$contains: "a"}, {$contains: "b"}], [{$contains: "z"}]]`, "x a", 0.75, 0, 0},
		{"text points without a judge are left out", `["Is polite", {$contains: "x"}]`, "", "x", 1.0, 0, 1},
		{"only text points: no score", `["Is polite"]`, `["Is rude"]`, "x", nil, 0, 2},
		{"weights", `[{$contains: "x", weight: 3}, {$contains: "y"}]`, "", "x", 0.75, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := rubricFromYAML(t, tt.should, tt.shouldNot)
			res := ScoreRubric(context.Background(), r, Subject{Text: tt.text}, Env{})
			if deref(res.Score) != tt.want || res.Errors != tt.errs || res.NotEvaluatedCount != tt.notEvaluated {
				t.Errorf("score %v errors %d notEvaluated %d; want %v %d %d\n%+v", deref(res.Score), res.Errors, res.NotEvaluatedCount,
					tt.want, tt.errs, tt.notEvaluated, res.PointAssessments)
			}
			if (res.AvgCoverageExtent == nil) != (tt.want == nil) {
				t.Errorf("avgCoverageExtent = %v", deref(res.AvgCoverageExtent))
			}
		})
	}
}

func TestScoreRubricAssessmentsJSON(t *testing.T) {
	t.Parallel()
	judge := &fakeJudge{scores: map[string]float64{"Is rude": 0.25}}
	r := rubricFromYAML(t, `[{$contains: "x", citation: "Rule 1"}, {$matches: "("}, "Unjudged", [{$icontains: "X"}, "Is rude"]]`, `["Is rude"]`)
	res := ScoreRubric(context.Background(), r, Subject{Text: "x"}, Env{Judge: judge})
	// Encoded as a blueprint's result document encodes it (no HTML escaping, indented).
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(res); err != nil {
		t.Fatal(err)
	}
	got := buf.Bytes()
	want := `{
  "keyPointsCount": 6,
  "avgCoverageExtent": 0.6,
  "pointAssessments": [
    {
      "keyPointText": "Function: contains(\"x\")",
      "coverageExtent": 1,
      "reflection": "Function 'contains' evaluated to true.",
      "multiplier": 1,
      "citation": "Rule 1",
      "isInverted": false,
      "isFunction": true
    },
    {
      "keyPointText": "Function: matches(\"(\")",
      "coverageExtent": 0,
      "reflection": "Error: $matches: invalid regular expression /(/: missing closing )",
      "multiplier": 1,
      "isInverted": false,
      "error": "$matches: invalid regular expression /(/: missing closing )",
      "isFunction": true
    },
    {
      "keyPointText": "Unjudged",
      "reflection": "Not evaluated: judging failed: all judges failed",
      "multiplier": 1,
      "isInverted": false,
      "error": "judging failed: all judges failed",
      "notEvaluated": true,
      "isFunction": false
    },
    {
      "keyPointText": "Function: icontains(\"X\")",
      "coverageExtent": 1,
      "reflection": "Function 'icontains' evaluated to true.",
      "multiplier": 1,
      "isInverted": false,
      "pathId": "path_3",
      "isFunction": true
    },
    {
      "keyPointText": "Is rude",
      "coverageExtent": 0.25,
      "reflection": "judged 0.25",
      "multiplier": 1,
      "isInverted": false,
      "pathId": "path_3",
      "judgeModelId": "fake",
      "individualJudgements": [
        {
          "judgeModelId": "fake",
          "coverageExtent": 0.25,
          "reflection": "r"
        }
      ],
      "isFunction": false
    },
    {
      "keyPointText": "Is rude",
      "coverageExtent": 0.75,
      "reflection": "judged 0.25",
      "multiplier": 1,
      "isInverted": true,
      "judgeModelId": "fake",
      "individualJudgements": [
        {
          "judgeModelId": "fake",
          "coverageExtent": 0.25,
          "reflection": "r"
        }
      ],
      "isFunction": false
    }
  ],
  "notEvaluatedCount": 1
}
`
	// Required: contains 1, matches 0 (an error), should_not "Is rude" 1 − 0.25 = 0.75, mean
	// 0.5833…; path_3: (1 + 0.25) / 2 = 0.625; "Unjudged" is left out. Final 0.6041… → 0.6.
	if string(got) != want {
		t.Errorf("assessments JSON\n got %s\nwant %s", got, want)
	}
	if math.Abs(*res.Score-(1.75/3+0.625)/2) > 1e-15 {
		t.Errorf("score = %.17g", *res.Score)
	}
}

// TestScoreRubricConcurrent scores one parsed rubric from many goroutines: prepared regexes and
// compiled scripts are shared (run with -race).
func TestScoreRubricConcurrent(t *testing.T) {
	t.Parallel() // its scripts run under calmJSLimit, which no load makes them miss
	r := rubricFromYAML(t, `[{$imatches: "(?<=a)b+"}, {$js: "r.length > 2"}, {$icontains_word: "ΣΑΣ"}, {$tool_args_match: {name: t, where: "args.x > 1"}}]`, "")
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			text := fmt.Sprintf("abbb σας %d\nTOOL_CALL {\"name\":\"t\",\"arguments\":{\"x\":%d}}", i, i)
			res := ScoreRubric(context.Background(), r, Subject{Text: text}, Env{JSTimeout: calmJSLimit})
			want := 0.75
			if i > 1 {
				want = 1
			}
			if res.Score == nil || *res.Score != want {
				t.Errorf("goroutine %d: score %v, want %v: %+v", i, deref(res.Score), want, res.PointAssessments)
			}
		}()
	}
	wg.Wait()
}
