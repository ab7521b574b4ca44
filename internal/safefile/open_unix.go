//go:build unix

package safefile

import "syscall"

// OpenFlags are added to the flags a file is opened for reading with: O_NONBLOCK, since a FIFO
// opened for reading would otherwise wait for a writer.
const OpenFlags = syscall.O_NONBLOCK
