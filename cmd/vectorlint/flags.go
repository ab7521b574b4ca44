package main

import (
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/retry"
)

// timeoutFlag returns the value of a --timeout flag, checked (0 when not given).
func timeoutFlag(value string, given bool) (time.Duration, error) {
	if !given {
		return 0, nil
	}
	d, err := retry.ParseTimeout(value)
	if err != nil {
		return 0, fmt.Errorf("--timeout: %w", err)
	}
	return d, nil
}

// timeoutUsage is the help of every command's --timeout flag.
const timeoutUsage = "time limit of one model request, a `DURATION` such as 30s or 2m (a bare number is seconds); with all its retries a request gets 3 × that (default 60s)"

// printRunErrors writes each run-wide failure once, with the rule runs (or other units) it kept
// from completing.
func printRunErrors(w io.Writer, prefix string, errs []finding.RunError) {
	for _, e := range errs {
		fmt.Fprintf(w, "%s: %s (%s not done)\n", prefix, e.Message, pluralize(e.NotRun, "rule run"))
	}
}

// syncWriter serialises writes from concurrent goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// promptPreviewChars is how much of each message --show-prompt-trunc prints, as in the original
// VectorLint (its first 500 characters of the prompt and of the content).
const promptPreviewChars = 500

// promptLimit is the eventPrinter limit for --show-prompt-trunc (0: whole messages).
func promptLimit(trunc bool) int {
	if trunc {
		return promptPreviewChars
	}
	return 0
}
