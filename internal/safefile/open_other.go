//go:build !unix

package safefile

// OpenFlags are added to the flags a file is opened for reading with: none here (O_NONBLOCK
// is a Unix flag); the stat before the open still keeps FIFOs and devices from being opened.
const OpenFlags = 0
