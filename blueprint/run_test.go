package blueprint

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/tree"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// fixedClock is the injected clock of the golden runs.
func fixedClock() time.Time { return time.Date(2025, 7, 5, 10, 20, 30, 123_000_000, time.UTC) }

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

func loadExample(t *testing.T) (*Blueprint, *Responses) {
	t.Helper()
	root := testutil.RepoRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "examples/blueprints/capitals.yml"))
	if err != nil {
		t.Fatal(err)
	}
	bp, err := Parse(data, ParseOptions{File: "capitals.yml"})
	if err != nil {
		t.Fatal(err)
	}
	if len(bp.Warnings) > 0 {
		t.Errorf("the example has warnings: %q", diagStrings(bp.Warnings))
	}
	resp, err := LoadResponses(filepath.Join(root, "examples/blueprints/capitals.responses.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	resp.File = "capitals.responses.jsonl"
	return bp, resp
}

// TestRunExample scores the bundled example's responses; the expected scores are worked out by
// hand in the comments.
func TestRunExample(t *testing.T) {
	t.Parallel()
	bp, resp := loadExample(t)
	res, err := Score(context.Background(), bp, resp, ScoreOptions{RunLabel: "example", Now: fixedClock,
		Tool: ToolVersion{Version: "1.2.3", Commit: "0123456789abcdef0123456789abcdef01234567"}})
	if err != nil {
		t.Fatal(err)
	}
	const gpt, haiku = "openai:gpt-4o-mini", "anthropic:claude-3-5-haiku"
	want := map[string]map[string]float64{
		gpt: {"capital-france": 1, "longest-rivers": 1, "tokyo-json": 1, "weather-tool": 1, "plan-trip": 1},
		haiku: {
			"capital-france": 1.0 / 3,          // the word Paris 1; 54 words > 40 → 0; "As an AI" → 0
			"longest-rivers": 0.5,              // required: both rivers 1, Mississippi (should_not) 0 → 0.5; best path Amazon…Nile without km → 0.5
			"tokyo-json":     0,                // a code fence is not JSON; JSON.parse throws → false
			"weather-tool":   2.0 / 3,          // args match 1 (third call), weather called 1, 3 calls > maxCalls 2 → 0
			"plan-trip":      (0 + 4.0/20) / 2, // no "?"; 4 words < 20 → 0.2
		},
	}
	for model, prompts := range want {
		for p, score := range prompts {
			c := res.EvaluationResults.LLMCoverageScores[p][model]
			if c == nil || c.Score == nil || *c.Score != score {
				t.Errorf("%s × %s = %v, want %v", p, model, c, score)
			}
		}
	}
	if got := *res.EvaluationResults.PerModelScores[haiku].Average; got != 0.32 {
		t.Errorf("average of %s = %v, want 0.32", haiku, got)
	}
	if got := *res.EvaluationResults.PerModelScores[gpt].Average; got != 1 {
		t.Errorf("average of %s = %v, want 1", gpt, got)
	}
	if !res.Complete() || res.fileName() != "example_2025-07-05T10-20-30-123Z_comparison.json" {
		t.Errorf("complete %v, file %s", res.Complete(), res.fileName())
	}
	doc, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "capitals.result.json", doc)
	var table bytes.Buffer
	if err := res.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	golden(t, "capitals.table.txt", table.Bytes())
}

