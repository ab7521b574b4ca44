// Package retry is how vectorlint retries HTTP requests (spec/trust.md §5): which failures are
// tried again (network failures, attempts that run out of time, 408, 409, 429 and 5xx), how
// many times, how long each attempt and the whole call may take, and how long to wait between
// attempts (exponential backoff with jitter, or the server's Retry-After). The model client
// retries its calls by a Policy; HTTP retries any other request the same way (the points
// engine's $call and $factcheck).
package retry

import (
	"context"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/vectorlint/vectorlint/internal/safehttp"
)

// Defaults of a Policy's zero fields, which are also the model client's (llm.Config).
const (
	DefaultTimeout       = 60 * time.Second
	DefaultMaxAttempts   = 4
	DefaultBaseDelay     = 1 * time.Second
	DefaultMaxDelay      = 30 * time.Second
	DefaultMaxRetryAfter = 60 * time.Second
)

// CallTimeoutFactor bounds a whole call, all its attempts, backoff and Retry-After waits
// included, to this many times the timeout of one attempt: a hung server costs a call at
// most 3 minutes at the default timeout, not the 8 that 4 full attempts and their backoff
// would take.
const CallTimeoutFactor = 3

// maxDrain is how much of a retried response's body is read before it is closed, so that the
// connection can be reused.
const maxDrain = 64 << 10

// Policy is how a call is retried: how many attempts, how long each may take, and how long to
// wait between them. The model client retries by it (llm.New fills it from llm.Config; see
// llm.Client.RetryPolicy), and HTTP lets any other HTTP caller (the blueprint's $call and
// $factcheck point functions) retry the same way. Zero fields take the defaults.
type Policy struct {
	// MaxAttempts is the attempts of a call, the first included (default DefaultMaxAttempts).
	MaxAttempts int
	// Timeout bounds each attempt, its reply body included (default DefaultTimeout). A call,
	// with all its attempts and waits, is bounded by CallTimeoutFactor × Timeout.
	Timeout time.Duration
	// BaseDelay and MaxDelay shape the exponential backoff between attempts: the n-th wait is
	// drawn from [d/2, d] with d = min(MaxDelay, BaseDelay·2^(n−1)) (defaults DefaultBaseDelay
	// and DefaultMaxDelay).
	BaseDelay time.Duration
	MaxDelay  time.Duration
	// MaxRetryAfter is the longest wait a server may ask for (Retry-After, retry-after-ms); a
	// server asking for more ends the call at once instead of stalling it (default
	// DefaultMaxRetryAfter).
	MaxRetryAfter time.Duration
	// Backoff, when set, replaces the exponential backoff: it returns the wait after failed
	// attempt n (n ≥ 1) when the server asks for none. A wait the server asks for still wins.
	Backoff func(n int) time.Duration
	// Rand returns uniform numbers in [0, 1) for the backoff's jitter; nil uses math/rand/v2.
	Rand func() float64
}

// WithDefaults returns p with its zero fields set to the defaults.
func (p Policy) WithDefaults() Policy {
	setDefault(&p.MaxAttempts, DefaultMaxAttempts)
	setDefault(&p.Timeout, DefaultTimeout)
	setDefault(&p.BaseDelay, DefaultBaseDelay)
	setDefault(&p.MaxDelay, DefaultMaxDelay)
	setDefault(&p.MaxRetryAfter, DefaultMaxRetryAfter)
	if p.MaxDelay < p.BaseDelay {
		p.MaxDelay = p.BaseDelay
	}
	if p.Rand == nil {
		p.Rand = defaultRand
	}
	return p
}

// CallLimit is the time a whole call may take, its attempts and waits included.
func (p Policy) CallLimit() time.Duration { return CallTimeoutFactor * p.Timeout }

// Delay is the wait before attempt n+1 after failed attempt n: what the server asks for in h
// (asked set), else the backoff. tooLong reports a server asking for more than MaxRetryAfter.
func (p Policy) Delay(n int, h http.Header, now time.Time) (d time.Duration, asked, tooLong bool) {
	if ra, ok := retryAfter(h, now); ok {
		return ra, true, ra > p.MaxRetryAfter
	}
	if p.Backoff != nil {
		return p.Backoff(n), false, false
	}
	return backoff(n, p.BaseDelay, p.MaxDelay, p.Rand), false, false
}

