//go:build !unix

package safefile

// openFlags: O_NONBLOCK is a Unix flag; the stat before the open still keeps FIFOs and devices
// from being opened.
const openFlags = 0
