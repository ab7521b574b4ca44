package blueprint

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
)

// TestBreaker follows the circuit breaker of Weval's generateAllResponses
// (src/cli/services/comparison-pipeline-service.non-stream.ts and its test "should trip the
// breaker after 10 consecutive failures"): failures in a row open it at the threshold, a
// success resets the count, rate limits and failures of the whole run do not count, and each
// model has its own.
func TestBreaker(t *testing.T) {
	t.Parallel()
	fail := errors.New("HTTP 500")
	rateLimited := &llm.APIError{Kind: llm.KindHTTP, Status: 429}
	stopped := &llm.StopError{Reason: llm.StopUnauthorized}
	canceled := fmt.Errorf("turn 1 of 2: %w", context.Canceled)
	repeat := func(n int, err error) []error {
		out := make([]error, n)
		for i := range out {
			out[i] = err
		}
		return out
	}
	tests := []struct {
		name     string
		outcomes []error
		open     bool
	}{
		{"ten failures in a row", repeat(10, fail), true},
		{"nine failures", repeat(9, fail), false},
		{"a success resets the count", append(append(repeat(9, fail), nil), repeat(9, fail)...), false},
		{"a success after nine, then ten", append(append(repeat(9, fail), nil), repeat(10, fail)...), true},
		{"rate limits do not count", append(repeat(9, fail), repeat(5, rateLimited)...), false},
		{"rate limits do not reset either", append(append(repeat(5, fail), repeat(3, rateLimited)...), repeat(5, fail)...), true},
		{"a stopped endpoint is reported once, not counted", repeat(20, stopped), false},
		{"cancellation does not count", repeat(12, canceled), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := newBreaker(breakerThreshold)
			for _, err := range tt.outcomes {
				b.record("m:1", err)
			}
			err := b.check("m:1")
			if (err != nil) != tt.open {
				t.Fatalf("open %v, want %v", err != nil, tt.open)
			}
			if b.check("m:2") != nil {
				t.Error("another model's breaker opened")
			}
			if tt.open {
				want := "circuit breaker: m:1 failed 10 generations in a row, so it was not asked for the rest of the run"
				if err.Error() != want || len(b.tripped) != 1 {
					t.Errorf("error %q, tripped %v", err, b.tripped)
				}
				b.record("m:1", fail) // more failures keep one open breaker
				if len(b.tripped) != 1 {
					t.Errorf("tripped %v", b.tripped)
				}
			}
		})
	}
}
