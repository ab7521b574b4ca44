//go:build unix

package safefile

import "syscall"

// openFlags opens without blocking: a FIFO opened for reading would otherwise wait for a writer.
const openFlags = syscall.O_NONBLOCK
