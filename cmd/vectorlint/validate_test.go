package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// builtinListing is how validate lists the built-in VectorLint pack.
const builtinListing = `pack VectorLint (built-in, 8 rules)
  VectorLint.AIPatterns         subjective      warning  (built-in)/VectorLint/ai-patterns.md
  VectorLint.Capitalization     semi-objective  warning  (built-in)/VectorLint/capitalization.md
  VectorLint.Consistency        semi-objective  warning  (built-in)/VectorLint/consistency.md
  VectorLint.InclusiveLanguage  semi-objective  error    (built-in)/VectorLint/inclusive-language.md
  VectorLint.PassiveVoice       semi-objective  warning  (built-in)/VectorLint/passive-voice.md
  VectorLint.Repetition         semi-objective  warning  (built-in)/VectorLint/repetition.md
  VectorLint.UnsupportedClaims  semi-objective  warning  (built-in)/VectorLint/unsupported-claims.md
  VectorLint.Wordiness          semi-objective  warning  (built-in)/VectorLint/wordiness.md
  aliases (the original VectorLint's ids): VectorLint.AIPattern = VectorLint.AIPatterns, VectorLint.Inclusivity = VectorLint.InclusiveLanguage
`

func TestValidateExample(t *testing.T) {
	t.Parallel()
	root := testutil.RepoRoot(t)
	runVectorlint(t, root, nil, "", "validate", "--config", "examples/vectorlint.ini").expect(t, exitOK, `config: examples/vectorlint.ini
rules: examples/rules
pack Acme (3 rules)
  Acme.Headline    subjective      warning  examples/rules/Acme/headline.md
  Acme.PlainWords  checklist       warning  examples/rules/Acme/plain-words.md
  Acme.Wordiness   semi-objective  warning  examples/rules/Acme/wordiness.md
`+builtinListing+`✓ 2 packs, 11 valid rules, no problems.
`, "")
	// Config discovery from inside the example; paths outside the working folder are absolute.
	if r := runVectorlint(t, filepath.Join(root, "examples", "docs"), nil, "", "validate"); r.code != exitOK ||
		!strings.HasPrefix(r.stdout, "config: "+filepath.Join(root, "examples", "vectorlint.ini")+"\n") {
		t.Errorf("discovered: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestValidateCorpus validates every real VectorLint rule pack of the shared corpus: only the
// technical-accuracy rule may complain, and only that it needs a search model.
func TestValidateCorpus(t *testing.T) {
	t.Parallel()
	corpus := filepath.Join(testutil.SharedDir(t), "corpus", "vectorlint-rules")
	v211 := filepath.Join(corpus, "v2.1.1")
	runVectorlint(t, v211, nil, "", "validate", "--rules", "rules").expect(t, exitFailure, `rules: rules
pack TinyRocket (4 rules)
  TinyRocket.AIPatterns         subjective      warning  rules/TinyRocket/ai-pattern-evaluator.md
  TinyRocket.GrammarChecker     semi-objective  error    rules/TinyRocket/grammar-checker.md
  TinyRocket.Headline           subjective      error    rules/TinyRocket/headline-evaluator.md
  TinyRocket.TechnicalAccuracy  subjective      error    rules/TinyRocket/technical-accuracy.md
✖ 1 error and 0 warnings (1 pack, 4 valid rules).
`, "rules/TinyRocket/technical-accuracy.md: evaluator: rule TinyRocket.TechnicalAccuracy cannot run: evaluator technical-accuracy needs a search model: set PERPLEXITY_API_KEY, or SEARCH_MODEL with PERPLEXITY_BASE_URL\n")
	withSearch := map[string]string{"PERPLEXITY_API_KEY": "pplx-test"}
	if r := runVectorlint(t, v211, withSearch, "", "validate", "--rules", "rules"); r.code != exitOK || r.stderr != "" {
		t.Errorf("with a search model: exit %d\n%s", r.code, r.stderr)
	}
	presets := runVectorlint(t, filepath.Join(corpus, "head"), nil, "", "validate", "--rules", "presets")
	if presets.code != exitOK || presets.stderr != "" || !strings.HasSuffix(presets.stdout, "✓ 1 pack, 8 valid rules, no problems.\n") {
		t.Errorf("presets: exit %d\n%s%s", presets.code, presets.stdout, presets.stderr)
	}
	fixtures, _ := filepath.Glob(filepath.Join(corpus, "head", "tests", "fixtures", "*", ".vectorlint.ini"))
	if len(fixtures) < 7 {
		t.Fatalf("found %d fixture configs", len(fixtures))
	}
	for _, ini := range fixtures {
		r := runVectorlint(t, filepath.Dir(ini), nil, "", "validate")
		if r.code != exitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "config: .vectorlint.ini\nrules: rules\n") ||
			!strings.HasSuffix(r.stdout, "✓ 2 packs, 9 valid rules, no problems.\n") || !strings.Contains(r.stdout, builtinListing) {
			t.Errorf("%s: exit %d\n%s%s", ini, r.code, r.stdout, r.stderr)
		}
		// The fixture documents plan without an API key.
		if r := runVectorlint(t, filepath.Dir(ini), nil, "", "--dry-run", "."); r.code != exitOK || r.stderr != "" {
			t.Errorf("%s: dry run: exit %d\n%s%s", ini, r.code, r.stdout, r.stderr)
		}
	}
}

func TestValidateBrokenRule(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := lintProject()
	files["rules/Acme/broken.md"] = `---
id: Broken
name: Broken rule
type: subjective
severity: critical
target:
  regex: '^#\s+(.+$'
criteria:
  - id: Clarity
    name: Clarity
    weight: -2
---
# Clarity <weight=3>
`
	files["rules/Acme/advice.md"] = "---\nid: Advice\nname: Advice\ntype: subjective\ncriteria: [{id: Tone, name: Tone, weight: 2}]\n---\n# Tone <weight=1>\n"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, nil, "", "validate")
	r.expect(t, exitFailure, `config: vectorlint.ini
rules: rules
pack Acme (2 rules)
  Acme.Advice    subjective  default severity  rules/Acme/advice.md
  Acme.Headline  subjective  error             rules/Acme/headline.md
`+builtinListing+`✖ 3 errors and 1 warning (2 packs, 10 valid rules).
`, `rules/Acme/advice.md:7: warning: rubric: the weight of "Tone" disagrees with the frontmatter (expected <weight=2> (criteria[0].weight), found <weight=1>)
rules/Acme/broken.md:5: severity: expected "suggestion", "warning" or "error", found "critical"
rules/Acme/broken.md:7: target.regex: expected a valid JavaScript regular expression, found "^#\\s+(.+$" (missing closing ))
rules/Acme/broken.md:11: criteria[0].weight: expected a number greater than 0 and at most 1000000, found -2
`)
	// Warnings alone do not fail validation.
	writeTestTree(t, dir, map[string]string{"rules/Acme/broken.md": "---\nid: Fixed\nname: Fixed\n---\nOk.\n"})
	if r := runVectorlint(t, dir, nil, "", "validate"); r.code != exitOK || !strings.HasSuffix(r.stdout, "✓ 2 packs, 11 valid rules, no errors, 1 warning.\n") {
		t.Errorf("warnings only: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func TestValidateRulesWithConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	writeTestTree(t, dir, map[string]string{"other/Beta/r.md": "---\nid: R\nname: R\n---\nx\n"})
	// --rules replaces RulesPath; with --config the configuration is checked against it.
	r := runVectorlint(t, dir, nil, "", "validate", "--rules", "other", "--config", "vectorlint.ini")
	r.expect(t, exitFailure, "config: vectorlint.ini\nrules: other\npack Beta (1 rule)\n  Beta.R  semi-objective  default severity  other/Beta/r.md\n"+
		builtinListing+"✖ 1 error and 1 warning (2 packs, 9 valid rules).\n",
		"vectorlint.ini:3: RunRules: unknown pack \"Acme\" (packs found in RulesPath: Beta; built-in packs: VectorLint)\n"+
			"vectorlint.ini:5: warning: Acme.Headline.severity: unknown pack \"Acme\" (packs found in RulesPath: Beta; built-in packs: VectorLint); ignored\n")
	runVectorlint(t, dir, nil, "", "validate", "--rules", "missing").expect(t, exitFailure, "",
		"vectorlint validate: cannot read the rules folder: open "+filepath.Join(dir, "missing")+": no such file or directory\n")
}

func TestValidateUsage(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runVectorlint(t, dir, nil, "", "validate", "--help")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "Usage: vectorlint validate [--rules DIR] [--config FILE]\n") || !strings.Contains(r.stdout, "--rules string") {
		t.Errorf("help: exit %d\n%s", r.code, r.stdout)
	}
	runVectorlint(t, dir, nil, "", "validate", "extra").expect(t, exitFailure, "",
		"vectorlint validate: unexpected argument \"extra\"\nRun \"vectorlint validate --help\" for usage.\n")
	runVectorlint(t, dir, nil, "", "validate", "--bogus").expect(t, exitFailure, "",
		"vectorlint validate: unknown flag: --bogus\nRun \"vectorlint validate --help\" for usage.\n")
	if r := runVectorlint(t, dir, nil, "", "validate"); r.code != exitFailure || !strings.HasPrefix(r.stderr, "vectorlint validate: no configuration found") {
		t.Errorf("no config: exit %d %s", r.code, r.stderr)
	}
}

// TestValidateListsAllProblems: an error in the configuration or in a rule file does not hide
// the configuration's references to packs and rules that do not exist; a reference to a rule
// in a pack with a rule file that failed to parse is not reported as unknown (the rule's own
// error is the one to fix).
func TestValidateListsAllProblems(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := lintProject()
	files["vectorlint.ini"] = "RulesPath = rules\nColour = blue\n[**/*.md]\nRunRules = Acme, Acmee\n" +
		"VectorLint.Wordyness.severity = error\nAcme.Broken = disabled\n"
	files["rules/Acme/broken.md"] = "---\nid: Broken\nname: Broken\nseverity: critical\n---\nx\n"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, nil, "", "validate")
	r.expect(t, exitFailure, `config: vectorlint.ini
rules: rules
pack Acme (1 rule)
  Acme.Headline  subjective  error  rules/Acme/headline.md
`+builtinListing+`✖ 3 errors and 1 warning (2 packs, 9 valid rules).
`, `rules/Acme/broken.md:4: severity: expected "suggestion", "warning" or "error", found "critical"
vectorlint.ini:2: Colour: unknown global key (known keys: RulesPath, Concurrency, DefaultSeverity, Provider, Model, BaseURL, Temperature, ConfidenceThreshold, Timeout, CacheMaxSize, MaxDocumentWords, ChunkWords, Samples, Models, RulesPerCall)
vectorlint.ini:4: RunRules: unknown pack "Acmee" (packs found in RulesPath: Acme; built-in packs: VectorLint)
vectorlint.ini:5: warning: VectorLint.Wordyness.severity: pack VectorLint has no rule with id "Wordyness" (did you mean "Wordiness"? its rules: AIPatterns, Capitalization, Consistency, InclusiveLanguage, PassiveVoice, Repetition, UnsupportedClaims, Wordiness); ignored
`)
}

// TestValidateExamples: validate checks every rule's examples (docs/rules.md, "Examples") and lists
// each problem with the rule file, the example's line, its index and the reason; an example
// file below the pack's examples folder is never taken for a rule, and a lint run does not
// start while a rule's examples are broken.
func TestValidateExamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := lintProject()
	files["rules/Acme/wordy.md"] = `---
id: Wordy
name: Wordy
examples:
  - text: "We met {==in order to==} plan the release."
  - text: "We met to plan the release."
  - file: examples/long-page.md
  - text: "We met {==in order to plan."
  - file: ../../secrets.md
  - text: "We met to plan."
    score: [7, 10]
---
Flag wordy phrases.
`
	files["rules/Acme/examples/long-page.md"] = "# Release notes\n\nWe met {==in order to==} plan.\n"
	files["secrets.md"] = "not part of any pack\n"
	writeTestTree(t, dir, files)
	const problems = `rules/Acme/wordy.md:8: examples[3].text: markers out of place in the text, line 1, column 8: "{==" is never closed by "==}"
rules/Acme/wordy.md:9: examples[4].file: expected a file inside the pack, found "../../secrets.md", outside it
rules/Acme/wordy.md:11: examples[5].score: score and criteria ranges apply only to subjective rules (expected no score on a semi-objective rule (mark the spans to find with {==…==}), found [7, 10])
`
	r := runVectorlint(t, dir, nil, "", "validate")
	r.expect(t, exitFailure, `config: vectorlint.ini
rules: rules
pack Acme (1 rule)
  Acme.Headline  subjective  error  rules/Acme/headline.md
`+builtinListing+`✖ 3 errors and 0 warnings (2 packs, 9 valid rules).
`, problems)
	runVectorlint(t, dir, nil, "", "--dry-run", "docs").expect(t, exitFailure, "", problems)

	// Fixed, the rule and its examples are valid; the example file is not a rule.
	writeTestTree(t, dir, map[string]string{"rules/Acme/wordy.md": "---\nid: Wordy\nname: Wordy\nexamples:\n" +
		"  - text: \"We met {==in order to==} plan the release.\"\n  - file: examples/long-page.md\n---\nFlag wordy phrases.\n"})
	r = runVectorlint(t, dir, nil, "", "validate")
	if r.code != exitOK || r.stderr != "" || !strings.Contains(r.stdout, "pack Acme (2 rules)\n") ||
		!strings.HasSuffix(r.stdout, "✓ 2 packs, 10 valid rules, no problems.\n") {
		t.Errorf("fixed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}
