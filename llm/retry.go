package llm

import (
	"context"
	"math"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ParseRetryAfter reads a Retry-After header value: delay-seconds ("120", fractions such as
// "1.5" are accepted as some proxies send them) or an HTTP-date, relative to now. A date in the
// past means "retry now" (0, true). Anything else, or a negative or absurd (> 1 year) value,
// is (0, false).
func ParseRetryAfter(value string, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(value)
	if v == "" {
		return 0, false
	}
	if v[0] >= '0' && v[0] <= '9' || v[0] == '.' {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(secs) || secs < 0 || secs > 365*24*3600 {
			return 0, false
		}
		return time.Duration(secs * float64(time.Second)), true
	}
	t, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	d := t.Sub(now)
	if d < 0 {
		return 0, true
	}
	if d > 365*24*time.Hour {
		return 0, false
	}
	return d, true
}

// retryAfter reads the server's wait from retry-after-ms (OpenAI's millisecond header) or
// Retry-After.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if ms := strings.TrimSpace(h.Get("Retry-After-Ms")); ms != "" {
		if v, err := strconv.ParseFloat(ms, 64); err == nil && v >= 0 && v < 365*24*3600*1000 {
			return time.Duration(v * float64(time.Millisecond)), true
		}
	}
	return ParseRetryAfter(h.Get("Retry-After"), now)
}

// backoff is the wait before attempt n+1 after failed attempt n (n ≥ 1): an exponential step
// base·2^(n−1), capped at max, with "equal jitter": half the step fixed, half random. The fixed
// half gives tests a lower bound; the random half spreads clients that failed together.
func backoff(n int, base, max time.Duration, rnd func() float64) time.Duration {
	step := base
	for i := 1; i < n && step < max; i++ {
		step *= 2
	}
	if step > max {
		step = max
	}
	half := step / 2
	return half + time.Duration(rnd()*float64(step-half))
}

// defaultRand is the jitter source.
func defaultRand() float64 { return rand.Float64() }

// sleep waits for d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
