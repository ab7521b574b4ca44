package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/rules"
)

// The built-in presets end to end: each rule of the VectorLint pack (and the StyleGuide rule)
// linted by the command against the fake server, which answers with the reply scripted in
// rules/builtin/testdata/<rule>/expected.json. rules/presets_test.go checks that the samples are
// consistent with themselves; this test checks what the linter makes of them: the prompt it
// sends (the rule body, the document with its original line numbers) and the findings, their
// positions and the score it reports.

// presetSample is the part of an expected.json this test reads.
type presetSample struct {
	Rule       string           `json:"rule"`
	StyleGuide string           `json:"styleGuide"`
	Problem    presetSampleCase `json:"problem"`
	Clean      presetSampleCase `json:"clean"`
}

type presetSampleCase struct {
	Document string `json:"document"`
	Words    int    `json:"words"`
	// Reply is the content the fake model answers with.
	Reply    json.RawMessage    `json:"reply"`
	Findings []presetSampleHit  `json:"findings"`
	Criteria []presetSampleCrit `json:"criteria"`
	Score    float64            `json:"score"`
}

// presetSampleHit is a finding as both expected.json and the native JSON output write it.
type presetSampleHit struct {
	Rule      string `json:"rule"`
	Severity  string `json:"severity"`
	Line      int    `json:"line"`
	Column    int    `json:"column"`
	EndLine   int    `json:"endLine"`
	EndColumn int    `json:"endColumn"`
	Offset    int    `json:"offset"`
	EndOffset int    `json:"endOffset"`
	Match     string `json:"match"`
	Message   string `json:"message"`
}

type presetSampleCrit struct {
	ID     string  `json:"id"`
	Name   string  `json:"name"`
	Weight float64 `json:"weight"`
	Rating int     `json:"rating"`
	Score  float64 `json:"score"`
}

// presetOutput is the native JSON output, the parts compared with expected.json.
type presetOutput struct {
	Files []struct {
		Path     string            `json:"path"`
		Findings []presetSampleHit `json:"findings"`
		Scores   []struct {
			Rule     string             `json:"rule"`
			Score    float64            `json:"score"`
			Words    *int               `json:"words"`
			Criteria []presetSampleCrit `json:"criteria"`
		} `json:"scores"`
		Unverified []any `json:"unverified"`
		Errors     []any `json:"errors"`
	} `json:"files"`
}

func TestPresetsEndToEnd(t *testing.T) {
	t.Parallel()
	root := filepath.Join(testutil.RepoRoot(t), "rules", "builtin", "testdata")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	builtin := map[string]*rules.Rule{}
	packs, _ := rules.BuiltinPacks()
	guide, _ := rules.StyleGuidePack()
	for _, p := range append(packs, guide) {
		for _, r := range p.Rules {
			builtin[r.FullID()] = r
		}
	}
	tested := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dir := filepath.Join(root, e.Name())
		data, err := os.ReadFile(filepath.Join(dir, "expected.json"))
		if err != nil {
			t.Fatal(err)
		}
		var s presetSample
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatalf("%s/expected.json: %v", e.Name(), err)
		}
		rule := builtin[s.Rule]
		if rule == nil {
			t.Fatalf("%s/expected.json: %s is not a built-in rule", e.Name(), s.Rule)
		}
		tested++
		t.Run(e.Name(), func(t *testing.T) {
			project := presetProject(t, dir, s, builtin)
			for _, c := range []presetSampleCase{s.Problem, s.Clean} {
				t.Run(strings.TrimSuffix(c.Document, ".md"), func(t *testing.T) {
					checkPresetRun(t, project, dir, s, rule, c)
				})
			}
		})
	}
	if tested != len(builtin) {
		t.Errorf("%d samples for %d built-in rules", tested, len(builtin))
	}
}

// presetProject writes a project that runs only the sample's rule: the built-in pack with its
// other rules disabled (no RulesPath), or, for the style guide, VECTORLINT.md alone
// (zero-config).
func presetProject(t *testing.T, sampleDir string, s presetSample, builtin map[string]*rules.Rule) string {
	t.Helper()
	project := t.TempDir()
	files := map[string]string{}
	for _, name := range []string{s.Problem.Document, s.Clean.Document, s.StyleGuide} {
		if name == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(sampleDir, name))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = string(b)
	}
	if s.StyleGuide == "" {
		var ini strings.Builder
		ini.WriteString("[**/*.md]\nRunRules = VectorLint\n")
		for id := range builtin {
			if id != s.Rule && strings.HasPrefix(id, rules.BuiltinPackName+".") {
				ini.WriteString(id + " = disabled\n")
			}
		}
		files["vectorlint.ini"] = ini.String()
	}
	writeTestTree(t, project, files)
	return project
}

