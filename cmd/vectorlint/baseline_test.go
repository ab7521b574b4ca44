package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// baselineSummary reads the summary and findings count of a JSON output.
func baselineSummary(t *testing.T, out string) (findings, baselined int) {
	t.Helper()
	var res struct {
		Files []struct {
			Findings  []json.RawMessage `json:"findings"`
			Baselined int               `json:"baselined"`
		} `json:"files"`
		Summary struct {
			Baselined *int `json:"baselined"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	perFile := 0
	for _, f := range res.Files {
		findings += len(f.Findings)
		perFile += f.Baselined
	}
	if res.Summary.Baselined != nil {
		baselined = *res.Summary.Baselined
	}
	if perFile != baselined {
		t.Errorf("files count %d baselined, the summary %d", perFile, baselined)
	}
	return findings, baselined
}

// TestBaseline: --write-baseline records every finding; --baseline then hides them all (exit 0,
// counted in summary.baselined and the line format's last line); lines inserted above keep them
// hidden; a changed quote is a new finding that fails the run again; --verbose lists the entry
// that no longer occurs.
func TestBaseline(t *testing.T) {
	t.Parallel()
	files := engineProject()
	files["docs/guide.md"] = guideDoc
	srv, dir := startEngine(t, files)
	env := fakeEnv(srv)

	w := runVectorlint(t, dir, env, "", "--output", "json", "--write-baseline", "baseline.json", "docs")
	all, _ := baselineSummary(t, w.stdout)
	if w.code != exitFindings || all == 0 || !strings.Contains(w.stderr, "vectorlint: baseline of "+pluralize(all, "finding")+" written to baseline.json\n") {
		t.Fatalf("write: exit %d, %d findings\n%s", w.code, all, w.stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "baseline.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Kind     string
		Version  int
		Findings []struct{ Path, Rule, Fingerprint, Match string }
	}
	if err := json.Unmarshal(data, &file); err != nil || file.Kind != "vectorlint-baseline" || file.Version != 1 || len(file.Findings) != all {
		t.Fatalf("baseline file (%v):\n%s", err, data)
	}
	if strings.Contains(string(data), `"line"`) {
		t.Errorf("the baseline file holds line numbers:\n%s", data)
	}

	b := runVectorlint(t, dir, env, "", "--output", "json", "--baseline", "baseline.json", "docs")
	if n, hidden := baselineSummary(t, b.stdout); b.code != exitOK || n != 0 || hidden != all {
		t.Errorf("with the baseline: exit %d, %d findings, %d baselined; want 0, 0, %d\n%s", b.code, n, hidden, all, b.stderr)
	}
	line := runVectorlint(t, dir, env, "", "--no-color", "--baseline", "baseline.json", "docs")
	if !strings.HasSuffix(line.stdout, "\n"+pluralize(all, "known finding")+" hidden by the baseline\n") || line.code != exitOK {
		t.Errorf("line output (exit %d):\n%s", line.code, line.stdout)
	}

	// Lines inserted above every finding: still hidden.
	moved := strings.Replace(guideDoc, "# Héllo", "Intro line one.\n\nIntro line two.\n\n# Héllo", 1)
	writeTestTree(t, dir, map[string]string{"docs/guide.md": moved})
	m := runVectorlint(t, dir, env, "", "--output", "json", "--baseline", "baseline.json", "docs")
	if n, hidden := baselineSummary(t, m.stdout); m.code != exitOK || n != 0 || hidden != all {
		t.Errorf("lines inserted above: exit %d, %d findings, %d baselined; want 0, 0, %d\n%s", m.code, n, hidden, all, m.stdout)
	}

	// The quoted words changed: the finding is new, and the old entry is stale.
	changed := strings.Replace(moved, "Due to the fact that it edits", "Due to the fact that it rewrites", 1)
	writeTestTree(t, dir, map[string]string{"docs/guide.md": changed})
	c := runVectorlint(t, dir, env, "", "--output", "json", "--verbose", "--baseline", "baseline.json", "docs")
	checkCLIGolden(t, "baseline.golden", c.stdout) // finding's reader round-trips it too
	n, hidden := baselineSummary(t, c.stdout)
	if c.code != exitFindings || n == 0 || hidden != all-n {
		t.Errorf("changed quote: exit %d, %d findings, %d baselined (of %d)\n%s", c.code, n, hidden, all, c.stderr)
	}
	wantStale := "vectorlint: 2 entries of the baseline no longer occur (fixed, or their text changed); --write-baseline drops them:\n" +
		"vectorlint:   docs/guide.md Acme.StrictWordiness \"Due to the fact that\"\n" +
		"vectorlint:   docs/guide.md Acme.Wordiness \"Due to the fact that\"\n"
	if !strings.HasSuffix(c.stderr, wantStale) {
		t.Errorf("--verbose does not list the stale entries:\n%s", c.stderr)
	}
}

// TestBaselineErrors: a malformed or missing baseline file stops the run before any call,
// naming the file and what was wrong; the two flags cannot be combined.
func TestBaselineErrors(t *testing.T) {
	t.Parallel()
	files := engineProject()
	files["docs/guide.md"] = guideDoc
	files["bad.json"] = `{"kind": "vectorlint-baseline", "version": 2, "findings": []}`
	files["notjson.json"] = "findings: []\n"
	srv, dir := startEngine(t, files)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--baseline", "bad.json", "docs"}, "vectorlint: --baseline: baseline bad.json: expected version 1, found 2\n"},
		{[]string{"--baseline", "notjson.json", "docs"}, "vectorlint: --baseline: baseline notjson.json: expected a vectorlint baseline (JSON written by --write-baseline), found invalid character 'i' in literal false (expecting 'a') at line 1\n"},
		{[]string{"--baseline", "missing.json", "docs"}, "vectorlint: --baseline: open " + filepath.Join(dir, "missing.json") + ": no such file or directory\n"},
		{[]string{"--baseline", "bad.json", "--write-baseline", "b.json", "docs"}, "vectorlint: --baseline and --write-baseline cannot be combined: write the new baseline without the old one\n"},
	}
	for _, tt := range tests {
		r := runVectorlint(t, dir, fakeEnv(srv), "", tt.args...)
		if r.code != exitFailure || !strings.HasPrefix(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d, %q", tt.args, r.code, r.stderr, exitFailure, tt.want)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("%d calls made", srv.Calls())
	}
}
