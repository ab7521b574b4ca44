package bench

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// peakWatcher follows a running child's peak resident set size (VmHWM in /proc/PID/status,
// Linux) until stopped. The wait4 rusage figure cannot be used: Linux starts a child's
// ru_maxrss at its parent's peak (the child is created sharing the parent's memory, then execs),
// so every child would report at least this program's own peak, fake server included. The last
// reading is taken a few milliseconds before the child exits, when the work is done.
type peakWatcher struct {
	stop chan struct{}
	wg   sync.WaitGroup
	kb   int64
}

// watchPeak starts following process pid.
func watchPeak(pid int) *peakWatcher {
	w := &peakWatcher{stop: make(chan struct{})}
	path := "/proc/" + strconv.Itoa(pid) + "/status"
	w.wg.Add(1)
	go func() {
		defer w.wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if kb := readHWM(path); kb > w.kb {
				w.kb = kb
			}
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	return w
}

// done stops following and returns the peak in KiB (0 where the system does not tell).
func (w *peakWatcher) done() int64 {
	close(w.stop)
	w.wg.Wait()
	return w.kb
}

// readHWM reads VmHWM (KiB) from a /proc status file; 0 when it cannot.
func readHWM(path string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb
		}
	}
	return 0
}
