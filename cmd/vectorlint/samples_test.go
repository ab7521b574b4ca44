package main

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// samplesFiles is a project with one semi-objective rule; ini holds the global keys.
func samplesFiles(ini string) map[string]string {
	return map[string]string{
		"vectorlint.ini":      "RulesPath = rules\n" + ini + "[docs/**]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\nseverity: error\n---\nFind wordy phrases.\n",
		"docs/a.md":           "We met in order to plan the release, then we utilize the tool.\n",
	}
}

// samplesServer answers the samples of Words in turn: "in order to" twice (with different,
// overlapping quotes), "utilize" once.
func samplesServer(t *testing.T) *llmtest.Server {
	t.Helper()
	srv := llmtest.Start(t)
	v := func(quote string) map[string]any {
		return map[string]any{"quoted_text": quote, "line": 1, "message": "Wordy: " + quote + "."}
	}
	srv.On(llmtest.Any(),
		llmtest.JSON(map[string]any{"violations": []any{v("in order to"), v("utilize")}}),
		llmtest.JSON(map[string]any{"violations": []any{v("met in order")}}),
		llmtest.JSON(map[string]any{"violations": []any{}}))
	return srv
}

// readResult reads the native JSON output with the package's own reader.
func readResult(t *testing.T, out string) *finding.Result {
	t.Helper()
	r, err := finding.ReadJSON(strings.NewReader(out), "stdout")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return r
}

// TestLintSamples: Samples = 3 in the config makes three calls; the JSON output has the kept
// finding with its votes and the score with its samples; a second run is all from the cache.
func TestLintSamples(t *testing.T) {
	t.Parallel()
	srv := samplesServer(t)
	dir := t.TempDir()
	writeTestTree(t, dir, samplesFiles("Samples = 3\n"))
	cache := filepath.Join(t.TempDir(), "cache")
	// One call at a time: the fake answers in the order the samples arrive, and which report of
	// a kept violation stands (the first sample's, on equal confidence) depends on it.
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "--concurrency", "1", "docs")
	if r.code != exitFindings || r.stderr != "" || srv.Calls() != 3 {
		t.Fatalf("exit %d, %d calls, stderr:\n%s", r.code, srv.Calls(), r.stderr)
	}
	if !strings.Contains(r.stdout, `"votes": {
            "for": 2,
            "of": 3
          }`) || !strings.Contains(r.stdout, `"samples": 3`) {
		t.Errorf("output:\n%s", r.stdout)
	}
	res := readResult(t, r.stdout)
	fs := res.Files[0].Findings
	if len(fs) != 1 || fs[0].Match != "in order to" || *fs[0].Votes != (finding.Votes{For: 2, Of: 3}) || res.Files[0].Scores[0].Samples != 3 {
		t.Errorf("findings %+v, scores %+v", fs, res.Files[0].Scores)
	}
	again := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "--concurrency", "1", "docs")
	res2 := readResult(t, again.stdout)
	if !reflect.DeepEqual(res2.Files, res.Files) || res2.Usage.Calls != 0 || res2.Usage.CachedCalls != 3 || srv.Calls() != 3 {
		t.Errorf("second run: %d calls in all, output:\n%s", srv.Calls(), again.stdout)
	}
}

// TestLintSamplesFlag: --samples overrides the config's Samples: --samples 1 is a run without
// samples (one call, no votes, no samples in the output); a value out of range is a usage error.
func TestLintSamplesFlag(t *testing.T) {
	t.Parallel()
	srv := samplesServer(t)
	dir := t.TempDir()
	writeTestTree(t, dir, samplesFiles("Samples = 3\n"))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "--samples", "1", "docs")
	if r.code != exitFindings || srv.Calls() != 1 || strings.Contains(r.stdout, "votes") || strings.Contains(r.stdout, "samples") {
		t.Errorf("exit %d, %d calls, output:\n%s\nstderr:\n%s", r.code, srv.Calls(), r.stdout, r.stderr)
	}
	if fs := readResult(t, r.stdout).Files[0].Findings; len(fs) != 2 {
		t.Errorf("one sample keeps both findings: %+v", fs)
	}
	for _, v := range []string{"0", "26"} {
		r := runVectorlint(t, dir, fakeEnv(srv), "", "--samples", v, "docs")
		if r.code != exitFailure || !strings.Contains(r.stderr, "--samples: expected a whole number of samples from 1 to 25, found "+v) {
			t.Errorf("--samples %s: exit %d, stderr:\n%s", v, r.code, r.stderr)
		}
	}
	if srv.Calls() != 1 {
		t.Errorf("%d calls in all", srv.Calls())
	}
}

