package llm

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/vectorlint/vectorlint/internal/redact"
	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/internal/runwide"
	"github.com/vectorlint/vectorlint/internal/safehttp"
)

// Every model call (a chat completion, a generation in any API shape, an embeddings batch)
// takes the one path of Client.call: the same cache, flights, events, usage, retries, time
// limits and stops. What differs between them is a kind: how the request is encoded, sent
// and its reply decoded.

// kind is what differs between the calls the client makes.
type kind interface {
	// round prepares the request of the next round of attempts and returns the response
	// format and the messages it is sent with (for events and the Response; nil for
	// embeddings).
	round() (Format, []Message, error)
	// send makes one request of the round within ctx and returns the 2xx response, whose body
	// the caller reads; an error status is a *statusError.
	send(ctx context.Context) (*http.Response, error)
	// decode reads a 2xx body into a reply (a *badResponseError when it is unusable),
	// estimating the tokens when the server counted none.
	decode(body []byte) (*reply, error)
	// again is told why a round failed for good and reports whether another round is worth
	// making (the chat kind lowers the response format the server rejected).
	again(err error) bool
}

// reply is what one call produced: a Response, and the vectors of an embeddings call.
type reply struct {
	Response
	vectors [][]float64
}

// callSpec is one call for Client.call: what it is for (errors, events, usage), what
// identifies it (cache and flights), and its kind.
type callSpec struct {
	info callInfo
	// key identifies the request: its reply is cached under it, and identical requests in
	// flight at the same time share one (flights). It is empty when the call does not use the
	// cache (none configured, --no-cache, Request.NoCache): every such call is made.
	key   string
	cache bool
	// entryOp is the Op of its cache entries ("chat", "generate", "embeddings").
	entryOp string
	// messages are the request's messages, which a reply from the cache or from another call in
	// flight answered (nil for embeddings).
	messages []Message
	// fits, when set, tells whether a cache entry can answer the request (nil: any can).
	fits func(*replycache.Entry) bool
	// accept, when set, checks a reply before it is stored: a rejected reply is never cached,
	// and accept's error is returned with it.
	accept func(*reply) error
	kind   kind
}

// newCallSpec fills a spec's callInfo for a call to ep. Its secrets and stop scopes are worked
// out when the call goes to the server: a reply from the cache needs them only for an event.
func newCallSpec(op, label string, ep Endpoint, timeout time.Duration, maxAttempts int, k kind) *callSpec {
	return &callSpec{kind: k, info: callInfo{op: op, label: label, ep: ep, timeout: timeout, maxAttempts: maxAttempts}}
}

// event is an event of the spec's call.
func (s *callSpec) event(k EventKind) Event {
	return Event{Kind: k, Op: s.info.op, Label: s.info.label, Host: s.info.ep.Host(), Model: s.info.ep.Model}
}

// timeout is the attempt timeout of a call: the request's own, else the client's.
func (c *Client) timeout(own time.Duration) time.Duration {
	if own > 0 {
		return own
	}
	return c.retry.Timeout
}

