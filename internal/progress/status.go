package progress

import (
	"fmt"
	"io"
	"sync"
)

// Status is a one-line status on a terminal for work done in phases, such as a blueprint run
// ("generating responses: 12/40", then "scoring: 3/40"): each step rewrites the line in place
// (carriage return, erase line), a new phase erases the last one's, and Stop erases the line.
// Nothing is drawn before a phase's first step, so a phase that does nothing leaves no trace.
// It is safe for concurrent use.
type Status struct {
	mu    sync.Mutex
	w     io.Writer
	name  string
	total int
	done  int
	shown bool
}

// eraseLine returns the cursor to the start of the line and erases it (ANSI EL).
const eraseLine = "\r\033[K"

// NewStatus returns a status line that draws on w, a terminal.
func NewStatus(w io.Writer) *Status { return &Status{w: w} }

// Phase starts a phase of total steps named name, erasing the previous phase's line.
func (s *Status) Phase(name string, total int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
	s.name, s.total, s.done = name, total, 0
}

// Advance counts n more steps of the current phase done and redraws the line.
func (s *Status) Advance(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.done += n
	fmt.Fprintf(s.w, eraseLine+"%s: %d/%d", s.name, s.done, s.total)
	s.shown = true
}

// Stop erases the line. The Status may start another phase afterwards.
func (s *Status) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.clear()
}

func (s *Status) clear() {
	if s.shown {
		fmt.Fprint(s.w, eraseLine)
		s.shown = false
	}
}
