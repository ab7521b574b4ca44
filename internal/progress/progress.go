// Package progress draws a one-line progress bar on a terminal: files done out of the total,
// model calls and tokens. Everything else written to the same terminal while the bar is shown
// goes through the Bar (it is an io.Writer), which clears the bar line, writes, and redraws, so
// log lines and the bar never garble each other. Status is the simpler one-line status of work
// done in phases (a blueprint run: generating responses, then scoring).
//
// The command decides whether to show a bar at all (only when standard error is a terminal and
// --quiet is not given); this package never inspects the terminal.
package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Stats are the counters shown besides the files.
type Stats struct {
	Calls       int
	CachedCalls int
	Tokens      int64
}

// Bar is a progress bar. It is safe for concurrent use.
type Bar struct {
	mu      sync.Mutex
	w       io.Writer
	total   int
	done    int
	stats   func() Stats
	width   int // width of the drawn line, to clear it
	stopped bool
	stop    chan struct{}
	exited  chan struct{}
}

// barWidth is the number of cells of the bar itself.
const barWidth = 24

// New returns a bar over total files that reads the counters from stats (may be nil). It
// draws nothing until Start or Draw.
func New(w io.Writer, total int, stats func() Stats) *Bar {
	if stats == nil {
		stats = func() Stats { return Stats{} }
	}
	return &Bar{w: w, total: total, stats: stats}
}

// Start redraws the bar every interval until Stop.
func (b *Bar) Start(interval time.Duration) {
	b.mu.Lock()
	if b.stop != nil || b.stopped {
		b.mu.Unlock()
		return
	}
	b.stop, b.exited = make(chan struct{}), make(chan struct{})
	b.mu.Unlock()
	b.Draw()
	go func() {
		defer close(b.exited)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				b.Draw()
			case <-b.stop:
				return
			}
		}
	}()
}

// Advance counts n more files done and redraws.
func (b *Bar) Advance(n int) {
	b.mu.Lock()
	b.done += n
	b.mu.Unlock()
	b.Draw()
}

// Draw redraws the bar now.
func (b *Bar) Draw() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return
	}
	b.draw()
}

// Line is the text of the bar for the given counts, e.g.
// "[=========>              ] 12/40 files  37 calls (5 cached)  12.3k tokens".
func Line(done, total int, s Stats) string {
	filled := 0
	if total > 0 {
		filled = min(barWidth, done*barWidth/total)
	}
	bar := strings.Repeat("=", filled)
	if filled < barWidth {
		if filled > 0 {
			bar = bar[:filled-1] + ">"
		}
		bar += strings.Repeat(" ", barWidth-filled)
	}
	line := fmt.Sprintf("[%s] %d/%d files  %d calls", bar, done, total, s.Calls)
	if s.CachedCalls > 0 {
		line += fmt.Sprintf(" (%d cached)", s.CachedCalls)
	}
	return line + "  " + formatTokens(s.Tokens) + " tokens"
}

// formatTokens writes 950, 12.3k, 4.5M.
func formatTokens(n int64) string {
	switch {
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

func (b *Bar) draw() {
	line := Line(b.done, b.total, b.stats())
	pad := ""
	if n := len([]rune(line)); n < b.width {
		pad = strings.Repeat(" ", b.width-n)
	}
	fmt.Fprint(b.w, "\r"+line+pad)
	b.width = len([]rune(line))
}

func (b *Bar) clear() {
	if b.width > 0 {
		fmt.Fprint(b.w, "\r"+strings.Repeat(" ", b.width)+"\r")
		b.width = 0
	}
}

// Write clears the bar, writes p and redraws the bar below it.
func (b *Bar) Write(p []byte) (int, error) { return b.write(b.w, p) }

// Writer returns a writer to w, for output that shares the terminal with the bar (standard
// output when it is the same terminal): each write clears the bar first and redraws it after.
func (b *Bar) Writer(w io.Writer) io.Writer { return sharedWriter{b: b, w: w} }

type sharedWriter struct {
	b *Bar
	w io.Writer
}

func (s sharedWriter) Write(p []byte) (int, error) { return s.b.write(s.w, p) }

// write writes p to w with the bar out of the way.
func (b *Bar) write(w io.Writer, p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stopped {
		return w.Write(p)
	}
	b.clear()
	n, err := w.Write(p)
	if len(p) > 0 && p[len(p)-1] == '\n' {
		b.draw()
	}
	return n, err
}

// Stop stops redrawing and clears the bar. Later writes go straight through.
func (b *Bar) Stop() {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	b.stopped = true
	stop, exited := b.stop, b.exited
	b.clear()
	b.mu.Unlock()
	if stop != nil {
		close(stop)
		<-exited
	}
}
