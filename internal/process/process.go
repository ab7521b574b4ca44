// Package process is what happens to a file's result after evaluation: one ordered list of
// processors (docs/how-it-works.md), in the manner of golangci-lint's result processors. Each
// processor is a value with a name that takes a file's result and returns it changed; the list
// is made in one place, New, and runs in this order:
//
//	changed-lines  --changed-lines: findings and unverified quotes on changed lines only, the
//	               scores of rules sent part of the file marked partial
//	min-severity   --min-alert-level: findings below it are neither shown nor counted
//	baseline       --baseline: findings accepted in the baseline file hidden and counted;
//	               --write-baseline: every finding recorded for the new baseline file
//	fixer          --fix: the findings' fixes applied; what they leave goes on
//	summary        the run's one summary, counted from what the processors before it left
//
// The engine (lint.Evaluate, lint.Run) runs the list on each file's result before emitting it,
// so every output — the report, the fixes, the exit code, the editor's diagnostics — sees the
// same findings.
package process

import (
	"slices"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/fix"
	"github.com/vectorlint/vectorlint/internal/baseline"
)

// Processor is one step after evaluation.
type Processor interface {
	// Name is the processor's name in the list (docs/how-it-works.md).
	Name() string
	// Process returns the file's result as this step leaves it. An error stops the run.
	Process(fr finding.FileResult) (finding.FileResult, error)
}

// List is an ordered list of processors.
type List []Processor

// Options choose what the processors of New do; zero values leave results as they are.
type Options struct {
	// Changed returns the changed lines of a file by its path (nil: the whole file counts).
	Changed func(path string) *Changed
	// MinSeverity is --min-alert-level (zero keeps every finding).
	MinSeverity finding.Severity
	// Baseline is the --baseline file being applied (nil without one).
	Baseline *baseline.Set
	// Record receives the findings for --write-baseline (nil without it).
	Record *baseline.Recorder
	// Fix is the --fix session (nil without --fix).
	Fix *fix.Session
	// Summary receives the run's summary (nil counts nothing).
	Summary *finding.Summary
}

// New is the one ordered list of processors after evaluation.
func New(o Options) List {
	return List{
		ChangedLines{Of: o.Changed},
		MinSeverity{Level: o.MinSeverity},
		Baseline{Set: o.Baseline, Record: o.Record},
		Fixer{Session: o.Fix},
		Summary{Into: o.Summary},
	}
}

// Process runs fr through every processor of the list, in order.
func (l List) Process(fr finding.FileResult) (finding.FileResult, error) {
	for _, p := range l {
		var err error
		if fr, err = p.Process(fr); err != nil {
			return fr, err
		}
	}
	return fr, nil
}

// Names are the processors' names, in order.
func (l List) Names() []string {
	names := make([]string, len(l))
	for i, p := range l {
		names[i] = p.Name()
	}
	return names
}

// Lines are a file's changed lines (internal/gitdiff's Lines).
type Lines interface {
	// Contains reports whether line is changed.
	Contains(line int) bool
	// Overlaps reports whether a line from first to last is changed.
	Overlaps(first, last int) bool
}

// Changed is what --changed-lines keeps of a file: its changed lines, and the rules whose texts
// were sent in part (their scores are marked partial).
type Changed struct {
	Lines   Lines
	Partial map[string]bool
}

// ChangedLines keeps a file's findings on its changed lines (--changed-lines): a finding whose
// lines overlap a changed line, an unverified quote on a changed line or without a line; the
// scores of rules sent part of the file are marked partial.
type ChangedLines struct {
	// Of returns a file's changed lines by its path (nil, or a nil result: the whole file).
	Of func(path string) *Changed
}

// Name is "changed-lines".
func (ChangedLines) Name() string { return "changed-lines" }

