package setup

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/selection"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/batch"
)

// Batches are a lint run's provider batches (docs/batch.md): its plan's requests submitted as
// one batch, and the batch's replies collected into the reply cache, through package llm/batch
// with the run's own client settings (the same bodies, cache keys, trust rule and cache).
type Batches struct {
	run *Lint
	b   *batch.Batcher
	// Factor is the share of the live price the batch's tokens cost (BATCH_PRICE_FACTOR).
	Factor float64
}

// ErrBatchNeedsCache is the error of a batch command run without a reply cache: the batch's
// replies are delivered through it.
var ErrBatchNeedsCache = errors.New("provider batches deliver their replies through the reply cache: leave out --no-cache, or give --cache-dir when HOME and XDG_CACHE_HOME are unset")

// Batches sets up the provider batches of the lint run run on the project tree root, whose
// .vectorlint/batches folder holds their state. It fails when no model is configured, without
// a reply cache, or on a BATCH_PRICE_FACTOR that is not a number in (0, 1].
func (h *Host) Batches(env *envsource.Env, run *Lint, root *tree.Root) (*Batches, error) {
	if run.NotConfigured != nil {
		return nil, run.NotConfigured
	}
	if run.CacheDir == "" {
		return nil, ErrBatchNeedsCache
	}
	factor, err := batch.PriceFactor(env.Lookup)
	if err != nil {
		return nil, err
	}
	cfg := run.config
	cfg.CacheOnly = false // the batch's own client talks to the batch API
	b, err := batch.New(batch.Config{Client: cfg, Root: root, PriceFactor: factor, PollInterval: h.BatchPollInterval})
	if err != nil {
		return nil, err
	}
	return &Batches{run: run, b: b, Factor: factor}, nil
}

// Close releases the batch client's idle connections.
func (bs *Batches) Close() { bs.b.Close() }

// BatchPlan is what a submit sends: the plan's requests not answered by the cache yet.
type BatchPlan struct {
	// Requests is the number of requests to submit; Cached those the cache answers already;
	// Deferred the calls the collect run makes live (checklists' judged points, technical
	// accuracy: their requests depend on earlier replies).
	Requests, Cached, Deferred int
	// InputTokens and OutputTokens estimate the batch's tokens (the output with the allowance
	// of selection.EstimateOutputTokens per request).
	InputTokens, OutputTokens int64
	// Cost is the batch's estimated cost at the batch price; nil without prices.
	Cost *float64
	// Fingerprint identifies the plan's requests (saved with the batch).
	Fingerprint string

	reqs []llm.Request
}

// Plan lists the plan's requests (lint.PlanRequests) and keeps those the cache does not answer.
func (bs *Batches) Plan(plan *lint.Plan, proj *config.Project) *BatchPlan {
	all, pending, deferred := bs.requests(plan, proj)
	bp := &BatchPlan{Cached: len(all) - len(pending), Deferred: deferred, Fingerprint: fingerprint(all), reqs: pending}
	for _, r := range pending {
		for _, m := range r.Messages {
			bp.InputTokens += llm.EstimateTokens(m.Content)
		}
	}
	bp.Requests = len(bp.reqs)
	bp.OutputTokens = int64(bp.Requests) * selection.EstimateOutputTokens
	if prices := bs.run.runPrices(); prices != nil {
		c := prices.Cost(bp.InputTokens, bp.OutputTokens) * bs.Factor
		bp.Cost = &c
	}
	return bp
}

// requests lists the plan's requests with the run's evaluation options (lint.PlanRequests):
// all of them, in the plan's order, and pending, those the reply cache does not answer yet (the
// ones a submit sends and a collect expects from the batch); deferred as lint.PlanRequests.
func (bs *Batches) requests(plan *lint.Plan, proj *config.Project) (all, pending []llm.Request, deferred int) {
	all, deferred = lint.PlanRequests(plan, bs.run.EvalOptions(proj))
	for _, r := range all {
		if !bs.run.Client.Cached(r) {
			pending = append(pending, r)
		}
	}
	return all, pending, deferred
}

// fingerprint is a hash of what the requests send (endpoint, model, messages, schema): the
// plan's fingerprint a batch is saved with.
func fingerprint(reqs []llm.Request) string {
	h := sha256.New()
	enc := json.NewEncoder(h)
	for _, r := range reqs {
		var schema any
		if r.Schema != nil {
			schema = r.Schema.Schema
		}
		_ = enc.Encode([]any{r.Endpoint.BaseURL, r.Endpoint.Model, r.Messages, schema, r.Sample}) // a hash cannot fail to be written
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Submit submits bp's requests as one batch and returns its saved state.
func (bs *Batches) Submit(ctx context.Context, bp *BatchPlan) (*batch.State, error) {
	return bs.b.Submit(ctx, bp.reqs, bp.Fingerprint)
}

// Status loads the batch id and asks the provider for its state and counts.
func (bs *Batches) Status(ctx context.Context, id string) (*batch.State, *batch.Status, error) {
	st, err := bs.b.Load(id)
	if err != nil {
		return nil, nil, err
	}
	status, err := bs.b.Status(ctx, st, bs.run.Endpoint)
	return st, status, err
}

// Collected is what a collect did before the lint run from the cache.
type Collected struct {
	*batch.Result
	State *batch.State
	// Labels name the requests Result.Failed and Result.NotInBatch index
	// ("docs/a.md Acme.Tone lines 12-40").
	Labels []string
	// Changed tells that some of the plan's requests are neither cached nor in the batch:
	// files, rules or settings changed since the submit.
	Changed bool
}

// Collect loads the batch id, waits for it when wait is set, and stores its replies in the
// reply cache; the plan's requests are planned again to tell which of them the batch did not
// answer.
func (bs *Batches) Collect(ctx context.Context, id string, plan *lint.Plan, proj *config.Project, wait bool) (*Collected, error) {
	st, err := bs.b.Load(id)
	if err != nil {
		return nil, err
	}
	// The requests the cache answers already were not submitted (or were collected before):
	// only the others are the batch's to answer.
	_, reqs, _ := bs.requests(plan, proj)
	res, err := bs.b.Collect(ctx, st, bs.run.Endpoint, reqs, wait)
	if err != nil {
		return nil, err
	}
	c := &Collected{Result: res, State: st, Changed: len(res.NotInBatch) > 0}
	for _, r := range reqs {
		c.Labels = append(c.Labels, r.Label)
	}
	return c, nil
}

// Usage is the usage of the replies collected, at the batch price.
func (bs *Batches) Usage() llm.Usage { return bs.b.Usage() }

// AddUsage counts the replies the batch answered in a run's usage u: the run found them in the
// cache (cached calls that cost nothing), but they were calls made in the batch, at the batch
// price. They become calls, with their tokens and their cost at the batch price.
func (bs *Batches) AddUsage(u *finding.Usage) {
	bu := bs.b.Usage()
	if bu.Calls == 0 {
		return
	}
	answered := min(bu.Calls, u.CachedCalls)
	u.Calls += answered
	u.CachedCalls -= answered
	u.InputTokens += bu.InputTokens
	u.OutputTokens += bu.OutputTokens
	u.CachedInputTokens += bu.CachedInputTokens
	u.CacheWriteTokens += bu.CacheWriteTokens
	if bu.Cost != nil {
		c := *bu.Cost
		if u.Cost != nil {
			c += *u.Cost
		}
		u.Cost = &c
	}
}
