package replycache

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// sharedKey is the entry both writer processes fight over.
const sharedKey = "ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"

// TestCacheSharedByProcesses runs two processes that write and read the same cache entry
// hundreds of times at once: every read must see a complete entry written by one of them.
func TestCacheSharedByProcesses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var cmds []*exec.Cmd
	for _, id := range []string{"A", "B"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCacheWriterProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "VECTORLINT_CACHE_WRITER_DIR="+dir, "VECTORLINT_CACHE_WRITER_ID="+id)
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("writer %s output:\n%s", id, out.String())
			}
		})
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("writer process failed: %v", err)
		}
	}
	c := &Store{dir: dir}
	e, err := c.Get(sharedKey, "chat")
	if err != nil || e == nil || !consistent(e.Content) {
		t.Fatalf("final entry: %v, %v", e, err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, subdir, "ab", ".tmp-*"))
	if len(matches) != 0 {
		t.Fatalf("temporary files left behind: %v", matches)
	}
}

// TestCacheWriterProcess is the body of one writer process of TestCacheSharedByProcesses.
func TestCacheWriterProcess(t *testing.T) {
	// Not parallel: it is the body of a writer process that TestCacheSharedByProcesses runs alone.
	dir := os.Getenv("VECTORLINT_CACHE_WRITER_DIR")
	if dir == "" {
		t.Skip("helper process of TestCacheSharedByProcesses")
	}
	id := os.Getenv("VECTORLINT_CACHE_WRITER_ID")
	c := &Store{dir: dir}
	for i := 0; i < 300; i++ {
		// A large entry makes a torn write likely if writes were not atomic.
		content := fmt.Sprintf("%s%d|", id, i)
		content = strings.Repeat(content, 20000/len(content))
		if err := c.Put(sharedKey, &Entry{Op: "chat", Model: "m", Content: content}); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		e, err := c.Get(sharedKey, "chat")
		if err != nil || e == nil {
			t.Fatalf("get %d: %v, %v", i, e, err)
		}
		if !consistent(e.Content) {
			t.Fatalf("get %d: torn entry %q…", i, e.Content[:40])
		}
	}
}

// consistent reports whether content is one writer's repeated pattern.
func consistent(content string) bool {
	bar := strings.IndexByte(content, '|')
	if bar < 0 {
		return false
	}
	unit := content[:bar+1]
	return strings.Repeat(unit, len(content)/len(unit)) == content
}

// TestCacheEvictionUnderConcurrentUse runs four caches on one folder, as four processes would,
// each with a cap of a few entries, writing and reading the same keys at once: prunes remove
// entries under readers and writers, and every read is a complete entry or a miss, never an
// error or a torn entry.
func TestCacheEvictionUnderConcurrentUse(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	const keys = 40
	content := strings.Repeat("reply ", 100)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	var pruned atomic.Int64
	for w := range 4 {
		c := &Store{dir: dir, maxSize: 8 * 700, onPrune: func(res PruneResult, err error) {
			if err != nil {
				errs <- err
			}
			pruned.Add(int64(res.Removed))
		}}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 300 {
				key := fmt.Sprintf("%02x%062x", (i*7+w)%keys, (i*7+w)%keys)
				if err := c.Put(key, &Entry{Op: "chat", Model: "m", Content: content + key}); err != nil {
					errs <- err
					return
				}
				e, err := c.Get(fmt.Sprintf("%02x%062x", (i*3+w)%keys, (i*3+w)%keys), "chat")
				if err != nil {
					errs <- err
					return
				}
				if e != nil && e.Content != content+e.Key {
					errs <- fmt.Errorf("torn entry %s", e.Key)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if pruned.Load() == 0 {
		t.Error("no entry was pruned: the cap was never passed")
	}
	info, err := ReadInfo(dir)
	if err != nil {
		t.Fatal(err)
	}
	// Each cache prunes only what it counts: the folder ends near the cap, not at 40 entries.
	if info.Entries >= keys {
		t.Errorf("%d entries remain", info.Entries)
	}
}

// TestEstimateSize checks the sampled estimate a process makes at its first write against
// the real size: exact for a cache in fewer folders than the sample, close for a large one.
func TestEstimateSize(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if est, err := estimateSize(dir); err != nil || est != 0 {
		t.Fatalf("empty cache: %d, %v", est, err)
	}
	c := &Store{dir: dir}
	put := func(i int, size int) {
		sum := sha256.Sum256([]byte(strconv.Itoa(i)))
		if err := c.Put(hex.EncodeToString(sum[:]), &Entry{Op: "chat", Content: strings.Repeat("x", size)}); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 5 {
		put(i, 500)
	}
	info, _ := ReadInfo(dir)
	if est, err := estimateSize(dir); err != nil || est != info.Size {
		t.Errorf("5 entries: estimate %d, size %d, %v", est, info.Size, err)
	}
	for i := 5; i < 5000; i++ {
		put(i, 300+i%700)
	}
	info, _ = ReadInfo(dir)
	est, err := estimateSize(dir)
	if err != nil || est < info.Size*8/10 || est > info.Size*12/10 {
		t.Errorf("5000 entries: estimate %d, size %d, %v", est, info.Size, err)
	}
}
