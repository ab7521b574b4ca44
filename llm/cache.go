package llm

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// cacheVersion changes whenever the key derivation or the entry format changes, so old entries
// become misses instead of being misread.
const cacheVersion = 1

// cacheSubdir is where entries live under the cache directory: cacheSubdir/ab/abcdef….json.
const cacheSubdir = "llm-v1"

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
}

// hashKey is the SHA-256 (hex) of the canonical JSON of k. encoding/json writes struct fields in
// a fixed order and map keys sorted, so equal inputs give equal keys.
func hashKey(k keyInput) (string, error) {
	k.Version = cacheVersion
	b, err := json.Marshal(k)
	if err != nil {
		return "", fmt.Errorf("computing the cache key: %w", err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// cacheEntry is one stored reply. It holds no request data (neither prompt nor URL), only what
// is needed to answer again: the reply and its token counts.
type cacheEntry struct {
	Version      int         `json:"version"`
	Key          string      `json:"key"`
	Op           string      `json:"op"`
	Model        string      `json:"model"`
	Content      string      `json:"content,omitempty"`
	FinishReason string      `json:"finishReason,omitempty"`
	Format       string      `json:"format,omitempty"`
	Embeddings   [][]float64 `json:"embeddings,omitempty"`
	Usage        TokenUsage  `json:"usage"`
	Created      time.Time   `json:"created"`
}

// diskCache is a content-addressed store of replies. Writes go to a temporary file in the
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
type diskCache struct {
	dir     string
	maxSize int64

	mu      sync.Mutex
	counted bool // size is set: the folder's estimated or listed size, plus what this process wrote since
	size    int64
	// onPrune reports a prune the cap set off (or its error); nil for none.
	onPrune func(PruneResult, error)
}

func (c *diskCache) path(key string) string {
	return filepath.Join(c.dir, cacheSubdir, key[:2], key+".json")
}

// get returns the entry for key, or nil for a miss. A non-nil error explains why an entry that
// exists was treated as a miss (corrupt, unreadable); the caller reports it and carries on.
func (c *diskCache) get(key, op string) (*cacheEntry, error) {
	name := c.path(key)
	data, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache entry %s unreadable, treated as a miss: %w", name, err)
	}
	var e cacheEntry
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, fmt.Errorf("cache entry %s corrupt (%v), treated as a miss", name, err)
	}
	if e.Version != cacheVersion || e.Key != key || e.Op != op {
		return nil, fmt.Errorf("cache entry %s does not match its key (version %d, op %q), treated as a miss", name, e.Version, e.Op)
	}
	// The entry was used now: least recently used entries are pruned first. A failure (a
	// read-only cache) only makes the entry look older.
	now := time.Now()
	_ = os.Chtimes(name, now, now)
	return &e, nil
}

// put stores e under key atomically.
func (c *diskCache) put(key string, e *cacheEntry) error {
	e.Version = cacheVersion
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
// write of the process estimates the folder's size from a sample (estimateCacheSize); only when
// the count passes the cap is every entry listed, the exact size taken, and the least recently
// used entries removed if it is over.
func (c *diskCache) wrote(n int64) {
	if c.maxSize <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.counted {
		size, err := estimateCacheSize(c.dir)
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
	files, err := scanCache(c.dir)
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

func (c *diskCache) report(res PruneResult, err error) {
	if c.onPrune != nil {
		c.onPrune(res, err)
	}
}