// TestLintSamplesModels: Models = A, B, C sends the samples to those models in turn.
func TestLintSamplesModels(t *testing.T) {
	t.Parallel()
	srv := samplesServer(t)
	dir := t.TempDir()
	writeTestTree(t, dir, samplesFiles("Models = model-a, model-b, model-c\n"))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs")
	if r.code != exitFindings {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var models []string
	for _, req := range srv.Requests() {
		models = append(models, req.Model)
	}
	slices.Sort(models) // the samples are made at once: in no set order
	if want := []string{"model-a", "model-b", "model-c"}; !slices.Equal(models, want) {
		t.Errorf("models %q, want %q", models, want)
	}
	if fs := readResult(t, r.stdout).Files[0].Findings; len(fs) != 1 || *fs[0].Votes != (finding.Votes{For: 2, Of: 3}) {
		t.Errorf("findings %+v", fs)
	}
}

// TestLintSamplesDryRun: the dry run counts a call per sample; a bad Samples in the config is
// an error naming the file and line.
func TestLintSamplesDryRun(t *testing.T) {
	t.Parallel()
	srv := samplesServer(t)
	dir := t.TempDir()
	writeTestTree(t, dir, samplesFiles("Samples = 3\n"))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--dry-run", "docs")
	if r.code != exitOK || !strings.Contains(r.stdout, "3 LLM calls (3 samples), ~") || srv.Calls() != 0 {
		t.Errorf("exit %d, %d calls, stdout:\n%s\nstderr:\n%s", r.code, srv.Calls(), r.stdout, r.stderr)
	}
	for _, bad := range []string{"0", "x"} {
		dir := t.TempDir()
		writeTestTree(t, dir, samplesFiles("Samples = "+bad+"\n"))
		r := runVectorlint(t, dir, fakeEnv(srv), "", "docs")
		want := `vectorlint.ini:2: Samples: expected a whole number of samples from 1 to 25, found "` + bad + `"`
		if r.code != exitFailure || !strings.Contains(r.stderr, want) {
			t.Errorf("Samples = %s: exit %d, stderr:\n%s\nwant it to hold %s", bad, r.code, r.stderr, want)
		}
	}
}

// TestLsConfigSamples: ls-config shows the global Samples and Models, a section's Samples and
// each rule's samples on a file (absent for one).
func TestLsConfigSamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := samplesFiles("Samples = 3\nModels = model-a, model-b\n")
	files["vectorlint.ini"] += "[docs/one/**]\nSamples = 1\n"
	files["docs/one/b.md"] = "Text.\n"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, nil, "", "ls-config", "docs/a.md", "docs/one/b.md")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var l struct {
		Samples  int
		Models   []string
		Sections []struct{ Samples int }
		Files    []struct {
			Rules []struct {
				ID      string
				Samples int
			}
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &l); err != nil {
		t.Fatal(err)
	}
	if l.Samples != 3 || !slices.Equal(l.Models, []string{"model-a", "model-b"}) || len(l.Sections) != 2 || l.Sections[0].Samples != 0 ||
		l.Sections[1].Samples != 1 || len(l.Files) != 2 || l.Files[0].Rules[0].Samples != 3 || l.Files[1].Rules[0].Samples != 0 {
		t.Errorf("listing:\n%s", r.stdout)
	}
}
