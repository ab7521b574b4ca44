package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
)

const initUsage = `Usage: vectorlint init [--quick | --full | --style-guide] [--force]

Writes a commented vectorlint.ini that runs the built-in VectorLint pack (docs/presets.md) and
an example pack, rules/Starter, with one semi-objective and one subjective rule, into the
current folder. With --full, also writes a VECTORLINT.md style guide template: its text is sent
to the model with every rule. With --style-guide, writes VECTORLINT.md and a vectorlint.ini that
checks every Markdown file against it (RunRules = VectorLint, StyleGuide; no example pack). With
--quick, writes only VECTORLINT.md: without a vectorlint.ini, every Markdown file is checked
against it (zero-config). Existing files are never overwritten unless --force is given.

Flags:
`

// initFile is one file written by init.
type initFile struct {
	path    string // slash-separated, relative to the working directory
	content string
}

// initMode is what init writes: the configuration and example pack (initConfigOnly), those
// and a style guide (initFull: --full or --style-guide), or only the style guide (initQuick:
// --quick, for zero-config), as the original VectorLint's init --quick and --full do.
type initMode int

const (
	initConfigOnly initMode = iota
	initFull
	initQuick
	// initWithGuide (--style-guide): the guide and a configuration that checks files
	// against it.
	initWithGuide
)

// initFiles returns the files init writes, in the order it writes them.
func initFiles(mode initMode) []initFile {
	guide := initFile{config.StyleGuideFileName, initStyleGuide}
	switch mode {
	case initQuick:
		return []initFile{guide}
	case initWithGuide:
		return []initFile{{"vectorlint.ini", initGuideConfig}, guide}
	}
	files := []initFile{
		{"vectorlint.ini", initConfig},
		{"rules/Starter/acronyms.md", initAcronyms},
		{"rules/Starter/headline.md", initHeadline},
	}
	if mode == initFull {
		files = append(files, guide)
	}
	return files
}

// initOptions are the options of the "init" command.
type initOptions struct {
	force bool     // --force
	mode  initMode // from --quick, --full and --style-guide
	help  string   // the help to print instead of writing, for --help
}

// initCommand is the "init" command.
func (a *app) initCommand(ctx context.Context, args []string) error {
	o, err := parseInit(args)
	if err != nil {
		return a.usageError("vectorlint init", err)
	}
	return a.runInit(ctx, o)
}

// parseInit fills the options of "init" from args and checks them.
func parseInit(args []string) (*initOptions, error) {
	o := &initOptions{}
	var styleGuide, full, quick bool
	fs := pflag.NewFlagSet("vectorlint init", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&o.force, "force", false, "overwrite existing files")
	fs.BoolVar(&quick, "quick", false, "write only a VECTORLINT.md style guide template, for zero-config use")
	fs.BoolVar(&full, "full", false, "write vectorlint.ini, the example pack and a VECTORLINT.md style guide template")
	fs.BoolVar(&styleGuide, "style-guide", false, "write a VECTORLINT.md style guide template and a vectorlint.ini that checks every Markdown file against it")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = initUsage + fs.FlagUsages()
			return o, nil
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.mode = initConfigOnly
	switch {
	case quick && (full || styleGuide):
		return nil, errors.New("--quick writes only VECTORLINT.md: it cannot be combined with --full or --style-guide")
	case full && styleGuide:
		return nil, errors.New("--full and --style-guide write different configurations: choose one")
	case quick:
		o.mode = initQuick
	case full:
		o.mode = initFull
	case styleGuide:
		o.mode = initWithGuide
	}
	return o, nil
}

