package points

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"golang.org/x/sync/semaphore"
)

// JSMemoryBudget is the memory one $js evaluation may hold: 64 MiB.
const JSMemoryBudget = 64 << 20

// jsWatchInterval is how often the memory watchdog looks at the heap while scripts run.
const jsWatchInterval = time.Millisecond

var (
	errJSMemory      = fmt.Errorf("JavaScript used more than %d MiB of memory and was stopped", JSMemoryBudget>>20)
	errJSRetryAlone  = errors.New("JavaScript is run again on its own to measure its memory")
	errJSNotVerified = errors.New("memory growth not caused by the script")
)

// JSPool runs $js points (and $tool_args_match where expressions) with a memory budget of
// JSMemoryBudget each, without letting one of them take the process down.
//
// A single built-in call cannot allocate much: jsGuards and rewriteJS refuse, before they start,
// the calls and syntax that would build a huge value at once. What a script accumulates step by
// step is watched: while scripts run, a watchdog reads the heap's size every millisecond, and
// once it has grown by the budget since a script started, it has the garbage collector measure
// what is live. A script during which the live heap grew past the budget is interrupted at its
// next instruction. The heap is the process's, so when scripts run at the same time the growth
// cannot be pinned on one: each of them is then run again on its own (the pool waits for the
// others to finish and starts no new one meanwhile), where the growth is its own. Scripts are
// pure functions of the response, so running one again changes nothing. A script stopped for
// memory is confirmed once it has ended: collecting its garbage must give back at least half
// the budget, else the growth was not the script's (another part of the program) and it is run
// once more. The memory of a stopped script is returned to the operating system at once.
//
// At most GOMAXPROCS scripts hold a slot at once (they are CPU-bound; more would only add to
// the memory). A script stopped at its limit gives its slot back as soon as runJS gives up on
// it, even when it is still in a built-in call (its goroutine then ends within a bounded time,
// and the watchdog keeps an eye on it until then): no number of hostile scripts can keep the
// others from running (spec/trust.md §8). A JSPool is safe for concurrent use; the points of a
// run share one so the watchdog sees them all. The zero value is not usable: use NewJSPool.
type JSPool struct {
	slots  *semaphore.Weighted
	width  int64
	budget int64

	mu       sync.Mutex
	active   map[*jsRun]bool
	watching bool
	// reruns counts the scripts run again on their own (for tests).
	reruns atomic.Int64
}

// NewJSPool returns a pool that runs up to GOMAXPROCS scripts at once.
func NewJSPool() *JSPool { return newJSPool(runtime.GOMAXPROCS(0)) }

func newJSPool(width int) *JSPool {
	w := int64(max(1, width))
	return &JSPool{slots: semaphore.NewWeighted(w), width: w, budget: JSMemoryBudget, active: map[*jsRun]bool{}}
}

// jsRun is one script running in a pool.
type jsRun struct {
	vm *goja.Runtime
	// base is the heap's live size when the script started (as the last collection measured
	// it; measured afresh for a script run on its own); threshold the heap size at which the
	// watchdog next has the live size measured.
	base, threshold uint64
	// alone says no other script ran at any time during this one (so any growth is its own);
	// exclusive says the pool ran it on its own on purpose.
	alone, exclusive bool
	// stopped is set (under the pool's lock) when the watchdog interrupted the script, with the
	// live size it measured then.
	stopped error
	liveAt  uint64
}

// heapLive reads the live heap as the last garbage collection measured it, and heapSize the
// heap's objects now, garbage not yet collected included. Reading them costs well under a
// microsecond and stops nothing.
func heapLive() uint64 { return readMetric("/gc/heap/live:bytes") }

func heapSize() uint64 { return readMetric("/memory/classes/heap/objects:bytes") }

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// run runs prog as runJS describes, within the pool's limits.
func (p *JSPool) run(ctx context.Context, prog *goja.Program, timeout time.Duration, bind func(vm *goja.Runtime) error) (goja.Value, error) {
	exclusive := false
	for attempt := 0; ; attempt++ {
		v, err := p.attempt(ctx, prog, timeout, bind, exclusive)
		switch {
		case errors.Is(err, errJSRetryAlone) || (errors.Is(err, errJSNotVerified) && attempt < 2):
			exclusive = true
			p.reruns.Add(1)
		case errors.Is(err, errJSNotVerified):
			// Stopped three times for growth that was not its own: the process is short of
			// memory for other reasons; the point fails rather than run unwatched.
			return nil, errJSMemory
		default:
			return v, err
		}
	}
}

