package blueprint

import (
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/points/rubric"
)

// Diagnostic codes of the blueprint format, besides the rubric's (rubric.CodeSyntax, ...).
const (
	CodeIgnoredID   = "ignored-id"   // an id in the header (ids come from the path)
	CodeCollection  = "collection"   // a model collection that cannot be resolved
	CodeDuplicateID = "duplicate-id" // two prompts with one id (the later is renamed)
	// CodeIgnoredTemperature: a prompt's temperature that the header's temperature(s) override.
	CodeIgnoredTemperature = "ignored-temperature"
)

// ParseError reports a blueprint that cannot be used. Diagnostics holds every error found and
// the warnings too, in file order.
type ParseError struct {
	File        string
	Diagnostics []rubric.Diagnostic
}

// Errors returns only the error diagnostics.
func (e *ParseError) Errors() []rubric.Diagnostic {
	var out []rubric.Diagnostic
	for _, d := range e.Diagnostics {
		if d.Severity == rubric.SeverityError {
			out = append(out, d)
		}
	}
	return out
}

// Error lists the error diagnostics, one a line.
func (e *ParseError) Error() string {
	errs := e.Errors()
	if len(errs) == 0 {
		return e.File + ": invalid blueprint"
	}
	lines := make([]string, len(errs))
	for i, d := range errs {
		lines[i] = d.String()
	}
	return strings.Join(lines, "\n")
}

// sortDiagnostics orders diagnostics by line, keeping the order found within a line.
func sortDiagnostics(ds []rubric.Diagnostic) {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].Line < ds[j].Line })
}
