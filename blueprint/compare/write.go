package compare

import (
	"io"
)

// errWriter remembers the first write error so output code stays linear.
type errWriter struct {
	w   io.Writer
	err error
}

// Write writes unless an earlier write failed.
func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}
