package fix

import (
	"fmt"
	"io"
	"strconv"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// Mode is what a Session does with the fixes.
type Mode int

// Modes of a Session.
const (
	// ModeWrite rewrites each file with its fixes (vectorlint --fix).
	ModeWrite Mode = iota
	// ModeDiff prints a unified diff of each file's fixes and writes nothing (--fix=diff).
	ModeDiff
	// ModePrint prints each file's fixed text (the document read from standard input, for editors
	// and pre-commit: --fix --stdin-filename NAME).
	ModePrint
)

// Session applies the fixes of a lint run file by file, as lint.Run emits the results (pass
// File as lint.RunOptions.File; the run needs lint.EvalOptions.KeepSource), and counts what is
// left. Each file with fixes gets a line on Log ("docs/a.md: 2 fixes applied, 1 skipped") and a
// line per skipped fix; a file that could not be rewritten gets its error there. Out receives
// the diffs (ModeDiff) or the fixed texts (ModePrint). In ModeWrite the findings the fixes did not
// remove go on to Report (a report.Writer's File), so the report shows what is left.
type Session struct {
	Mode Mode
	Out  io.Writer
	Log  io.Writer
	// Report receives each file's result with the findings left (ModeWrite; may be nil).
	Report func(finding.FileResult) error
	// Root is the project root files are rewritten through (ModeWrite): a file outside it, or
	// reached through a link leading out of it, is never written (spec/trust.md §6).
	Root *tree.Root

	// Left totals the files' results with the findings left: the command's exit code and the
	// report's totals come from it.
	Left finding.Summary
	// Applied and Skipped count the fixes, Duplicates the findings whose fix was the same change
	// as an applied one (fixed by it); Files the files with an applied fix; Failed the files that
	// could not be rewritten.
	Applied, Duplicates, Skipped, Files, Failed int
	// Printed tells whether ModePrint printed a text: not when the document was skipped or
	// could not be read, and the caller then prints it unchanged.
	Printed bool
}

// File handles one linted file: applies its fixes (Apply), counts the findings left in Left
// and, in ModeWrite, passes them on to Report. A lint run does not call it: its processors
// (internal/process) call Apply and count the summary once, after the fixer.
func (s *Session) File(fr finding.FileResult) error {
	left, err := s.Apply(fr)
	if err != nil {
		return err
	}
	s.Left.Add(left)
	if s.Mode == ModeWrite && s.Report != nil {
		return s.Report(left)
	}
	return nil
}

// Apply handles one linted file: applies its fixes, writes, prints or diffs the result, logs
// what was applied and skipped, and returns the file's result with the findings left (without
// its source).
func (s *Session) Apply(fr finding.FileResult) (finding.FileResult, error) {
	o := File(s.Root, fr, s.Mode == ModeWrite)
	if o.Err == nil { // a file not rewritten has nothing applied
		s.Applied += len(o.Applied)
		s.Duplicates += len(o.Duplicates)
		s.Skipped += len(o.Skipped)
		if o.Changed() {
			s.Files++
		}
	}
	s.log(o)
	switch s.Mode {
	case ModeDiff:
		if o.Err == nil {
			if _, err := io.WriteString(s.Out, Diff(fr.Path, fr.Source, o)); err != nil {
				return fr, err
			}
		}
	case ModePrint:
		if fr.Source == nil {
			break // not read: the caller prints what it has
		}
		text := fr.Source
		if o.Err == nil {
			text = o.Text
		}
		s.Printed = true
		if _, err := s.Out.Write(text); err != nil {
			return fr, err
		}
	}
	left := fr
	left.Findings = o.Remaining(fr.Findings)
	left.Source, left.SourceFile = nil, ""
	return left, nil
}

// log writes what fixing a file did: nothing for a file without fixes.
func (s *Session) log(o Result) {
	if s.Log == nil {
		return
	}
	if o.Err != nil {
		s.Failed++
		fmt.Fprintf(s.Log, "vectorlint: %v\n", o.Err)
		return
	}
	if len(o.Applied) == 0 && len(o.Skipped) == 0 {
		return
	}
	verb := "applied"
	if s.Mode == ModeDiff {
		verb = "to apply"
	}
	line := fmt.Sprintf("vectorlint: %s: %s %s", o.Path, count(len(o.Applied), "fix", "fixes"), verb)
	line += s.duplicates(len(o.Duplicates))
	if len(o.Skipped) > 0 {
		line += fmt.Sprintf(", %d skipped", len(o.Skipped))
	}
	fmt.Fprintln(s.Log, line)
	for _, sk := range o.Skipped {
		fmt.Fprintf(s.Log, "vectorlint: %s:%d:%d: %s: fix skipped: %s\n", o.Path, sk.Start.Line, sk.Start.Column, sk.Rule, sk.Reason)
	}
}

// Summary is the run's last line about fixes: "3 fixes applied in 2 files, 1 skipped", or "no
// fix to apply".
func (s *Session) Summary() string {
	if s.Applied == 0 && s.Skipped == 0 && s.Failed == 0 {
		return "no fix to apply"
	}
	if s.Applied == 0 && s.Skipped == 0 {
		return count(s.Failed, "file", "files") + " not rewritten"
	}
	var line string
	switch s.Mode {
	case ModeDiff:
		line = fmt.Sprintf("%s to apply in %s%s (nothing written)", count(s.Applied, "fix", "fixes"), count(s.Files, "file", "files"), s.duplicates(s.Duplicates))
	default:
		line = fmt.Sprintf("%s applied in %s%s", count(s.Applied, "fix", "fixes"), count(s.Files, "file", "files"), s.duplicates(s.Duplicates))
	}
	if s.Skipped > 0 {
		line += fmt.Sprintf(", %d skipped", s.Skipped)
	}
	if s.Failed > 0 {
		line += fmt.Sprintf("; %s not rewritten", count(s.Failed, "file", "files"))
	}
	return line
}

// duplicates notes the findings fixed by another finding's identical fix: ", 1 more finding
// had the same fix", or "" for none.
func (s *Session) duplicates(n int) string {
	if n == 0 {
		return ""
	}
	verb := "had"
	if s.Mode == ModeDiff {
		verb = "has"
	}
	return fmt.Sprintf(", %s %s the same fix", count(n, "more finding", "more findings"), verb)
}

func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
