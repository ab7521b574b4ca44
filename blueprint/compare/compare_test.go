package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// resultDoc builds a result document the way blueprint run writes its scores: prompts, models
// and each pair's avgCoverageExtent (a missing pair is not scored; NaN writes null).
func resultDoc(id, label string, prompts, models []string, scores map[string]map[string]float64) []byte {
	cov := map[string]map[string]any{}
	sums, counts := map[string]float64{}, map[string]int{}
	for p, byModel := range scores {
		cov[p] = map[string]any{}
		for m, s := range byModel {
			if s != s { // NaN: no point could be evaluated
				cov[p][m] = map[string]any{"keyPointsCount": 1, "avgCoverageExtent": nil, "pointAssessments": []any{}}
				continue
			}
			cov[p][m] = map[string]any{"keyPointsCount": 1, "avgCoverageExtent": s, "pointAssessments": []any{}}
			sums[m] += s
			counts[m]++
		}
	}
	per := map[string]any{}
	for _, m := range models {
		if counts[m] == 0 {
			per[m] = map[string]any{"average": nil, "promptCount": 0}
			continue
		}
		avg := float64(int(sums[m]/float64(counts[m])*100+0.5)) / 100
		per[m] = map[string]any{"average": avg, "promptCount": counts[m]}
	}
	b, err := json.Marshal(map[string]any{"configId": id, "configTitle": id, "runLabel": label, "timestamp": "2025-07-0" + label[len(label)-1:] + "T10-00-00-000Z",
		"promptIds": prompts, "effectiveModels": models, "evalMethodsUsed": []string{"llm-coverage"},
		"evaluationResults": map[string]any{"llmCoverageScores": cov, "perModelScores": per}})
	if err != nil {
		panic(err)
	}
	return b
}

// compareFixture is two runs with every kind of change: p1 regressed, p2 fell by exactly the
// tolerance (not a regression), p3 improved, p4 lost its score, p5 is new, p6 was removed, and
// model m:old is gone from the new run.
func compareFixture(t testing.TB) (*ScoreSheet, *ScoreSheet) {
	t.Helper()
	nan := 0.0
	nan = nan / nan
	base := resultDoc("bp", "run1", []string{"p1", "p2", "p3", "p4", "p6"}, []string{"m:a", "m:old"}, map[string]map[string]float64{
		"p1": {"m:a": 0.9, "m:old": 0.5}, "p2": {"m:a": 0.8, "m:old": 0.5}, "p3": {"m:a": 0.5, "m:old": 0.5}, "p4": {"m:a": 0.6, "m:old": 0.5},
		"p6": {"m:a": 1, "m:old": 0.5},
	})
	next := resultDoc("bp", "run2", []string{"p1", "p2", "p3", "p4", "p5"}, []string{"m:a"}, map[string]map[string]float64{
		"p1": {"m:a": 0.7}, "p2": {"m:a": 0.75}, "p3": {"m:a": 0.9}, "p4": {"m:a": nan}, "p5": {"m:a": 0.4},
	})
	b, err := ReadScoreSheet(base, "base.json")
	if err != nil {
		t.Fatal(err)
	}
	n, err := ReadScoreSheet(next, "new.json")
	if err != nil {
		t.Fatal(err)
	}
	return b, n
}

