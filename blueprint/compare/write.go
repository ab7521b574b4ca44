package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// marshalIndent encodes v as indented JSON without HTML escaping (as JSON.stringify), with a
// final newline: the form of the result documents compared.
func marshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("cannot encode JSON: %w", err)
	}
	return buf.Bytes(), nil
}

// errWriter remembers the first write error so output code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

// Write writes unless an earlier write failed.
func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