// HTTP makes an HTTP request with the model client's retries (spec/trust.md §5):
// attempt is called with the attempt's context (bounded by p.Timeout; the whole call by
// CallTimeoutFactor × p.Timeout) and the attempt's number from 1, and makes one request,
// building it anew each time. A network failure (refused, reset, closed, DNS, TLS), an attempt
// that runs out of time, or a response with status 408, 409, 429 or 5xx is tried again, up to
// p.MaxAttempts in all, after the wait the server asks for (Retry-After, retry-after-ms) or the
// policy's backoff; a retried response's body is drained and closed first.
//
// The result is the last attempt's: a response (any status; the caller reads and closes its
// body, and closing it ends the attempt's context), or its error as attempt returned it, so the
// caller's own messages stay as they are. A response is returned at once, unretried, when the
// server asks to wait longer than p.MaxRetryAfter or the wait would pass the call's time limit.
// Any other error is not retried. When ctx ends, its error is returned.
//
// attempt may read the body itself and return the response with the bytes it read
// (io.NopCloser): a failure while reading, returned as the error, is then retried like a
// dropped connection.
func HTTP(ctx context.Context, p Policy, attempt func(ctx context.Context, n int) (*http.Response, error)) (*http.Response, error) {
	p = p.WithDefaults()
	callCtx, cancelCall := context.WithTimeout(ctx, p.CallLimit())
	deadline, _ := callCtx.Deadline()
	for n := 1; ; n++ {
		actx, cancel := context.WithTimeout(callCtx, p.Timeout)
		res, err := attempt(actx, n)
		switch {
		case err != nil && res != nil: // not what net/http does, but an attempt may
			if res.Body != nil {
				res.Body.Close()
			}
			res = nil
		case err == nil && res == nil:
			err = errors.New("retry.HTTP: the attempt returned neither a response nor an error")
		case res != nil && res.Body == nil:
			res.Body = http.NoBody
		}
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		retry := false
		var header http.Header
		switch {
		case ctx.Err() != nil:
			if res != nil {
				res.Body.Close()
			}
			cancel()
			cancelCall()
			return nil, ctx.Err()
		case err != nil:
			retry = timedOut || IsTransportError(err)
		default:
			retry, header = Retryable(res.StatusCode), res.Header
		}
		if retry && n < p.MaxAttempts {
			d, _, tooLong := p.Delay(n, header, time.Now())
			if !tooLong && time.Until(deadline) > d {
				if res != nil {
					// Drain a little so the connection can be reused, then let it go.
					_, _ = io.Copy(io.Discard, io.LimitReader(res.Body, maxDrain))
					res.Body.Close()
				}
				cancel()
				if serr := Sleep(callCtx, d); serr != nil && ctx.Err() != nil {
					cancelCall()
					return nil, ctx.Err()
				}
				continue
			}
		}
		if err != nil {
			cancel()
			cancelCall()
			return nil, err
		}
		res.Body = &cancelOnClose{ReadCloser: res.Body, cancel: func() { cancel(); cancelCall() }}
		return res, nil
	}
}

// cancelOnClose is a response body whose Close also ends the context its request ran in.
type cancelOnClose struct {
	io.ReadCloser
	cancel func()
}

// Close closes the body and ends the request's context.
func (b *cancelOnClose) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// ParseAfter reads a Retry-After header value: delay-seconds ("120", fractions such as
// "1.5" are accepted as some proxies send them) or an HTTP-date, relative to now. A date in the
// past means "retry now" (0, true). Anything else, or a negative or absurd (> 1 year) value,
// is (0, false).
func ParseAfter(value string, now time.Time) (time.Duration, bool) {
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
	return ParseAfter(h.Get("Retry-After"), now)
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

// Sleep waits for d or until ctx ends, and returns ctx's error when it ended first.
func Sleep(ctx context.Context, d time.Duration) error {
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

// Retryable reports whether an HTTP status is worth another attempt: 408, 409, 429 and 5xx.
func Retryable(status int) bool {
	return status == http.StatusRequestTimeout || status == http.StatusConflict ||
		status == http.StatusTooManyRequests || status >= 500
}

// IsTransportError reports errors of the network rather than of the request: refused, reset
// or closed connections, DNS and TLS failures. A redirect the client refused (net/http wraps it
// in a *url.Error) is not one: it is the server's answer, and it would be the same on a retry.
func IsTransportError(err error) bool {
	var ue *url.Error
	var ne net.Error
	var re *safehttp.RedirectError
	if errors.As(err, &re) {
		return false
	}
	return errors.As(err, &ue) || errors.As(err, &ne) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) ||
		errors.Is(err, syscall.EPIPE)
}

func setDefault[T comparable](v *T, def T) {
	var zero T
	if *v == zero {
		*v = def
	}
}