// runInit writes the project's files as init's options ask.
func (a *app) runInit(ctx context.Context, o *initOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	force, mode := o.force, o.mode
	files := initFiles(mode)
	// init writes the project's files in the working directory, its project root: through one
	// root there, so a committed link in the way (rules/ leading elsewhere) is refused, and a
	// link at a file's own path is replaced (with --force), never written through
	// (spec/trust.md §6).
	root, err := a.openRoot()
	if err != nil {
		fmt.Fprintf(a.stderr, "vectorlint init: %v\n", err)
		return errFailed
	}
	defer root.Close()
	site, docusaurus := findDocusaurus(root, a.dir)
	if docusaurus {
		for i, f := range files {
			if f.path == "vectorlint.ini" {
				files[i].content += site.section()
			}
		}
	}
	_, hiddenErr := root.Lstat(filepath.Join(a.dir, ".vectorlint.ini"))
	hiddenConfig := hiddenErr == nil && mode != initQuick
	if !force {
		var existing []string
		if hiddenConfig {
			existing = append(existing, ".vectorlint.ini")
		}
		for _, f := range files {
			if _, err := root.Lstat(filepath.Join(a.dir, filepath.FromSlash(f.path))); err == nil {
				existing = append(existing, f.path)
			}
		}
		if len(existing) > 0 {
			for _, p := range existing {
				fmt.Fprintf(a.stderr, "vectorlint init: %s already exists\n", p)
			}
			fmt.Fprintln(a.stderr, "vectorlint init: nothing was written; use --force to overwrite")
			return errFailed
		}
	}
	for _, f := range files {
		path := filepath.Join(a.dir, filepath.FromSlash(f.path))
		if err := writeFileAtomic(root, path, []byte(f.content)); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint init: %v\n", err)
			return errFailed
		}
		fmt.Fprintf(a.stdout, "created %s\n", f.path)
		if f.path == "vectorlint.ini" && docusaurus && !site.detect {
			fmt.Fprintf(a.stdout, "  %s: its .md pages are read as MDX ([%s] Format = mdx)\n", site.config, site.glob())
		}
	}
	if hiddenConfig {
		fmt.Fprintln(a.stderr, "vectorlint init: note: .vectorlint.ini is read before vectorlint.ini; remove it to use the new file")
	}
	a.printNextSteps(root, mode)
	return nil
}

// printNextSteps prints what to run after init: they lint README.md when there is one, else the
// folder when it holds a document, else a sentence given on standard input, so each runs as
// printed, even in an empty folder.
func (a *app) printNextSteps(root *tree.Root, mode initMode) {
	// The next steps lint README.md when there is one, else the folder when it holds a
	// document, else a sentence given on standard input: each runs as printed, even in an
	// empty folder.
	target, lintNote := "README.md", ""
	if st, err := root.Stat(filepath.Join(a.dir, "README.md")); err != nil || !st.Mode().IsRegular() {
		target, lintNote = ".", "lint every document here and below"
		docs, _, err := document.Discover(root, a.dir, []string{"."}, []string{filepath.Join(a.dir, "rules")})
		if err != nil || len(docs) == 0 || len(docs) == 1 && filepath.Base(docs[0]) == config.StyleGuideFileName {
			target, lintNote = sampleStdin, ""
		}
	}
	fmt.Fprintln(a.stdout, "\nNext steps:")
	if mode == initQuick {
		// Zero-config applies only where no configuration is found.
		if cfg, err := config.Find(a.dir, "", a.getenv("VECTORLINT_CONFIG")); err == nil {
			fmt.Fprintf(a.stderr, "vectorlint init: note: %s applies here, so %s is sent to the model with its rules instead of being checked on its own; add StyleGuide to its RunRules to check files against the guide\n",
				a.rel(cfg), config.StyleGuideFileName)
		}
		fmt.Fprintf(a.stdout, "  edit %s: your guidelines, one checkable statement each\n", config.StyleGuideFileName)
		sampleNote(a.stdout, target)
		printStep(a.stdout, dryRunStep(target), "see what is checked and the tokens it needs (no LLM call)")
		if target == "README.md" {
			lintNote = "check README.md against " + config.StyleGuideFileName
		}
		printStep(a.stdout, lintStep(target), lintNote)
		return
	}
	fmt.Fprintln(a.stdout, "  vectorlint validate                   check the configuration and list the rules")
	sampleNote(a.stdout, target)
	printStep(a.stdout, dryRunStep(target), "see which rules run and the tokens they need (no LLM call)")
	printStep(a.stdout, lintStep(target), lintNote)
	switch mode {
	case initFull:
		fmt.Fprintf(a.stdout, "  edit %s: its text goes to the model with every rule\n", config.StyleGuideFileName)
	case initWithGuide:
		fmt.Fprintf(a.stdout, "  edit %s: every Markdown file is checked against it (StyleGuide.Compliance) and its text goes to the model with every rule\n", config.StyleGuideFileName)
	}
}

// sampleStdin is the next steps' document when the folder has none: one sentence read from
// standard input, named for the configuration's sections.
const sampleStdin = `echo "In order to start, utilize the tool." | vectorlint --stdin-filename notes.md`

// sampleNote says, before the steps that lint sampleStdin, why they do.
func sampleNote(w io.Writer, target string) {
	if target == sampleStdin {
		fmt.Fprintln(w, "  no document here yet: try a sentence (then name your files or docs folder instead)")
	}
}

