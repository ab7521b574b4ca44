// Package safefile holds the checks that make reading the files a run is given — documents,
// rule files, configuration, blueprints — read nothing but a regular file, and never more than
// a limit. The files are opened through internal/tree, which uses these checks.
//
// On a pull request those files come from a stranger. A FIFO blocks the run the moment it is
// opened, a device can be endless (/dev/zero) or have effects when opened, and a file of a
// pseudo-filesystem such as /proc/self/environ holds the process's own secrets while looking
// like an ordinary, empty file. So a path is stat'ed before it is opened (a FIFO or device is
// never opened), opened without blocking (OpenFlags: a FIFO swapped in after the stat cannot
// hang the open), and the opened file is checked again (CheckOpened: fstat, fstatfs) before a
// byte is read (ReadOpened).
package safefile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// NotRegularError reports a path that is not a regular file: a folder, a FIFO, a device, a
// socket, or a file of a pseudo-filesystem such as /proc.
type NotRegularError struct {
	// What says what the path is instead ("a FIFO (named pipe)", "a file of the proc
	// pseudo-filesystem (/proc)").
	What string
}

// Error returns "<what>, not a regular file". The caller names the path (errors from this
// package are wrapped in an *fs.PathError that does).
func (e *NotRegularError) Error() string { return e.What + ", not a regular file" }

// TooLargeError reports a file over the size limit of its kind.
type TooLargeError struct {
	Size, Limit int64
	// AtLeast is set when reading stopped past the limit, so Size is only a lower bound (a
	// stream, or a file that grew while it was read).
	AtLeast bool
}

// Error says what was expected and what was found.
func (e *TooLargeError) Error() string {
	if e.AtLeast {
		return fmt.Sprintf("too large: expected at most %s, found more", FormatSize(e.Limit))
	}
	return fmt.Sprintf("too large: expected at most %s, found %s", FormatSize(e.Limit), FormatSize(e.Size))
}

// FormatSize writes a byte count for messages: "10 MiB (10485760 bytes)" for whole mebibytes,
// else "12345678 bytes".
func FormatSize(n int64) string {
	const mib = 1 << 20
	if n >= mib && n%mib == 0 {
		return fmt.Sprintf("%d MiB (%d bytes)", n/mib, n)
	}
	if n == 1 {
		return "1 byte"
	}
	return fmt.Sprintf("%d bytes", n)
}

// Describe says what a file of the given mode is, for messages: "a folder", "a FIFO (named
// pipe)", "a character device"…; "a regular file" for a regular file.
func Describe(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
	case mode.IsDir():
		return "a folder"
	case mode&fs.ModeNamedPipe != 0:
		return "a FIFO (named pipe)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeIrregular != 0:
		return "a file of an unknown kind"
	}
	return "not a regular file"
}

// CheckOpened checks an opened file before a byte is read: fstat (a regular file, not a FIFO,
// device or socket swapped in after a stat) and fstatfs (not a file of a pseudo-filesystem such
// as /proc). Errors are *fs.PathError values naming path. It returns the file's information.
func CheckOpened(f *os.File, path string) (fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: path, Err: unwrapPath(err)}
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &NotRegularError{What: Describe(fi.Mode())}}
	}
	if what := pseudoFSFile(f); what != "" {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &NotRegularError{What: what}}
	}
	return fi, nil
}

// ReadOpened reads the opened file f (named path in errors) once CheckOpened accepts it, never
// more than limit bytes (no limit when limit ≤ 0): a file over the limit is a *TooLargeError,
// also when it grew after the fstat. The caller opens f with OpenFlags and closes it.
func ReadOpened(f *os.File, path string, limit int64) ([]byte, error) {
	fi, err := CheckOpened(f, path)
	if err != nil {
		return nil, err
	}
	if limit > 0 && fi.Size() > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: fi.Size(), Limit: limit}}
	}
	size := fi.Size()
	if limit > 0 {
		size = min(size, limit)
	}
	// Read one byte more than the limit: a file that grew since the fstat is still caught.
	r := io.Reader(f)
	if limit > 0 {
		r = io.LimitReader(f, limit+1)
	}
	data := make([]byte, 0, size+1)
	for {
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: unwrapPath(err)}
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
	if limit > 0 && int64(len(data)) > limit {
		return nil, &fs.PathError{Op: "read", Path: path, Err: &TooLargeError{Size: int64(len(data)), Limit: limit, AtLeast: true}}
	}
	return data, nil
}

// unwrapPath is the reason of an *fs.PathError (which names the opened file's own name, not
// the path the caller gave), or err itself.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// PseudoFSOf names the pseudo-filesystem the open file or folder f is on ("a file of the proc
// pseudo-filesystem"), or returns "" for an ordinary filesystem (and on systems without such
// filesystems). A folder walk checks each folder it enters (opened through a root,
// internal/tree), so the files of /proc, /sys and the like are never listed.
func PseudoFSOf(f *os.File) string { return pseudoFSFile(f) }

// IsNotRegular reports whether err is (or wraps) a *NotRegularError.
func IsNotRegular(err error) bool {
	var nr *NotRegularError
	return errors.As(err, &nr)
}
