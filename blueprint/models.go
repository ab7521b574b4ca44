package blueprint

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// Collections maps collection placeholders ("CORE") to the model ids they stand for.
type Collections map[string][]string

// isCollection reports whether a model id is a collection placeholder: letters in upper case,
// digits and "_", no ":" (such as "CORE" or "OPEN_SOURCE_CORE").
func isCollection(id string) bool {
	if id == "" || strings.Contains(id, ":") {
		return false
	}
	letter := false
	for _, r := range id {
		switch {
		case r >= 'A' && r <= 'Z':
			letter = true
		case r >= '0' && r <= '9', r == '_':
		default:
			return false
		}
	}
	return letter
}

// LoadCollections reads the collections in dir: every NAME.json holding a JSON list of model
// ids, with NAME a placeholder (see isCollection). When dir has a "models" folder (the layout
// of weval-org/configs), that folder is read instead. A run reads only what it needs with
// LoadCollectionsFor. Files are read through a root opened at dir (internal/tree): a
// collection that is a link leading out of it is not read.
func LoadCollections(dir string) (Collections, error) {
	root, err := tree.Open(dir)
	if err != nil {
		return nil, fmt.Errorf("model collections: %w", err)
	}
	defer root.Close()
	if fi, err := root.Stat(filepath.Join(dir, "models")); err == nil && fi.IsDir() {
		dir = filepath.Join(dir, "models")
	}
	entries, err := root.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("model collections: %w", err)
	}
	out := Collections{}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".json")
		if !ok || e.IsDir() || !isCollection(name) {
			continue
		}
		ids, err := readCollection(root, filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		out[name] = ids
	}
	return out, nil
}

// collectionNames returns the collection placeholders among models, each once, in order.
func collectionNames(models []Model) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range models {
		if m.Custom == nil && isCollection(m.ID) && !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m.ID)
		}
	}
	return out
}

// LoadCollectionsFor reads from dir only the collections that models name (NAME.json for each
// placeholder, in dir's "models" folder when it has one, as LoadCollections): a collection the
// blueprint does not use is never read, so a broken or huge one elsewhere in a shared configs
// checkout cannot stop or slow the run (Weval reads the same way). A placeholder without its
// file is an *UnresolvedError listing the collections dir defines; dir itself must exist.
// Everything is read through root (internal/tree: the project root, so dir and every file in it
// must resolve inside it); nil opens a root at dir for the call.
func LoadCollectionsFor(root *tree.Root, dir string, models []Model) (Collections, error) {
	if root == nil {
		r, err := tree.Open(dir)
		if err != nil {
			return nil, fmt.Errorf("model collections: %w", err)
		}
		defer r.Close()
		root = r
	}
	if fi, err := root.Stat(filepath.Join(dir, "models")); err == nil && fi.IsDir() {
		dir = filepath.Join(dir, "models")
	}
	entries, err := root.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("model collections: %w", err)
	}
	defined := map[string]bool{}
	var known []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".json"); ok && !e.IsDir() && isCollection(name) {
			defined[name] = true
			known = append(known, name)
		}
	}
	out := Collections{}
	var missing []string
	for _, name := range collectionNames(models) {
		if !defined[name] {
			missing = append(missing, name)
			continue
		}
		ids, err := readCollection(root, filepath.Join(dir, name+".json"))
		if err != nil {
			return nil, err
		}
		out[name] = ids
	}
	if missing != nil {
		sort.Strings(known)
		return nil, &UnresolvedError{Names: missing, Known: known}
	}
	return out, nil
}

// readCollection reads one collection file through root: a JSON list of model ids.
func readCollection(root *tree.Root, path string) ([]string, error) {
	data, err := readFile(root, path)
	if err != nil {
		return nil, fmt.Errorf("model collections: %w", err)
	}
	var ids []string
	if err := json.Unmarshal(data, &ids); err != nil {
		return nil, fmt.Errorf("%s: expected a JSON list of model ids: %v", path, err)
	}
	for i, id := range ids {
		ids[i] = normaliseModelID(id)
		if ids[i] == "" {
			return nil, fmt.Errorf("%s: model %d is an empty string", path, i+1)
		}
	}
	return ids, nil
}

// UnresolvedError lists collection placeholders that no collection defines.
type UnresolvedError struct {
	Names []string
	// Known are the collections that are defined.
	Known []string
}

// Error names the missing collections and the defined ones.
func (e *UnresolvedError) Error() string {
	known := "none are defined"
	if len(e.Known) > 0 {
		known = "defined: " + strings.Join(e.Known, ", ")
	}
	return fmt.Sprintf("model collection%s %s not found (%s); pass --collections DIR with NAME.json files, or list model ids",
		node.Plural(len(e.Names)), strings.Join(quoted(e.Names), ", "), known)
}

// ResolveModels replaces collection placeholders with their models, keeping the first
// occurrence of each id. Custom models are kept as they are.
func ResolveModels(models []Model, c Collections) ([]Model, error) {
	var out []Model
	seen := map[string]bool{}
	var missing []string
	add := func(m Model) {
		if seen[m.ID] {
			return
		}
		seen[m.ID] = true
		out = append(out, m)
	}
	for _, m := range models {
		if m.Custom != nil || !isCollection(m.ID) {
			add(m)
			continue
		}
		ids, ok := c[m.ID]
		if !ok {
			missing = append(missing, m.ID)
			continue
		}
		for _, id := range ids {
			add(Model{ID: id})
		}
	}
	if missing != nil {
		known := make([]string, 0, len(c))
		for k := range c {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, &UnresolvedError{Names: missing, Known: known}
	}
	return out, nil
}

// quoted quotes each name for a message.
func quoted(names []string) []string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = strconv.Quote(s)
	}
	return out
}
