package redact

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// Secret is an API key or another value that must never be shown. It formats as "[redacted]"
// with every fmt verb, in JSON and in slog, so a struct holding one (llm.Endpoint) can be
// printed or logged without leaking it. Convert it to a string
// explicitly (string(s)) only where the key must be sent.
type Secret string

// String returns "[redacted]" (or "" for an empty secret, so "no key" stays visible).
func (s Secret) String() string {
	if s == "" {
		return ""
	}
	return Marker
}

// GoString returns the redacted form for %#v.
func (s Secret) GoString() string { return fmt.Sprintf("%q", s.String()) }

// Format writes the redacted form whatever the verb, so even %x or %q cannot reveal the key.
func (s Secret) Format(f fmt.State, verb rune) {
	if verb == 'q' || (verb == 'v' && f.Flag('#')) {
		fmt.Fprintf(f, "%q", s.String())
		return
	}
	fmt.Fprint(f, s.String())
}

// MarshalJSON writes the redacted form.
func (s Secret) MarshalJSON() ([]byte, error) { return json.Marshal(s.String()) }

// LogValue makes slog print the redacted form.
func (s Secret) LogValue() slog.Value { return slog.StringValue(s.String()) }
