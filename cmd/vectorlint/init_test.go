package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestInit(t *testing.T) {
	dir := t.TempDir()
	const created = `created vectorlint.ini
created rules/Starter/wordiness.md
created rules/Starter/headline.md

Next steps:
  vectorlint validate              check the configuration and the rules
  vectorlint --dry-run docs/       see which rules run on which files (no LLM call)
  OPENAI_API_KEY=... vectorlint docs/
`
	runVectorlint(t, dir, nil, "", "init").expect(t, exitOK, created, "")
	for _, f := range initFiles() {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.path)))
		if err != nil || string(data) != f.content {
			t.Errorf("%s: not written as expected (%v)", f.path, err)
		}
	}
	// What init writes is valid and lints.
	runVectorlint(t, dir, nil, "", "validate").expect(t, exitOK, `config: vectorlint.ini
rules: rules
pack Starter (2 rules)
  Starter.Headline   subjective      warning  rules/Starter/headline.md
  Starter.Wordiness  semi-objective  warning  rules/Starter/wordiness.md
✓ 1 pack, 2 valid rules, no problems.
`, "")
	writeTestTree(t, dir, map[string]string{"docs/a.md": "# Ship faster\n\nIn order to ship, test.\n", "drafts/b.md": "x\n"})
	if r := runVectorlint(t, dir, nil, "", "--dry-run", "docs", "drafts"); r.code != exitOK || !strings.Contains(r.stdout, "docs/a.md\n  Starter.Headline (subjective, warning)\n") ||
		!strings.Contains(r.stdout, "1 file skipped") {
		t.Errorf("dry run after init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// A second init refuses and changes nothing.
	writeTestTree(t, dir, map[string]string{"vectorlint.ini": "# mine\n"})
	runVectorlint(t, dir, nil, "", "init").expect(t, exitFailure, "", `vectorlint init: vectorlint.ini already exists
vectorlint init: rules/Starter/wordiness.md already exists
vectorlint init: rules/Starter/headline.md already exists
vectorlint init: nothing was written; use --force to overwrite
`)
	if data, _ := os.ReadFile(filepath.Join(dir, "vectorlint.ini")); string(data) != "# mine\n" {
		t.Errorf("init without --force overwrote vectorlint.ini: %q", data)
	}
	runVectorlint(t, dir, nil, "", "init", "--force").expect(t, exitOK, created, "")
	if data, _ := os.ReadFile(filepath.Join(dir, "vectorlint.ini")); string(data) != initConfig {
		t.Error("--force did not overwrite vectorlint.ini")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "rules", "Starter"))
	if len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestInitRefusesHiddenConfig(t *testing.T) {
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{".vectorlint.ini": ""})
	runVectorlint(t, dir, nil, "", "init").expect(t, exitFailure, "",
		"vectorlint init: .vectorlint.ini already exists\nvectorlint init: nothing was written; use --force to overwrite\n")
	runVectorlint(t, dir, nil, "", "init", "extra").expect(t, exitFailure, "",
		"vectorlint init: unexpected argument \"extra\"\nRun \"vectorlint init --help\" for usage.\n")
	if r := runVectorlint(t, dir, nil, "", "init", "--help"); r.code != exitOK || !strings.HasPrefix(r.stdout, "Usage: vectorlint init [--force]\n") {
		t.Errorf("help: exit %d\n%s", r.code, r.stdout)
	}
}
