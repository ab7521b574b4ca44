package jsjson

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Marshal is json.Marshal without HTML escaping (as JSON.stringify writes).
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MarshalIndent encodes v as JSON indented by two spaces without HTML escaping (as
// JSON.stringify(v, null, 2) writes), with a final newline: the form of the result documents.
func MarshalIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("cannot encode JSON: %w", err)
	}
	return buf.Bytes(), nil
}
