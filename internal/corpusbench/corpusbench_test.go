package corpusbench

import (
	"context"
	"testing"
)

func TestFunctionPoints(t *testing.T) {
	src := `models: [openai:a]
---
- id: p1
  prompt: Capital of France?
  ideal: Paris.
  should:
    - $contains: Paris
    - Mentions the Seine
    - - $contains: Lyon
      - Names a city
  should_not:
    - $icontains: london
- id: p2
  prompt: Only judged points here.
  should:
    - Is polite
`
	w := FunctionPoints([]File{{Path: "ok.yml", Data: []byte(src)}, {Path: "broken.yml", Data: []byte("models: [\n")}})
	if w.Parsed != 1 || w.Points != 3 || len(w.Jobs) != 1 {
		t.Fatalf("parsed %d, points %d, jobs %d; want 1, 3, 1", w.Parsed, w.Points, len(w.Jobs))
	}
	j := w.Jobs[0]
	if len(j.Rubric.Should) != 2 || len(j.Rubric.ShouldNot) != 1 || len(j.Rubric.Should[1].Path) != 1 {
		t.Errorf("rubric %+v: want the function point, a one-point path, and one should_not", j.Rubric)
	}
	if want := "Paris.\n\n" + toolTail[2:]; j.Subject.Text != want {
		t.Errorf("subject %q, want %q", j.Subject.Text, want)
	}
	w.Score(context.Background())
}
