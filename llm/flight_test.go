package llm_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// gate is a reply that waits until the test opens it, so that calls can join the one in flight.
type gate struct {
	open chan struct{}
	once sync.Once
}

func newGate() *gate { return &gate{open: make(chan struct{})} }

func (g *gate) reply(r llmtest.Reply) llmtest.Reply {
	return llmtest.Dynamic(func(*llmtest.Request) llmtest.Reply { <-g.open; return r })
}

func (g *gate) release() { g.once.Do(func() { close(g.open) }) }

// joins counts the calls of c that reached their flight (OnJoining). Set up before c's first
// call.
func joins(c *llm.Client) *atomic.Int64 {
	var n atomic.Int64
	c.OnJoining(func() { n.Add(1) })
	return &n
}

// inFlight starts n calls and waits until the server holds the first request and ready says
// the others are where the test wants them (joined the flight: joins reaches n). Waiting on
// those events, not a fixed time, keeps a loaded machine from making a late call a request of
// its own. The deadline only keeps a regression from hanging the test.
func inFlight(t *testing.T, s *llmtest.Server, n int, ready func() bool, call func(i int) (*llm.Response, error)) ([]*llm.Response, []error, func()) {
	t.Helper()
	resps, errs := make([]*llm.Response, n), make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i], errs[i] = call(i)
		}()
	}
	for deadline := time.Now().Add(time.Minute); s.Calls() == 0 || !ready(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after a minute: %d requests at the server, and the calls are not ready", s.Calls())
		}
	}
	return resps, errs, wg.Wait
}

// TestIdenticalCallsInFlightAreMadeOnce: 8 identical calls at the same time make one request;
// each gets the same reply, the first as its own, the 7 others as replies it did not pay for
// (counted and reported like cache hits).
func TestIdenticalCallsInFlightAreMadeOnce(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	g := newGate()
	t.Cleanup(g.release)
	s.SetDefault(g.reply(llmtest.Text("Say 'to'.")))
	var log eventLog
	cfg := fastConfig()
	cfg.OnEvent = log.add
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	joined := joins(c)
	const n = 8
	resps, errs, wait := inFlight(t, s, n, func() bool { return joined.Load() >= n }, func(int) (*llm.Response, error) {
		return c.Complete(context.Background(), userRequest(s, "We did this in order to win."))
	})
	g.release()
	wait()
	if got := s.Calls(); got != 1 {
		t.Fatalf("%d requests reached the server, want 1", got)
	}
	fresh := 0
	for i, r := range resps {
		if errs[i] != nil {
			t.Fatalf("call %d: %v", i, errs[i])
		}
		if r.Content != "Say 'to'." || r.Model != "test-model" || r.Tokens != resps[0].Tokens || r.Format != llm.FormatText ||
			len(r.Messages) != 2 || r.Messages[1].Content != "We did this in order to win." {
			t.Fatalf("call %d: %+v", i, r)
		}
		if !r.Cached {
			fresh++
			if r.Attempts != 1 {
				t.Fatalf("the call that made the request: %d attempts", r.Attempts)
			}
		} else if r.Attempts != 0 {
			t.Fatalf("a call that joined: %d attempts", r.Attempts)
		}
	}
	if fresh != 1 {
		t.Fatalf("%d replies not marked cached, want 1", fresh)
	}
	if u := c.Usage(); u.Calls != 1 || u.CachedCalls != n-1 || u.InputTokens != resps[0].Tokens.Input || u.OutputTokens != resps[0].Tokens.Output {
		t.Fatalf("usage %+v", u)
	}
	if log.count(llm.EventRequest) != 1 || log.count(llm.EventResponse) != 1 || log.count(llm.EventCacheHit) != n-1 {
		t.Fatalf("events %v", log.kinds())
	}
	// Each caller has its own copy of the reply.
	resps[1].Messages[0].Content = "changed"
	if resps[2].Messages[0].Content == "changed" {
		t.Fatal("two callers share one Messages slice")
	}
	// The reply was cached once; the next identical call reads it.
	if r, err := c.Complete(context.Background(), userRequest(s, "We did this in order to win.")); err != nil || !r.Cached || s.Calls() != 1 {
		t.Fatalf("after the flight: %+v, %v, %d requests", r, err, s.Calls())
	}
}

// Identical requests share their flight whatever the kind of call.
func TestFlightsForEveryKind(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	g := newGate()
	t.Cleanup(g.release)
	s.SetDefault(g.reply(llmtest.Text("generated")))
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	joined := joins(c)
	ep := endpointOf(s)
	_, errs, wait := inFlight(t, s, 6, func() bool { return joined.Load() >= 6 }, func(i int) (*llm.Response, error) {
		if i%2 == 0 {
			return c.Complete(context.Background(), userRequest(s, "same"))
		}
		return c.Generate(context.Background(), llm.GenerateRequest{Endpoint: ep, API: llm.APIAnthropic, MaxTokens: 100,
			Messages: []llm.Message{{Role: llm.RoleUser, Content: "same"}}})
	})
	g.release()
	wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
	if s.Calls() != 2 {
		t.Fatalf("%d requests, want 2 (one chat completion, one Anthropic message)", s.Calls())
	}

	// Embeddings: the server holds the first batch until the others have joined it.
	eg := newGate()
	t.Cleanup(eg.release)
	es := llmtest.Start(t, llmtest.WithEmbedder(func(text string) []float64 { <-eg.open; return llmtest.HashEmbedding(text) }))
	var vecs [4][][]float64
	var embedErrs [4]error
	var wg sync.WaitGroup
	before := joined.Load()
	for i := range vecs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vecs[i], embedErrs[i] = c.Embed(context.Background(), endpointOf(es), []string{"one text", "another"})
		}()
	}
	for deadline := time.Now().Add(time.Minute); es.EmbeddingCalls() == 0 || joined.Load() < before+4; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the embeddings calls did not reach their flight within a minute")
		}
	}
	eg.release()
	wg.Wait()
	for i, err := range embedErrs {
		if err != nil || len(vecs[i]) != 2 {
			t.Fatalf("embed %d: %v, %d vectors", i, err, len(vecs[i]))
		}
	}
	if es.EmbeddingCalls() != 1 {
		t.Fatalf("%d embeddings requests, want 1", es.EmbeddingCalls())
	}
	// Each caller owns its vectors.
	vecs[0][0][0] = 42
	for i := 1; i < len(vecs); i++ {
		if vecs[i][0][0] == 42 {
			t.Fatal("two callers share one vector")
		}
	}
}