// attempt runs the script once: alongside others (exclusive false) or alone.
func (p *JSPool) attempt(ctx context.Context, prog *goja.Program, timeout time.Duration, bind func(vm *goja.Runtime) error, exclusive bool) (goja.Value, error) {
	if timeout <= 0 {
		timeout = DefaultJSTimeout
	}
	weight := int64(1)
	if exclusive {
		weight = p.width
	}
	// Waiting for a slot is not running: the time limit starts after.
	if err := p.slots.Acquire(ctx, weight); err != nil {
		return nil, err
	}
	vm := goja.New()
	vm.SetMaxCallStackSize(1000)
	// The slot is given back once: by the script's goroutine when it ends, or by attempt when it
	// gives up on a script that does not stop at its limit (a built-in still running), at once,
	// so that a stopped script never keeps others from running (spec/trust.md §8).
	var released sync.Once
	release := func() { released.Do(func() { p.slots.Release(weight) }) }
	if _, err := vm.RunProgram(jsGuards()); err != nil {
		release()
		return nil, fmt.Errorf("JavaScript sandbox: %v", err)
	}
	if err := bind(vm); err != nil {
		release()
		return nil, err
	}
	run := p.start(vm, exclusive)
	done := make(chan jsOutcome, 1)
	go p.execute(vm, prog, timeout, run, release, done)
	limit := time.NewTimer(timeout)
	defer limit.Stop()
	stopped := fmt.Errorf("JavaScript ran longer than %v and was stopped", timeout)
	var o jsOutcome
	wait := jsGrace
	select {
	case o = <-done:
	case <-ctx.Done():
		vm.Interrupt(ctx.Err())
		stopped = ctx.Err()
	case <-limit.C:
		// On a loaded machine the time limit may come before the watchdog's next look: a
		// script whose heap has grown by the budget is measured now, while it still holds its
		// memory, so that it is stopped for what it did, not for how slowly it was run.
		if !p.measure(run) {
			vm.Interrupt(errJSTimeout)
			wait = jsStopGrace
		}
	}
	if o == (jsOutcome{}) {
		grace := time.NewTimer(wait)
		defer grace.Stop()
		select {
		case o = <-done:
		case <-grace.C:
			// The script is still in a built-in call that does not see the interrupt: its
			// goroutine runs on until the call returns (each regular expression scan is
			// bounded by jsRegexpTimeout, each built-in by jsGuards' sizes), but its slot is
			// free now.
			release()
			if p.stopped(run) != nil {
				return nil, errJSMemory // stopped for memory, still in a built-in
			}
			return nil, stopped
		}
	}
	switch err := p.stopped(run); {
	case err == nil:
		return o.v, o.err
	case errors.Is(err, errJSRetryAlone):
		return nil, err
	default:
		return nil, p.verify(run)
	}
}

// jsOutcome is what a script's run gave: its value or its error.
type jsOutcome struct {
	v   goja.Value
	err error
}

// execute runs prog on vm, in the goroutine attempt starts, and sends its outcome on done once
// the script has ended: a panic is an error, and a run past its time limit fails whatever it
// returned. The watchdog is told and the slot released (release) before the outcome is sent.
func (p *JSPool) execute(vm *goja.Runtime, prog *goja.Program, timeout time.Duration, run *jsRun, release func(), done chan<- jsOutcome) {
	var o jsOutcome
	defer func() {
		if r := recover(); r != nil {
			o = jsOutcome{err: fmt.Errorf("JavaScript failed: %v", r)}
		}
		// The watchdog's eye stays on the script until it has really ended, even when
		// runJS gave up waiting for it (a built-in still running): its memory is still
		// the process's.
		p.finish(run)
		release()
		done <- o
	}()
	began := time.Now()
	v, err := vm.RunProgram(prog)
	switch {
	case err != nil:
		o.err = jsError(err, timeout)
	case time.Since(began) >= timeout:
		// Past its limit, whatever it returned: a regular expression cut at its own
		// limit (jsRegexpTimeout) reports no match instead of failing, so a result that
		// took this long may rest on a match that was never finished.
		o.err = fmt.Errorf("JavaScript ran longer than %v and was stopped", timeout)
	default:
		o.v = v
	}
}

