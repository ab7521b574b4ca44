package jsjson

import (
	"bytes"
	"encoding/json"
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