// dryRunStep is the next step that shows the plan for target (a path, or sampleStdin).
func dryRunStep(target string) string {
	if target == sampleStdin {
		return strings.Replace(sampleStdin, "vectorlint ", "vectorlint --dry-run ", 1)
	}
	return "vectorlint --dry-run " + target
}

// lintStep is the next step that lints target with a model.
func lintStep(target string) string {
	if target == sampleStdin {
		return strings.Replace(sampleStdin, "vectorlint ", "OPENAI_API_KEY=... vectorlint ", 1)
	}
	return "OPENAI_API_KEY=... vectorlint " + target
}

// printStep prints one next step: the command, and what it does in a column beside it (not
// beside the long commands of sampleStdin, which say what they do in a line before them).
func printStep(w io.Writer, cmd, what string) {
	if what == "" || strings.Contains(cmd, sampleStdin[:10]) {
		fmt.Fprintf(w, "  %s\n", cmd)
		return
	}
	if len(cmd) >= 37 {
		fmt.Fprintf(w, "  %s  %s\n", cmd, what) // two spaces still part the columns
		return
	}
	fmt.Fprintf(w, "  %-37s %s\n", cmd, what)
}

// writeFileAtomic writes through root, a temporary file and a rename, so an interrupted init
// never leaves a half-written file; the file gets mode 0666 less the umask, as an editor would
// give it.
func writeFileAtomic(root *tree.Root, path string, data []byte) error {
	if err := root.MkdirAll(filepath.Dir(path)); err != nil {
		return err
	}
	return root.WriteFile(path, data)
}

const initConfig = `# vectorlint configuration, written by "vectorlint init".
# Reference: docs/configuration.md and docs/presets.md in the vectorlint repository.
#
# Global keys come before the first [section].

# Folder of rule packs, relative to this file. Each subfolder is a pack; each .md file in it is a
# rule. The built-in pack VectorLint needs no folder.
RulesPath = rules

# LLM requests in flight at once across the whole run (default 8).
# Concurrency = 8

# Severity of rules whose frontmatter sets none: warning (default) or error.
# DefaultSeverity = warning

# LLM settings. The environment (LLM_PROVIDER, OPENAI_API_KEY, ...) and the flags
# (--provider, --model, --base-url) override them. API keys are never read from this file.
# Provider = openai
# Model = gpt-4o
# BaseURL = http://localhost:11434/v1
# Temperature = 0.2

# Findings the model reports with a lower confidence are dropped (default 0.75).
# ConfidenceThreshold = 0.75

# Sections: a glob matched against paths relative to this file (** and {a,b} allowed).
# The packs of every matching section add up; rule settings of the most specific section win.
#
# VectorLint is built in: Wordiness, PassiveVoice, InclusiveLanguage, UnsupportedClaims,
# Consistency, Capitalization, Repetition and AIPatterns. Starter is the example pack in
# rules/Starter: edit it, add rules to it, or take it off this list.
# With a VECTORLINT.md style guide, add StyleGuide to check each file against the guide.
# Markdown, MDX, AsciiDoc and reStructuredText are read natively; add html or txt to the
# glob to lint HTML pages and plain text too (docs/configuration.md, "Formats").
[**/*.{md,mdx,markdown,adoc,asciidoc,rst}]
RunRules = VectorLint, Starter

# Rule settings for matching files: turn a rule off, change its severity or strictness.
# VectorLint.PassiveVoice = disabled
# VectorLint.Wordiness.severity = error
# VectorLint.Repetition.strictness = strict
# Starter.Headline = disabled

# Code, URLs, HTML, MDX syntax, math, front matter and AsciiDoc or reStructuredText markup are
# not prose: every rule skips them (the model does not see them). List the kinds to skip, or
# leave it empty to lint everything:
# SkippedScopes = code, inlinecode, urls, html, mdx, math, frontmatter, markup
# Vale-style regexes for more: BlockIgnores (whole lines) and TokenIgnores (inline).
# TokenIgnores = \{%[^%]*%\}

# An empty RunRules turns every rule off for matching files (it clears the packs above).
[drafts/**]
RunRules =

# The style guide is sent to the model with every rule; it is not linted itself.
[**/VECTORLINT.md]
RunRules =
`

