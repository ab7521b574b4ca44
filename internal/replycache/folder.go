package replycache

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// DefaultCap is the size cap of the reply cache when none is set: 1 GB (10^9 bytes).
const DefaultCap = 1_000_000_000

// MinCap and MaxCap bound a cache cap that a file or the environment sets
// (vectorlint.ini's CacheMaxSize; VECTORLINT_CACHE_MAX_SIZE, which a project's .env may set);
// 0 stays "no cap" (spec/trust.md §8). The cache is the user's, shared by every project: a cap
// of a few bytes set by a repository would empty it at every write. The --cache-max-size flag,
// the user's own choice on the command line, is not bounded.
const (
	MinCap = 1_000_000           // 1 MB
	MaxCap = 100_000_000_000_000 // 100 TB
	// CapRange describes the accepted caps for messages.
	CapRange = "0 (no cap) or a size from 1MB to 100TB, such as 500MB, 2GB or 1GiB"
)

// ValidCap reports whether n is a cap a file may set: 0 (no cap), or from MinCap to MaxCap
// bytes.
func ValidCap(n int64) bool {
	return n == 0 || n >= MinCap && n <= MaxCap
}

// NoCap as llm.Config.CacheMaxSize lets the cache grow without a cap (CacheMaxSize = 0 in
// vectorlint.ini).
const NoCap = -1

// pruneTarget is the share of the cap a prune that the client starts brings the cache down
// to: a little below the cap, so the next writes do not each set off a prune.
const pruneTarget = 0.9

// staleTempAge is how old a temporary file of the cache must be before a prune removes it: a
// writer in another process may still be about to rename a younger one into place.
const staleTempAge = time.Hour

// ParseSize reads a size as vectorlint.ini's CacheMaxSize and --cache-max-size take it: a number
// of bytes ("1048576"), or a number with a unit, decimal (B, KB, MB, GB, TB: powers of 1000) or
// binary (KiB, MiB, GiB, TiB: powers of 1024), case-insensitive, with or without a space:
// "500MB", "2 GB", "1.5GiB". "0" is 0.
func ParseSize(s string) (int64, error) {
	orig := s
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return !(r >= '0' && r <= '9' || r == '.') })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	mult, ok := sizeUnits()[strings.ToLower(unit)]
	f, err := strconv.ParseFloat(num, 64)
	if !ok || err != nil || num == "" || math.IsNaN(f) || math.IsInf(f, 0) || f < 0 {
		return 0, fmt.Errorf("expected a size such as 500MB, 2GB, 1GiB or a number of bytes (0: no limit), found %q", orig)
	}
	v := f * float64(mult)
	if v >= math.MaxInt64 {
		return 0, fmt.Errorf("expected a size below 8 EiB, found %q", orig)
	}
	return int64(v), nil
}