// Process keeps what is on changed lines.
func (c ChangedLines) Process(fr finding.FileResult) (finding.FileResult, error) {
	if c.Of == nil {
		return fr, nil
	}
	ch := c.Of(fr.Path)
	if ch == nil {
		return fr, nil
	}
	findings := fr.Findings[:0:0]
	for _, f := range fr.Findings {
		last := f.End.Line
		if last > f.Start.Line && f.End.Column == 1 {
			last-- // the finding ends with its line's break
		}
		if ch.Lines.Overlaps(f.Start.Line, max(last, f.Start.Line)) {
			findings = append(findings, f)
		}
	}
	fr.Findings = findings
	var unverified []finding.Unverified
	for _, u := range fr.Unverified {
		if u.Line == 0 || ch.Lines.Contains(u.Line) {
			unverified = append(unverified, u)
		}
	}
	fr.Unverified = unverified
	if len(ch.Partial) > 0 {
		fr.Scores = slices.Clone(fr.Scores)
		for i := range fr.Scores {
			if ch.Partial[fr.Scores[i].Rule] {
				fr.Scores[i].Partial = true
			}
		}
	}
	return fr, nil
}

// MinSeverity leaves out the findings below a severity (--min-alert-level): they are neither
// shown nor counted.
type MinSeverity struct {
	// Level is the lowest severity kept (zero keeps every finding).
	Level finding.Severity
}

// Name is "min-severity".
func (MinSeverity) Name() string { return "min-severity" }

// Process drops the findings below the level.
func (m MinSeverity) Process(fr finding.FileResult) (finding.FileResult, error) {
	if m.Level == finding.SeverityUnset || !slices.ContainsFunc(fr.Findings, func(f finding.Finding) bool { return f.Severity < m.Level }) {
		return fr, nil
	}
	var kept []finding.Finding
	for _, f := range fr.Findings {
		if f.Severity >= m.Level {
			kept = append(kept, f)
		}
	}
	fr.Findings = kept
	return fr, nil
}

// Baseline applies a baseline file (--baseline) and records one (--write-baseline), after the
// findings are chosen and before they are fixed and counted: a hidden finding is neither
// reported, nor fixed, nor in the exit code; it is counted in FileResult.Baselined. Its
// fingerprint needs the file's text (the run keeps it: lint.EvalOptions.KeepSource).
type Baseline struct {
	// Set is the baseline applied (nil: nothing is hidden).
	Set *baseline.Set
	// Record receives every finding (nil: nothing is recorded).
	Record *baseline.Recorder
}

// Name is "baseline".
func (Baseline) Name() string { return "baseline" }

// Process records fr's findings, then hides those the baseline accepts.
func (b Baseline) Process(fr finding.FileResult) (finding.FileResult, error) {
	if b.Record != nil {
		b.Record.Add(fr)
	}
	if b.Set != nil {
		var n int
		fr, n = b.Set.Hide(fr)
		fr.Baselined += n
	}
	return fr, nil
}

// Fixer applies a file's fixes (--fix) through a fix.Session: rewrites the file, prints its
// diff or its fixed text, logs what was applied; the findings the fixes did not remove go on.
type Fixer struct {
	// Session is the --fix session (nil: no fixing, results pass through).
	Session *fix.Session
}

// Name is "fixer".
func (Fixer) Name() string { return "fixer" }

// Process applies fr's fixes and returns what they leave.
func (f Fixer) Process(fr finding.FileResult) (finding.FileResult, error) {
	if f.Session == nil {
		return fr, nil
	}
	return f.Session.Apply(fr)
}

// Summary counts each file's result into the run's summary: the one place it is computed.
type Summary struct {
	// Into receives the counts (nil counts nothing).
	Into *finding.Summary
}

// Name is "summary".
func (Summary) Name() string { return "summary" }

// Process adds fr to the summary and returns it unchanged.
func (s Summary) Process(fr finding.FileResult) (finding.FileResult, error) {
	if s.Into != nil {
		s.Into.Add(fr)
	}
	return fr, nil
}
