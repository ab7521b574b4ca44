package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Configurations, environments and command lines written for the original VectorLint
// (TRocket-Labs/vectorlint) run here unchanged (spec/linter.md §1–§2, docs/migrating.md). Each
// test names the file of the original it reproduces.

// originalConfigExample is the "Complete Example" of the original's CONFIGURATION.md (v2.1.1),
// byte for byte. It writes TechnicalAccuracy.threshold, a setting no version of the original
// reads.
const originalConfigExample = `# vectorlint.ini

# [Global Settings]
# Directory containing your rule packs (Required)
RulesPath=.github/rules
# Number of concurrent evaluations (Default: 4)
Concurrency=4
# Default severity for violations (Default: warning)
DefaultSeverity=warning

# [File Patterns]
# Map file patterns to rule packs and apply overrides

# All markdown files - run "Acme" rule pack
[**/*.md]
RunRules=Acme
# Override strictness for the GrammarChecker rule
GrammarChecker.strictness=7

# Technical documentation - run "Acme" pack with higher standards
[content/docs/**/*.md]
RunRules=Acme
# Higher strictness for docs
GrammarChecker.strictness=9
# Require a higher score for technical accuracy
TechnicalAccuracy.threshold=8.0

# Marketing content - run "TechCorp" pack
[content/marketing/**/*.md]
RunRules=TechCorp
BrandVoice.strictness=8

# Drafts - skip all rules
[content/drafts/**/*.md]
RunRules=
`

// originalExampleProject is originalConfigExample with the packs it names.
func originalExampleProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": originalConfigExample,
		".github/rules/Acme/grammar-checker.md": "---\nid: GrammarChecker\nname: Grammar Checker\nseverity: error\n---\n" +
			"Check this content for grammar issues.\n",
		".github/rules/Acme/technical-accuracy.md": "---\nid: TechnicalAccuracy\nname: Technical Accuracy\ntype: subjective\n" +
			"criteria: [{id: Accuracy, name: Accuracy}]\n---\nRate the accuracy.\n",
		".github/rules/TechCorp/brand-voice.md": "---\nid: BrandVoice\nname: Brand Voice\n---\nCheck the brand voice.\n",
		"content/docs/a.md":                     "# Install\n\nRun the installer.\n",
	}
}

// thresholdWarning is the warning the example's TechnicalAccuracy.threshold gets.
const thresholdWarning = `vectorlint.ini:26: warning: TechnicalAccuracy.threshold: vectorlint has no setting "threshold" for rule "TechnicalAccuracy" (a rule's settings are severity and strictness, and Pack.Rule = disabled or enabled); ignored` + "\n"

// TestOriginalConfigExampleRuns: the original's own example configuration (CONFIGURATION.md)
// validates and lints; the key that names no setting is one warning naming the key and its
// line, printed by validate and, once, by a lint run without --verbose.
func TestOriginalConfigExampleRuns(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Grammar Checker">`), llmtest.JSON(map[string]any{"violations": []any{}}))
	srv.On(llmtest.SystemContains(`<rule name="Technical Accuracy">`), llmtest.JSON(map[string]any{"criteria": []any{
		map[string]any{"id": "Accuracy", "name": "Accuracy", "score": 4, "summary": "Accurate.", "violations": []any{}}}}))
	dir := t.TempDir()
	writeTestTree(t, dir, originalExampleProject())

	v := runVectorlint(t, dir, nil, "", "validate")
	if v.code != exitOK || v.stderr != thresholdWarning || !strings.HasSuffix(v.stdout, "✓ 3 packs, 11 valid rules, no errors, 1 warning.\n") {
		t.Errorf("validate: exit %d\n%s\nstderr:\n%s", v.code, v.stdout, v.stderr)
	}
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "content/docs/a.md")
	if r.code != exitOK || r.stderr != thresholdWarning {
		t.Errorf("lint: exit %d, stderr:\n%s\nwant:\n%s", r.code, r.stderr, thresholdWarning)
	}
	if got := decodeJSON(t, r.stdout); len(got.Files) != 1 || len(got.Files[0].Scores) != 2 || srv.Calls() != 2 {
		t.Errorf("lint: %d calls, output:\n%s", srv.Calls(), r.stdout)
	}
}