// A call that does not use the cache (none configured, --no-cache, a request's own NoCache) is
// made, however many identical ones are in flight: the user asked for fresh replies.
func TestNoFlightsWithoutTheCache(t *testing.T) {
	t.Parallel()
	for name, tune := range map[string]func(c *llm.Config, r *llm.Request, dir string){
		"no cache":        func(*llm.Config, *llm.Request, string) {},
		"--no-cache":      func(c *llm.Config, _ *llm.Request, dir string) { c.CacheDir, c.NoCache = dir, true },
		"Request.NoCache": func(c *llm.Config, r *llm.Request, dir string) { c.CacheDir, r.NoCache = dir, true },
	} {
		t.Run(name, func(t *testing.T) {
			s := llmtest.Start(t)
			g := newGate()
			t.Cleanup(g.release)
			s.SetDefault(g.reply(llmtest.Text("fresh")))
			cfg := fastConfig()
			req := userRequest(s, "same")
			tune(&cfg, &req, t.TempDir())
			c := newClient(t, cfg)
			// No flight: every call reaches the server.
			resps, errs, wait := inFlight(t, s, 3, func() bool { return s.Calls() >= 3 }, func(int) (*llm.Response, error) {
				return c.Complete(context.Background(), req)
			})
			g.release()
			wait()
			for i, err := range errs {
				if err != nil || resps[i].Cached || resps[i].Content != "fresh" {
					t.Fatalf("call %d: %+v, %v", i, resps[i], err)
				}
			}
			if u := c.Usage(); s.Calls() != 3 || u.Calls != 3 || u.CachedCalls != 0 {
				t.Fatalf("%d requests, usage %+v", s.Calls(), u)
			}
		})
	}
}

// Calls with different keys never share a flight: one key's reply (or its 401) is not
// another's.
func TestFlightsAreKeyedOnCredentials(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t, llmtest.RequireAPIKey(testKey))
	g := newGate()
	t.Cleanup(g.release)
	s.SetDefault(g.reply(llmtest.Text("ok")))
	cfg := fastConfig()
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	joined := joins(c)
	_, errs, wait := inFlight(t, s, 2, func() bool { return joined.Load() >= 2 }, func(i int) (*llm.Response, error) {
		req := userRequest(s, "same text")
		if i == 1 {
			req.Endpoint.APIKey = "sk-wrong-key-0123456789"
		}
		return c.Complete(context.Background(), req)
	})
	g.release()
	wait()
	var stop *llm.StopError
	if errs[0] != nil || !errors.As(errs[1], &stop) || stop.Reason != llm.StopUnauthorized {
		t.Fatalf("errors %v", errs)
	}
	if s.Calls() != 2 {
		t.Fatalf("%d requests, want 2", s.Calls())
	}
}

// When the call that leads a flight is canceled, the calls that joined it and are still
// wanted make the request themselves; a joiner whose own context ended stops too.
func TestFlightLeaderCanceled(t *testing.T) {
	t.Parallel()
	s := llmtest.Start(t)
	first := true
	var mu sync.Mutex
	s.SetDefault(llmtest.Dynamic(func(*llmtest.Request) llmtest.Reply {
		mu.Lock()
		defer mu.Unlock()
		if first {
			first = false
			return llmtest.Hang()
		}
		return llmtest.Text("ok")
	}))
	cfg := fastConfig()
	cfg.Timeout = time.Minute
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)
	joined := joins(c)
	leaderCtx, cancelLeader := context.WithCancel(context.Background())
	defer cancelLeader()
	resps, errs, wait := inFlight(t, s, 2, func() bool { return joined.Load() >= 2 }, func(i int) (*llm.Response, error) {
		ctx := context.Background()
		if i == 0 {
			ctx = leaderCtx
		} else {
			for s.Calls() == 0 { // call 0 leads: its request is at the server
				time.Sleep(time.Millisecond)
			}
		}
		return c.Complete(ctx, userRequest(s, "same"))
	})
	cancelLeader()
	wait()
	var apiErr *llm.APIError
	if !errors.As(errs[0], &apiErr) || apiErr.Kind != llm.KindCanceled {
		t.Fatalf("the canceled call: %v", errs[0])
	}
	if errs[1] != nil || resps[1].Content != "ok" || resps[1].Cached || s.Calls() != 2 {
		t.Fatalf("the call that joined: %+v, %v after %d requests", resps[1], errs[1], s.Calls())
	}
}