func TestRunProblems(t *testing.T) {
	t.Parallel()
	bp := mustParse(t, "r.yml", `
title: R
models: [CORE]
---
- id: single
  prompt: "Q"
  should:
    - $contains: "yes"
    - "Is polite"
- id: multi
  messages:
    - user: "Hi"
    - assistant: null
    - user: "More"
  should:
    - $contains: "two"
- id: bad-regex
  prompt: "Q"
  should:
    - $matches: "("
`)
	resp, err := ParseResponses([]byte(strings.Join([]string{
		`{"promptId": "single", "model": "m:a", "response": "yes"}`,
		`{"promptId": "multi", "model": "m:a", "turns": ["one", "two"]}`,
		`{"promptId": "multi", "model": "m:b", "response": "only one"}`,
		`{"promptId": "bad-regex", "model": "m:a", "response": "x"}`,
		`{"promptId": "stray", "model": "m:a", "response": "x"}`,
	}, "\n")), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Score(context.Background(), bp, resp, ScoreOptions{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	if res.Complete() {
		t.Error("a run with failures reports complete")
	}
	wantFailures := []string{
		"single × m:a: 1 LLM-judged point not evaluated (no judge configured)",
		"single × m:b: no response for this prompt and model in r.jsonl",
		`multi × m:b: the prompt asks for 2 generated turns (one per assistant: null, plus a final one after a user message), found 1; give "turns" with 2 strings`,
		"bad-regex × m:a: Function: matches(\"(\"): $matches: invalid regular expression /(/: missing closing )",
		"bad-regex × m:b: no response for this prompt and model in r.jsonl",
	}
	if got := res.Failures(); !reflect.DeepEqual(got, wantFailures) {
		t.Errorf("failures\n got %q\nwant %q", got, wantFailures)
	}
	if want := []string{`r.jsonl:5: responses for prompt "stray", which the blueprint does not have (ignored)`}; !reflect.DeepEqual(res.Warnings, want) {
		t.Errorf("warnings = %q", res.Warnings)
	}
	hist := res.FullConversationHistories["multi"]["m:a"]
	var roles []string
	for _, m := range hist {
		roles = append(roles, m.Role+":"+m.Text())
	}
	if got := strings.Join(roles, " "); got != "user:Hi assistant:one user:More assistant:two" {
		t.Errorf("history = %s", got)
	}
	if got := res.AllFinalAssistantResponses["multi"]["m:a"]; got != "two" {
		t.Errorf("final response = %q", got)
	}
	// single × m:a: the text point is left out, so the score is the function's 1 (flagged).
	if c := res.EvaluationResults.LLMCoverageScores["single"]["m:a"]; *c.AvgCoverageExtent != 1 || c.NotEvaluatedCount != 1 {
		t.Errorf("single × m:a = %+v", c)
	}
	// m:a: single 1, multi 1, bad-regex 0 → 2/3, exact in the document (spec §7), 0.67 shown.
	if ms := res.EvaluationResults.PerModelScores["m:a"]; *ms.Average != 2.0/3 || *ms.Rounded() != 0.67 || ms.PromptCount != 3 {
		t.Errorf("m:a = %+v", ms)
	}
	if ms := res.EvaluationResults.PerModelScores["m:b"]; ms.Average != nil || ms.PromptCount != 0 {
		t.Errorf("m:b = %+v", ms)
	}
}

func TestRunFixturesDefaults(t *testing.T) {
	t.Parallel()
	bp := mustParse(t, "d.yml", "system: \"Be kind.\"\n---\n- id: p\n  prompt: Q\n  weight: 3\n  should: [{$contains: ok}]\n- id: q\n  prompt: Q2\n  should: [{$contains: ok}]\n")
	resp, err := ParseResponses([]byte(`{"responses": {"p": {"default": "ok"}, "q": {"default": "no"}}}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Score(context.Background(), bp, resp, ScoreOptions{Now: fixedClock}); err == nil ||
		err.Error() != "f.json: no model to score: the responses name no model (give byModel responses, --models, or concrete models in the blueprint)" {
		t.Errorf("without models: %v", err)
	}
	res, err := Score(context.Background(), bp, resp, ScoreOptions{Now: fixedClock, DefaultModels: []string{"x:1"}})
	if err != nil {
		t.Fatal(err)
	}
	// Weighted by prompt weight: (1 × 3 + 0 × 1) / 4.
	if ms := res.EvaluationResults.PerModelScores["x:1"]; *ms.Average != 0.75 || ms.PromptCount != 2 {
		t.Errorf("x:1 = %+v", ms)
	}
	if h := res.FullConversationHistories["p"]["x:1"]; len(h) != 3 || h[0].Role != "system" || h[0].Text() != "Be kind." {
		t.Errorf("history = %+v", h)
	}
	if res.RunLabel != contentHash(bp) || len(res.RunLabel) != 12 {
		t.Errorf("default run label = %q", res.RunLabel)
	}
}

func TestWriteFile(t *testing.T) {
	t.Parallel()
	bp, resp := loadExample(t)
	res, err := Score(context.Background(), bp, resp, ScoreOptions{RunLabel: "a/b", Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	root, err := tree.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	path, err := res.WriteFile(root, dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(dir, "capitals", "a_b_2025-07-05T10-20-30-123Z_comparison.json"); path != want {
		t.Errorf("path = %s, want %s", path, want)
	}
	data, _ := os.ReadFile(path)
	doc, _ := res.JSON()
	if !bytes.Equal(data, doc) {
		t.Error("the file differs from the document")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("leftover files: %v", entries)
	}
}

func TestFormatTimestamp(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("X", 2*3600)
	if got := formatTimestamp(time.Date(2024, 1, 2, 3, 4, 5, 6_000_000, loc)); got != "2024-01-02T01-04-05-006Z" {
		t.Errorf("FormatTimestamp = %s", got)
	}
}

// TestRunSimilarity compares final responses with ideal ones: offline metrics for every prompt
// with an ideal, the embedding method through Semantic, and a failing embeddings call recorded
// as an evaluation that could not be done.
func TestRunSimilarity(t *testing.T) {
	t.Parallel()
	bp, err := Parse([]byte(`- id: ideal
  prompt: Q
  ideal: "The cat sat."
  should: [{$contains: cat}]
- id: other-ideal
  prompt: Q2
  ideal: "broken"
- id: none
  prompt: Q3
`), ParseOptions{File: "sim.yml"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ParseResponses([]byte(`{"promptId":"ideal","model":"a:1","response":"The cat sat."}
{"promptId":"ideal","model":"b:2","response":"A dog."}
{"promptId":"other-ideal","model":"a:1","response":"x"}
{"promptId":"none","model":"a:1","response":"y"}
`), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	length := SimilarityMetric{Name: "same_length", Score: func(r, i string) float64 { return float64(len(r)) / float64(len(i)) }}
	sim := &Similarity{Metrics: []SimilarityMetric{length},
		Semantic: func(_ context.Context, ideal string, responses []string) ([]float64, error) {
			if ideal == "broken" {
				return nil, errors.New("HTTP 500")
			}
			out := make([]float64, len(responses))
			for i := range responses {
				out[i] = 1 / float64(i+3)
			}
			return out, nil
		}}
	res, err := Score(context.Background(), bp, resp, ScoreOptions{Now: fixedClock, Similarity: sim})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string]map[string]float64{
		"ideal":       {"a:1": {"same_length": 1, "semantic_similarity": 0.333}, "b:2": {"same_length": 0.5, "semantic_similarity": 0.25}},
		"other-ideal": {"a:1": {"same_length": 0.167}},
	}
	if !reflect.DeepEqual(res.EvaluationResults.Similarity, want) {
		t.Errorf("similarity %v", res.EvaluationResults.Similarity)
	}
	if got := strings.Join(res.EvalMethodsUsed, ","); got != "llm-coverage,similarity,embedding" {
		t.Errorf("evalMethodsUsed %s", got)
	}
	if res.Complete() || !reflect.DeepEqual(res.Failures()[len(res.Failures())-1], "other-ideal: embedding similarity to the ideal response failed: HTTP 500") {
		t.Errorf("failures %q", res.Failures())
	}

	// Without llm-coverage nothing is judged or scored.
	res, err = Score(context.Background(), bp, resp, ScoreOptions{Now: fixedClock, NoCoverage: true, Similarity: &Similarity{Metrics: []SimilarityMetric{length}}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.EvaluationResults.LLMCoverageScores) != 0 || strings.Join(res.EvalMethodsUsed, ",") != "similarity" || len(res.evalErrors) != 0 {
		t.Errorf("methods %v scores %v", res.EvalMethodsUsed, res.EvaluationResults.LLMCoverageScores)
	}
	var table bytes.Buffer
	if err := res.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	wantTable := `Blueprint sim
Run ` + res.RunLabel + ` at 2025-07-05T10-20-30-123Z: 3 prompts × 2 models

PROMPT       a:1  b:2
ideal        ·    ·
other-ideal  ·    —
none         ·    —
AVERAGE      n/a  n/a

· llm-coverage was not run (--eval-method): the result holds the responses and their similarity scores.

2 failures:
  other-ideal × b:2: no response for this prompt and model in r.jsonl
  none × b:2: no response for this prompt and model in r.jsonl
`
	if table.String() != wantTable {
		t.Errorf("table\n%s", table.String())
	}
}

// TestRunResponsesForSystemVariants scores given responses of system-prompt variants against
// the system prompt their [sp_idx:i] suffix names.
func TestRunResponsesForSystemVariants(t *testing.T) {
	t.Parallel()
	bp, err := Parse([]byte("systems: [Be brief., Be verbose.]\n---\n- {id: p, prompt: Q, should: [{$js: \"context.messages[0].content.length > 9\"}]}\n"), ParseOptions{File: "s.yml"})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := ParseResponses([]byte(`{"promptId":"p","model":"m:a[sp_idx:0]","response":"x"}
{"promptId":"p","model":"m:a[sp_idx:1]","response":"x"}
`), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Score(context.Background(), bp, resp, ScoreOptions{Now: fixedClock})
	if err != nil {
		t.Fatal(err)
	}
	h := res.FullConversationHistories["p"]
	if h["m:a[sp_idx:0]"][0].Text() != "Be brief." || h["m:a[sp_idx:1]"][0].Text() != "Be verbose." {
		t.Errorf("histories %v", h)
	}
	s := res.EvaluationResults.LLMCoverageScores["p"]
	if *s["m:a[sp_idx:0]"].Score != 0 || *s["m:a[sp_idx:1]"].Score != 1 {
		t.Errorf("scores %v %v", *s["m:a[sp_idx:0]"].Score, *s["m:a[sp_idx:1]"].Score)
	}
}
