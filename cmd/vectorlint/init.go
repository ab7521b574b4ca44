package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/atomicfile"
	"github.com/vectorlint/vectorlint/lint"
)

const initUsage = `Usage: vectorlint init [--quick | --full | --style-guide] [--force]

Writes a commented vectorlint.ini that runs the built-in VectorLint pack (docs/presets.md) and
an example pack, rules/Starter, with one semi-objective and one subjective rule, into the
current folder. With --full (or --style-guide), also writes a VECTORLINT.md style guide
template: its text is sent to the model with every rule. With --quick, writes only
VECTORLINT.md: without a vectorlint.ini, every Markdown file is checked against it
(zero-config). Existing files are never overwritten unless --force is given.

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
)

// initFiles returns the files init writes, in the order it writes them.
func initFiles(mode initMode) []initFile {
	guide := initFile{lint.StyleGuideFileName, initStyleGuide}
	if mode == initQuick {
		return []initFile{guide}
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

// runInit is the "init" command.
func (a *app) runInit(ctx context.Context, args []string) int {
	var force, styleGuide, full, quick bool
	fs := pflag.NewFlagSet("vectorlint init", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&force, "force", false, "overwrite existing files")
	fs.BoolVar(&quick, "quick", false, "write only a VECTORLINT.md style guide template, for zero-config use")
	fs.BoolVar(&full, "full", false, "write vectorlint.ini, the example pack and a VECTORLINT.md style guide template")
	fs.BoolVar(&styleGuide, "style-guide", false, "the same as --full")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			fmt.Fprint(a.stdout, initUsage+fs.FlagUsages())
			return exitOK
		}
		return a.usageError("vectorlint init", err)
	}
	if fs.NArg() > 0 {
		return a.usageError("vectorlint init", fmt.Errorf("unexpected argument %q", fs.Arg(0)))
	}
	mode := initConfigOnly
	switch {
	case quick && (full || styleGuide):
		return a.usageError("vectorlint init", errors.New("--quick writes only VECTORLINT.md: it cannot be combined with --full or --style-guide"))
	case quick:
		mode = initQuick
	case full || styleGuide:
		mode = initFull
	}
	files := initFiles(mode)
	_, hiddenErr := os.Lstat(filepath.Join(a.dir, ".vectorlint.ini"))
	hiddenConfig := hiddenErr == nil && mode != initQuick
	if !force {
		var existing []string
		if hiddenConfig {
			existing = append(existing, ".vectorlint.ini")
		}
		for _, f := range files {
			if _, err := os.Lstat(filepath.Join(a.dir, filepath.FromSlash(f.path))); err == nil {
				existing = append(existing, f.path)
			}
		}
		if len(existing) > 0 {
			for _, p := range existing {
				fmt.Fprintf(a.stderr, "vectorlint init: %s already exists\n", p)
			}
			fmt.Fprintln(a.stderr, "vectorlint init: nothing was written; use --force to overwrite")
			return exitFailure
		}
	}
	for _, f := range files {
		path := filepath.Join(a.dir, filepath.FromSlash(f.path))
		if err := writeFileAtomic(path, []byte(f.content)); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint init: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(a.stdout, "created %s\n", f.path)
	}
	if hiddenConfig {
		fmt.Fprintln(a.stderr, "vectorlint init: note: .vectorlint.ini is read before vectorlint.ini; remove it to use the new file")
	}
	if mode == initQuick {
		// Zero-config applies only where no configuration is found.
		if cfg, err := lint.FindConfig(a.dir, "", a.getenv("VECTORLINT_CONFIG")); err == nil {
			fmt.Fprintf(a.stderr, "vectorlint init: note: %s applies here, so %s is sent to the model with its rules instead of being checked on its own; add StyleGuide to its RunRules to check files against the guide\n",
				a.rel(cfg), lint.StyleGuideFileName)
		}
		fmt.Fprintf(a.stdout, initQuickNextSteps, lint.StyleGuideFileName)
		return exitOK
	}
	fmt.Fprint(a.stdout, initNextSteps)
	if mode == initFull {
		fmt.Fprintf(a.stdout, "  edit %s: its text goes to the model with every rule\n", lint.StyleGuideFileName)
	}
	return exitOK
}

// initQuickNextSteps is printed after init --quick (%s is the style guide's name).
const initQuickNextSteps = `
Next steps:
  edit %[1]s: your guidelines, one checkable statement each
  vectorlint --dry-run README.md        see what is checked and the tokens it needs (no LLM call)
  OPENAI_API_KEY=... vectorlint README.md   check README.md against %[1]s
`

// initNextSteps is printed after the files init wrote.
const initNextSteps = `
Next steps:
  vectorlint validate                   check the configuration and list the rules
  vectorlint --dry-run README.md        see which rules run and the tokens they need (no LLM call)
  OPENAI_API_KEY=... vectorlint README.md
`

// writeFileAtomic writes through a temporary file and a rename, so an interrupted init never
// leaves a half-written file; the file gets mode 0666 less the umask, as an editor would give it.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	return atomicfile.Write(path, data)
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
[**/*.{md,mdx,markdown}]
RunRules = VectorLint, Starter

# Rule settings for matching files: turn a rule off, change its severity or strictness.
# VectorLint.PassiveVoice = disabled
# VectorLint.Wordiness.severity = error
# VectorLint.Repetition.strictness = strict
# Starter.Headline = disabled

# Code, URLs, HTML, MDX syntax, math and TOML front matter are not prose: every rule skips them
# (the model does not see them). List the kinds to skip, or leave it empty to lint everything:
# SkippedScopes = code, inlinecode, urls, html, mdx, math, frontmatter
# Vale-style regexes for more: BlockIgnores (whole lines) and TokenIgnores (inline).
# TokenIgnores = \{%[^%]*%\}

# An empty RunRules turns every rule off for matching files (it clears the packs above).
[drafts/**]
RunRules =

# The style guide is sent to the model with every rule; it is not linted itself.
[**/VECTORLINT.md]
RunRules =
`

const initAcronyms = `---
id: Acronyms
name: Acronyms
type: semi-objective
severity: warning
strictness: standard
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
  suggestion: Start the document with a "# Title" line that says what the reader gains.
criteria:
  - id: Clarity
    name: Clarity
    weight: 2
  - id: Specificity
    name: Specificity
    weight: 1
---

You review the H1 headline of a technical document. Rate it on each criterion below.

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