// sizeUnits maps ParseSize's units (lower-cased) to their bytes.
func sizeUnits() map[string]int64 {
	return map[string]int64{"": 1, "b": 1,
		"kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12,
		"kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}
}

// FormatSize writes a byte count as a person reads it: "0 B", "512 B", "56.7 MB", "1 GB"
// (decimal units, as ParseSize reads them back).
func FormatSize(n int64) string {
	if n < 1000 {
		return strconv.FormatInt(n, 10) + " B"
	}
	units := []string{"kB", "MB", "GB", "TB", "PB", "EB"}
	v, u := float64(n)/1000, 0
	for v >= 1000 && u < len(units)-1 {
		v /= 1000
		u++
	}
	s := strconv.FormatFloat(v, 'f', 1, 64)
	return strings.TrimSuffix(s, ".0") + " " + units[u]
}

// CountEntries writes "1 entry", "2 entries".
func CountEntries(n int) string {
	if n == 1 {
		return "1 entry"
	}
	return strconv.Itoa(n) + " entries"
}

// Info describes a reply cache folder.
type Info struct {
	// Dir is the cache folder.
	Dir string
	// Entries and Size count the cached replies and their bytes.
	Entries int
	Size    int64
	// Oldest and Newest are the last uses of the least and most recently used entries (zero
	// when there is none). A cache hit refreshes its entry's time.
	Oldest, Newest time.Time
}

// NotACacheError reports a folder the cache commands refuse to manage: it does not look like a
// vectorlint cache, so removing "entries" from it could remove someone's files.
type NotACacheError struct {
	Dir    string
	Reason string
}

// Error names the folder and why it was refused.
func (e *NotACacheError) Error() string {
	return fmt.Sprintf("%s does not look like a vectorlint cache (%s); nothing was removed", e.Dir, e.Reason)
}

// cacheFile is one file of the cache: an entry, or a temporary file a writer left.
type cacheFile struct {
	path    string
	size    int64
	used    time.Time
	isEntry bool
}

// scan lists the entries (and temporary files) of the cache in dir, least recently used
// first. Only files named as entries are (<2 hex>/<64 hex>.json under llm-v1, or .tmp-* beside
// them) and regular: nothing else in the folder is ever listed, so nothing else is ever removed.
// A folder without llm-v1 is empty when missing or empty, else a *NotACacheError.
func scan(dir string) ([]cacheFile, error) {
	root := filepath.Join(dir, subdir)
	fi, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) || (err == nil && len(entries) == 0) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return nil, &NotACacheError{Dir: dir, Reason: "it has no " + subdir + " folder of entries"}
	case err != nil:
		return nil, err
	case !fi.IsDir():
		return nil, &NotACacheError{Dir: dir, Reason: subdir + " is not a folder"}
	}
	subs, err := os.ReadDir(root)
	if err != nil {
		return nil, err
	}
	var files []cacheFile
	for _, sub := range subs {
		if !sub.IsDir() || !isHex(sub.Name(), 2) {
			continue // not ours; symbolic links are not folders here, so never followed
		}
		names, err := os.ReadDir(filepath.Join(root, sub.Name()))
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // removed by another process's prune
			}
			return nil, err
		}
		for _, e := range names {
			name := e.Name()
			key, isEntry := strings.CutSuffix(name, ".json")
			isEntry = isEntry && isHex(key, 64) && key[:2] == sub.Name()
			if (!isEntry && !strings.HasPrefix(name, ".tmp-")) || !e.Type().IsRegular() {
				continue
			}
			info, err := e.Info()
			if err != nil {
				continue // removed since the folder was read
			}
			files = append(files, cacheFile{path: filepath.Join(root, sub.Name(), name), size: info.Size(), used: info.ModTime(), isEntry: isEntry})
		}
	}
	slices.SortFunc(files, func(a, b cacheFile) int {
		if c := a.used.Compare(b.used); c != 0 {
			return c
		}
		return strings.Compare(a.path, b.path)
	})
	return files, nil
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for _, r := range s {
		if !unicode.Is(unicode.ASCII_Hex_Digit, r) || unicode.IsUpper(r) {
			return false
		}
	}
	return true
}

// sampledFolders is how many of the cache's 256 entry folders estimateSize lists. Keys are
// SHA-256 hashes, so entries spread evenly over the folders and a sixteenth of them gives the
// size within a few percent for a cache near any useful cap, at a sixteenth of the cost.
const sampledFolders = 16

// estimateSize estimates the bytes of the entries in dir from the names in sampledFolders
// of its entry folders and the sizes of up to 64 of those entries: about 4 ms for a cache of
// 100,000 entries, where listing every entry with its size takes 370 ms (docs/benchmarks.md).
func estimateSize(dir string) (int64, error) {
	root := filepath.Join(dir, subdir)
	subs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	subs = slices.DeleteFunc(subs, func(e fs.DirEntry) bool { return !e.IsDir() || !isHex(e.Name(), 2) })
	sample := subs[:min(sampledFolders, len(subs))]
	var (
		count, sizes int64
		sized        int
	)
	for _, sub := range sample {
		names, err := os.ReadDir(filepath.Join(root, sub.Name()))
		if err != nil {
			continue // pruned meanwhile by another process
		}
		for _, e := range names {
			if !strings.HasSuffix(e.Name(), ".json") || !e.Type().IsRegular() {
				continue
			}
			count++
			if sized < 64 {
				if info, err := e.Info(); err == nil {
					sizes += info.Size()
					sized++
				}
			}
		}
	}
	if sized == 0 || len(sample) == 0 {
		return 0, nil
	}
	return count * int64(len(subs)) / int64(len(sample)) * sizes / int64(sized), nil
}