// start registers a script with the watchdog (starting it when it is the first). A script run
// on its own starts with a collection, so its growth is measured from what is live.
func (p *JSPool) start(vm *goja.Runtime, exclusive bool) *jsRun {
	if exclusive {
		runtime.GC()
	}
	run := &jsRun{vm: vm, base: heapLive(), threshold: heapSize() + uint64(p.budget), exclusive: exclusive}
	p.mu.Lock()
	defer p.mu.Unlock()
	run.alone = len(p.active) == 0
	for other := range p.active {
		other.alone = false
	}
	p.active[run] = true
	if !p.watching {
		p.watching = true
		go p.watch()
	}
	return run
}

// finish removes an ended script from the watchdog's list and lets go of its runtime, whose
// memory verify then expects to be garbage.
func (p *JSPool) finish(run *jsRun) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.active, run)
	run.vm = nil
}

// running counts the scripts whose goroutine has not ended, stopped ones included.
func (p *JSPool) running() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.active)
}

// stopped returns why the watchdog interrupted the script (nil when it did not).
func (p *JSPool) stopped(run *jsRun) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return run.stopped
}

// watch interrupts the scripts during which the live heap grew past the budget, until no
// script runs. The heap's size (garbage included) is read every tick; only when it has grown by
// the budget since a script started (or since the last measurement) does a collection measure
// what is live, so a script that makes garbage but keeps little costs a collection per
// budget's worth of allocation at most.
func (p *JSPool) watch() {
	tick := time.NewTicker(jsWatchInterval)
	defer tick.Stop()
	for range tick.C {
		size := heapSize()
		p.mu.Lock()
		if len(p.active) == 0 {
			p.watching = false
			p.mu.Unlock()
			return
		}
		measure := false
		for run := range p.active {
			measure = measure || (run.stopped == nil && size > run.threshold)
		}
		p.mu.Unlock()
		if !measure {
			continue
		}
		runtime.GC()
		live, size := heapLive(), heapSize()
		p.mu.Lock()
		for run := range p.active {
			p.judge(run, live, size)
		}
		p.mu.Unlock()
	}
}

// judge stops run when the live heap has grown past the budget since it started (live and
// size measured just after a collection), else moves its threshold on. It reports whether run
// is stopped. p.mu is held.
func (p *JSPool) judge(run *jsRun, live, size uint64) bool {
	if run.stopped != nil {
		return true
	}
	if live <= run.base || live-run.base <= uint64(p.budget) {
		run.threshold = size + uint64(p.budget)
		return false
	}
	run.stopped, run.liveAt = errJSMemory, live
	if !run.alone && !run.exclusive {
		run.stopped = errJSRetryAlone
	}
	if run.vm != nil {
		run.vm.Interrupt(run.stopped)
	}
	return true
}

// measure does the watchdog's work for one script at once (at its time limit): when the heap
// has grown by the budget since the script started, a collection measures what is live and
// the script is judged. It reports whether the script is stopped for memory.
func (p *JSPool) measure(run *jsRun) bool {
	p.mu.Lock()
	due := run.stopped != nil || heapSize() > run.threshold
	p.mu.Unlock()
	if !due {
		return false
	}
	runtime.GC()
	live, size := heapLive(), heapSize()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.judge(run, live, size)
}

// verify confirms that a script stopped for memory held it: once it has ended its memory is
// garbage, so a collection gives it back. The collection also returns that memory to the
// operating system. It returns errJSMemory when confirmed (at least half the budget came back),
// errJSNotVerified when not (the growth was not the script's).
func (p *JSPool) verify(run *jsRun) error {
	debug.FreeOSMemory() // a full collection, then the freed pages back to the system
	if after := heapLive(); after < run.liveAt && run.liveAt-after >= uint64(p.budget)/2 {
		return errJSMemory
	}
	return errJSNotVerified
}
