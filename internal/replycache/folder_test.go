package replycache

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseSize(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		in   string
		want int64
	}{
		{"0", 0}, {"1048576", 1048576}, {"500MB", 500_000_000}, {"2GB", 2_000_000_000}, {"1GiB", 1 << 30},
		{"1 gb", 1_000_000_000}, {"1.5GiB", 3 << 29}, {"10kb", 10_000}, {"64 MiB", 64 << 20}, {" 3TB ", 3_000_000_000_000},
		{"12B", 12}, {"2tib", 2 << 40},
	} {
		got, err := ParseSize(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"", "MB", "-1", "1 XB", "1e3", "one GB", "NaN", "1..2GB", "9999999EB", "99999999999TiB"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) accepted", in)
		}
	}
	_, err := ParseSize("lots")
	if err == nil || err.Error() != `expected a size such as 500MB, 2GB, 1GiB or a number of bytes (0: no limit), found "lots"` {
		t.Errorf("error %v", err)
	}
}

func TestFormatSize(t *testing.T) {
	t.Parallel()
	for n, want := range map[int64]string{0: "0 B", 999: "999 B", 1000: "1 kB", 56_712_345: "56.7 MB", 1_000_000_000: "1 GB", 1 << 30: "1.1 GB"} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

// writeEntry writes a fake cache entry with the given key, size and last use.
func writeEntry(t *testing.T, dir, key string, size int, used time.Time) string {
	t.Helper()
	path := filepath.Join(dir, "llm-v1", key[:2], key+".json")
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Repeat("x", size)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, used, used); err != nil {
		t.Fatal(err)
	}
	return path
}

func key(c byte) string { return strings.Repeat(string(c), 64) }

// TestPruneAndClearCache prunes by size and by age, and clears, touching nothing in the folder
// that is not a cache entry.
func TestPruneAndClearCache(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 7, 5, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	writeEntry(t, dir, key('a'), 100, now.Add(-72*time.Hour))
	writeEntry(t, dir, key('b'), 200, now.Add(-48*time.Hour))
	writeEntry(t, dir, key('c'), 300, now.Add(-2*time.Hour))
	writeEntry(t, dir, key('d'), 400, now.Add(-time.Minute))
	tmpOld := filepath.Join(dir, "llm-v1", "aa", ".tmp-123")
	tmpNew := filepath.Join(dir, "llm-v1", "aa", ".tmp-456")
	foreign := []string{filepath.Join(dir, "notes.txt"), filepath.Join(dir, "llm-v1", "README"), filepath.Join(dir, "llm-v1", "aa", "other.json"),
		filepath.Join(dir, "llm-v1", "zz", key('z')+".json")}
	for _, p := range append([]string{tmpOld, tmpNew}, foreign...) {
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("keep me"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Chtimes(tmpOld, now.Add(-2*time.Hour), now.Add(-2*time.Hour))
	_ = os.Chtimes(tmpNew, now.Add(-time.Minute), now.Add(-time.Minute))

	info, err := ReadInfo(dir)
	if err != nil || info.Entries != 4 || info.Size != 1000 || !info.Oldest.Equal(now.Add(-72*time.Hour)) || !info.Newest.Equal(now.Add(-time.Minute)) {
		t.Fatalf("info %+v, %v", info, err)
	}
	res, err := Prune(dir, PruneOptions{OlderThan: 24 * time.Hour, Now: now})
	if err != nil || res != (PruneResult{Removed: 2, RemovedBytes: 300, Remaining: 2, RemainingBytes: 700}) {
		t.Errorf("prune --older-than 24h: %+v, %v", res, err)
	}
	res, err = Prune(dir, PruneOptions{MaxSize: 500, Now: now})
	if err != nil || res != (PruneResult{Removed: 1, RemovedBytes: 300, Remaining: 1, RemainingBytes: 400}) {
		t.Errorf("prune --max-size 500: %+v, %v", res, err)
	}
	if got := entryFiles(t, dir); !slices.Equal(got, []string{key('d'), "other", key('z')}) {
		t.Errorf("left %v", got)
	}
	if _, err := os.Stat(tmpOld); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a temporary file two hours old was kept")
	}
	if _, err := os.Stat(tmpNew); err != nil {
		t.Errorf("a temporary file a minute old (a writer may still rename it) was removed")
	}
	res, err = Clear(dir)
	if err != nil || res != (PruneResult{Removed: 1, RemovedBytes: 400}) {
		t.Errorf("clear: %+v, %v", res, err)
	}
	for _, p := range foreign {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("clear removed %s, which is not a cache entry", p)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "llm-v1", "dd")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the emptied entry folder dd was kept")
	}
}

// TestCacheCommandsRefuseOtherFolders points the cache functions at a folder that is not a
// cache (a home folder given by mistake): nothing is removed.
func TestCacheCommandsRefuseOtherFolders(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doc := filepath.Join(dir, "thesis.json")
	if err := os.WriteFile(doc, []byte("years of work"), 0o600); err != nil {
		t.Fatal(err)
	}
	want := dir + " does not look like a vectorlint cache (it has no llm-v1 folder of entries); nothing was removed"
	for name, f := range map[string]func() error{
		"info":  func() error { _, err := ReadInfo(dir); return err },
		"prune": func() error { _, err := Prune(dir, PruneOptions{MaxSize: 1}); return err },
		"clear": func() error { _, err := Clear(dir); return err },
	} {
		var nc *NotACacheError
		if err := f(); !errors.As(err, &nc) || err.Error() != want {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := os.Stat(doc); err != nil {
		t.Fatal("the file was removed")
	}
	// A missing folder is an empty cache.
	info, err := ReadInfo(filepath.Join(dir, "missing"))
	if err != nil || info.Entries != 0 {
		t.Errorf("missing folder: %+v, %v", info, err)
	}
}

// FuzzParseSize checks that any text is a size or an error, never a panic or a negative size,
// and that a plain number of bytes reads as itself.
func FuzzParseSize(f *testing.F) {
	for _, s := range []string{"0", "500MB", "2 GB", "1.5GiB", "1048576", "-1", "1e9", "NaN", "Inf", "9223372036854775807", "18446744073709551616", ".", "1.", ".5kb"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseSize(s)
		if err == nil && n < 0 {
			t.Fatalf("ParseSize(%q) = %d", s, n)
		}
		if err == nil {
			if back, err := ParseSize(strconv.FormatInt(n, 10)); err != nil || back != n {
				t.Fatalf("%d bytes read back as %d, %v", n, back, err)
			}
		}
	})
}

// entryFiles lists the .json files under a cache folder by name (the key of an entry).
func entryFiles(t *testing.T, dir string) []string {
	t.Helper()
	var keys []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if k, ok := strings.CutSuffix(d.Name(), ".json"); ok && d.Type().IsRegular() {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	slices.Sort(keys)
	return keys
}
