//go:build unix

package main

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKB is a finished child's peak resident set size in KiB (0 when unknown).
func maxRSSKB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024 // bytes there
	}
	return int64(ru.Maxrss)
}
