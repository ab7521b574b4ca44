package points

import (
	"errors"

	"github.com/vectorlint/vectorlint/internal/runwide"
)

// JudgesError is a point every judge of a consensus failed on (a Judge made of several
// judges returns it): its text lists them, and it unwraps to each judge's error, so errors.As
// finds a stopped endpoint (an llm.StopError) among them and RunWideFailures looks at each.
type JudgesError struct {
	// Msg is the error's text.
	Msg string
	// Errs are the judges' errors.
	Errs []error
}

// Error returns Msg.
func (e *JudgesError) Error() string { return e.Msg }

// Unwrap returns every judge's error.
func (e *JudgesError) Unwrap() []error { return e.Errs }

// RunWide returns the failure behind err that is a fact about the whole run rather than about
// one prompt or point: a stopped endpoint (an llm.StopError: refused, DNS, TLS, 401, 403, 404)
// or a model that is not configured (an llm.NotConfiguredError: a key not set), which match
// runwide.ErrStopped and runwide.ErrNotConfigured. Else nil.
func RunWide(err error) error { return runwide.Find(err) }

// RunWideFailures returns the run-wide failures behind err when every failure err stands for
// is one (one judge's error, or all judges' through a *JudgesError), else nil: such failures
// are the run's, reported once each, not the point's.
func RunWideFailures(err error) []error {
	errs := []error{err}
	var jf *JudgesError
	if errors.As(err, &jf) {
		errs = jf.Errs
	}
	var out []error
	for _, e := range errs {
		rw := RunWide(e)
		if rw == nil {
			return nil
		}
		out = append(out, rw)
	}
	return out
}
