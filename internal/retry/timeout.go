package retry

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// MaxTimeout is the longest timeout ParseTimeout accepts: a day, far beyond any useful model
// call, and small enough that CallTimeoutFactor times it cannot overflow.
const MaxTimeout = 24 * time.Hour

// ParseTimeout reads a timeout as --timeout and the Timeout key of vectorlint.ini give it: a Go
// duration ("2s", "90s", "2m", "1m30s", "500ms") or a bare number of seconds ("90", "2.5"). It
// must be more than 0 and at most MaxTimeout. The error says what was expected and what was
// found; the caller names the flag or key.
func ParseTimeout(s string) (time.Duration, error) {
	v := strings.TrimSpace(s)
	bad := fmt.Errorf("expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h, found %q", s)
	var d time.Duration
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if math.IsNaN(secs) || math.IsInf(secs, 0) || secs <= 0 || secs > MaxTimeout.Seconds() {
			return 0, bad
		}
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(v); err != nil {
		return 0, bad
	}
	if d <= 0 || d > MaxTimeout {
		return 0, bad
	}
	return d, nil
}
