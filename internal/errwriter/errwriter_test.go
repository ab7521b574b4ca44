package errwriter

import (
	"errors"
	"strings"
	"testing"
)

// failAfter accepts n writes, then fails every one.
type failAfter struct {
	n   int
	buf strings.Builder
}

var errFull = errors.New("disk full")

func (f *failAfter) Write(p []byte) (int, error) {
	if f.n == 0 {
		return 0, errFull
	}
	f.n--
	return f.buf.Write(p)
}

func TestFirstErrorKept(t *testing.T) {
	t.Parallel()
	dst := &failAfter{n: 1}
	w := New(dst)
	if n, err := w.Write([]byte("one ")); n != 4 || err != nil {
		t.Fatalf("first write: %d, %v", n, err)
	}
	for range 2 {
		if n, err := w.Write([]byte("two")); n != 0 || !errors.Is(err, errFull) {
			t.Fatalf("write after the failure: %d, %v", n, err)
		}
	}
	dst.n = 5 // the destination would accept again; the writer must not write
	if _, err := w.Write([]byte("three")); !errors.Is(err, errFull) || dst.buf.String() != "one " || !errors.Is(w.Err(), errFull) {
		t.Fatalf("%v, wrote %q, Err %v", err, dst.buf.String(), w.Err())
	}
}
