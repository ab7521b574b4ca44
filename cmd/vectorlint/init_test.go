package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/rules"
)

// initValidateOutput is what validate prints right after a plain init.
const initValidateOutput = `config: vectorlint.ini
rules: rules
pack Starter (2 rules)
  Starter.Acronyms  semi-objective  warning  rules/Starter/acronyms.md
  Starter.Headline  subjective      warning  rules/Starter/headline.md
pack VectorLint (built-in, 8 rules)
  VectorLint.AIPatterns         subjective      warning  (built-in)/VectorLint/ai-patterns.md
  VectorLint.Capitalization     semi-objective  warning  (built-in)/VectorLint/capitalization.md
  VectorLint.Consistency        semi-objective  warning  (built-in)/VectorLint/consistency.md
  VectorLint.InclusiveLanguage  semi-objective  error    (built-in)/VectorLint/inclusive-language.md
  VectorLint.PassiveVoice       semi-objective  warning  (built-in)/VectorLint/passive-voice.md
  VectorLint.Repetition         semi-objective  warning  (built-in)/VectorLint/repetition.md
  VectorLint.UnsupportedClaims  semi-objective  warning  (built-in)/VectorLint/unsupported-claims.md
  VectorLint.Wordiness          semi-objective  warning  (built-in)/VectorLint/wordiness.md
  aliases (the original VectorLint's ids): VectorLint.AIPattern = VectorLint.AIPatterns, VectorLint.Inclusivity = VectorLint.InclusiveLanguage
✓ 2 packs, 10 valid rules, no problems.
`

func TestInit(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const created = `created vectorlint.ini
created rules/Starter/acronyms.md
created rules/Starter/headline.md

Next steps:
  vectorlint validate                   check the configuration and list the rules
  no document here yet: try a sentence (then name your files or docs folder instead)
  echo "In order to start, utilize the tool." | vectorlint --dry-run --stdin-filename notes.md
  echo "In order to start, utilize the tool." | OPENAI_API_KEY=... vectorlint --stdin-filename notes.md
`
	const again = `created vectorlint.ini
created rules/Starter/acronyms.md
created rules/Starter/headline.md

Next steps:
  vectorlint validate                   check the configuration and list the rules
  vectorlint --dry-run README.md        see which rules run and the tokens they need (no LLM call)
  OPENAI_API_KEY=... vectorlint README.md
`
	runVectorlint(t, dir, nil, "", "init").expect(t, exitOK, created, "")
	for _, f := range initFiles(initConfigOnly) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(f.path)))
		if err != nil || string(data) != f.content {
			t.Errorf("%s: not written as expected (%v)", f.path, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "VECTORLINT.md")); !os.IsNotExist(err) {
		t.Errorf("VECTORLINT.md written without --style-guide (%v)", err)
	}
	if !strings.Contains(initConfig, "\n[**/*.{md,mdx,markdown,adoc,asciidoc,rst}]\nRunRules = VectorLint, Starter\n") {
		t.Error("the configuration must run the built-in pack")
	}
	// What init writes is valid, lists the built-in pack and plans a lint.
	runVectorlint(t, dir, nil, "", "validate").expect(t, exitOK, initValidateOutput, "")
	writeTestTree(t, dir, map[string]string{
		"README.md":   "# Ship faster\n\nIn order to ship, test.\n",
		"drafts/b.md": "x\n",
	})
	r := runVectorlint(t, dir, nil, "", "--dry-run", "README.md", "drafts")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("dry run after init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	var ran []string
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(line, "  ") && !strings.HasPrefix(line, "   ") {
			ran = append(ran, strings.Fields(line)[0])
		}
	}
	want := "Starter.Acronyms Starter.Headline VectorLint.AIPatterns VectorLint.Capitalization VectorLint.Consistency " +
		"VectorLint.InclusiveLanguage VectorLint.PassiveVoice VectorLint.Repetition VectorLint.UnsupportedClaims VectorLint.Wordiness"
	if got := strings.Join(ran, " "); got != want || !strings.Contains(r.stdout, "\nDry run, no LLM call made: 1 file, 10 LLM calls, ") ||
		!strings.Contains(r.stdout, "1 file skipped") {
		t.Errorf("dry run after init ran %s\n%s", got, r.stdout)
	}

	// A second init refuses and changes nothing.
	writeTestTree(t, dir, map[string]string{"vectorlint.ini": "# mine\n"})
	runVectorlint(t, dir, nil, "", "init").expect(t, exitFailure, "", `vectorlint init: vectorlint.ini already exists
vectorlint init: rules/Starter/acronyms.md already exists
vectorlint init: rules/Starter/headline.md already exists
vectorlint init: nothing was written; use --force to overwrite
`)
	if data, _ := os.ReadFile(filepath.Join(dir, "vectorlint.ini")); string(data) != "# mine\n" {
		t.Errorf("init without --force overwrote vectorlint.ini: %q", data)
	}
	runVectorlint(t, dir, nil, "", "init", "--force").expect(t, exitOK, again, "") // README.md is here now
	if data, _ := os.ReadFile(filepath.Join(dir, "vectorlint.ini")); string(data) != initConfig {
		t.Error("--force did not overwrite vectorlint.ini")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "rules", "Starter"))
	if len(entries) != 2 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