// call makes the call s describes. A call that uses the cache shares its reply with the
// identical requests in flight at the same time (the same key, to the same endpoint with the
// same credentials), as the cache would have once it was stored: the first call (the leader)
// answers from the cache or the server, and the others wait for its reply and count it as a
// reply from the cache: in Usage.CachedCalls, with an EventCacheHit each, with Response.Cached
// set and no attempts of their own (docs/how-it-works.md, "The cache"). A failure is shared
// too, except the leader's cancellation: a joiner whose own context is still alive then makes
// the call itself. A joiner waits for the leader's call, which ends with the leader's context
// (in a run, every call shares the run's) or the call's time limit.
//
// The leader stores a fresh reply in the cache once accept (if any) has taken it; every caller
// runs its own accept on its own copy of the reply.
func (c *Client) call(ctx context.Context, s *callSpec) (*reply, error) {
	if s.key == "" {
		r, err := c.fetch(ctx, s)
		if err != nil {
			return nil, err
		}
		if s.accept != nil {
			if err := s.accept(r); err != nil {
				return r, err
			}
		}
		return r, nil
	}
	// Keys and headers are not part of the cache key (they do not change a reply); they are
	// part of a flight's, in memory only, so that a call never gets the reply (or the 401) of
	// another key.
	flight := s.key + "\x00" + credentials(s.info.ep)
	for {
		led := false
		if c.joining != nil {
			c.joining()
		}
		v, err, shared := c.flights.Do(flight, func() (any, error) {
			led = true
			return c.fetch(ctx, s)
		})
		if err != nil {
			if !led {
				var ae *APIError
				if errors.As(err, &ae) && ae.Kind == KindCanceled {
					if ctx.Err() == nil {
						continue // the leader's context ended, not this one's
					}
					err = c.canceled(s.info, 0, ctx.Err())
				}
				if !errors.Is(err, runwide.ErrStopped) {
					e := s.event(EventFailure)
					e.Err = err.Error()
					c.emit(e)
				}
			}
			return nil, err
		}
		r := v.(*reply)
		if shared {
			// Each caller gets its own copy, vectors included, and the one they were made from
			// is read by no caller's code: a caller may change its reply while another copies
			// it. The leader's Messages are its own already (fetch made them, and no joiner
			// reads them); a joiner's are made by joined.
			own := *r
			own.vectors = cloneVectors(r.vectors)
			r = &own
		}
		if !led {
			c.joined(s, r)
		}
		if s.accept != nil {
			if err := s.accept(r); err != nil {
				return r, err
			}
		}
		if led && !r.Cached {
			c.store(s, r)
		}
		return r, nil
	}
}

// fetch answers s from the cache, else from the server.
func (c *Client) fetch(ctx context.Context, s *callSpec) (*reply, error) {
	if s.cache {
		entry, err := c.cache.Get(s.key, s.entryOp)
		if err != nil {
			e := s.event(EventCacheError)
			e.Err = err.Error()
			c.emit(e)
		}
		if entry != nil && (s.fits == nil || s.fits(entry)) {
			c.usage.add(s.info.ep.Model, s.info.ep.Provider, TokenUsage{Input: entry.Usage.Input, Output: entry.Usage.Output}, true, c.prices(s.info.ep))
			msgs := cloneMessages(s.messages)
			if c.listening() {
				e := s.event(EventCacheHit)
				e.Format, e.Messages = Format(entry.Format), redactMessages(msgs, s.info.ep.secrets())
				c.emit(e)
			}
			r := &reply{Response: Response{Content: entry.Content, Model: entry.Model, FinishReason: entry.FinishReason,
				Tokens: TokenUsage{Input: entry.Usage.Input, Output: entry.Usage.Output}, Cached: true, Format: Format(entry.Format), Messages: msgs}, vectors: entry.Embeddings}
			// An entry stored before replies were redacted, or under another key, may hold one.
			r.redact(s.info.ep.replySecrets())
			return r, nil
		}
	}
	if c.cfg.CacheOnly {
		return nil, &APIError{Op: s.info.op, Host: s.info.ep.Host(), Model: s.info.ep.Model, Kind: KindRequest,
			Message: "no reply in the cache for this request, and this run makes no live call"}
	}
	return c.send(ctx, s)
}

// redact replaces, in the text the server wrote (content, refusal, model, finish reason), the
// secrets the request carried (Endpoint.replySecrets) with "[redacted]": a server or model that
// echoes a key in a successful reply does not put it in any output, the cache, a result
// document or a report (docs/security.md). Every reply passes here as it is read, before it
// is checked, stored or returned; errors are redacted where they are made (classify). A reply
// without a secret is left exactly as it was.
func (r *reply) redact(secrets []string) {
	if len(secrets) == 0 {
		return
	}
	for _, f := range []*string{&r.Content, &r.Refusal, &r.Model, &r.FinishReason, &r.JSON} {
		*f = redact.Secrets(*f, secrets...)
	}
}

