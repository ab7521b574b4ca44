package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// zeroConfigTree is a project with a style guide and no vectorlint.ini.
func zeroConfigTree() map[string]string {
	return map[string]string{
		"VECTORLINT.md":    "# Guide\n\n- Address the reader as \"you\".\n- Headings use sentence case.\n",
		"docs/intro.md":    "# Getting Started\n\nThe user installs the CLI.\n",
		"docs/api.mdx":     "# API\n\nCall the endpoint.\n",
		"docs/notes.txt":   "plain notes\n",
		"docs/drafts/x.md": "# Draft\n",
	}
}

func TestZeroConfigCLI(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, zeroConfigTree())
	runVectorlint(t, dir, nil, "", "validate").expect(t, exitOK, `config: none (zero-config: every Markdown file is checked against VECTORLINT.md)
style guide: VECTORLINT.md (~18 tokens, sent with every rule)
rules: none (RulesPath is not set)
pack StyleGuide (built-in, 1 rule)
  StyleGuide.Compliance  semi-objective  warning  (built-in)/StyleGuide/compliance.md
✓ 1 pack, 1 valid rule, no problems.
`, "")
	r := runVectorlint(t, dir, nil, "", "--dry-run", "--verbose", ".")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	checkCLIGolden(t, "dry-run-zero-config.golden", r.stdout)

	// The guide must be in the working directory: from docs/, nothing is found.
	docs := filepath.Join(dir, "docs")
	runVectorlint(t, docs, nil, "", "validate").expect(t, exitFailure, "",
		"vectorlint validate: no configuration found: looked for .vectorlint.ini and vectorlint.ini in "+docs+
			" and every parent folder, and for VECTORLINT.md in "+docs+
			", and no --config or VECTORLINT_CONFIG was given; run \"vectorlint init\" to create one\n")

	// An empty guide has nothing to check against.
	writeTestTree(t, dir, map[string]string{"VECTORLINT.md": "\n"})
	runVectorlint(t, dir, nil, "", "--dry-run", "docs").expect(t, exitFailure, "",
		"VECTORLINT.md: style guide: expected your writing guidelines in prose (vectorlint init --style-guide writes a template), found an empty file\n")
	runVectorlint(t, dir, nil, "", "validate").expect(t, exitFailure, `config: none (zero-config: every Markdown file is checked against VECTORLINT.md)
style guide: VECTORLINT.md (empty)
rules: none (RulesPath is not set)
✖ 1 error and 0 warnings (0 packs, 0 valid rules).
`, "VECTORLINT.md: style guide: expected your writing guidelines in prose (vectorlint init --style-guide writes a template), found an empty file\n")
}

// TestStyleGuideWithConfig checks that a guide beside the configuration is found from a
// subfolder, and that a long guide is warned about on every lint, not only with --verbose.
func TestStyleGuideWithConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "[**/*.md]\nRunRules = VectorLint\nVectorLint.AIPatterns = disabled\nVectorLint.Capitalization = disabled\n" +
			"VectorLint.Consistency = disabled\nVectorLint.InclusiveLanguage = disabled\nVectorLint.PassiveVoice = disabled\n" +
			"VectorLint.Repetition = disabled\nVectorLint.UnsupportedClaims = disabled\n",
		"VECTORLINT.md": "Use \"you\".\n",
		"docs/a.md":     "# A\n\nIn order to start, read this.\n",
	})
	docs := filepath.Join(dir, "docs")
	r := runVectorlint(t, docs, nil, "", "validate")
	if r.code != exitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "config: "+filepath.Join(dir, "vectorlint.ini")+
		"\nstyle guide: "+filepath.Join(dir, "VECTORLINT.md")+" (~3 tokens, sent with every rule)\nrules: none (RulesPath is not set)\n") {
		t.Errorf("validate from docs/: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	const warning = "VECTORLINT.md: warning: style guide: about 4,502 tokens, more than 4,000: the guide is sent with every rule on every file, so every model call pays for it; keep it short and turn detailed checks into rules\n"
	writeTestTree(t, dir, map[string]string{"VECTORLINT.md": strings.Repeat("Write short sentences.\n", 783)})
	for _, args := range [][]string{{"--dry-run", "docs"}, {"--dry-run", "--verbose", "docs"}} {
		r := runVectorlint(t, dir, nil, "", args...)
		if r.code != exitOK || r.stderr != warning || !strings.Contains(r.stdout, "  VectorLint.Wordiness (semi-objective, warning, strictness 10)\n") {
			t.Errorf("%v: exit %d, stderr %q\n%s", args, r.code, r.stderr, r.stdout)
		}
	}
	r = runVectorlint(t, dir, nil, "", "validate")
	if r.code != exitOK || r.stderr != warning || !strings.HasSuffix(r.stdout, "✓ 2 packs, 9 valid rules, no errors, 1 warning.\n") {
		t.Errorf("validate: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
}

// TestUserPackReplacesBuiltin checks the note shown when RulesPath has a pack named VectorLint:
// always in validate, only with --verbose when linting.
func TestUserPackReplacesBuiltin(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":            "RulesPath = styles\n[**/*.md]\nRunRules = VectorLint\n",
		"styles/VectorLint/ours.md": "---\nid: Ours\nname: Our rule\nseverity: error\n---\nFlag the word \"utilize\".\n",
		"a.md":                      "# A\n",
	})
	const note = "styles/VectorLint: note: pack VectorLint replaces the built-in pack of the same name\n"
	runVectorlint(t, dir, nil, "", "validate").expect(t, exitOK, `config: vectorlint.ini
rules: styles
pack VectorLint (1 rule)
  VectorLint.Ours  semi-objective  error  styles/VectorLint/ours.md
✓ 1 pack, 1 valid rule, no problems.
`, note)
	r := runVectorlint(t, dir, nil, "", "--dry-run", "a.md")
	if r.code != exitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, "a.md\n  VectorLint.Ours (semi-objective, error, strictness 10)\n") {
		t.Errorf("dry run: exit %d, stderr %q\n%s", r.code, r.stderr, r.stdout)
	}
	if r := runVectorlint(t, dir, nil, "", "--dry-run", "--verbose", "a.md"); r.stderr != note {
		t.Errorf("verbose dry run: stderr %q, want the note", r.stderr)
	}
}
