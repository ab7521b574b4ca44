package blueprint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// fakeJudge scores each criterion from a table; criteria not in it fail.
type fakeJudge struct {
	mu     sync.Mutex
	scores map[string]float64
	seen   []points.JudgeRequest
}

func (j *fakeJudge) JudgeText(_ context.Context, req points.JudgeRequest) (points.JudgeResult, error) {
	j.mu.Lock()
	j.seen = append(j.seen, req)
	j.mu.Unlock()
	s, ok := j.scores[req.Criterion]
	if !ok {
		return points.JudgeResult{}, errors.New("all judges failed")
	}
	return points.JudgeResult{Score: s, Reflection: fmt.Sprintf("judged %v", s), JudgeModelID: "fake",
		Individual: []points.IndividualJudgement{{JudgeModelID: "fake", CoverageExtent: s, Reflection: "r"}}}, nil
}

func deref(f *float64) any {
	if f == nil {
		return nil
	}
	return *f
}

// rubricFromYAML parses should and should_not blocks as a prompt's, the functions prepared.
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
		r, errs := rubric.Parse(&n, rubric.Options{File: "t.yml", Owner: "p", Prepare: points.Prepare})
		if errs != nil {
			t.Fatal(errs)
		}
		return r.Should
	}
	return rubric.Rubric{Should: parse(should), ShouldNot: parse(shouldNot)}
}

func TestImplicitToolPoints(t *testing.T) {
	t.Parallel()
	bp := mustParse(t, "t.yml", `
- id: p
  prompt: "Weather?"
  requiredTools: [weather]
  prohibitedTools: [delete]
  maxCalls: 1
  should:
    - $tool_called: weather
`)
	r := bp.Prompts[0].Rubric()
	text := "TOOL_CALL {\"name\":\"weather\",\"arguments\":{}}\nTOOL_CALL {\"name\":\"delete\",\"arguments\":{}}"
	res := points.ScoreRubric(context.Background(), r, points.Subject{Text: text}, points.Env{})
	var got []string
	for _, a := range res.PointAssessments {
		got = append(got, fmt.Sprintf("%s=%v", a.KeyPointText, *a.CoverageExtent))
	}
	want := `Function: tool_called("weather")=1 | requiredTools: Function: tool_called("weather")=1 | ` +
		`prohibitedTools: Function: not_tool_called("delete")=0 | maxCalls: Function: tool_call_count_between([0,1])=0`
	if strings.Join(got, " | ") != want {
		t.Errorf("assessments\n got %s\nwant %s", strings.Join(got, " | "), want)
	}
	if *res.Score != 0.5 {
		t.Errorf("score = %v", *res.Score)
	}
	// The implicit points are not part of the prompt's canonical form (its hash).
	if strings.Contains(canonicalPromptJSON(bp.Prompts[0]), "not_tool_called") {
		t.Error("implicit points leaked into the canonical prompt")
	}
	b, _ := json.Marshal(bp.Prompts[0])
	if strings.Contains(string(b), "not_tool_called") {
		t.Error("implicit points leaked into the prompt's JSON")
	}
}
