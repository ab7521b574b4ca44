package blueprint

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/points"
)

// hostileBP is text a blueprint author or a model can put anywhere: workflow commands in every
// form GitHub's runner reads, and terminal escapes.
const hostileBP = "::error::pwned ##[warning]legacy\n  ::stop-commands::tok \x1b[2J\x1b]8;;https://evil.example\x07link \u202eevil #\u200d#[x]"

// hostileRun runs a blueprint whose id, title, prompt, points and responses carry hostileBP, one
// of its models has no response (an error message) and one point's judge fails.
func hostileRun(t *testing.T) *Result {
	t.Helper()
	doc := map[string]any{
		"id": "::error::bp", "title": hostileBP, "description": hostileBP,
		"models": []string{"m:good", "m:missing"},
		"prompts": []any{map[string]any{
			"id": "::error::prompt ##[x]", "prompt": hostileBP, "ideal": hostileBP,
			"should": []any{hostileBP, "Names Paris", map[string]any{"$contains": hostileBP}},
		}},
	}
	src, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	bp, err := Parse(src, ParseOptions{File: "::error::x.json"})
	if err != nil {
		t.Fatal(err)
	}
	line, _ := json.Marshal(map[string]string{"promptId": "::error::prompt ##[x]", "model": "m:good", "response": hostileBP})
	resp, err := ParseResponses(append(line, '\n'), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	judge := &fakeJudge{scores: map[string]float64{"Names Paris": 1}}
	res, err := Score(context.Background(), bp, resp, ScoreOptions{RunLabel: "::error::label", Now: fixedClock,
		Env: points.Env{Judge: judge}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// TestHostileTable: the results table shows hostile text escaped: nothing a terminal acts on,
// and under GitHub Actions nothing the runner acts on.
func TestHostileTable(t *testing.T) {
	t.Parallel()
	res := hostileRun(t)
	if len(res.Failures()) == 0 {
		t.Fatal("the fixture should have failures")
	}
	for _, gha := range []bool{false, true} {
		var b bytes.Buffer
		if err := res.WriteTableWith(&b, TableOptions{GitHubActions: gha}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		if h := testutil.TerminalHazard(out); h != "" {
			t.Errorf("table: %s in\n%q", h, out)
		}
		if gha {
			if cmds := testutil.WorkflowCommandLines(out); cmds != nil {
				t.Errorf("table: the runner would act on %q in\n%s", cmds, out)
			}
			golden(t, "hostile.table.txt", b.Bytes())
		}
	}
	// WriteTable is WriteTableWith without GitHub Actions.
	var plain, with bytes.Buffer
	res.WriteTable(&plain)
	res.WriteTableWith(&with, TableOptions{})
	if plain.String() != with.String() {
		t.Error("WriteTable and WriteTableWith(TableOptions{}) differ")
	}
}

// TestHostileResultJSON: the result document carries hostile text exactly, with no line the
// runner acts on and no raw control or bidi character.
func TestHostileResultJSON(t *testing.T) {
	t.Parallel()
	res := hostileRun(t)
	doc, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	if cmds := testutil.WorkflowCommandLines(string(doc)); cmds != nil {
		t.Errorf("the runner would act on %q", cmds)
	}
	if h := testutil.TerminalHazard(string(doc)); h != "" {
		t.Errorf("%s in the result document", h)
	}
	var back struct {
		ConfigTitle    string            `json:"configTitle"`
		PromptContexts map[string]string `json:"promptContexts"`
		AllFinalOutput map[string]map[string]string
	}
	if err := json.Unmarshal(doc, &back); err != nil {
		t.Fatal(err)
	}
	if back.ConfigTitle != hostileBP || back.PromptContexts["::error::prompt ##[x]"] != hostileBP {
		t.Errorf("the document decodes to title %q, prompt %q; want the exact text", back.ConfigTitle, back.PromptContexts)
	}
}

// TestHostileHTML: the HTML report shows the same text as html/template alone (references
// decode to it) and holds no line the runner acts on.
func TestHostileHTML(t *testing.T) {
	t.Parallel()
	res := hostileRun(t)
	var b bytes.Buffer
	if err := res.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if cmds := testutil.WorkflowCommandLines(b.String()); cmds != nil {
		t.Errorf("the runner would act on %q", cmds)
	}
	if !strings.Contains(b.String(), "&#58;:stop-commands::tok") || !strings.Contains(b.String(), "##&#91;warning]") {
		t.Errorf("the report lacks the encoded commands:\n%s", b.String())
	}
}

// TestWriteHTMLStaticText: the template's own text (its style sheet and script, where character
// references would not be decoded) holds nothing safetext.HTML would change.
func TestWriteHTMLStaticText(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	tmpl, err := reportTemplate()
	if err != nil {
		t.Fatal(err)
	}
	if err := tmpl.Execute(&b, reportFixture(t).reportView()); err != nil {
		t.Fatal(err)
	}
	if got := safetext.HTML(b.Bytes()); !bytes.Equal(got, b.Bytes()) {
		t.Error("safetext.HTML changes the template's own text")
	}
}