// TestOverrideWarnings: override keys the original accepts and ignores are warnings naming the
// key and its line (spec/linter.md §2); a value vectorlint cannot read for a setting it has,
// and a misspelt global key, stay errors (exit 2, no call).
func TestOverrideWarnings(t *testing.T) {
	t.Parallel()
	rulesFiles := map[string]string{
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\ncriteria: [{id: Clarity, name: Clarity}]\n---\nRate it.\n",
		"rules/Acme/plain.md":    "---\nid: Plain\nname: Plain\nshould: [$not_icontains: utilize]\n---\nPlain words.\n",
		"rules/Acme/wordy.md":    "---\nid: Wordy\nname: Wordy\n---\nFlag wordy phrases.\n",
		"a.md":                   "# A\n\nText.\n",
	}
	tests := []struct {
		name, ini string
		code      int
		stderr    string
	}{
		{name: "the original's documentation (docs/configuration-schema.mdx): Clarity.threshold",
			ini: "RulesPath = rules\n[**/*.md]\nRunRules = Acme\nClarity.threshold=9\n", code: exitOK,
			stderr: `vectorlint.ini:4: warning: Clarity.threshold: vectorlint has no setting "threshold" for rule "Clarity" (a rule's settings are severity and strictness, and Pack.Rule = disabled or enabled); ignored` + "\n"},
		{name: "the original's resolver test (tests/scanpaths-refactor.test.ts): Technical.enabled = true",
			ini: "RulesPath = rules\n[**/*.md]\nRunRules = Acme\nTechnical.enabled = true\n", code: exitOK,
			stderr: `vectorlint.ini:4: warning: Technical.enabled: vectorlint has no setting "enabled" for rule "Technical": a rule is turned on or off with Pack.Rule = enabled or disabled; ignored` + "\n"},
		{name: "the original's config-loader test (tests/config-loader-integration.test.ts): strictness = 7, naming no rule",
			ini: "RulesPath = rules\n[**/*.md]\nRunRules = Acme\nstrictness = 7\n", code: exitOK,
			stderr: "vectorlint.ini:4: warning: strictness: names no rule (a rule's strictness is set with Pack.Rule.strictness or Rule.strictness); ignored\n"},
		{name: "strictness on a subjective rule and on a checklist rule",
			ini: "RulesPath = rules\n[**/*.md]\nRunRules = Acme\nAcme.Headline.strictness = strict\nPlain.strictness = 5\nWordy.strictness = 5\n", code: exitOK,
			stderr: "vectorlint.ini:4: warning: Acme.Headline.strictness: strictness has no effect on Acme.Headline: a subjective rule is scored from its criteria's ratings; ignored\n" +
				"vectorlint.ini:5: warning: Plain.strictness: strictness has no effect on Acme.Plain: a checklist rule is scored by the coverage of its points; ignored\n"},
		{name: "a rule no pack has, an unknown pack, a setting with a typo",
			ini: "RulesPath = rules\n[**/*.md]\nRunRules = Acme\nAcme.Wordyy = disabled\nTechCorp.Voice.severity = error\nAcme.Wordy.severty = error\n", code: exitOK,
			stderr: `vectorlint.ini:4: warning: Acme.Wordyy: pack Acme has no rule with id "Wordyy" (did you mean "Wordy"? its rules: Headline, Plain, Wordy); ignored` + "\n" +
				`vectorlint.ini:5: warning: TechCorp.Voice.severity: unknown pack "TechCorp" (packs found in RulesPath: Acme; built-in packs: VectorLint); ignored` + "\n" +
				`vectorlint.ini:6: warning: Acme.Wordy.severty: vectorlint has no setting "severty" for rule "Acme.Wordy" (a rule's settings are severity and strictness, and Pack.Rule = disabled or enabled) (did you mean "severity"?); ignored` + "\n"},
		{name: "a bad value for a setting vectorlint has stays an error",
			ini: "RulesPath = rules\n[**/*.md]\nRunRules = Acme\nAcme.Wordy = off\nAcme.Wordy.severity = fatal\n", code: exitFailure,
			stderr: `vectorlint.ini:4: Acme.Wordy: expected "disabled" or "enabled", found "off"` + "\n" +
				`vectorlint.ini:5: Acme.Wordy.severity: expected "suggestion", "warning" or "error", found "fatal"` + "\n"},
		{name: "a misspelt global key stays an error",
			ini: "RulesPath = rules\nConcurrancy = 4\n[**/*.md]\nRunRules = Acme\n", code: exitFailure,
			stderr: `vectorlint.ini:2: Concurrancy: unknown global key (did you mean "Concurrency"?)` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t, llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{}})))
			srv.On(llmtest.SystemContains(`<rule name="Headline">`), llmtest.JSON(map[string]any{"criteria": []any{
				map[string]any{"id": "Clarity", "name": "Clarity", "score": 4, "summary": "Clear.", "violations": []any{}}}}))
			dir := t.TempDir()
			writeTestTree(t, dir, rulesFiles)
			writeTestTree(t, dir, map[string]string{"vectorlint.ini": tt.ini})
			r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "a.md")
			if r.code != tt.code || r.stderr != tt.stderr {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", r.code, r.stderr, tt.code, tt.stderr)
			}
			if tt.code == exitFailure && srv.Calls() != 0 {
				t.Errorf("%d calls made by a run that cannot start", srv.Calls())
			}
		})
	}
}

