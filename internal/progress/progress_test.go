package progress

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		done, total int
		s           Stats
		want        string
	}{
		{0, 40, Stats{}, "[                        ] 0/40 files  0 calls  0 tokens"},
		{12, 40, Stats{Calls: 37, CachedCalls: 5, Tokens: 12345}, "[======>                 ] 12/40 files  37 calls (5 cached)  12.3k tokens"},
		{40, 40, Stats{Calls: 120, Tokens: 4_560_000}, "[========================] 40/40 files  120 calls  4.6M tokens"},
		{1, 0, Stats{Tokens: 999}, "[                        ] 1/0 files  0 calls  999 tokens"},
	}
	for _, tt := range tests {
		if got := Line(tt.done, tt.total, tt.s); got != tt.want {
			t.Errorf("Line(%d, %d, %+v) =\n%q\nwant\n%q", tt.done, tt.total, tt.s, got, tt.want)
		}
	}
}

// TestBarWrites checks that a log line written through the bar clears the bar first and that the
// bar is redrawn after it, and that Stop leaves a clean line.
func TestBarWrites(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	b := New(&out, 2, func() Stats { return Stats{Calls: 1} })
	b.Draw()
	fmt.Fprint(b, "hello\n")
	b.Advance(1)
	b.Stop()
	fmt.Fprint(b, "after\n")
	bar0 := "[                        ] 0/2 files  1 calls  0 tokens"
	bar1 := "[===========>            ] 1/2 files  1 calls  0 tokens"
	clear := "\r" + strings.Repeat(" ", len(bar0)) + "\r"
	want := "\r" + bar0 + clear + "hello\n" + "\r" + bar0 + "\r" + bar1 + "\r" + strings.Repeat(" ", len(bar1)) + "\r" + "after\n"
	if out.String() != want {
		t.Errorf("output\n%q\nwant\n%q", out.String(), want)
	}
}

// TestBarSharedWriter checks that output to another stream of the same terminal (standard
// output) clears the bar (on its own stream) first.
func TestBarSharedWriter(t *testing.T) {
	t.Parallel()
	var term bytes.Buffer // both streams end on one terminal
	b := New(&term, 1, nil)
	b.Draw()
	stdout := b.Writer(&term)
	fmt.Fprint(stdout, "docs/a.md\n")
	b.Stop()
	bar := "[                        ] 0/1 files  0 calls  0 tokens"
	want := "\r" + bar + "\r" + strings.Repeat(" ", len(bar)) + "\r" + "docs/a.md\n" + "\r" + bar + "\r" + strings.Repeat(" ", len(bar)) + "\r"
	if term.String() != want {
		t.Errorf("terminal\n%q\nwant\n%q", term.String(), want)
	}
}

// TestBarConcurrent exercises the bar from several goroutines with its ticker running (for -race).
func TestBarConcurrent(t *testing.T) {
	t.Parallel()
	var (
		mu  sync.Mutex
		out bytes.Buffer
	)
	w := writerFunc(func(p []byte) (int, error) { mu.Lock(); defer mu.Unlock(); return out.Write(p) })
	b := New(w, 100, nil)
	b.Start(time.Millisecond)
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 25 {
				b.Advance(1)
				fmt.Fprintf(b, "line %d.%d\n", i, j)
			}
		}()
	}
	wg.Wait()
	b.Stop()
	b.Stop()
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(out.String(), "100/100 files") || strings.Count(out.String(), "line ") != 100 {
		t.Errorf("output lacks the final count or lines:\n%s", out.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
