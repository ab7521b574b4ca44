package dryrun

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
)

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

// longDoc is a document of three 250-word paragraphs (750 words: split into two chunks).
func longDoc() string {
	var b strings.Builder
	b.WriteString("# A long guide\n\n")
	for p := 0; p < 3; p++ {
		for w := 0; w < 250; w++ {
			if w > 0 && w%25 == 0 {
				b.WriteString("\n")
			} else if w > 0 {
				b.WriteString(" ")
			}
			fmt.Fprintf(&b, "word%d", p*250+w)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

func dryRunProject(t *testing.T) *lint.Plan {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"vectorlint.ini":          "RulesPath = rules\nChunkWords = 500\n[**/*.md]\nRunRules = Acme\n[docs/drafts/**]\nRunRules =\n[docs/strict.md]\nAcme.Wordiness.strictness = strict\nAcme.Headline.severity = error\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\nseverity: warning\n" +
			"target: {regex: '^#\\s+(.+)$', group: 1, required: true, suggestion: Add a title.}\n" +
			"criteria:\n  - {id: Clarity, name: Clarity, weight: 2}\n  - {id: Tone, name: Tone}\n---\nRate the headline.\n",
		"rules/Acme/facts.md": "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\nevaluateAs: document\n---\nCheck facts.\n",
		"docs/guide.md":       "---\ntitle: Guide\n---\n# Café setup 🎉\n\nIn order to start, run it.\n",
		"docs/strict.md":      "No title.\nSecond line.\n",
		"docs/long.md":        longDoc(),
		"docs/many.md":        "# One\n# Two\n" + strings.Repeat("line\n", 3),
		"docs/drafts/x.md":    "# Draft\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

func TestDryRun(t *testing.T) {
	t.Parallel()
	plan := dryRunProject(t)
	price := 2.5
	tests := []struct {
		golden string
		opts   Options
		want   Summary
	}{
		{"default.golden", Options{}, Summary{Files: 4, Skipped: 1, Calls: 8, Tokens: 0, Errors: 1, Warnings: 0, OperationalErrors: 4}},
		{"verbose-price.golden", Options{Verbose: true, InputPricePerMillion: &price}, Summary{Files: 4, Skipped: 1, Calls: 8, Tokens: 0, Errors: 1, Warnings: 0, OperationalErrors: 4}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			var buf bytes.Buffer
			sum, err := Print(&buf, plan, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			tt.want.Tokens = sum.Tokens // checked in the golden output and by TestDryRunEstimate
			if sum != tt.want {
				t.Errorf("summary = %+v, want %+v", sum, tt.want)
			}
			checkGolden(t, tt.golden, buf.Bytes())
		})
	}
}

func TestDryRunEstimate(t *testing.T) {
	t.Parallel()
	plan := dryRunProject(t)
	var guide *lint.FilePlan
	for _, f := range plan.Files {
		if f.Path == "docs/guide.md" {
			guide = f
		}
	}
	r := guide.Rules[2] // Acme.Wordiness: whole document, lines 4-6
	if r.ID != "Acme.Wordiness" {
		t.Fatalf("rule %s", r.ID)
	}
	// The rule's kind estimates the request as it is built (lint's TestCallTokensCountsTheRequest
	// checks the formula): its three messages (instructions and reply contract, the text
	// numbered from 1: "1\t# Café setup 🎉\n" (17) + "2\t\n" (3) + "3\tIn order to start, run
	// it.\n" (29), the rule with "Flag wordy phrases."), four tokens a message, and the response
	// schema: 385 tokens.
	got := r.Kind.Estimate(r, r.Units[0])
	if want := (lint.Estimate{Calls: 1, Tokens: 385, Lines: []string{"1 LLM call, ~385 tokens"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("estimate = %+v, want %+v", got, want)
	}
}

func TestDryRunHelpers(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
	tests := []struct {
		in   string
		want []string
	}{
		{"", []string{""}}, {"a", []string{"a"}}, {"a\n", []string{"a"}}, {"a\r\nb\rc\n\n", []string{"a", "b", "c", ""}},
	}
	for _, tt := range tests {
		if got := splitLines(tt.in); strings.Join(got, "|") != strings.Join(tt.want, "|") || len(got) != len(tt.want) {
			t.Errorf("splitLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDryRunHostile: a document's name and text, quoted by the dry run, cannot put a workflow
// command (under GitHub Actions) or a terminal escape on the output.
func TestDryRunHostile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**]\nRunRules = Acme\n",
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\n" +
			"target: {regex: '^#\\s+(.+)$', group: 1, required: true, suggestion: Add a title.}\n" +
			"criteria:\n  - {id: Clarity, name: Clarity}\n---\nRate the headline.\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"::error::x.md": "# ::error::title ##[warning]x\n::stop-commands::tok\n  ::error::indented\n" +
			"\x1b]8;;https://evil.example\x07link\x1b]8;;\x07 \u202eevil \r over\n",
		"a\x1b[2Jb.md": "no title ##[error]x\n",
	}
	writeFiles(t, dir, files)
	proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{Dir: dir, Paths: []string{"::error::x.md", "a\x1b[2Jb.md"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, gha := range []bool{false, true} {
		var buf bytes.Buffer
		if _, err := Print(&buf, plan, Options{Verbose: true, GitHubActions: gha}); err != nil {
			t.Fatal(err)
		}
		out := buf.String()
		if h := testutil.TerminalHazard(out); h != "" {
			t.Errorf("dry run: %s in\n%q", h, out)
		}
		if gha {
			if cmds := testutil.WorkflowCommandLines(out); cmds != nil {
				t.Errorf("dry run: the runner would act on %q in\n%s", cmds, out)
			}
			checkGolden(t, "hostile.golden", buf.Bytes())
		} else if !strings.Contains(out, "::stop-commands::tok") {
			t.Errorf("without GitHub Actions the text should be shown as it is:\n%s", out)
		}
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDryRunNothingToSend: a document with no prose plans no call for its rules (said once per
// rule), and one above MaxDocumentWords is listed as skipped with its size, the limit and the
// key, and warned about in the totals, whatever the verbosity; neither counts a call.
func TestDryRunNothingToSend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"vectorlint.ini":          "RulesPath = rules\nMaxDocumentWords = 10\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"docs/code.md":            "```sh\nacme deploy\n```\n",
		"docs/big.md":             strings.Repeat("word ", 11) + "\n",
		"docs/ok.md":              "Short prose.\n",
	})
	proj, err := config.LoadProject(config.ProjectOptions{ConfigPath: filepath.Join(dir, "vectorlint.ini")})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{Dir: dir, Paths: []string{"docs"}, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	sum, err := Print(&buf, plan, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := (Summary{Files: 2, Skipped: 1, TooLarge: 1, Calls: 1, Tokens: sum.Tokens}); sum != want || sum.Tokens == 0 {
		t.Errorf("summary = %+v, want %+v", sum, want)
	}
	got := buf.String()
	for _, want := range []string{
		"docs/big.md\n  skipped: too large to send: 11 words of prose, above MaxDocumentWords = 10 (raise MaxDocumentWords in vectorlint.ini to lint it)\n",
		"docs/code.md\n  Acme.Wordiness (semi-objective, warning, strictness 10)\n    no prose to evaluate (empty, or code and markup only): no LLM call, passes\n",
		"\nDry run, no LLM call made: 2 files, 1 LLM call, ~",
		"\nWarning: 1 file above MaxDocumentWords not sent (listed above).\n✓ No findings.\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