// TestOriginalPresetIDs: the ids of the original's presets (presets/VectorLint in its 2.4 and
// later: AIPattern, Inclusivity) name the built-in rules vectorlint calls AIPatterns and
// InclusiveLanguage; findings keep vectorlint's ids.
func TestOriginalPresetIDs(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{}})))
	srv.On(llmtest.SystemContains(`<rule name="Inclusive language">`), llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "chairman", "line": 3, "message": `Say "chair".`, "confidence": 0.9}}}))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "[**/*.md]\nRunRules = VectorLint\nVectorLint.AIPattern = disabled\nInclusivity.severity = warning\n",
		"a.md":           "# Minutes\n\nThe chairman opened the meeting.\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "a.md")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	got := decodeJSON(t, r.stdout)
	if f := got.Files[0].Findings; len(f) != 1 || f[0].Rule != "VectorLint.InclusiveLanguage" || f[0].Severity != "warning" {
		t.Errorf("findings: %+v", f)
	}
	for _, req := range srv.Requests() {
		if strings.Contains(req.System(), `<rule name="AI-sounding patterns">`) {
			t.Error("VectorLint.AIPattern = disabled did not turn VectorLint.AIPatterns off")
		}
	}
	if n := len(got.Files[0].Scores); n != 7 || srv.Calls() != 7 {
		t.Errorf("%d scores, %d calls; want 7 rules", n, srv.Calls())
	}
}

// techAccuracyProject has the original's technical-accuracy rule (the shared corpus's
// v2.1.1/rules/TinyRocket/technical-accuracy.md) with its placeholders written with spaces
// inside the braces, and a semi-objective technical-accuracy rule.
func techAccuracyProject(t *testing.T) map[string]string {
	t.Helper()
	orig, err := os.ReadFile(filepath.Join(testutil.SharedDir(t), "corpus", "vectorlint-rules", "v2.1.1", "rules", "TinyRocket", "technical-accuracy.md"))
	if err != nil {
		t.Fatal(err)
	}
	spaced := strings.NewReplacer("{{content}}", "{{ content }}", "{{claims}}", "{{  claims }}", "{{searchResults}}", "{{searchResults }}").Replace(string(orig))
	return map[string]string{
		"vectorlint.ini":                         "RulesPath = rules\n[**/*.md]\nRunRules = TinyRocket\n",
		"rules/TinyRocket/technical-accuracy.md": spaced,
		"rules/TinyRocket/facts.md":              "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\n---\nFlag claims the evidence contradicts.\n",
		"docs/go.md":                             "Go 1.0 shipped in 2009.\n",
		"docs/opinion.md":                        "Writing docs is fun.\n",
	}
}

