package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// keyVersion changes whenever the key derivation changes, so old entries become misses instead
// of being misread (the store's own format has its version in internal/replycache).
const keyVersion = 1

// keyInput is everything that determines a reply. It is hashed, never stored. API keys and
// header values are deliberately absent: they do not change the reply, and they are secret.
type keyInput struct {
	Version     int             `json:"v"`
	Op          string          `json:"op"`
	URL         string          `json:"url"`
	Model       string          `json:"model"`
	Temperature *float64        `json:"temperature"`
	Messages    []Message       `json:"messages,omitempty"`
	Format      string          `json:"format,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	MaxTokens   int             `json:"maxTokens,omitempty"`
	Extra       map[string]any  `json:"extra,omitempty"`
	Input       []string        `json:"input,omitempty"`
	// Sample is Request.Sample: omitted for the first sample, so its key is unchanged.
	Sample int `json:"sample,omitempty"`
}

// hashKey is the SHA-256 (hex) of the canonical JSON of k. encoding/json writes struct fields in
// a fixed order and map keys sorted, so equal inputs give equal keys.
func hashKey(k keyInput) (string, error) {
	k.Version = keyVersion
	b, err := json.Marshal(k)
	if err != nil {
		return "", fmt.Errorf("computing the cache key: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
