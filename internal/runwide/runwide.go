// Package runwide names the failures that are facts about a whole run rather than about one
// call: an endpoint the model client stopped calling (a refused connection, a failed TLS
// handshake, an HTTP 401…: llm.StopError) and a model that is not configured (a key that is not
// set: llm.NotConfiguredError). The errors are the model client's; the sentinels they match
// with errors.Is live here, so that the points engine can tell them from other failures
// without linking the client, and a run reports each of them once instead of once per call.
package runwide

import "errors"

// ErrStopped is matched (errors.Is) by every llm.StopError.
var ErrStopped = errors.New("llm: calls to the endpoint were stopped")

// ErrNotConfigured is matched (errors.Is) by every llm.NotConfiguredError.
var ErrNotConfigured = errors.New("LLM provider not configured")

// Find returns the failure behind err that is a fact about the whole run: the first error of
// err's tree, in the order errors.As visits it, that matches ErrStopped itself (not through what
// it wraps), else the first that matches ErrNotConfigured itself; nil when there is none.
func Find(err error) error {
	if e := first(err, ErrStopped); e != nil {
		return e
	}
	return first(err, ErrNotConfigured)
}

// first is the first error of err's tree, depth first as errors.As goes, whose own Is method
// reports target.
func first(err error, target error) error {
	for err != nil {
		if x, ok := err.(interface{ Is(error) bool }); ok && x.Is(target) {
			return err
		}
		switch u := err.(type) {
		case interface{ Unwrap() error }:
			err = u.Unwrap()
		case interface{ Unwrap() []error }:
			for _, e := range u.Unwrap() {
				if found := first(e, target); found != nil {
					return found
				}
			}
			return nil
		default:
			return nil
		}
	}
	return nil
}