// joined makes r, the reply of the call s joined in flight, this call's: a reply it did not
// pay for, like one from the cache.
func (c *Client) joined(s *callSpec, r *reply) {
	c.usage.add(s.info.ep.Model, s.info.ep.Provider, r.Tokens, true, c.prices(s.info.ep))
	r.Cached, r.Attempts = true, 0
	r.Messages = cloneMessages(s.messages)
	if c.listening() {
		e := s.event(EventCacheHit)
		e.Format, e.Messages = r.Format, redactMessages(r.Messages, s.info.ep.secrets())
		c.emit(e)
	}
}

// cloneVectors copies embedding vectors, each of them.
func cloneVectors(vs [][]float64) [][]float64 {
	if vs == nil {
		return nil
	}
	out := make([][]float64, len(vs))
	for i, v := range vs {
		out[i] = slices.Clone(v)
	}
	return out
}

// send asks the server, round after round while the kind finds another worth making (a
// response-format fallback), each round with its retries.
func (c *Client) send(ctx context.Context, s *callSpec) (*reply, error) {
	info := s.info
	info.secrets, info.replySecrets, info.scopes = info.ep.secrets(), info.ep.replySecrets(), scopesOf(info.ep)
	total := 0
	for {
		format, msgs, err := s.kind.round()
		if err != nil {
			return nil, &APIError{Op: info.op, Host: info.ep.Host(), Model: info.ep.Model, Kind: KindRequest,
				Message: redact.Text(err.Error(), info.secrets...)}
		}
		var r *reply
		attempts, err := c.withRetries(ctx, info, func(actx context.Context, attempt int) error {
			if c.listening() {
				e := s.event(EventRequest)
				e.Attempt, e.Format, e.Messages = attempt, format, redactMessages(msgs, info.secrets)
				c.emit(e)
			}
			start := time.Now()
			res, err := s.kind.send(actx)
			if err != nil {
				return err
			}
			body, err := readBody(res)
			if err != nil {
				return err
			}
			got, err := s.kind.decode(body)
			if err != nil {
				return err
			}
			got.redact(info.replySecrets)
			if c.listening() {
				e := s.event(EventResponse)
				e.Attempt, e.Status, e.Duration, e.Tokens, e.Format = attempt, res.StatusCode, time.Since(start), got.Tokens, format
				c.emit(e)
			}
			r = got
			return nil
		})
		total += attempts
		if err != nil {
			if s.kind.again(err) {
				continue
			}
			if total > 0 || !errors.Is(err, runwide.ErrStopped) { // a call stopped before any request is no event
				e := s.event(EventFailure)
				e.Err = err.Error()
				c.emit(e)
			}
			return nil, err
		}
		c.usage.add(info.ep.Model, info.ep.Provider, r.Tokens, false, c.prices(info.ep))
		r.Format, r.Attempts, r.Messages = format, total, msgs
		return r, nil
	}
}

// store writes a reply of s to the cache (when s is cached).
func (c *Client) store(s *callSpec, r *reply) {
	if !s.cache {
		return
	}
	err := c.cache.Put(s.key, &replycache.Entry{Op: s.entryOp, Model: r.Model, Content: r.Content, FinishReason: r.FinishReason,
		Format: string(r.Format), Embeddings: r.vectors, Usage: replycache.Tokens{Input: r.Tokens.Input, Output: r.Tokens.Output}})
	if err != nil {
		e := s.event(EventCacheError)
		e.Err = redact.Text(err.Error(), s.info.ep.secrets()...)
		c.emit(e)
	}
}

// useCache reports whether a request is cached: the client has a cache, and neither the run
// (--no-cache) nor the request says no.
func (c *Client) useCache(requestNoCache bool) bool {
	return c.cache != nil && !c.cfg.NoCache && !requestNoCache
}

