package blueprint

import (
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// Problem codes of the blueprint format, besides the rubric's (rubric.CodeSyntax, ...).
const (
	CodeIgnoredID   = "ignored-id"   // an id in the header (ids come from the path)
	CodeCollection  = "collection"   // a model collection that cannot be resolved
	CodeDuplicateID = "duplicate-id" // two prompts with one id (the later is renamed)
	// CodeIgnoredTemperature: a prompt's temperature that the header's temperature(s) override.
	CodeIgnoredTemperature = "ignored-temperature"
	// CodeInvalid: a field with the wrong type or value, or a file that is no blueprint (the
	// rubric's own code, so a command names it without the rubric package).
	CodeInvalid = rubric.CodeInvalid
)

// ParseError reports a blueprint that cannot be used. Problems holds every error found and
// the warnings too, in file order.
type ParseError struct {
	File     string
	Problems finding.Problems
}

// Errors returns only the problems at finding.LevelError.
func (e *ParseError) Errors() finding.Problems { return e.Problems.Errors() }

// Error lists the errors, one a line, each with its level (finding.Problem's Labeled form).
func (e *ParseError) Error() string {
	errs := e.Errors()
	if len(errs) == 0 {
		return e.File + ": invalid blueprint"
	}
	lines := make([]string, len(errs))
	for i, d := range errs {
		lines[i] = d.Labeled()
	}
	return strings.Join(lines, "\n")
}

// sortProblems orders problems by line, keeping the order found within a line.
func sortProblems(ds finding.Problems) {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Line < ds[j].Line })
}
