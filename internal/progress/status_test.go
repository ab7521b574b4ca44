package progress

import (
	"bytes"
	"sync"
	"testing"
)

// TestStatus checks the bytes a phased run draws: nothing before a phase's first step, each
// step rewriting the line, a new phase and Stop erasing it, and no erase when nothing is shown.
func TestStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		run  func(s *Status)
		want string
	}{
		{"two phases", func(s *Status) {
			s.Phase("generating responses", 2)
			s.Advance(1)
			s.Advance(1)
			s.Phase("scoring", 2)
			s.Advance(2)
			s.Stop()
		}, "\r\033[Kgenerating responses: 1/2\r\033[Kgenerating responses: 2/2\r\033[K\r\033[Kscoring: 2/2\r\033[K"},
		{"a phase without steps draws nothing", func(s *Status) {
			s.Phase("generating responses", 0)
			s.Phase("scoring", 1)
			s.Stop()
			s.Stop()
		}, ""},
		{"stopped, then a new phase", func(s *Status) {
			s.Phase("scoring", 3)
			s.Advance(1)
			s.Stop()
			s.Phase("scoring", 3)
			s.Advance(1)
		}, "\r\033[Kscoring: 1/3\r\033[K\r\033[Kscoring: 1/3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			tt.run(NewStatus(&out))
			if out.String() != tt.want {
				t.Errorf("output\n%q\nwant\n%q", out.String(), tt.want)
			}
		})
	}
}

// TestStatusConcurrent advances one phase from many goroutines (run with -race): every step
// is counted once.
func TestStatusConcurrent(t *testing.T) {
	t.Parallel()
	var out bytes.Buffer
	s := NewStatus(&out)
	s.Phase("scoring", 50)
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() { s.Advance(1) })
	}
	wg.Wait()
	s.Stop()
	if got := out.String(); !bytes.HasSuffix(out.Bytes(), []byte("scoring: 50/50\r\033[K")) {
		t.Errorf("output ends %q", got[max(0, len(got)-40):])
	}
}