// TestTechnicalAccuracyPlaceholdersWithSpaces: "{{ claims }}" is a placeholder as "{{claims}}"
// is, as the original's template renderer reads it ("should handle variables with whitespace in
// placeholders", tests/template-renderer.test.ts; /\{\{(\s*[\w.]+\s*)\}\}/ in
// src/prompts/template-renderer.ts).
func TestTechnicalAccuracyPlaceholdersWithSpaces(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	search := llmtest.Start(t)
	srv.On(llmtest.All(llmtest.SystemContains("You extract factual claims"), llmtest.UserContains("2009")), llmtest.JSON(map[string]any{"claims": []any{
		map[string]any{"claim": "Go 1.0 was released in 2009.", "quoted_text": "Go 1.0 shipped in 2009", "line": 1}}}))
	srv.On(llmtest.SystemContains(`<rule name="Technical Accuracy">`), llmtest.JSON(map[string]any{"criteria": []any{
		map[string]any{"id": "AccuracyRatio", "name": "Accuracy Ratio", "score": 1, "summary": "Wrong year.", "violations": []any{
			map[string]any{"quoted_text": "2009", "line": 1, "message": "Go 1.0 was released in 2012."}}}}}))
	srv.On(llmtest.SystemContains(`<rule name="Facts">`), llmtest.JSON(map[string]any{"violations": []any{}}))
	search.On(llmtest.Any(), llmtest.Text("Contradicted: Go 1.0 was released in March 2012."))
	dir := t.TempDir()
	writeTestTree(t, dir, techAccuracyProject(t))
	env := fakeEnv(srv)
	env["PERPLEXITY_BASE_URL"], env["PERPLEXITY_API_KEY"] = search.URL, "pplx-test"
	r := runVectorlint(t, dir, env, "", "--output", "json", "docs/go.md")
	if r.code != exitFindings {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var system string
	for _, req := range srv.Requests() {
		if strings.Contains(req.System(), `<rule name="Technical Accuracy">`) {
			system = req.System()
		}
	}
	for _, want := range []string{
		"**Content:**\n(the text in the user message)\n",
		"**Claims to Verify:**\n1. Go 1.0 was released in 2009. (line 1: \"Go 1.0 shipped in 2009\")\n",
		"**Search Evidence:**\n1. Go 1.0 was released in 2009.\nContradicted: Go 1.0 was released in March 2012.\n",
	} {
		if !strings.Contains(system, want) {
			t.Errorf("the rule's prompt lacks %q:\n%s", want, system)
		}
	}
	if strings.Contains(system, "{{") {
		t.Errorf("a placeholder is left in the prompt:\n%s", system)
	}
}

// TestTechnicalAccuracyNoClaims: a text without checkable claims costs one call per rule (the
// extraction): no search and no second call, and the rule passes with a perfect score, as the
// original's evaluator returns ("should return perfect score when no claims are found",
// tests/scoring-types.test.ts of its v2.5.0; src/evaluators/accuracy-evaluator.ts).
func TestTechnicalAccuracyNoClaims(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	search := llmtest.Start(t)
	srv.On(llmtest.SystemContains("You extract factual claims"), llmtest.JSON(map[string]any{"claims": []any{}}))
	dir := t.TempDir()
	writeTestTree(t, dir, techAccuracyProject(t))
	env := fakeEnv(srv)
	env["PERPLEXITY_BASE_URL"], env["PERPLEXITY_API_KEY"] = search.URL, "pplx-test"
	r := runVectorlint(t, dir, env, "", "--output", "json", "docs/opinion.md")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got := decodeJSON(t, r.stdout)
	scores := got.Files[0].Scores
	if len(scores) != 2 || scores[0].Rule != "TinyRocket.Facts" || scores[0].Score != 10 ||
		scores[1].Rule != "TinyRocket.TechnicalAccuracy" || scores[1].Score != 10 || len(got.Files[0].Findings) != 0 {
		t.Errorf("result: %+v", got.Files[0])
	}
	if srv.Calls() != 2 || search.Calls() != 0 {
		t.Errorf("%d model calls and %d searches, want 2 claim extractions and no search", srv.Calls(), search.Calls())
	}
	for _, req := range srv.Requests() {
		if !strings.Contains(req.System(), "You extract factual claims") {
			t.Errorf("a call other than the claim extraction:\n%s", req.System())
		}
	}
}

// TestEmptyQuoteIsUnverified: a violation with an empty quoted_text is one unverified quote,
// and the reply's other violations are kept and scored, as in the original: its locator finds
// no place for an empty quote and the finding processor keeps the rest ("counts only verified
// findings toward the score", tests/findings/processor.test.ts;
// tests/findings/finding-evidence-verifier.test.ts). No retry, no error.
func TestEmptyQuoteIsUnverified(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "", "line": 3, "message": "Vague wording.", "confidence": 0.9},
		map[string]any{"quoted_text": "in order to", "line": 3, "message": `Say "to".`, "confidence": 0.9},
	}}))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"a.md":                    "# Setup\n\nRun setup in order to start.\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "a.md")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	got := decodeJSON(t, r.stdout)
	f := got.Files[0]
	if len(f.Findings) != 1 || f.Findings[0].Match != "in order to" || f.Findings[0].Line != 3 ||
		len(f.Unverified) != 1 || f.Unverified[0].Message != "Vague wording." || f.Unverified[0].Quote != "" ||
		len(f.Errors) != 0 || got.Summary.Unverified != 1 || got.Summary.OperationalErrors != 0 {
		t.Errorf("result: %+v, summary %+v", f, got.Summary)
	}
	// One violation in 8 words at standard strictness: the unverified quote does not count.
	if len(f.Scores) != 1 || f.Scores[0].Score != 0 || *f.Scores[0].Violations != 1 || *f.Scores[0].Words != 8 {
		t.Errorf("score: %+v", f.Scores)
	}
	if srv.Calls() != 1 {
		t.Errorf("%d calls, want 1 (no retry)", srv.Calls())
	}
}