func (c *Client) prices(ep Endpoint) *Prices {
	if ep.Prices != nil {
		return ep.Prices
	}
	return c.cfg.Prices
}

// attemptFunc makes one request within ctx (bounded by the attempt timeout).
type attemptFunc func(ctx context.Context, attempt int) error

// callInfo describes a call for errors and events.
type callInfo struct {
	op      string
	label   string
	ep      Endpoint
	timeout time.Duration
	// maxAttempts overrides the client's MaxAttempts when positive (a request's own).
	maxAttempts int
	secrets     []string
	// replySecrets are the values a successful reply is redacted of (Endpoint.replySecrets).
	replySecrets []string
	// scopes are the endpoint's stop scopes.
	scopes stopScopes
}

// withRetries runs fn until it succeeds, fails in a way that is not retried, runs out of
// attempts or of time (retry.CallTimeoutFactor × the attempt timeout, counted from the first
// attempt: waiting for a concurrency slot before it is not the call's fault), or ctx ends.
// Every failure comes back as an *APIError, or as a *StopError when it is a fact about the
// endpoint (then recorded, and every later call of its scope fails with it at once, without a
// request; a call between retries stops too).
func (c *Client) withRetries(ctx context.Context, info callInfo, fn attemptFunc) (int, error) {
	callCtx := ctx
	limit := retry.CallTimeoutFactor * info.timeout
	var last *APIError // the previous attempt's failure
	var deadline time.Time
	suspected := false
	for attempt := 1; ; attempt++ {
		release, err := c.acquire(callCtx, info, attempt == 1)
		if err != nil {
			var se *StopError
			switch {
			case errors.As(err, &se):
				return attempt - 1, se
			case ctx.Err() == nil && last != nil: // the call's time ran out while it waited
				return attempt - 1, c.final(info, c.outOfTime(last, limit))
			}
			return attempt - 1, c.canceled(info, attempt-1, err)
		}
		if attempt == 1 {
			var cancel context.CancelFunc
			deadline = time.Now().Add(limit)
			callCtx, cancel = context.WithDeadline(ctx, deadline)
			defer cancel()
			defer c.flight.finish(c.flight.start(info.ep.Host()))
		}
		actx, cancel := context.WithTimeout(callCtx, info.timeout)
		err = fn(actx, attempt)
		timedOut := errors.Is(actx.Err(), context.DeadlineExceeded)
		cancel()
		if err == nil {
			c.stops.markAnswered(info.scopes)
			release()
			return attempt, nil
		}
		apiErr := c.classify(ctx, timedOut, info, err)
		cause := apiErr.Error() // without the attempt count, for the retry event
		apiErr.Attempts = attempt
		last = apiErr
		if apiErr.Kind == KindHTTP || apiErr.Kind == KindBadResponse {
			c.stops.markAnswered(info.scopes) // the server is there: its failures are the request's
		}
		// The outcome is settled while the slot is held, so that a stop is recorded before
		// any queued call can take the slot.
		var end error
		switch {
		case apiErr.Kind == KindCanceled:
			end = apiErr
		case callCtx.Err() != nil: // the attempt was cut short by the call's limit
			end = c.final(info, c.outOfTime(apiErr, limit))
		case !apiErr.retryable() || attempt >= cmp.Or(info.maxAttempts, c.retry.MaxAttempts):
			end = c.final(info, apiErr)
		case !suspected && c.suspicious(info, apiErr):
			suspected = true
			defer c.stops.suspectHost(info.scopes)()
		}
		release()
		if end != nil {
			return attempt, end
		}
		var header http.Header
		var se *statusError
		if errors.As(err, &se) {
			header = se.header
		}
		delay, asked, tooLong := c.retry.Delay(attempt, header, time.Now())
		if asked {
			apiErr.RetryAfter = delay
			if tooLong {
				apiErr.Message += fmt.Sprintf(" (the server asks to wait %s, longer than the %s limit)",
					delay.Round(time.Second), c.retry.MaxRetryAfter)
				return attempt, c.final(info, apiErr)
			}
		}
		if time.Until(deadline) <= delay {
			// Waiting would end the call anyway: give up now with what the server said.
			return attempt, c.final(info, c.outOfTime(apiErr, limit))
		}
		c.emit(Event{Kind: EventRetry, Op: info.op, Label: info.label, Host: info.ep.Host(), Model: info.ep.Model,
			Attempt: attempt, Status: apiErr.Status, Delay: delay, Err: cause})
		if err := retry.Sleep(callCtx, delay); err != nil {
			if ctx.Err() != nil {
				return attempt, c.canceled(info, attempt, err)
			}
			return attempt, c.final(info, c.outOfTime(apiErr, limit))
		}
	}
}

