// Package replycache is the model client's reply cache on disk (docs/providers.md, "Cache"):
// one file per reply under <dir>/llm-v1/<2 hex>/<64 hex>.json, written atomically so that
// several processes can share the folder, capped in size with the least recently used entries
// removed first, and the folder operations of vectorlint cache (info, prune, clear), which
// touch only files named as entries. The client (package llm) derives the keys and decides what
// is stored; an entry holds only a reply and its token counts, never a request or a key.
package replycache

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// version changes whenever the entry format changes, so old entries become misses instead of
// being misread.
const version = 1

// subdir is where entries live under the cache directory: subdir/ab/abcdef….json.
const subdir = "llm-v1"

// Entry is one stored reply. It holds no request data (neither prompt nor URL), only what is
// needed to answer again: the reply and its token counts. Version and Key are set by Put.
type Entry struct {
	Version      int         `json:"version"`
	Key          string      `json:"key"`
	Op           string      `json:"op"`
	Model        string      `json:"model"`
	Content      string      `json:"content,omitempty"`
	FinishReason string      `json:"finishReason,omitempty"`
	Format       string      `json:"format,omitempty"`
	Embeddings   [][]float64 `json:"embeddings,omitempty"`
	Usage        Tokens      `json:"usage"`
	Created      time.Time   `json:"created"`
}

// Tokens are the token counts of a stored reply.
type Tokens struct {
	Input  int64 `json:"input"`
	Output int64 `json:"output"`
}

// Store is a content-addressed store of replies. Writes go to a temporary file in the
// entry's directory and are renamed into place, so a reader (in this or another process) sees
// either no entry, an old complete entry or a new complete one. An entry that cannot be read or
// decoded, or whose recorded key differs, is a miss and is replaced by the next write.
//
// The cache is capped at maxSize bytes (≤ 0: no cap), least recently used entries going first:
// a hit sets its entry's modification time to now, so the time is the entry's last use. The
// size is known without listing the folder on every write: the first write of the process
// estimates it from a sample of the entry folders, later writes add their own bytes to that
// count, and only when the count passes the cap is the folder listed and pruned (to
// pruneTarget of the cap). Entries other processes add are seen at that listing; until then the
// cap can be passed by what they wrote.
type Store struct {
	dir     string
	maxSize int64

	mu      sync.Mutex
	counted bool // size is set: the folder's estimated or listed size, plus what this process wrote since
	size    int64
	// onPrune reports a prune the cap set off (or its error); nil for none.
	onPrune func(PruneResult, error)
}

// Open returns the store in dir, capped at maxSize bytes (≤ 0: no cap); onPrune, when set,
// hears of each prune the cap sets off, or of its error. Nothing is read or created until the
// first Get or Put.
func Open(dir string, maxSize int64, onPrune func(PruneResult, error)) *Store {
	return &Store{dir: dir, maxSize: maxSize, onPrune: onPrune}
}

func (c *Store) path(key string) string {
	return filepath.Join(c.dir, subdir, key[:2], key+".json")
}

// Get returns the entry of operation op (Entry.Op) for key, or nil for a miss, and marks it
// used. A non-nil error explains why an entry that exists was treated as a miss (corrupt,
// unreadable); the caller reports it and carries on.
func (c *Store) Get(key, op string) (*Entry, error) {
	name := c.path(key)
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache entry %s unreadable, treated as a miss: %w", name, err)
	}
	var e Entry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("cache entry %s corrupt (%v), treated as a miss", name, err)
	}
	if e.Version != version || e.Key != key || e.Op != op {
		return nil, fmt.Errorf("cache entry %s does not match its key (version %d, op %q), treated as a miss", name, e.Version, e.Op)
	}
	// The entry was used now: least recently used entries are pruned first. A failure (a
	// read-only cache) only makes the entry look older.
	now := time.Now()
	_ = os.Chtimes(name, now, now)
	return &e, nil
}

// Put stores e under key atomically.
func (c *Store) Put(key string, e *Entry) error {
	e.Version = version
	e.Key = key
	if e.Created.IsZero() {
		e.Created = time.Now().UTC()
	}
	data, err := json.Marshal(e)
	if err != nil {
		return fmt.Errorf("encoding cache entry: %w", err)
	}
	name := c.path(key)
	dir := filepath.Dir(name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("creating cache directory: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".tmp-*")
	if err != nil {
		return fmt.Errorf("writing cache entry: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if werr != nil || cerr != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing cache entry %s: %w", tmp.Name(), errors.Join(werr, cerr))
	}
	if err := os.Rename(tmp.Name(), name); err != nil {
		_ = os.Remove(tmp.Name())
		return fmt.Errorf("writing cache entry %s: %w", name, err)
	}
	c.wrote(int64(len(data)))
	return nil
}

// wrote counts n bytes written and prunes the cache when the count passes the cap. The first
// write of the process estimates the folder's size from a sample (estimateSize); only when
// the count passes the cap is every entry listed, the exact size taken, and the least recently
// used entries removed if it is over.
func (c *Store) wrote(n int64) {
	if c.maxSize <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.counted {
		size, err := estimateSize(c.dir)
		if err != nil {
			c.report(PruneResult{}, err)
			return // estimated again at the next write
		}
		c.counted, c.size = true, size
	} else {
		c.size += n
	}
	if c.size <= c.maxSize {
		return
	}
	files, err := scan(c.dir)
	if err != nil {
		c.report(PruneResult{}, err)
		return
	}
	var total int64
	for _, f := range files {
		if f.isEntry {
			total += f.size
		}
	}
	if c.size = total; total <= c.maxSize {
		return // the estimate was high
	}
	res, err := pruneFiles(files, PruneOptions{MaxSize: int64(float64(c.maxSize) * pruneTarget)})
	c.size = res.RemainingBytes
	c.report(res, err)
}

func (c *Store) report(res PruneResult, err error) {
	if c.onPrune != nil {
		c.onPrune(res, err)
	}
}

// Has reports whether a usable entry of operation op is stored under key, without marking it
// used (a budget check before a run asks; spec/linter.md §11).
func (c *Store) Has(key, op string) bool {
	data, err := os.ReadFile(c.path(key))
	if err != nil {
		return false
	}
	var e Entry
	return json.Unmarshal(data, &e) == nil && e.Version == version && e.Key == key && e.Op == op
}
