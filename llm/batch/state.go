package batch

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"sync"
	"time"
)

// stateVersion is the state file's format; a file of another version is refused.
const stateVersion = 1

// stateKind marks a vectorlint batch state file.
const stateKind = "vectorlint-batch"

// stateDir is the state files' folder, relative to the project tree.
const stateDir = ".vectorlint/batches"

// maxStateSize is the largest state file read (100,000 requests take about 12 MB).
const maxStateSize = 64 << 20

// idPattern is the shape of our ids (and of the state file's name).
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`) })

// keyPattern is the shape of a reply-cache key: 64 hex digits.
var keyPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{64}$`) })

// State is a submitted batch as saved in .vectorlint/batches/<ID>.json: where it went, the
// provider's batches it was split into, and for each request its custom id and the reply-cache
// key of its live call. It holds no key and no request text.
type State struct {
	Kind    string `json:"kind"`
	Version int    `json:"version"`
	// ID is ours: the name of the state file.
	ID string `json:"id"`
	// Provider is the endpoint's provider, BaseURL its base URL (without user info or query),
	// Model its model.
	Provider string `json:"provider"`
	BaseURL  string `json:"baseURL"`
	Model    string `json:"model"`
	// Fingerprint is the caller's (the plan's), returned as it was given.
	Fingerprint string    `json:"fingerprint"`
	Created     time.Time `json:"created"`
	// Parts are the provider batches, in order.
	Parts []Part `json:"parts"`
}

// Part is one provider batch.
type Part struct {
	// ProviderID is the provider's batch id; InputFileID the uploaded file's (OpenAI).
	ProviderID  string `json:"providerID"`
	InputFileID string `json:"inputFileID,omitempty"`
	// Requests are the part's requests, in the order they were sent.
	Requests []Item `json:"requests"`
}

// Item is one request of a batch.
type Item struct {
	CustomID string `json:"customID"`
	// Key is the reply-cache key of the request's live call.
	Key string `json:"key"`
}

// Requests is the number of requests of every part.
func (s *State) Requests() int {
	n := 0
	for _, p := range s.Parts {
		n += len(p.Requests)
	}
	return n
}

// StateError says why a state file cannot be used: it names the file.
type StateError struct {
	// Path is the state file's path, relative to the project tree.
	Path string
	// Expected and Found describe a malformed file; Err a file that could not be read.
	Expected, Found string
	Err             error
}

// Error names the file and what was expected and found, or why it could not be read.
func (e *StateError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("batch state %s: %v", e.Path, e.Err)
	}
	return fmt.Sprintf("batch state %s: expected %s, found %s", e.Path, e.Expected, e.Found)
}

// Unwrap returns the read error.
func (e *StateError) Unwrap() error { return e.Err }

// NotFoundError says that no batch of that id was saved in the project.
type NotFoundError struct {
	ID, Path string
}

// Error names the id and where it was looked for.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no batch %s in this project: %s does not exist", e.ID, e.Path)
}

// statePath is the state file of id, relative to the tree.
func statePath(id string) string { return path.Join(stateDir, id+".json") }

// prepareStateDir makes the state folder and proves a file can be written in it (inside the
// tree), before a submit spends anything.
func (b *Batcher) prepareStateDir() error {
	dir := b.root.Host(stateDir)
	if err := b.root.MkdirAll(dir); err != nil {
		return fmt.Errorf("batch state folder %s: %w", stateDir, err)
	}
	if err := b.root.Probe(dir); err != nil {
		return fmt.Errorf("batch state folder %s: %w", stateDir, err)
	}
	return nil
}

// save writes s to its state file through the project tree (atomically, inside the tree).
func (b *Batcher) save(s *State) error {
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := b.root.MkdirAll(b.root.Host(stateDir)); err != nil {
		return fmt.Errorf("batch state folder %s: %w", stateDir, err)
	}
	return b.root.WriteFile(b.root.Host(statePath(s.ID)), append(data, '\n'))
}

// Load reads the state of the batch id from the project tree: a *NotFoundError when there is
// none, a *StateError naming the file when it is not a vectorlint batch state.
func (b *Batcher) Load(id string) (*State, error) {
	if !idPattern().MatchString(id) {
		return nil, fmt.Errorf("batch id %q: expected letters, digits, - and _ (at most 64), as printed by the submit", id)
	}
	rel := statePath(id)
	data, err := b.root.ReadFile(b.root.Host(rel), maxStateSize)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NotFoundError{ID: id, Path: rel}
	}
	if err != nil {
		return nil, &StateError{Path: rel, Err: err}
	}
	s, serr := parseState(data, id)
	if serr != nil {
		serr.Path = rel
		return nil, serr
	}
	return s, nil
}

// parseState decodes and checks a state file's content (id: the name it was read under).
func parseState(data []byte, id string) (*State, *StateError) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, &StateError{Expected: "a JSON object", Found: "invalid JSON (" + err.Error() + ")"}
	}
	switch {
	case s.Kind != stateKind:
		return nil, &StateError{Expected: fmt.Sprintf("kind %q", stateKind), Found: fmt.Sprintf("%q", s.Kind)}
	case s.Version != stateVersion:
		return nil, &StateError{Expected: fmt.Sprintf("version %d", stateVersion), Found: fmt.Sprint(s.Version)}
	case s.ID != id:
		return nil, &StateError{Expected: fmt.Sprintf("id %q (the file's name)", id), Found: fmt.Sprintf("%q", s.ID)}
	case s.Provider != "openai" && s.Provider != "anthropic":
		return nil, &StateError{Expected: "provider openai or anthropic", Found: fmt.Sprintf("%q", s.Provider)}
	case s.BaseURL == "":
		return nil, &StateError{Expected: "a baseURL", Found: "none"}
	case len(s.Parts) == 0:
		return nil, &StateError{Expected: "at least one provider batch in parts", Found: "none"}
	}
	seen := map[string]bool{}
	for i, p := range s.Parts {
		if p.ProviderID == "" {
			return nil, &StateError{Expected: fmt.Sprintf("a providerID in part %d", i+1), Found: "none"}
		}
		for j, it := range p.Requests {
			if it.CustomID == "" || !keyPattern().MatchString(it.Key) {
				return nil, &StateError{Expected: fmt.Sprintf("a customID and a key of 64 hex digits in request %d of part %d", j+1, i+1),
					Found: fmt.Sprintf("customID %q and key %q", it.CustomID, clip(it.Key))}
			}
			if seen[it.CustomID] {
				return nil, &StateError{Expected: "unique custom ids", Found: fmt.Sprintf("%q twice", it.CustomID)}
			}
			seen[it.CustomID] = true
		}
	}
	return &s, nil
}

// clip shortens a value quoted in a message.
func clip(s string) string {
	if len(s) > 70 {
		return s[:70] + "…"
	}
	return s
}
