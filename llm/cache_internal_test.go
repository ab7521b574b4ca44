package llm

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sharedKey is the entry both writer processes fight over.
const sharedKey = "ab0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcd"

// TestCacheSharedByProcesses runs two processes that write and read the same cache entry
// hundreds of times at once: every read must see a complete entry written by one of them.
func TestCacheSharedByProcesses(t *testing.T) {
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
	c := &diskCache{dir: dir}
	e, err := c.get(sharedKey, "chat")
	if err != nil || e == nil || !consistent(e.Content) {
		t.Fatalf("final entry: %v, %v", e, err)
	}
	matches, _ := filepath.Glob(filepath.Join(dir, cacheSubdir, "ab", ".tmp-*"))
	if len(matches) != 0 {
		t.Fatalf("temporary files left behind: %v", matches)
	}
}

// TestCacheWriterProcess is the body of one writer process of TestCacheSharedByProcesses.
func TestCacheWriterProcess(t *testing.T) {
	dir := os.Getenv("VECTORLINT_CACHE_WRITER_DIR")
	if dir == "" {
		t.Skip("helper process of TestCacheSharedByProcesses")
	}
	id := os.Getenv("VECTORLINT_CACHE_WRITER_ID")
	c := &diskCache{dir: dir}
	for i := 0; i < 300; i++ {
		// A large entry makes a torn write likely if writes were not atomic.
		content := fmt.Sprintf("%s%d|", id, i)
		content = strings.Repeat(content, 20000/len(content))
		if err := c.put(sharedKey, &cacheEntry{Op: "chat", Model: "m", Content: content}); err != nil {
			t.Fatalf("put %d: %v", i, err)
		}
		e, err := c.get(sharedKey, "chat")
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
