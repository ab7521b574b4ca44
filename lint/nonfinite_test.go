package lint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/report"
)

// TestNonFiniteScore poisons one rule so that its formula gives NaN (weights whose sum
// overflows; loading refuses such weights, so they are set after loading, as any formula's
// overflow would be) among good rules on two files: the poisoned rule's score on each file is
// that rule's error there, and every other score is written, in the JSON output (valid JSON)
// and in the line format (spec/trust.md §8). A second run without the poison is the control.
func TestNonFiniteScore(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\ncriteria:\n" +
			"  - {id: Value, name: Value, weight: 2}\n  - {id: Clear, name: Clear, weight: 1}\n---\nJudge the headline.\n",
		"rules/Acme/wordy.md": "---\nid: Wordy\nname: Wordy\n---\nFlag wordy phrases.\n",
		"docs/a.md":           "# Ship faster\n\nSmall pull requests help.\n",
		"docs/b.md":           "# Review well\n\nRead every line.\n",
	} {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.System(), "Judge the headline") || strings.Contains(r.LastUser(), "Judge the headline") {
			return llmtest.JSON(map[string]any{"criteria": []any{
				map[string]any{"id": "Value", "name": "Value", "score": 3, "summary": "ok", "violations": []any{}},
				map[string]any{"id": "Clear", "name": "Clear", "score": 4, "summary": "ok", "violations": []any{}}}})
		}
		return llmtest.JSON(map[string]any{"violations": []any{}})
	})))
	run := func(poison bool) (jsonOut, lineOut string) {
		found, err := config.FindProject(dir, "", "")
		if err != nil {
			t.Fatal(err)
		}
		proj, err := config.LoadProject(found)
		if err != nil {
			t.Fatal(err)
		}
		if poison {
			for _, p := range proj.Packs {
				if r := p.Rule("Headline"); r != nil {
					for _, c := range r.Criteria {
						c.Weight = math.MaxFloat64 // the sum overflows: +Inf / +Inf is NaN
					}
				}
			}
		}
		plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{Dir: dir, Paths: []string{"docs"}})
		if err != nil {
			t.Fatal(err)
		}
		client, err := llm.New(llm.Config{})
		if err != nil {
			t.Fatal(err)
		}
		defer client.Close()
		res, err := lint.Run(context.Background(), plan, lint.RunOptions{EvalOptions: lint.EvalOptions{
			Client: client, Endpoint: llm.Endpoint{BaseURL: srv.URL, Model: "m"}, ConfidenceThreshold: config.DefaultConfidenceThreshold}})
		if err != nil {
			t.Fatal(err)
		}
		var j, l bytes.Buffer
		if err := report.Write(report.FormatJSON, &j, report.Options{}, *res); err != nil {
			t.Fatalf("json output: %v", err)
		}
		if err := report.Write(report.FormatLine, &l, report.Options{Verbose: true}, *res); err != nil {
			t.Fatalf("line output: %v", err)
		}
		return j.String(), l.String()
	}
	type fileJSON struct {
		Path   string `json:"path"`
		Scores []struct {
			Rule  string  `json:"rule"`
			Score float64 `json:"score"`
		} `json:"scores"`
		Errors []struct{ Rule, Message string } `json:"errors"`
	}
	decode := func(out string) []fileJSON {
		var doc struct{ Files []fileJSON }
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("invalid JSON (%v):\n%s", err, out)
		}
		return doc.Files
	}
	const msg = "the rule's score came out as NaN, not a finite number, so no score is reported (check the rule's criteria weights and strictness)"

	jsonOut, lineOut := run(true)
	files := decode(jsonOut)
	if len(files) != 2 {
		t.Fatalf("files %+v", files)
	}
	for _, f := range files {
		if len(f.Scores) != 1 || f.Scores[0].Rule != "Acme.Wordy" || f.Scores[0].Score != 10 {
			t.Errorf("%s: scores %+v", f.Path, f.Scores)
		}
		if len(f.Errors) != 1 || f.Errors[0].Rule != "Acme.Headline" || f.Errors[0].Message != msg {
			t.Errorf("%s: errors %+v", f.Path, f.Errors)
		}
	}
	if strings.Contains(jsonOut, "NaN") && !strings.Contains(jsonOut, msg) || strings.Contains(lineOut, "  NaN") {
		t.Errorf("a NaN reached an output:\n%s\n%s", jsonOut, lineOut)
	}
	for _, want := range []string{"docs/a.md\n", "docs/b.md\n", "Acme.Wordy  10.0", msg} {
		if !strings.Contains(lineOut, want) {
			t.Errorf("line output lacks %q:\n%s", want, lineOut)
		}
	}

	// Control: the same rules, unpoisoned, score 8.0 (weights 2/1, ratings 3/4) on each file.
	jsonOut, _ = run(false)
	for _, f := range decode(jsonOut) {
		if len(f.Errors) != 0 || len(f.Scores) != 2 || f.Scores[0].Rule != "Acme.Headline" || f.Scores[0].Score != 8 {
			t.Errorf("control %s: %+v", f.Path, f)
		}
	}
}