func checkPresetRun(t *testing.T, project, sampleDir string, s presetSample, rule *rules.Rule, c presetSampleCase) {
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(c.Reply))
	r := runVectorlint(t, project, fakeEnv(srv), "", "--output", "json", "--no-cache", c.Document)

	wantCode := exitOK
	for _, f := range c.Findings {
		if f.Severity == "error" {
			wantCode = exitFindings
		}
	}
	if r.code != wantCode || r.stderr != "" {
		t.Fatalf("exit %d (want %d), stderr:\n%s", r.code, wantCode, r.stderr)
	}

	// One call, whose prompt holds the rule body and the document with its line numbers.
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model calls, want 1", len(reqs))
	}
	system := reqs[0].System()
	if body := strings.TrimSpace(rule.Body); !strings.Contains(system, body) {
		t.Errorf("the system message lacks the rule body %.60q…:\n%s", body, system)
	}
	if !strings.Contains(system, fmt.Sprintf("<rule name=%q>", rule.Name)) {
		t.Errorf("the system message does not name the rule %q", rule.Name)
	}
	for _, cr := range rule.Criteria {
		if !strings.Contains(system, "id: "+cr.ID+"; name: "+cr.Name+";") {
			t.Errorf("the system message lacks criterion %s", cr.ID)
		}
	}
	if s.StyleGuide != "" {
		g, _ := os.ReadFile(filepath.Join(sampleDir, s.StyleGuide))
		if !strings.Contains(system, strings.TrimSpace(string(g))) {
			t.Errorf("the system message lacks the style guide")
		}
	}
	src, _ := os.ReadFile(filepath.Join(sampleDir, c.Document))
	checkNumberedLines(t, reqs[0].LastUser(), string(src))

	// The findings at expected.json's positions, and the score.
	dec := json.NewDecoder(bytes.NewReader([]byte(r.stdout)))
	var out presetOutput
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, r.stdout)
	}
	if len(out.Files) != 1 || out.Files[0].Path != c.Document {
		t.Fatalf("files = %+v", out.Files)
	}
	f := out.Files[0]
	if len(f.Unverified) != 0 || len(f.Errors) != 0 {
		t.Errorf("unverified %v, errors %v", f.Unverified, f.Errors)
	}
	if !slices.Equal(f.Findings, c.Findings) && !(len(f.Findings) == 0 && len(c.Findings) == 0) {
		t.Errorf("findings:\n got %+v\nwant %+v", f.Findings, c.Findings)
	}
	if len(f.Scores) != 1 || f.Scores[0].Rule != s.Rule || f.Scores[0].Score != c.Score {
		t.Fatalf("scores = %+v, want %s %v", f.Scores, s.Rule, c.Score)
	}
	if sc := f.Scores[0]; rule.Type == finding.Subjective {
		if !slices.Equal(sc.Criteria, c.Criteria) {
			t.Errorf("criteria:\n got %+v\nwant %+v", sc.Criteria, c.Criteria)
		}
	} else if sc.Words == nil || *sc.Words != c.Words {
		t.Errorf("words = %v, want %d", sc.Words, c.Words)
	}
	if c.Document == s.Clean.Document && (c.Score != 10 || len(c.Findings) != 0) {
		t.Errorf("the clean sample scores %v with %d findings; want 10 and none", c.Score, len(c.Findings))
	}
}

// checkNumberedLines checks that the user message is the document's text with each line
// prefixed by its line number in the file and a tab ("12\t…"), from the first line of the
// evaluated text to the last line of the file, whatever the reviewer instructions say.
func checkNumberedLines(t *testing.T, user, src string) {
	t.Helper()
	fileLines := strings.Split(strings.TrimSuffix(src, "\n"), "\n")
	// What the model is sent of each line (spec/linter.md §9), as the samples write code: a
	// fenced block's lines empty, a code span as a placeholder.
	codeSpan := regexp.MustCompile("`[^`]+`")
	fenced := false
	for i, l := range fileLines {
		fence := strings.HasPrefix(strings.TrimSpace(l), "```")
		if fenced || fence {
			fileLines[i] = ""
		} else {
			fileLines[i] = codeSpan.ReplaceAllString(l, "`…`")
		}
		fenced = fenced != fence
	}
	got := strings.Split(user, "\n")
	if len(got) == 0 || len(got) > len(fileLines) {
		t.Fatalf("the user message has %d lines, the file %d", len(got), len(fileLines))
	}
	first := len(fileLines) - len(got) + 1 // the body starts after any frontmatter
	for i, line := range got {
		want := fmt.Sprintf("%d\t%s", first+i, fileLines[first-1+i])
		if line != want {
			t.Fatalf("user message line %d = %q, want %q", i+1, line, want)
		}
	}
	if first != 1 && !strings.HasPrefix(src, "---") {
		t.Errorf("numbering starts at line %d of a file without frontmatter", first)
	}
}