// TestAnthropicEnvironment reproduces the original's Anthropic settings (src/schemas/env-schemas.ts;
// tests/env-parser.test.ts, "uses default values for optional Anthropic fields" and "validates
// temperature ranges correctly for each provider") through the command and the request bodies
// the server sees: the key alone works (a default model, max_tokens 4096), ANTHROPIC_MAX_TOKENS
// sets max_tokens, and ANTHROPIC_TEMPERATURE above 1 stops the run before any call with an
// error naming the variable.
func TestAnthropicEnvironment(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		env       map[string]string
		code      int
		stderr    string
		model     string
		maxTokens int64
		temp      float64
	}{
		{name: "the key alone", env: map[string]string{}, code: exitOK, model: "claude-sonnet-4-5", maxTokens: 4096, temp: 0.2},
		{name: "max tokens, model and temperature",
			env:  map[string]string{"ANTHROPIC_MAX_TOKENS": "2048", "ANTHROPIC_MODEL": "claude-3-haiku-20240307", "ANTHROPIC_TEMPERATURE": "0.5"},
			code: exitOK, model: "claude-3-haiku-20240307", maxTokens: 2048, temp: 0.5},
		{name: "temperature above Anthropic's range", env: map[string]string{"ANTHROPIC_TEMPERATURE": "1.5"}, code: exitFailure,
			stderr: `vectorlint: ANTHROPIC_TEMPERATURE: expected a number between 0 and 1 (Anthropic's range), found "1.5"` + "\n"},
		{name: "max tokens not a number", env: map[string]string{"ANTHROPIC_MAX_TOKENS": "lots"}, code: exitFailure,
			stderr: `vectorlint: ANTHROPIC_MAX_TOKENS: expected a whole number of tokens from 1 to 1000000, found "lots"` + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t, llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{}})))
			dir := t.TempDir()
			writeTestTree(t, dir, map[string]string{
				"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
				"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
				"a.md":                    "# A\n\nText.\n",
			})
			env := map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": testAPIKey, "ANTHROPIC_BASE_URL": srv.URL}
			for k, v := range tt.env {
				env[k] = v
			}
			r := runVectorlint(t, dir, env, "", "--no-cache", "a.md")
			if r.code != tt.code || (tt.code == exitFailure && r.stderr != tt.stderr) {
				t.Fatalf("exit %d, stderr:\n%s\nwant exit %d, stderr:\n%s", r.code, r.stderr, tt.code, tt.stderr)
			}
			r.noKey(t)
			reqs := srv.Requests()
			if tt.code == exitFailure {
				if len(reqs) != 0 {
					t.Errorf("%d calls made by a run that cannot start", len(reqs))
				}
				return
			}
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			req := reqs[0]
			if req.Model != tt.model || req.MaxTokens == nil || *req.MaxTokens != tt.maxTokens || req.Temperature == nil || *req.Temperature != tt.temp {
				t.Errorf("request: model %q, max_tokens %v, temperature %v; want %q, %d, %v", req.Model, deref64(req.MaxTokens), derefF(req.Temperature),
					tt.model, tt.maxTokens, tt.temp)
			}
		})
	}
}

func deref64(p *int64) any {
	if p == nil {
		return nil
	}
	return *p
}

func derefF(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestVersionFlags: -V and --version print a version number, as the original's
// (commander's .version(), src/index.ts) do; never "dev" (spec/linter.md §1). A test binary
// has neither stamped values nor version control information, so the commit is unknown.
func TestVersionFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	want := "vectorlint " + sourceVersion + " (commit unknown)\n"
	for _, args := range [][]string{{"--version"}, {"-V"}, {"version"}, {"-V", "docs"}} {
		runVectorlint(t, dir, nil, "", args...).expect(t, exitOK, want, "")
	}
	if sourceVersion == "dev" || !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(sourceVersion) {
		t.Errorf("sourceVersion %q is not a version number", sourceVersion)
	}
	tests := []struct {
		module, want string
		ok           bool
	}{
		{"v1.2.3", "1.2.3", true},
		{"v2.0.0-rc.1", "2.0.0-rc.1", true},
		{"v1.2.3+incompatible", "1.2.3", true},
		{"(devel)", "", false},
		{"", "", false},
		{"v0.0.0-20250102150405-abcdef123456", "", false},
		{"v0.1.1-0.20250102150405-abcdef123456+dirty", "", false},
		{"v1.2.4-rc.1.0.20250102150405-abcdef123456", "", false},
	}
	for _, tt := range tests {
		if got, ok := releaseVersion(tt.module); got != tt.want || ok != tt.ok {
			t.Errorf("releaseVersion(%q) = %q, %v; want %q, %v", tt.module, got, ok, tt.want, tt.ok)
		}
	}
}