func TestCompare(t *testing.T) {
	t.Parallel()
	b, n := compareFixture(t)
	c, err := Runs(b, n, Settings{Tolerance: DefaultTolerance})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range c.Cells {
		got = append(got, fmt.Sprintf("%s %s %s→%s %s %s", d.Prompt, d.Model, formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta), d.Change))
	}
	for _, d := range c.Averages {
		got = append(got, fmt.Sprintf("average %s %s→%s %s %s", d.Model, formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta), d.Change))
	}
	want := []string{
		"p1 m:a 0.90→0.70 -0.20 regressed",
		"p1 m:old 0.50→— removed",
		"p2 m:a 0.80→0.75 -0.05 unchanged",
		"p2 m:old 0.50→— removed",
		"p3 m:a 0.50→0.90 +0.40 improved",
		"p3 m:old 0.50→— removed",
		"p4 m:a 0.60→— no score",
		"p4 m:old 0.50→— removed",
		"p5 m:a —→0.40 new",
		"p6 m:a 1.00→— removed",
		"p6 m:old 0.50→— removed",
		"average m:a 0.76→0.69 -0.07 regressed",
		"average m:old 0.50→— removed",
	}
	for i := range got {
		got[i] = strings.Join(strings.Fields(got[i]), " ")
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("comparison:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if c.Regressions != 2 {
		t.Errorf("%d regressions, want 2 (p1 fell, p4 lost its score)", c.Regressions)
	}
	// A larger tolerance lets p1's fall through; p4's lost score still fails.
	if c, _ := Runs(b, n, Settings{Tolerance: 0.25}); c.Regressions != 1 {
		t.Errorf("tolerance 0.25: %d regressions, want 1", c.Regressions)
	}
	// Zero tolerance: p2's 0.05 fall is a regression too.
	if c, _ := Runs(b, n, Settings{Tolerance: 0}); c.Regressions != 3 {
		t.Errorf("tolerance 0: %d regressions, want 3", c.Regressions)
	}
	// A run compared with itself has none.
	if c, _ := Runs(n, n, Settings{Tolerance: 0}); c.Regressions != 0 {
		t.Errorf("a run against itself: %d regressions", c.Regressions)
	}

	other, _ := ReadScoreSheet(resultDoc("other", "run3", []string{"p1"}, []string{"m:a"}, nil), "other.json")
	if _, err := Runs(b, other, Settings{Tolerance: 0.05}); err == nil || err.Error() != `base.json is a run of blueprint "bp" and other.json of "other": compare two runs of one blueprint` {
		t.Errorf("different blueprints: %v", err)
	}
	if _, err := Runs(b, n, Settings{Tolerance: -1}); err == nil {
		t.Error("a negative tolerance was accepted")
	}
}

func TestCompareOutputs(t *testing.T) {
	t.Parallel()
	b, n := compareFixture(t)
	c, err := Runs(b, n, Settings{Tolerance: DefaultTolerance})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats() {
		t.Run(format, func(t *testing.T) {
			var out, summary bytes.Buffer
			if err := Write(&out, format, c, WriteOptions{StepSummary: &summary}); err != nil {
				t.Fatal(err)
			}
			ext := map[string]string{"html": ".html", "json": ".json"}[format]
			if ext == "" {
				ext = ".txt"
			}
			testutil.Golden(t, filepath.Join("testdata", "compare."+format+ext), out.String())
			if format == FormatGitHub {
				testutil.Golden(t, filepath.Join("testdata", "compare.github-summary.md"), summary.String())
			}
			if format == FormatJSON {
				var v struct {
					Regressions int
					Verdict     string
					Cells       []Delta
				}
				if err := json.Unmarshal(out.Bytes(), &v); err != nil || v.Regressions != 2 || v.Verdict != "fail" || len(v.Cells) != 11 {
					t.Errorf("json: %+v, %v", v, err)
				}
			}
		})
	}
	if err := Write(&bytes.Buffer{}, "xml", c, WriteOptions{}); err == nil {
		t.Error("an unknown format was accepted")
	}
}

// TestCompareHostile compares runs whose prompt ids and model names carry terminal escapes,
// workflow commands and HTML: no format lets them act.
func TestCompareHostile(t *testing.T) {
	t.Parallel()
	evil := "p\x1b]8;;http://x\x07<script>alert(1)</script>\n::error::forged ##[group]"
	model := "m:\u202eevil"
	doc := func(s float64, label string) *ScoreSheet {
		sh, err := ReadScoreSheet(resultDoc("bp\x1b[31m", label, []string{evil}, []string{model}, map[string]map[string]float64{evil: {model: s}}), label+".json")
		if err != nil {
			t.Fatal(err)
		}
		return sh
	}
	c, err := Runs(doc(0.9, "run1"), doc(0.1, "run2"), Settings{Tolerance: 0.05})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats() {
		var out, summary bytes.Buffer
		if err := Write(&out, format, c, WriteOptions{GitHubActions: true, StepSummary: &summary}); err != nil {
			t.Fatal(err)
		}
		all := out.String() + summary.String()
		for _, bad := range []string{"\x1b", "\x07", "\u202e", "##[", "\n::error::forged"} {
			if strings.Contains(all, bad) {
				t.Errorf("%s: output holds %q:\n%s", format, bad, all)
			}
		}
		if format == FormatHTML && strings.Contains(all, "<script>") {
			t.Errorf("html: a script element:\n%s", all)
		}
		for _, line := range strings.Split(out.String(), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "::") && !strings.HasPrefix(line, "::error title=") && !strings.HasPrefix(line, "::notice title=") {
				t.Errorf("%s: a line the runner would read as a command: %q", format, line)
			}
		}
	}
}

func TestReadScoreSheetErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, doc, want string
	}{
		{"empty", "", "r.json: expected a JSON result document, found nothing"},
		{"not JSON", "{", "r.json: expected a JSON result document, found "},
		{"a lint result", `{"version": "1", "files": []}`, "r.json: configId: expected the blueprint's id (a result document of blueprint run), found nothing"},
		{"no prompts", `{"configId": "x"}`, "r.json: promptIds: expected the list of prompt ids, found nothing"},
		{"prompts not a list", `{"configId": "x", "promptIds": "p1"}`, "r.json: promptIds: expected a JSON array, found a JSON string"},
		{"no models", `{"configId": "x", "promptIds": []}`, "r.json: effectiveModels: expected the list of models, found nothing"},
		{"no coverage", `{"configId": "x", "promptIds": [], "effectiveModels": [], "evaluationResults": {"perModelScores": {}}}`,
			"r.json: evaluationResults.llmCoverageScores: expected the llm-coverage scores (run with --eval-method llm-coverage), found nothing"},
		{"an unlisted prompt", `{"configId": "x", "promptIds": [], "effectiveModels": [], "evaluationResults": {"llmCoverageScores": {"p": {}}}}`,
			`r.json: evaluationResults.llmCoverageScores: expected prompts listed in promptIds, found "p"`},
		{"a score over 1", `{"configId": "x", "promptIds": ["p"], "effectiveModels": ["m"], "evaluationResults": {"llmCoverageScores": {"p": {"m": {"avgCoverageExtent": 7}}}}}`,
			"r.json: evaluationResults.llmCoverageScores.p.m.avgCoverageExtent: expected a score from 0 to 1, found 7"},
		{"a string score", `{"configId": "x", "promptIds": ["p"], "effectiveModels": ["m"], "evaluationResults": {"llmCoverageScores": {"p": {"m": {"avgCoverageExtent": "0.5"}}}}}`,
			"r.json: evaluationResults.llmCoverageScores.avgCoverageExtent: expected a JSON number, found a JSON string"},
		{"two documents", `{"configId": "x"} {}`, "r.json: expected one JSON document, found more after it"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadScoreSheet([]byte(tt.doc), "r.json")
			var ce *InputError
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) || !errors.As(err, &ce) {
				t.Errorf("err = %v, want a *InputError starting %q", err, tt.want)
			}
		})
	}
}

