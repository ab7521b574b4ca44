package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
)

const initUsage = `Usage: vectorlint init [--force]

Writes a commented vectorlint.ini and a starter rule pack (rules/Starter) with one
semi-objective and one subjective rule into the current folder. Existing files are never
overwritten unless --force is given.

Flags:
`

// initFile is one file written by init.
type initFile struct {
	path    string // slash-separated, relative to the working directory
	content string
}

func initFiles() []initFile {
	return []initFile{
		{"vectorlint.ini", initConfig},
		{"rules/Starter/wordiness.md", initWordiness},
		{"rules/Starter/headline.md", initHeadline},
	}
}

// runInit is the "init" command.
func (a *app) runInit(ctx context.Context, args []string) int {
	var force bool
	fs := pflag.NewFlagSet("vectorlint init", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&force, "force", false, "overwrite existing files")
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
	if !force {
		var existing []string
		if _, err := os.Stat(filepath.Join(a.dir, ".vectorlint.ini")); err == nil {
			existing = append(existing, ".vectorlint.ini")
		}
		for _, f := range initFiles() {
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
	for _, f := range initFiles() {
		path := filepath.Join(a.dir, filepath.FromSlash(f.path))
		if err := writeFileAtomic(path, []byte(f.content)); err != nil {
			fmt.Fprintf(a.stderr, "vectorlint init: %v\n", err)
			return exitFailure
		}
		fmt.Fprintf(a.stdout, "created %s\n", f.path)
	}
	fmt.Fprint(a.stdout, `
Next steps:
  vectorlint validate              check the configuration and the rules
  vectorlint --dry-run docs/       see which rules run on which files (no LLM call)
  OPENAI_API_KEY=... vectorlint docs/
`)
	return exitOK
}

// writeFileAtomic writes through a temporary file and a rename, so an interrupted init never
// leaves a half-written file.
func writeFileAtomic(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

const initConfig = `# vectorlint configuration. Reference: docs/configuration.md in the vectorlint repository.
#
# Global keys come before the first [section].

# Folder of rule packs, relative to this file. Each subfolder is a pack; each .md file in it is a rule.
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
# The most specific matching section that sets RunRules decides which packs run.
[**/*.{md,mdx}]
RunRules = Starter

# Rule settings for matching files: turn a rule off, change its severity or strictness.
# Starter.Headline = disabled
# Starter.Wordiness.severity = error
# Starter.Wordiness.strictness = strict

# An empty RunRules turns every rule off for matching files.
[drafts/**]
RunRules =
`

const initWordiness = `---
id: Wordiness
name: Wordiness
type: semi-objective
severity: warning
strictness: standard
---

Flag wordy phrases that have a shorter equivalent with the same meaning, for example
"in order to" (use "to"), "due to the fact that" ("because"), "has the ability to" ("can")
and "at this point in time" ("now").

Do not flag a longer phrase when the short form would change the meaning or read awkwardly.
For each violation, quote the exact phrase and give the shorter replacement as the fix.
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
