package rubric

import (
	"fmt"
	"strings"
)

// Severity tells errors (the rubric or blueprint cannot be used) from warnings (authoring
// mistakes).
type Severity int

// Severities. The zero value is invalid so a forgotten severity is caught.
const (
	SeverityInvalid Severity = iota
	SeverityWarning
	SeverityError
)

// String returns "error" or "warning".
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	}
	return "invalid"
}

// MarshalText writes the severity as "error" or "warning".
func (s Severity) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// Diagnostic codes, so callers and tests can tell mistakes apart without reading messages.
// Package blueprint adds the codes of its own file format.
const (
	CodeSyntax          = "syntax"            // the file is not valid YAML or JSON
	CodeInvalid         = "invalid"           // a field has the wrong type or value
	CodeUnknownField    = "unknown-field"     // a field this format does not define
	CodeAliasConflict   = "alias-conflict"    // two aliases of one field (only the first is used)
	CodeSinglePointPath = "single-point-path" // an alternative path with one point
	CodeEmptyPath       = "empty-path"        // an alternative path with no points
	CodeQuotedFunction  = "quoted-function"   // "$fn: arg" written as one string
	CodeUnknownFunction = "unknown-function"  // a $name that is not a point function
	CodeBadFunction     = "bad-function"      // bad arguments, a regex or script that does not compile
)

// Diagnostic is one problem found in a rubric, or in a blueprint (which reports its own
// problems with this type too).
type Diagnostic struct {
	File string `json:"file"`
	// Line is 1-based; 0 when unknown.
	Line int `json:"line,omitempty"`
	// Prompt is the prompt's id, "#N" (the N-th prompt) when it has none yet, "" for the header.
	Prompt string `json:"prompt,omitempty"`
	// OwnerKind names what Prompt is in messages when it is not a prompt (Parse on a rule's
	// should list: "rule"); "" means "prompt".
	OwnerKind string   `json:"ownerKind,omitempty"`
	Severity  Severity `json:"severity"`
	Code      string   `json:"code"`
	Message   string   `json:"message"`
}

// String formats the diagnostic as "file:line: severity: prompt "id": message".
func (d Diagnostic) String() string {
	var b strings.Builder
	b.WriteString(d.File)
	if d.Line > 0 {
		fmt.Fprintf(&b, ":%d", d.Line)
	}
	b.WriteString(": ")
	b.WriteString(d.Severity.String())
	b.WriteString(": ")
	if d.Prompt != "" {
		kind := d.OwnerKind
		if kind == "" {
			kind = "prompt"
		}
		fmt.Fprintf(&b, "%s %q: ", kind, d.Prompt)
	}
	b.WriteString(d.Message)
	return b.String()
}

// Error makes a Diagnostic usable as an error.
func (d Diagnostic) Error() string { return d.String() }
