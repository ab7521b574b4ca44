//go:build !unix

package main

import "os"

// maxRSSKB is unknown (0) where the system does not report a child's peak memory.
func maxRSSKB(*os.ProcessState) int64 { return 0 }
