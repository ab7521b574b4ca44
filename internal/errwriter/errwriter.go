// Package errwriter is an io.Writer that remembers its first error, so that code writing a
// report line by line stays linear and checks the error once at the end.
package errwriter

import "io"

// Writer writes to W until a write fails; from then on every write returns that first error
// without writing.
type Writer struct {
	w   io.Writer
	err error
}

// New returns a Writer writing to w.
func New(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p unless an earlier write failed.
func (e *Writer) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

// Err is the first write error, nil when every write succeeded.
func (e *Writer) Err() error { return e.err }
