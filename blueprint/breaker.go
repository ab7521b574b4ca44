package blueprint

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
)

// breakerThreshold is how many generations of one model may fail in a row before the model is
// skipped for the rest of the run (Weval's FAILURE_THRESHOLD in
// src/cli/services/comparison-pipeline-service.non-stream.ts).
const breakerThreshold = 10

// BreakerError is a generation that was not attempted because its model's circuit breaker is
// open: the model failed breakerThreshold generations in a row. Its cells are errors of the
// result; the table names the model once.
type BreakerError struct {
	// Model is the model id (without the variant's suffixes: every variant of a model counts
	// toward one breaker, as in Weval).
	Model string
	// Failures is the number of failures in a row that opened it.
	Failures int
}

// Error says why the generation was skipped.
func (e *BreakerError) Error() string {
	return fmt.Sprintf("circuit breaker: %s failed %d generations in a row, so it was not asked for the rest of the run", e.Model, e.Failures)
}

// breaker counts each model's generations that failed in a row and opens after threshold of
// them. What is not the model's fault does not count: a failure of the whole run (an endpoint
// stopped or not configured, reported once anyway), a rate limit (Weval does not count 429s
// either), and the run being cancelled. A success resets the count. It is safe for concurrent
// use; generations finishing concurrently are counted in the order they finish.
type breaker struct {
	mu        sync.Mutex
	threshold int
	failures  map[string]int
	open      map[string]*BreakerError
	// tripped lists the open breakers in the order they opened.
	tripped []error
}

func newBreaker(threshold int) *breaker {
	return &breaker{threshold: threshold, failures: map[string]int{}, open: map[string]*BreakerError{}}
}

// check returns the model's *BreakerError when its breaker is open, else nil.
func (b *breaker) check(model string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if e := b.open[model]; e != nil {
		return e
	}
	return nil
}

// record counts the outcome of one of the model's generations.
func (b *breaker) record(model string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case err == nil:
		b.failures[model] = 0
	case countsAsFailure(err):
		b.failures[model]++
		if b.failures[model] >= b.threshold && b.open[model] == nil {
			e := &BreakerError{Model: model, Failures: b.failures[model]}
			b.open[model] = e
			b.tripped = append(b.tripped, e)
		}
	}
}

// countsAsFailure reports whether a failed generation counts toward its model's breaker.
func countsAsFailure(err error) bool {
	if points.RunWide(err) != nil || errors.Is(err, context.Canceled) {
		return false
	}
	var be *BreakerError
	if errors.As(err, &be) {
		return false
	}
	var api *llm.APIError
	return !errors.As(err, &api) || (api.Status != http.StatusTooManyRequests && api.Kind != llm.KindCanceled)
}