// initGuideConfig is the configuration of init --style-guide: the built-in packs, and the
// project's style guide checked as a rule (the StyleGuide pack exists when VECTORLINT.md does).
const initGuideConfig = `# vectorlint configuration, written by "vectorlint init --style-guide".
# Reference: docs/configuration.md and docs/presets.md in the vectorlint repository.
#
# VECTORLINT.md beside this file is your style guide: its text goes to the model with every rule,
# and the StyleGuide pack (built in whenever the guide exists) checks each file against it.

# Folder of your own rule packs, relative to this file (none yet: the packs below are built in).
# RulesPath = rules

# Sections: a glob matched against paths relative to this file (** and {a,b} allowed).
# VectorLint is built in: Wordiness, PassiveVoice, InclusiveLanguage, UnsupportedClaims,
# Consistency, Capitalization, Repetition and AIPatterns. Take it off to check the guide alone.
[**/*.{md,mdx,markdown,adoc,asciidoc,rst}]
RunRules = VectorLint, StyleGuide

# An empty RunRules turns every rule off for matching files (it clears the packs above).
[drafts/**]
RunRules =

# The style guide is not linted itself.
[**/VECTORLINT.md]
RunRules =
`

const initAcronyms = `---
id: Acronyms
name: Acronyms
type: semi-objective
severity: warning
strictness: standard
# Examples test the rule: "vectorlint validate" checks them, and they are never sent to the
# model. {==…==} marks where a finding must land; an example without a mark must get none.
examples:
  - text: "Put the static assets behind a {==CDN==} to cut page load times."
  - text: "Each request passes the {==WAF==} rules before it reaches the app."
  - text: "Put the static assets behind a content delivery network (CDN). The CDN caches them at the edge."
  - text: "Send a JSON body to the API and read the ID from the response."
---

Flag an acronym or initialism at its first use in the text when it is not spelled out there:
"Put the assets behind a CDN" with no "content delivery network (CDN)" before it. Quote the
acronym at its first use; suggest the spelled-out form followed by the acronym in parentheses.

Do not flag:

- acronyms every reader of technical documentation knows: API, URL, HTTP, HTML, CSS, JSON, CLI,
  PDF, ID;
- later uses of an acronym that the text has spelled out once;
- acronyms in headings, code, commands and file names.
`

const initHeadline = `---
id: Headline
name: Headline
type: subjective
severity: warning
target:
  regex: '^#\s+(.+)$'
  flags: mu
  group: 1
  required: true
  suggestion: Give the document a title that says what the reader gains ("# Title", "= Title", an underlined title, <h1>, or title in its front matter).
criteria:
  - id: Clarity
    name: Clarity
    weight: 2
  - id: Specificity
    name: Specificity
    weight: 1
# A subjective rule's examples give the range the score (1-10) and each criterion's rating
# (1-4) must fall in; {==…==} marks the words a low rating must point at.
examples:
  - text: "# {==Everything you need to know==}"
    criteria: {Clarity: [1, 2], Specificity: [1, 2]}
  - text: "# {==Unlock the power of the cloud==}"
    criteria: {Specificity: [1, 2]}
  - text: "# Deploy a static site with the Acme CLI"
    score: [7, 10]
  - text: "# Rotate API keys without downtime"
    score: [7, 10]
---

You review the title (the H1 headline) of a technical document. Rate it on each criterion below.

## RUBRIC

# Clarity <weight=2>

Does the headline say plainly what the document is about?

### Excellent <score=4>
The topic is obvious from the headline alone.

### Good <score=3>
The topic is clear, with a word or two of jargon or filler.

### Fair <score=2>
The reader has to guess part of the topic.

### Poor <score=1>
The headline does not reveal the topic.

# Specificity <weight=1>

Does the headline name a concrete outcome, tool or task instead of a vague promise?

### Excellent <score=4>
Names a concrete outcome or task.

### Good <score=3>
Concrete, but the outcome is implied.

### Fair <score=2>
Generic wording with one concrete element.

### Poor <score=1>
Vague or promotional throughout.
`

const initStyleGuide = `# Style guide

<!-- vectorlint sends this file to the model with every rule. Without a vectorlint.ini, it
checks every Markdown file against it. Replace the examples below with your own guidelines:
one checkable statement each, and keep the file short (it is part of every model call). -->

## Voice and tone

- Address the reader as "you"; "we" is the team that wrote the product.
- Lead with the action or the answer, then explain.
- Use the present tense: "the command creates a file", not "the command will create a file".

## Words

- Write the product name as "Acme Cloud", never "AcmeCloud" or "the Acme cloud".
- Use "sign in" as a verb and "sign-in" as a noun; never "log in" or "login".
- Do not call a task "easy" or "simple", or say "just do X".

## Formatting

- Headings use sentence case: "Configure the server", not "Configure The Server".
- Use numbered lists for steps and bulleted lists for options.
- Put commands, file names and code in backticks.
`