// TestCompareRealResult reads the bundled example's result document, as blueprint run wrote
// it.
func TestCompareRealResult(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join("..", "testdata", "capitals.result.json"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ReadScoreSheet(data, "capitals.result.json")
	if err != nil {
		t.Fatal(err)
	}
	if s.ConfigID != "capitals" || len(s.PromptIDs) == 0 || len(s.Models) != 2 || s.Scores["capital-france"]["openai:gpt-4o-mini"] == nil ||
		*s.Scores["capital-france"]["openai:gpt-4o-mini"] != 1 || *s.Scores["capital-france"]["anthropic:claude-3-5-haiku"] != 0.33 {
		t.Errorf("%+v", s)
	}
	c, err := Runs(s, s, Settings{Tolerance: 0})
	if err != nil || c.Regressions != 0 {
		t.Errorf("%v, %+v", err, c)
	}
}

func FuzzReadScoreSheet(f *testing.F) {
	b, _ := compareFixture(f)
	f.Add([]byte(`{"configId": "x", "promptIds": ["p"], "effectiveModels": ["m"], "evaluationResults": {"llmCoverageScores": {"p": {"m": {"avgCoverageExtent": 0.5}}}}}`))
	f.Add(resultDoc("bp", "run1", []string{"p1"}, []string{"m"}, map[string]map[string]float64{"p1": {"m": 1}}))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ReadScoreSheet(data, "f.json")
		if err != nil {
			var ce *InputError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T: %v", err, err)
			}
			return
		}
		for _, byModel := range s.Scores {
			for _, v := range byModel {
				if v != nil && (*v < 0 || *v > 1) {
					t.Fatalf("score %v out of range", *v)
				}
			}
		}
		s.ConfigID = b.ConfigID
		c, err := Runs(b, s, Settings{Tolerance: DefaultTolerance})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Models {
			for _, v := range []float64{m.Stats.Mean, m.Stats.Low, m.Stats.High, m.Stats.PValue} {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("%s: a figure is not a number: %+v", m.Model, m.Stats)
				}
			}
		}
		for _, format := range Formats() {
			if err := Write(&bytes.Buffer{}, format, c, WriteOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// statsFixture is two runs of eight prompts whose paired changes TestPairedTest (package
// scoring) checked by hand: m:worse falls by 0.216 on average with p = 8/256 = 0.03125 (worse
// at alpha 0.05), m:noisy by 0.117 with p = 8/64 = 0.125 over its six scored prompts (its last
// two lost their score), m:few has one prompt scored in both runs (not enough), m:same did not
// change (p = 1, an interval of [0, 0]).
func statsFixture(t testing.TB) (*ScoreSheet, *ScoreSheet) {
	t.Helper()
	nan := math.NaN()
	prompts := []string{"p1", "p2", "p3", "p4", "p5", "p6", "p7", "p8"}
	models := []string{"m:worse", "m:noisy", "m:few", "m:same"}
	worseBase := []float64{0.9, 0.9, 0.8, 0.83, 0.7, 0.9, 0.55, 0.5}
	worseDiff := []float64{-0.25, -0.5, -0.1, -0.33, -0.2, -0.4, -0.05, 0.1}
	noisyBase := []float64{0.8, 0.6, 0.5, 0.9, 0.75, 0.4, 0.7, 0.7}
	noisyDiff := []float64{-0.2, -0.1, 0.05, -0.3, -0.15, 0, nan, nan}
	base, next := map[string]map[string]float64{}, map[string]map[string]float64{}
	for i, p := range prompts {
		few := nan
		if i == 0 {
			few = 0.5
		}
		base[p] = map[string]float64{"m:worse": worseBase[i], "m:noisy": noisyBase[i], "m:few": 0.5, "m:same": 0.6}
		next[p] = map[string]float64{"m:worse": math.Round((worseBase[i]+worseDiff[i])*100) / 100,
			"m:noisy": math.Round((noisyBase[i]+noisyDiff[i])*100) / 100, "m:few": few, "m:same": 0.6}
	}
	b, err := ReadScoreSheet(resultDoc("bp", "run1", prompts, models, base), "base.json")
	if err != nil {
		t.Fatal(err)
	}
	n, err := ReadScoreSheet(resultDoc("bp", "run2", prompts, models, next), "new.json")
	if err != nil {
		t.Fatal(err)
	}
	return b, n
}

// TestCompareStatistics: each model's paired change, and what --fail-if-worse makes of it.
func TestCompareStatistics(t *testing.T) {
	t.Parallel()
	b, n := statsFixture(t)
	c, err := Runs(b, n, Settings{Tolerance: DefaultTolerance, FailIfWorse: true})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range c.Models {
		st := m.Stats
		got = append(got, fmt.Sprintf("%s n=%d mean=%.6f [%.6f, %.6f] p=%v exact=%v worse=%v %q", m.Model, m.Prompts, st.Mean, st.Low, st.High,
			st.PValue, st.Exact, m.Worse, m.Notes))
	}
	want := []string{
		`m:worse n=8 mean=-0.216250 [-0.380377, -0.052123] p=0.03125 exact=true worse=true []`,
		`m:noisy n=6 mean=-0.116667 [-0.252148, 0.018815] p=0.125 exact=true worse=false []`,
		`m:few n=1 mean=0.000000 [0.000000, 0.000000] p=0 exact=false worse=false ["not enough prompts"]`,
		`m:same n=8 mean=0.000000 [0.000000, 0.000000] p=1 exact=true worse=false []`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("models:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// m:worse fell by more than the tolerance on six prompts, m:noisy on four and lost two
	// scores, m:few lost seven: the per-prompt report is the same with or without FailIfWorse.
	plain, _ := Runs(b, n, Settings{Tolerance: DefaultTolerance})
	if c.Regressions != 19 || plain.Regressions != 19 || c.Worse != 1 || !c.Failed() || !plain.Failed() {
		t.Errorf("regressions %d (plain %d), worse %d", c.Regressions, plain.Regressions, c.Worse)
	}
	for _, tt := range []struct {
		name string
		set  Settings
		fail bool
	}{
		{"alpha 0.01: p = 0.031 is not below it", Settings{Tolerance: DefaultTolerance, Alpha: 0.01, FailIfWorse: true}, false},
		{"tolerance 0.25: a fall of 0.216 is within it", Settings{Tolerance: 0.25, FailIfWorse: true}, false},
		{"alpha 0.2: m:noisy's p = 0.125 is below it", Settings{Tolerance: DefaultTolerance, Alpha: 0.2, FailIfWorse: true}, true},
	} {
		c, err := Runs(b, n, tt.set)
		if err != nil || c.Failed() != tt.fail {
			t.Errorf("%s: failed %v, err %v", tt.name, c.Failed(), err)
		}
	}
	if c, _ := Runs(b, n, Settings{Tolerance: DefaultTolerance, Alpha: 0.2, FailIfWorse: true}); c.Worse != 2 {
		t.Errorf("alpha 0.2: %d worse, want 2", c.Worse)
	}
	for _, alpha := range []float64{-0.1, 1.5, math.NaN()} {
		if _, err := Runs(b, n, Settings{Alpha: alpha}); err == nil {
			t.Errorf("alpha %v accepted", alpha)
		}
	}
	// Five prompts can never give p < 0.05 (2/32 = 0.0625): the note says so.
	few := resultDoc("bp", "run3", []string{"a", "b", "c", "d", "e"}, []string{"m"}, map[string]map[string]float64{
		"a": {"m": 0.9}, "b": {"m": 0.9}, "c": {"m": 0.9}, "d": {"m": 0.9}, "e": {"m": 0.9}})
	worse := resultDoc("bp", "run4", []string{"a", "b", "c", "d", "e"}, []string{"m"}, map[string]map[string]float64{
		"a": {"m": 0.1}, "b": {"m": 0.1}, "c": {"m": 0.1}, "d": {"m": 0.1}, "e": {"m": 0.1}})
	fb, _ := ReadScoreSheet(few, "few.json")
	fw, _ := ReadScoreSheet(worse, "worse.json")
	fc, _ := Runs(fb, fw, Settings{Tolerance: DefaultTolerance, FailIfWorse: true})
	if m := fc.Models[0]; m.Worse || m.Stats.PValue != 0.0625 || fmt.Sprint(m.Notes) != "[p cannot fall below 0.05 with 5 prompts]" {
		t.Errorf("five prompts: %+v", m)
	}
}

// TestCompareNoSharedPrompt: a model in both runs with no prompt scored in both has no figure
// at all, in every format, and never fails the gate.
func TestCompareNoSharedPrompt(t *testing.T) {
	t.Parallel()
	b, _ := ReadScoreSheet(resultDoc("bp", "run1", []string{"p1", "p2"}, []string{"m"}, map[string]map[string]float64{"p1": {"m": 0.9}}), "base.json")
	n, _ := ReadScoreSheet(resultDoc("bp", "run2", []string{"p1", "p2"}, []string{"m"}, map[string]map[string]float64{"p2": {"m": 0.1}}), "new.json")
	c, err := Runs(b, n, Settings{Tolerance: DefaultTolerance, FailIfWorse: true})
	if err != nil {
		t.Fatal(err)
	}
	if m := c.Models[0]; m.Prompts != 0 || m.Worse || fmt.Sprint(m.Notes) != "[not enough prompts]" || c.Failed() || c.Regressions != 1 {
		t.Errorf("%+v, failed %v", m, c.Failed())
	}
	var line, js bytes.Buffer
	if err := Write(&line, FormatLine, c, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := Write(&js, FormatJSON, c, WriteOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(line.String(), "m      0        —     —             —        not enough prompts\n") ||
		!strings.Contains(js.String(), `"meanDifference": null,
      "ci95": null,
      "pValue": null,`) {
		t.Errorf("line:\n%s\njson:\n%s", line.String(), js.String())
	}
}

// TestCompareStatisticsOutputs: every format shows each model's figures, with FailIfWorse.
func TestCompareStatisticsOutputs(t *testing.T) {
	t.Parallel()
	b, n := statsFixture(t)
	c, err := Runs(b, n, Settings{Tolerance: DefaultTolerance, FailIfWorse: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, format := range Formats() {
		var out, summary bytes.Buffer
		if err := Write(&out, format, c, WriteOptions{StepSummary: &summary}); err != nil {
			t.Fatal(err)
		}
		ext := map[string]string{"html": ".html", "json": ".json"}[format]
		if ext == "" {
			ext = ".txt"
		}
		testutil.Golden(t, filepath.Join("testdata", "compare-stats."+format+ext), out.String())
		if format == FormatGitHub {
			testutil.Golden(t, filepath.Join("testdata", "compare-stats.github-summary.md"), summary.String())
		}
		if strings.Contains(out.String()+summary.String(), "NaN") {
			t.Errorf("%s: NaN in the output", format)
		}
	}
}