// suspicious reports whether a failed attempt may mean that the host is unusable: a network
// failure that stops it when it persists, or a timeout at a host that has answered nothing.
func (c *Client) suspicious(info callInfo, apiErr *APIError) bool {
	switch apiErr.Kind {
	case KindConnection:
		reason, _, _ := networkFailure(apiErr.err)
		return reason != 0
	case KindTimeout:
		return !c.stops.hasAnswered(info.scopes)
	}
	return false
}

// final is the error a call ends with: the *StopError of its scope when the failure stops the
// endpoint, else the failure itself.
func (c *Client) final(info callInfo, apiErr *APIError) error {
	if se := c.stopFor(info, apiErr); se != nil {
		return se
	}
	return apiErr
}

// outOfTime marks a failure as the end of the call's time: an attempt cut short by it becomes a
// timeout, and any other failure says that no time was left for another attempt.
func (c *Client) outOfTime(e *APIError, limit time.Duration) *APIError {
	if e.Kind == KindTimeout {
		e.Message += fmt.Sprintf(" per attempt, and the call gave up at its limit of %s (%d × the timeout)", limit, retry.CallTimeoutFactor)
		return e
	}
	e.Message += fmt.Sprintf(" (no time left for another attempt within the call's limit of %s)", limit)
	return e
}

func (c *Client) canceled(info callInfo, attempts int, err error) *APIError {
	return &APIError{Op: info.op, Host: info.ep.Host(), Model: info.ep.Model, Kind: KindCanceled,
		Message: "canceled: " + err.Error(), Attempts: attempts, err: err}
}

// classify turns an attempt's error into an *APIError (Attempts is set by the caller).
func (c *Client) classify(ctx context.Context, timedOut bool, info callInfo, err error) *APIError {
	e := &APIError{Op: info.op, Host: info.ep.Host(), Model: info.ep.Model, err: redactErr(err, info.secrets)}
	var se *statusError
	var br *badResponseError
	var ce *connError
	var re *safehttp.RedirectError
	switch {
	case ctx.Err() != nil:
		e.Kind, e.Message, e.err = KindCanceled, "canceled: "+ctx.Err().Error(), ctx.Err()
	case errors.As(err, &se):
		e.Kind, e.Status, e.Message = KindHTTP, se.status, redact.Text(se.message, info.secrets...)
	case timedOut:
		e.Kind, e.Message = KindTimeout, fmt.Sprintf("no complete reply within %s", info.timeout)
		e.err = context.DeadlineExceeded
	case errors.As(err, &br):
		e.Kind, e.Message = KindBadResponse, redact.Text(br.msg, info.secrets...)
	case errors.As(err, &re):
		e.Kind, e.Message = KindRedirect, redact.Text(re.Error(), info.secrets...)
	case errors.As(err, &ce) || retry.IsTransportError(err):
		e.Kind, e.Message = KindConnection, "connection failed: "+redact.Text(causeText(err), info.secrets...)
	default:
		e.Kind, e.Message = KindRequest, redact.Text(err.Error(), info.secrets...)
	}
	return e
}