// TestVerboseShortFlag: -v is --verbose, as in the original (src/cli/commands.ts:
// .option('-v, --verbose')).
func TestVerboseShortFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	writeTestTree(t, dir, map[string]string{"notes.txt": "x\n"})
	long := runVectorlint(t, dir, nil, "", "--dry-run", "--verbose", ".")
	short := runVectorlint(t, dir, nil, "", "--dry-run", "-v", ".")
	if long.code != exitFindings || short != long || !strings.Contains(short.stdout, "notes.txt\n  skipped: no section of vectorlint.ini matches\n") {
		t.Errorf("-v: exit %d\n%s%s\n--verbose: exit %d\n%s%s", short.code, short.stdout, short.stderr, long.code, long.stdout, long.stderr)
	}
}

// TestShowPromptTrunc: --show-prompt-trunc prints each message cut to 500 characters, marked
// "... [truncated]", as the original's provider does (src/providers/vercel-ai-provider.ts).
func TestShowPromptTrunc(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{}})))
	dir := t.TempDir()
	long := strings.Repeat("word ", 200) // 1,000 characters
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"a.md":                    "# A\n\n" + long + "\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--show-prompt-trunc", "a.md")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	req := srv.Requests()[0]
	wantUser := setup.CutPrompt(req.LastUser(), 500)
	if !strings.HasSuffix(wantUser, "\n... [truncated]") || utf8.RuneCountInString(strings.TrimSuffix(wantUser, "\n... [truncated]")) != 500 {
		t.Fatalf("setup.CutPrompt: %q", wantUser)
	}
	want := "── system\n" + setup.CutPrompt(req.Messages[0].Content, 500) + "\n── user\n" + wantUser +
		"\n── system\n" + setup.CutPrompt(req.Messages[2].Content, 500) + "\n── end of prompt\n"
	if !strings.Contains(r.stderr, want) || strings.Contains(r.stderr, long) {
		t.Errorf("stderr:\n%s\nwant it to contain:\n%s", r.stderr, want)
	}
	if setup.CutPrompt("short", 500) != "short" || setup.CutPrompt("héllo", 2) != "hé\n... [truncated]" {
		t.Error("setup.CutPrompt cuts by characters and only what is longer")
	}
}

