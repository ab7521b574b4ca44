package finding

import "fmt"

// Severity is how findings are reported: a suggestion, a warning or an error (Vale's three
// levels), in increasing order so that "at or above --fail-on" and "below --min-alert-level"
// are comparisons. It is one concept wherever it appears: a rule's or a criterion's frontmatter,
// vectorlint.ini's DefaultSeverity and overrides, the command's --fail-on and
// --min-alert-level, and the findings.
//
// The zero value, SeverityUnset, means "not set": a rule without one gets the configuration's
// DefaultSeverity, a criterion without one its rule's. A finding never carries it, so a forgotten
// severity is caught (it cannot be marshalled, and the report formats reject it) rather than
// silently reported as a warning.
type Severity int

// Severities, in increasing order.
const (
	SeverityUnset Severity = iota
	SeveritySuggestion
	SeverityWarning
	SeverityError
)

// SeverityNames are the names ParseSeverity accepts, in increasing order.
func SeverityNames() []string { return []string{"suggestion", "warning", "error"} }

// SeverityExpected describes the accepted names for messages: `"suggestion", "warning" or
// "error"`.
const SeverityExpected = `"suggestion", "warning" or "error"`

// ParseSeverity parses "suggestion", "warning" or "error".
func ParseSeverity(s string) (Severity, error) {
	switch s {
	case "error":
		return SeverityError, nil
	case "warning":
		return SeverityWarning, nil
	case "suggestion":
		return SeveritySuggestion, nil
	}
	return SeverityUnset, fmt.Errorf("expected %s, found %q", SeverityExpected, s)
}

// String returns "suggestion", "warning" or "error" ("unset" for the zero value, "invalid" for
// any other).
func (s Severity) String() string {
	switch s {
	case SeverityError:
		return "error"
	case SeverityWarning:
		return "warning"
	case SeveritySuggestion:
		return "suggestion"
	case SeverityUnset:
		return "unset"
	}
	return "invalid"
}

// Valid reports whether s is one of the three severities a finding can have.
func (s Severity) Valid() bool { return s >= SeveritySuggestion && s <= SeverityError }

// MarshalText writes the severity as "suggestion", "warning" or "error"; any other value is an
// error.
func (s Severity) MarshalText() ([]byte, error) {
	if !s.Valid() {
		return nil, fmt.Errorf("invalid severity %d", int(s))
	}
	return []byte(s.String()), nil
}

// UnmarshalText reads "suggestion", "warning" or "error".
func (s *Severity) UnmarshalText(b []byte) error {
	v, err := ParseSeverity(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