// TestInitStyleGuide: init --style-guide writes the guide and a configuration whose RunRules
// hold the StyleGuide pack, so every Markdown file is checked against the guide (and the guide
// itself is not); no example pack, no RulesPath to a folder that does not exist.
func TestInitStyleGuide(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const created = `created vectorlint.ini
created VECTORLINT.md

Next steps:
  vectorlint validate                   check the configuration and list the rules
  no document here yet: try a sentence (then name your files or docs folder instead)
  echo "In order to start, utilize the tool." | vectorlint --dry-run --stdin-filename notes.md
  echo "In order to start, utilize the tool." | OPENAI_API_KEY=... vectorlint --stdin-filename notes.md
  edit VECTORLINT.md: every Markdown file is checked against it (StyleGuide.Compliance) and its text goes to the model with every rule
`
	runVectorlint(t, dir, nil, "", "init", "--style-guide").expect(t, exitOK, created, "")
	if data, err := os.ReadFile(filepath.Join(dir, "VECTORLINT.md")); err != nil || string(data) != initStyleGuide {
		t.Fatalf("VECTORLINT.md: %v", err)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "vectorlint.ini")); err != nil || string(data) != initGuideConfig ||
		!strings.Contains(initGuideConfig, "\n[**/*.{md,mdx,markdown,adoc,asciidoc,rst}]\nRunRules = VectorLint, StyleGuide\n") {
		t.Fatalf("vectorlint.ini: %v", err)
	}
	// The guide is found, sent with every rule, run as the StyleGuide pack, and not linted.
	r := runVectorlint(t, dir, nil, "", "validate")
	wantHead := "config: vectorlint.ini\nstyle guide: VECTORLINT.md (~242 tokens, sent with every rule)\nrules: none (RulesPath is not set)\n"
	if r.code != exitOK || r.stderr != "" || !strings.HasPrefix(r.stdout, wantHead) ||
		!strings.Contains(r.stdout, "\npack StyleGuide (built-in, 1 rule)\n  StyleGuide.Compliance  semi-objective  warning  (built-in)/StyleGuide/compliance.md\n") ||
		!strings.HasSuffix(r.stdout, "✓ 2 packs, 9 valid rules, no problems.\n") {
		t.Errorf("validate: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = runVectorlint(t, dir, nil, "", "--dry-run", "--verbose", ".")
	if r.code != exitOK || !strings.Contains(r.stdout, "VECTORLINT.md\n  skipped: RunRules is empty in [**/VECTORLINT.md]\n") {
		t.Errorf("dry run: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	writeTestTree(t, dir, map[string]string{"docs/a.md": "# A\n\nSome text.\n"})
	r = runVectorlint(t, dir, nil, "", "--dry-run", "docs")
	if r.code != exitOK || !strings.Contains(r.stdout, "\n  StyleGuide.Compliance (semi-objective, warning, strictness 10)\n") {
		t.Errorf("the guide is not checked: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}

	// Only the files init would write block it: an existing guide blocks --style-guide alone.
	other := t.TempDir()
	writeTestTree(t, other, map[string]string{"VECTORLINT.md": "# Ours\n"})
	runVectorlint(t, other, nil, "", "init", "--style-guide").expect(t, exitFailure, "",
		"vectorlint init: VECTORLINT.md already exists\nvectorlint init: nothing was written; use --force to overwrite\n")
	if r := runVectorlint(t, other, nil, "", "init"); r.code != exitOK {
		t.Errorf("init beside an existing guide: exit %d\n%s", r.code, r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(other, "VECTORLINT.md")); string(data) != "# Ours\n" {
		t.Errorf("init changed an existing guide: %q", data)
	}
	runVectorlint(t, other, nil, "", "init", "--style-guide", "--force").expect(t, exitOK, created, "")
	if data, _ := os.ReadFile(filepath.Join(other, "VECTORLINT.md")); string(data) != initStyleGuide {
		t.Error("--force did not overwrite VECTORLINT.md")
	}
}

func TestInitRefusesHiddenConfig(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{".vectorlint.ini": ""})
	runVectorlint(t, dir, nil, "", "init").expect(t, exitFailure, "",
		"vectorlint init: .vectorlint.ini already exists\nvectorlint init: nothing was written; use --force to overwrite\n")
	// --force writes vectorlint.ini, and says that the hidden file still wins.
	r := runVectorlint(t, dir, nil, "", "init", "--force")
	if r.code != exitOK || r.stderr != "vectorlint init: note: .vectorlint.ini is read before vectorlint.ini; remove it to use the new file\n" {
		t.Errorf("--force with .vectorlint.ini: exit %d, stderr %q", r.code, r.stderr)
	}
	runVectorlint(t, dir, nil, "", "init", "extra").expect(t, exitFailure, "",
		"vectorlint init: unexpected argument \"extra\"\nRun \"vectorlint init --help\" for usage.\n")
	if r := runVectorlint(t, dir, nil, "", "init", "--help"); r.code != exitOK ||
		!strings.HasPrefix(r.stdout, "Usage: vectorlint init [--quick | --full | --style-guide] [--force]\n") || !strings.Contains(r.stdout, "--style-guide") {
		t.Errorf("help: exit %d\n%s", r.code, r.stdout)
	}
}

// TestInitNextStepsRun runs, for every mode of init in an empty folder, each command of the
// "Next steps" it prints, as printed (a sentence piped in included): each must work there
// (exit 0), the lint step too, with a model configured. With a README.md, the steps name it
// and still work; with other documents and no README.md, they name the folder.
func TestInitNextStepsRun(t *testing.T) {
	t.Parallel()
	step := regexp.MustCompile(`^  (?:echo "([^"]*)" \| )?(OPENAI_API_KEY=\.\.\. )?vectorlint (\S+(?: \S+)*?)(?:\s{2,}.*)?$`)
	srv := llmtest.Start(t)
	// One reply that suits every rule the steps run: no violation, every criterion rated 4.
	var criteria []any
	for _, id := range []string{"Structure", "Vocabulary", "Tone"} {
		criteria = append(criteria, map[string]any{"id": id, "score": 4, "summary": "Fine.", "violations": []any{}})
	}
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}, "criteria": criteria}))
	for _, mode := range []string{"", "--full", "--style-guide", "--quick"} {
		t.Run("init "+mode, func(t *testing.T) {
			for _, doc := range []string{"", "README.md", "docs/a.md"} {
				dir := t.TempDir()
				if doc != "" {
					writeTestTree(t, dir, map[string]string{doc: "# Ship faster\n\nIn order to ship, test.\n"})
				}
				args := []string{"init"}
				if mode != "" {
					args = append(args, mode)
				}
				r := runVectorlint(t, dir, nil, "", args...)
				if r.code != exitOK {
					t.Fatalf("init: exit %d\n%s", r.code, r.stderr)
				}
				_, steps, _ := strings.Cut(r.stdout, "\nNext steps:\n")
				ran := 0
				for _, line := range strings.Split(steps, "\n") {
					m := step.FindStringSubmatch(line)
					if m == nil {
						continue
					}
					stdin, withModel, cmd := m[1], m[2] != "", m[3]
					target := map[string]string{"": "--stdin-filename notes.md", "README.md": "README.md", "docs/a.md": "."}[doc]
					if cmd != "validate" && !strings.HasSuffix(cmd, target) {
						t.Errorf("with %q: step %q does not lint %s", doc, line, target)
					}
					var env map[string]string
					if withModel {
						if doc != "" {
							continue // a real lint of a document needs a model answering every kind of rule
						}
						env = fakeEnv(srv)
					}
					if stdin != "" {
						stdin += "\n"
					}
					if s := runVectorlint(t, dir, env, stdin, strings.Fields(cmd)...); s.code != exitOK {
						t.Errorf("with %q: step %q: exit %d\n%s%s", doc, strings.TrimSpace(line), s.code, s.stdout, s.stderr)
					}
					ran++
				}
				want := 3
				if doc != "" {
					want-- // the lint step is not run
				}
				if mode == "--quick" {
					want-- // no validate step
				}
				if ran != want {
					t.Errorf("with %q: ran %d steps, want %d:\n%s", doc, ran, want, r.stdout)
				}
			}
		})
	}
}

// TestInitDocusaurus: in a Docusaurus site, init writes a section that reads its .md pages as
// MDX, and says so; the starter headline rule then evaluates a page's front matter title, and
// the model is sent neither its imports nor its JSX.
func TestInitDocusaurus(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"docusaurus.config.ts": "export default {\n  presets: [['classic', {docs: {path: 'docs', sidebarPath: './sidebars.ts'}, blog: {}}]],\n};\n",
		"docs/intro.md": "---\ntitle: Install the CLI\nsidebar_position: 1\n---\nimport Tabs from '@theme/Tabs';\n\n" +
			"<Tabs groupId=\"os\">\n\nPick the tab of your system.\n\n</Tabs>\n",
		"blog/2024-01-01-hello.md": "# Hello\n\nA post.\n",
		"src/pages/index.md":       "# Home\n",
	})
	r := runVectorlint(t, dir, nil, "", "init")
	const note = "created vectorlint.ini\n  docusaurus.config.ts: its .md pages are read as MDX ([{blog,docs,src/pages}/**/*.md] Format = mdx)\n"
	if r.code != exitOK || !strings.HasPrefix(r.stdout, note) {
		t.Fatalf("init: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	const section = "\n# Docusaurus (docusaurus.config.ts) reads .md pages as MDX: their imports, JSX components and\n" +
		"# {expressions} are not prose, and their title is in front matter (title:).\n[{blog,docs,src/pages}/**/*.md]\nFormat = mdx\n"
	if data := readFile(t, filepath.Join(dir, "vectorlint.ini")); data != initConfig+section {
		t.Errorf("vectorlint.ini ends with:\n%s", data[len(data)-min(len(data), 400):])
	}
	runVectorlint(t, dir, nil, "", "validate").expect(t, exitOK, initValidateOutput, "")
	if r := runVectorlint(t, dir, nil, "", "ls-config", "docs/intro.md", "blog/2024-01-01-hello.md", "README.md"); !strings.Contains(r.stdout, `"format": "mdx"`) ||
		strings.Count(r.stdout, `"format": "mdx"`) != 2 || !strings.Contains(r.stdout, `"format": "markdown"`) {
		t.Errorf("ls-config:\n%s", r.stdout)
	}

	srv := llmtest.Start(t)
	var criteria []any
	for _, id := range []string{"Clarity", "Specificity", "Structure", "Vocabulary", "Tone"} {
		criteria = append(criteria, map[string]any{"id": id, "score": 4, "summary": "Fine.", "violations": []any{}})
	}
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}, "criteria": criteria}))
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs/intro.md")
	if r.code != exitOK || strings.Contains(r.stdout, "target not found") {
		t.Fatalf("lint: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	headline := 0
	for _, req := range srv.Requests() {
		user := req.LastUser()
		if strings.Contains(user, "import") || strings.Contains(user, "Tabs") {
			t.Errorf("a request holds the page's MDX syntax:\n%s", user)
		}
		if strings.Contains(req.System(), "title (the H1 headline)") {
			headline++
			if !strings.Contains(user, "1\tInstall the CLI") { // numbered from 1 (spec/linter.md §13)
				t.Errorf("the headline rule was sent:\n%s", user)
			}
		}
	}
	if headline != 1 {
		t.Errorf("%d headline calls, want 1", headline)
	}
}

// TestFindDocusaurus: where init finds a Docusaurus site and the folders of its pages.
func TestFindDocusaurus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		files map[string]string
		found bool
		glob  string
		note  string // what the section says, in part
	}{
		{"no site", map[string]string{"docs/a.md": ""}, false, "", ""},
		{"a site in website/, docs only", map[string]string{"website/docusaurus.config.js": "module.exports = {};\n", "website/docs/a.md": ""},
			true, "website/docs/**/*.md", "Format = mdx"},
		{"no content folder yet: docs", map[string]string{"docusaurus.config.mjs": "export default {};\n"}, true, "docs/**/*.md", "Format = mdx"},
		{"a docs path of its own, and one outside the working folder", map[string]string{
			"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {path: 'guides'}}]], plugins: [['x', {path: '../shared'}]]};\n",
			"guides/a.md":          "", "versioned_docs/version-1/a.md": ""},
			true, "{guides,versioned_docs}/**/*.md", "Format = mdx"},
		{"markdown.format detect: a comment only", map[string]string{
			"docusaurus.config.ts": "export default {markdown: {format: 'detect'}};\n", "docs/a.md": ""},
			true, "docs/**/*.md", "# Format = mdx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeTestTree(t, dir, tt.files)
			root, err := tree.Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer root.Close()
			site, found := findDocusaurus(root, dir)
			if found != tt.found {
				t.Fatalf("found %v", found)
			}
			if !found {
				return
			}
			if site.glob() != tt.glob || !strings.Contains(site.section(), tt.note) {
				t.Errorf("glob %q, section:\n%s", site.glob(), site.section())
			}
			if strings.Contains(tt.note, "#") == strings.Contains(site.section(), "\nFormat = mdx") {
				t.Errorf("section:\n%s", site.section())
			}
		})
	}
}

// TestInitStarterExamples: the starter rules init writes carry examples (docs/rules.md, "Examples"),
// at least two to find something in and two to find nothing in, valid as written, and a
// subjective rule's examples set a score or criterion range.
func TestInitStarterExamples(t *testing.T) {
	t.Parallel()
	for _, f := range initFiles(initConfigOnly) {
		if !strings.HasPrefix(f.path, "rules/") {
			continue
		}
		r, ps := rules.Parse(f.path, []byte(f.content))
		if len(ps) != 0 {
			t.Errorf("%s: %v", f.path, ps)
			continue
		}
		find, clean := 0, 0
		for _, ex := range r.Examples {
			if ex.MustFind() {
				find++
			} else {
				clean++
			}
			if r.Type == finding.Subjective && ex.Score == nil && ex.Criteria == nil {
				t.Errorf("%s: example %d sets no range", f.path, ex.Index)
			}
		}
		if find < 2 || clean < 2 {
			t.Errorf("%s: %d examples to find, %d to find nothing in; want at least 2 of each", f.path, find, clean)
		}
	}
}