// TestProjectDirective: .vectorlint/directive.md is sent with every rule, with {{file_type}}
// replaced by the file's extension, as the original does ("returns override from .vectorlint
// when present", tests/directive-loader.test.ts; "replaces {{file_type}} with the extension when
// provided", tests/request-builder.test.ts). It is found in the working directory, else beside
// the configuration; validate shows it and --dry-run counts it.
func TestProjectDirective(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{}})))
	dir := t.TempDir()
	const directive = "Review as a {{file_type}} page. Ignore code samples.\n"
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":           "RulesPath = rules\n[**/*.{md,mdx}]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md":  "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		".vectorlint/directive.md": directive,
		"docs/a.mdx":               "# A\n\nText.\n",
		"docs/b.md":                "# B\n\nText.\n",
	})
	// From a subfolder, the directive beside the configuration is used.
	r := runVectorlint(t, filepath.Join(dir, "docs"), fakeEnv(srv), "", "--no-cache", "a.mdx", "b.md")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	var got []string
	for _, req := range srv.Requests() {
		sys := req.System()
		i, j := strings.Index(sys, "<directive>"), strings.Index(sys, "</directive>")
		if i < 0 || j < i || strings.Index(sys, `<rule name="Wordiness">`) < j {
			t.Fatalf("no directive before the rule:\n%s", sys)
		}
		got = append(got, sys[i:j+len("</directive>")])
	}
	sort.Strings(got)
	want := []string{"<directive>\nReview as a .md page. Ignore code samples.\n</directive>", "<directive>\nReview as a .mdx page. Ignore code samples.\n</directive>"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("directives sent: %q\nwant %q", got, want)
	}

	v := runVectorlint(t, dir, nil, "", "validate")
	if v.code != exitOK || !strings.HasPrefix(v.stdout, "config: vectorlint.ini\ndirective: .vectorlint/directive.md (~13 tokens, sent with every rule)\nrules: rules\n") {
		t.Errorf("validate: exit %d\n%s%s", v.code, v.stdout, v.stderr)
	}

	// The dry run's estimate counts it: 400 more characters are 100 more tokens per call.
	tokens := func() string {
		r := runVectorlint(t, dir, nil, "", "--dry-run", "docs/b.md")
		return regexp.MustCompile(`~[\d,]+ input tokens`).FindString(r.stdout)
	}
	writeTestTree(t, dir, map[string]string{".vectorlint/directive.md": "x"})
	before := tokens()
	writeTestTree(t, dir, map[string]string{".vectorlint/directive.md": "x" + strings.Repeat("y", 400)})
	after := tokens()
	if before == "" || after == "" || before == after {
		t.Fatalf("estimates %q and %q", before, after)
	}
	var b, a int
	fmt.Sscanf(strings.TrimPrefix(before, "~"), "%d", &b)
	fmt.Sscanf(strings.TrimPrefix(after, "~"), "%d", &a)
	if a-b != 100 {
		t.Errorf("the estimate grew by %d tokens, want 100 (%s, %s)", a-b, before, after)
	}

	// An empty directive is ignored, with a warning printed without --verbose.
	writeTestTree(t, dir, map[string]string{".vectorlint/directive.md": "\n"})
	r = runVectorlint(t, dir, nil, "", "--dry-run", "docs/b.md")
	if r.code != exitOK || r.stderr != ".vectorlint/directive.md: warning: directive: empty file: no directive is sent; ignored\n" {
		t.Errorf("empty directive: exit %d\n%s", r.code, r.stderr)
	}
}

// TestDebugJSON: --debug-json writes, per file and rule, the raw model output and the filter
// stage's decision on each violation, in a new folder under .vectorlint/runs, as the original's
// debug artifacts do (src/debug/run-artifact.ts: run_id, timestamp, file, model, prompt,
// raw_model_output, filter_decisions, surfaced_violations; src/cli/commands.ts
// --debug-json). The folder is named on standard error.
func TestDebugJSON(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, engineProject())
	start := time.Date(2025, 1, 2, 15, 4, 5, 0, time.UTC)
	run := func() cliResult {
		var stdout, stderr bytes.Buffer
		env := fakeEnv(srv)
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, now: func() time.Time { return start }}
		code := a.run(context.Background(), []string{"--no-cache", "--debug-json", "--output", "json", "docs"})
		return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	}
	r := run()
	runDir := filepath.Join(dir, ".vectorlint", "runs", "20250102T150405.000Z")
	if r.code != exitFindings || r.stderr != "vectorlint: debug JSON written to .vectorlint/runs/20250102T150405.000Z\n" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	entries, err := os.ReadDir(runDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if want := "docs_guide.md.Acme.Headline.json docs_guide.md.Acme.StrictWordiness.json docs_guide.md.Acme.Wordiness.json"; strings.Join(names, " ") != want {
		t.Errorf("files: %v\nwant %s", names, want)
	}
	data, err := os.ReadFile(filepath.Join(runDir, "docs_guide.md.Acme.Wordiness.json"))
	if err != nil {
		t.Fatal(err)
	}
	checkCLIGolden(t, "debug-json-wordiness.golden", string(data))
	var rec lint.DebugRecord
	if err := json.Unmarshal(data, &rec); err != nil {
		t.Fatal(err)
	}
	var decisions []string
	for _, d := range rec.FilterDecisions {
		decisions = append(decisions, d.Decision)
	}
	if got := strings.Join(decisions, " "); got != "kept kept low_confidence unverified" || len(rec.SurfacedViolations) != 2 ||
		len(rec.RawModelOutput) != 1 || rec.Model == nil || rec.Model.Name != "test-model" {
		t.Errorf("decisions %s, %d surfaced, %d outputs, model %+v", got, len(rec.SurfacedViolations), len(rec.RawModelOutput), rec.Model)
	}
	// The fenced reply is kept as the model wrote it (text, not JSON).
	if data, _ := os.ReadFile(filepath.Join(runDir, "docs_guide.md.Acme.StrictWordiness.json")); !strings.Contains(string(data), "\"output\": \"```json\\n{") {
		t.Errorf("the fenced reply is not kept as written:\n%s", data)
	}
	// A second run in the same millisecond gets a folder of its own.
	if r := run(); r.code != exitFindings || r.stderr != "vectorlint: debug JSON written to .vectorlint/runs/20250102T150405.000Z-2\n" {
		t.Errorf("second run: exit %d, stderr:\n%s", r.code, r.stderr)
	}

	// A repository that makes .vectorlint/runs a link out of the working directory stops the
	// run before any call.
	outside := t.TempDir()
	other := t.TempDir()
	writeTestTree(t, other, engineProject())
	if err := os.MkdirAll(filepath.Join(other, ".vectorlint"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(other, ".vectorlint", "runs")); err != nil {
		t.Fatal(err)
	}
	calls := srv.Calls()
	r = runVectorlint(t, other, fakeEnv(srv), "", "--no-cache", "--debug-json", "docs")
	// Refused before anything is created (spec/trust.md §6).
	want := "vectorlint: --debug-json: mkdir " + filepath.Join(other, ".vectorlint", "runs") + ": a symbolic link leading outside the project root " + other + "\n"
	if r.code != exitFailure || r.stderr != want || srv.Calls() != calls {
		t.Errorf("link out: exit %d, %d calls, stderr:\n%s\nwant:\n%s", r.code, srv.Calls()-calls, r.stderr, want)
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
}

// TestInitQuickAndFull reproduces the original's init modes (tests/style-guide/init-command.test.ts:
// "--quick: creates only VECTORLINT.md", "--full: creates both files", "respects existing files
// without --force"): --quick writes only the style guide, after which every Markdown file is
// checked against it (zero-config); --full writes the configuration, the example pack and the
// guide.
func TestInitQuickAndFull(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	runVectorlint(t, dir, nil, "", "init", "--quick").expect(t, exitOK, `created VECTORLINT.md

Next steps:
  edit VECTORLINT.md: your guidelines, one checkable statement each
  no document here yet: try a sentence (then name your files or docs folder instead)
  echo "In order to start, utilize the tool." | vectorlint --dry-run --stdin-filename notes.md
  echo "In order to start, utilize the tool." | OPENAI_API_KEY=... vectorlint --stdin-filename notes.md
`, "")
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "VECTORLINT.md" {
		t.Errorf("--quick wrote %v", entries)
	}
	writeTestTree(t, dir, map[string]string{"README.md": "# Hello\n"})
	if r := runVectorlint(t, dir, nil, "", "--dry-run", "README.md"); r.code != exitOK || !strings.Contains(r.stdout, "StyleGuide.Compliance") {
		t.Errorf("zero-config after --quick: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	runVectorlint(t, dir, nil, "", "init", "--quick").expect(t, exitFailure, "",
		"vectorlint init: VECTORLINT.md already exists\nvectorlint init: nothing was written; use --force to overwrite\n")
	runVectorlint(t, dir, nil, "", "init", "--quick", "--full").expect(t, exitFailure, "",
		"vectorlint init: --quick writes only VECTORLINT.md: it cannot be combined with --full or --style-guide\nRun \"vectorlint init --help\" for usage.\n")

	full := t.TempDir()
	r := runVectorlint(t, full, nil, "", "init", "--full")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "created vectorlint.ini\ncreated rules/Starter/acronyms.md\ncreated rules/Starter/headline.md\ncreated VECTORLINT.md\n") {
		t.Errorf("--full: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, f := range initFiles(initFull) {
		if data, err := os.ReadFile(filepath.Join(full, filepath.FromSlash(f.path))); err != nil || string(data) != f.content {
			t.Errorf("%s: not written as expected (%v)", f.path, err)
		}
	}
	// --quick where a configuration is used says that the guide goes with its rules instead.
	r = runVectorlint(t, filepath.Join(full, "rules"), nil, "", "init", "--quick")
	if r.code != exitOK || r.stderr != "vectorlint init: note: "+filepath.Join(full, "vectorlint.ini")+
		" applies here, so VECTORLINT.md is sent to the model with its rules instead of being checked on its own; add StyleGuide to its RunRules to check files against the guide\n" {
		t.Errorf("--quick beside a configuration: exit %d\n%s", r.code, r.stderr)
	}
}

// TestGlobalConfigEnv checks the original's global configuration through the command
// (tests/global-config.test.ts: "should load global config and inject env vars", "should NOT
// overwrite existing env vars"): the [env] table of ~/.vectorlint/config.toml configures the
// provider, and a variable of the process environment wins over it (src/index.ts: "CLI/Shell >
// Local.env > Global Config").
func TestGlobalConfigEnv(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t, llmtest.WithDefault(llmtest.JSON(map[string]any{"violations": []any{}})))
	home, dir := t.TempDir(), t.TempDir()
	writeTestTree(t, home, map[string]string{".vectorlint/config.toml": "[env]\nLLM_PROVIDER = \"openai\"\nOPENAI_API_KEY = \"" + testAPIKey + "\"\n" +
		"OPENAI_BASE_URL = \"" + srv.URL + "\"\nOPENAI_MODEL = \"global-model\"\nOPENAI_TEMPERATURE = 0.5\n"})
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"a.md":                    "# A\n\nText.\n",
	})
	for _, tt := range []struct {
		env   map[string]string
		model string
	}{
		{map[string]string{"HOME": home}, "global-model"},
		{map[string]string{"HOME": home, "OPENAI_MODEL": "process-model"}, "process-model"},
	} {
		srv.Reset()
		r := runVectorlint(t, dir, tt.env, "", "--no-cache", "a.md")
		reqs := srv.Requests()
		if r.code != exitOK || len(reqs) != 1 || reqs[0].Model != tt.model || reqs[0].Temperature == nil || *reqs[0].Temperature != 0.5 {
			t.Errorf("env %v: exit %d, %d requests, stderr:\n%s", tt.env, r.code, len(reqs), r.stderr)
		} else if reqs[0].Header.Get("Authorization") != "Bearer "+testAPIKey {
			t.Errorf("the key from config.toml was not sent")
		}
	}
}
