package llm

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// Stall describes the calls in flight when none has finished for a while (Config.OnStall).
type Stall struct {
	// Calls is the number of calls in flight (each may be between attempts).
	Calls int
	// Hosts are the hosts they wait on, sorted.
	Hosts []string
	// Oldest is how long the oldest of them has been running.
	Oldest time.Duration
	// Idle is how long it has been since a call last finished (or since the first of these
	// calls started).
	Idle time.Duration
}

// String reads like "waiting for the model: 8 calls in flight to 127.0.0.1:8080, the oldest
// for 1m2s; none has finished for 30s".
func (s Stall) String() string {
	calls := "1 call"
	if s.Calls != 1 {
		calls = fmt.Sprintf("%d calls", s.Calls)
	}
	return fmt.Sprintf("waiting for the model: %s in flight to %s, the oldest for %s; none has finished for %s",
		calls, strings.Join(s.Hosts, ", "), roundDuration(s.Oldest), roundDuration(s.Idle))
}

// roundDuration shows seconds from 10 s up, tenths below.
func roundDuration(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// flightBoard tracks the calls in flight and reports a stall: a timer runs only while calls
// are in flight, set to fire StallInterval after the last progress (a call finishing, or the
// first call starting) or after the last report.
type flightBoard struct {
	interval time.Duration
	report   func(Stall)

	mu       sync.Mutex
	next     uint64
	calls    map[uint64]flightCall
	progress time.Time
	timer    *time.Timer
}

type flightCall struct {
	host  string
	start time.Time
}

// start records a call in flight and returns its id for finish.
func (f *flightBoard) start(host string) uint64 {
	if f.report == nil {
		return 0
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	now := time.Now()
	if len(f.calls) == 0 {
		f.progress = now
		if f.calls == nil {
			f.calls = map[uint64]flightCall{}
		}
	}
	f.next++
	f.calls[f.next] = flightCall{host: host, start: now}
	if f.timer == nil {
		f.timer = time.AfterFunc(f.interval, f.fire)
	} else if len(f.calls) == 1 {
		f.timer.Reset(f.interval)
	}
	return f.next
}

// finish records that a call ended: progress.
func (f *flightBoard) finish(id uint64) {
	if f.report == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.calls, id)
	f.progress = time.Now()
	if len(f.calls) == 0 {
		f.timer.Stop()
	} else {
		f.timer.Reset(f.interval)
	}
}

// fire reports the calls in flight if nothing finished for the interval, and sets the next
// check. The report is made with the lock held, so that it happens before the next call
// finishes: what the caller writes once its calls are done (a summary on the same stream)
// comes after every report, without a lock of its own.
func (f *flightBoard) fire() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return
	}
	now := time.Now()
	idle := now.Sub(f.progress)
	if idle < f.interval { // progress came in after the timer was set
		f.timer.Reset(f.interval - idle)
		return
	}
	s := Stall{Calls: len(f.calls), Idle: idle}
	hosts := map[string]bool{}
	for _, c := range f.calls {
		hosts[c.host] = true
		s.Oldest = max(s.Oldest, now.Sub(c.start))
	}
	for h := range hosts {
		s.Hosts = append(s.Hosts, h)
	}
	sort.Strings(s.Hosts)
	f.timer.Reset(f.interval)
	f.report(s)
}