// ReadInfo describes the cache in dir. A missing folder is an empty cache; a folder that does
// not look like a cache is a *NotACacheError.
func ReadInfo(dir string) (Info, error) {
	files, err := scan(dir)
	info := Info{Dir: dir}
	if err != nil {
		return info, err
	}
	for _, f := range files {
		if !f.isEntry {
			continue
		}
		info.Entries++
		info.Size += f.size
		if info.Oldest.IsZero() {
			info.Oldest = f.used
		}
		info.Newest = f.used
	}
	return info, nil
}

// PruneOptions say what Prune removes.
type PruneOptions struct {
	// MaxSize: least recently used entries are removed until the entries total at most MaxSize
	// bytes (≤ 0: no size limit).
	MaxSize int64
	// OlderThan: entries not used for longer are removed (0: none for their age).
	OlderThan time.Duration
	// Now is the time ages are measured from (time.Now when zero).
	Now time.Time
}

// PruneResult counts what a prune or a clear removed and what remains.
type PruneResult struct {
	Removed, Remaining           int
	RemovedBytes, RemainingBytes int64
}

// Prune removes entries of the cache in dir: those unused for longer than OlderThan, then
// the least recently used ones until the rest fit in MaxSize, and temporary files older than an
// hour (left by a process that died mid-write). Other processes may use the cache meanwhile: an
// entry they read as it is removed is a miss for them, and one already removed is skipped. It
// refuses (*NotACacheError) a folder that does not look like a vectorlint cache.
func Prune(dir string, o PruneOptions) (PruneResult, error) {
	files, err := scan(dir)
	if err != nil {
		return PruneResult{}, err
	}
	return pruneFiles(files, o)
}

// pruneFiles is Prune on a listing from scan.
func pruneFiles(files []cacheFile, o PruneOptions) (PruneResult, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	var total int64
	for _, f := range files {
		if f.isEntry {
			total += f.size
		}
	}
	var res PruneResult
	var errs []error
	for _, f := range files {
		remove := false
		switch {
		case !f.isEntry:
			remove = o.Now.Sub(f.used) > staleTempAge
		case o.OlderThan > 0 && o.Now.Sub(f.used) > o.OlderThan:
			remove = true
		case o.MaxSize > 0 && total > o.MaxSize:
			remove = true
		}
		if !remove {
			if f.isEntry {
				res.Remaining++
				res.RemainingBytes += f.size
			}
			continue
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			if f.isEntry {
				res.Remaining++
				res.RemainingBytes += f.size
			}
			continue
		}
		if f.isEntry {
			res.Removed++
			res.RemovedBytes += f.size
			total -= f.size
		}
	}
	return res, errors.Join(errs...)
}

// Clear removes every entry (and temporary file) of the cache in dir, and the entry
// folders left empty; nothing else in dir is touched. It refuses (*NotACacheError) a folder that
// does not look like a vectorlint cache.
func Clear(dir string) (PruneResult, error) {
	files, err := scan(dir)
	if err != nil {
		return PruneResult{}, err
	}
	var res PruneResult
	var errs []error
	for _, f := range files {
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			if f.isEntry {
				res.Remaining++
				res.RemainingBytes += f.size
			}
			continue
		}
		if f.isEntry {
			res.Removed++
			res.RemovedBytes += f.size
		}
	}
	if subs, err := os.ReadDir(filepath.Join(dir, subdir)); err == nil {
		for _, sub := range subs {
			if sub.IsDir() && isHex(sub.Name(), 2) {
				_ = os.Remove(filepath.Join(dir, subdir, sub.Name())) // only when empty
			}
		}
	}
	return res, errors.Join(errs...)
}
