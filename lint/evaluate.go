package lint

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"golang.org/x/sync/errgroup"
	"golang.org/x/sync/semaphore"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/process"
	"github.com/vectorlint/vectorlint/internal/runwide"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
)

// EvalOptions configure Evaluate.
type EvalOptions struct {
	// Client makes the model calls. Nil means no model is configured: units that need the model
	// are not run (EvalStats.NotRun counts their calls, EvalStats.RunErrors says why once), and
	// everything deterministic is.
	Client *llm.Client
	// Endpoint is the model that evaluates rules.
	Endpoint llm.Endpoint
	// Models, when set, are the models (names on Endpoint's provider) the samples of a model
	// evaluation go to in turn: sample i to Models[i mod len(Models)], in place of Endpoint's
	// model (the configuration's Models; docs/configuration.md, "Samples"). Calls that take
	// no samples (a checklist's judged points, claim checks) go to Endpoint.
	Models []string
	// Search is the search-capable model of technical-accuracy rules (nil when none is
	// configured; the plan then marks those rules as unable to run).
	Search *llm.Endpoint
	// ConfidenceThreshold drops violations the model reports with a lower confidence (0 keeps
	// them all; the configuration's default is DefaultConfidenceThreshold).
	ConfidenceThreshold float64
	// Judge judges the LLM-judged points of checklist rules (rules with `should`); nil leaves
	// them not evaluated (counted in EvalStats.NotRun) while deterministic points still score.
	// The command passes a ModelJudge on the same endpoint.
	Judge points.Judge
	// StyleGuide is the project's style guide, sent with every rule ("" for none).
	StyleGuide string
	// Directive is the project's directive (DirectiveFileName), sent with every rule with its
	// {{file_type}} replaced by the file's extension ("" for none).
	Directive string
	// Concurrency is the number of workers evaluating chunks at once across the whole run
	// (DefaultConcurrency when 0).
	Concurrency int
	// NotConfigured says why the model is not configured when Client (or Judge) is nil (an
	// *llm.NotConfiguredError naming the variables to set): it is the message of the one
	// RunError that counts the rule runs that needed the model (spec/trust.md §5). Nil gives
	// DefaultNotRunReason.
	NotConfigured error
	// Debug, when set, receives each rule's evaluation of each file that ran (--debug-json):
	// the model's replies and the filter's decisions. Calls are never concurrent, in the order
	// of the results.
	Debug func(DebugRecord)
	// KeepSource keeps each file's bytes and where they were read from in its result
	// (FileResult.Source, FileResult.SourceFile), for callers that apply the findings' fixes to
	// exactly the text that was linted (vectorlint --fix).
	KeepSource bool
	// MinSeverity leaves findings below it out of the results (--min-alert-level): they are
	// neither reported nor counted. Rules that cannot reach it are best left out of the plan
	// (PlanInput.MinSeverity). Zero keeps every finding.
	MinSeverity finding.Severity
	// JSTimeout bounds each $js point of a checklist rule (points.DefaultJSTimeout when 0).
	// Tests raise it so that a legitimate script cannot reach it on a loaded machine.
	JSTimeout time.Duration
	// Warn receives problems that do not stop the run (a reply that rates a criterion the rule
	// does not have, a model's fix not offered because it is not safe to make: fixsafe.go), one
	// line each naming the file and rule. Calls are never concurrent. May be nil.
	Warn func(string)
	// DocumentWarn receives the problems of a document that do not stop its lint, one line
	// each naming the file and line: a Markdown or MDX document whose markup could not be
	// read as expected is linted whole (Document.ScopeError). Calls are never concurrent. May
	// be nil; the command always prints them.
	DocumentWarn func(string)
	// FirstSample is the sample number (llm.Request.Sample, part of the cache key) of the
	// run's model calls: 0 for a lint run; `vectorlint test` gives each repeat its own, so
	// repeats are distinct samples that an unchanged suite re-runs from the cache
	// (spec/linter.md §12).
	FirstSample int
}

// DefaultNotRunReason is the cause of the RunError of rules not run for want of a model.
const DefaultNotRunReason = "no LLM provider is configured"

// EvalStats tells what Evaluate could not do.
type EvalStats struct {
	// NotRun counts the model calls not made because no model is configured.
	NotRun int
	// RunErrors are the failures of the whole run (no model configured, an endpoint stopped:
	// llm.StopError), in the order the files that met them were emitted, each with the rule
	// runs it kept from completing. The files' results count the same rule runs in NotRun
	// and hold no RuleError for them.
	RunErrors []finding.RunError
	// Incomplete lists, in path order, the files that were not emitted because the run was
	// interrupted before their evaluation finished.
	Incomplete []string
	// Skipped lists, in path order, the files that were read but not linted: their prose has
	// more words than MaxDocumentWords (FilePlan.TooLarge). They are not emitted.
	Skipped []finding.Skipped
}

// Evaluate runs a plan: every chunk of every unit of every rule on every file goes through one
// pool of Concurrency workers, and each file's result, once through the processors after
// evaluation (internal/process: --changed-lines and MinSeverity here; Run adds the fixer and
// the summary), is passed to emit, in the plan's (path) order, as soon as it and every file
// before it are done, so output streams.
//
// Files are prepared (FilePlan.Prepare) as the pool reaches them: a lazy plan's file
// (PlanInput.Lazy) is read and planned then, and released once its result is emitted, and at
// most EvalWindow files are prepared but not yet emitted at any time, so memory stays flat
// however many files there are. The model calls of a file wait for no later file.
//
// A rule that fails on a file (a call that failed after its retries, a reply that broke the
// contract twice) is reported in that file's Errors; every other result is kept. When ctx ends,
// the calls in flight stop, the files already finished (and, of an eager plan, the files that
// need no model call) are emitted, and the others are listed in EvalStats.Incomplete, unread if
// the pool had not reached them; the error is then ctx's. An error from emit stops the run and
// is returned.
func Evaluate(ctx context.Context, plan *Plan, opts EvalOptions, emit func(finding.FileResult) error) (EvalStats, error) {
	return evaluateWith(ctx, plan, opts, evalHooks{}, emit)
}

// EvalWindow is the number of files Evaluate keeps prepared but not yet emitted, at most: 64, or
// 4 × concurrency when that is more. It bounds how far the pool runs ahead of a slow file.
func EvalWindow(concurrency int) int {
	if concurrency <= 0 {
		concurrency = config.DefaultConcurrency
	}
	return max(64, 4*concurrency)
}

// evalHooks let tests watch and bound Evaluate's window.
type evalHooks struct {
	// window replaces EvalWindow when it is more than 0.
	window int
	// prepared is called with the number of files prepared and not yet released, each time a
	// file is prepared (from the producer) and released (from the collector).
	prepared func(n int)
	// post replaces the processors each file's result goes through before it is emitted
	// (internal/process; Run's list adds the fixer and the summary).
	post process.List
}

// fileEvent tells Evaluate's collector that a file was prepared (file set, with its index in
// the plan) or that one of its work items is done.
type fileEvent struct {
	index int
	file  *fileRun
	done  bool
}

func evaluateWith(ctx context.Context, plan *Plan, opts EvalOptions, hooks evalHooks, emit func(finding.FileResult) error) (stats EvalStats, err error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = config.DefaultConcurrency
	}
	window := hooks.window
	if window <= 0 {
		window = EvalWindow(opts.Concurrency)
	}
	e := &evaluator{opts: opts, js: points.NewJSPool()}
	r := &evalRun{}
	defer func() { stats.RunErrors, stats.Skipped = e.runErrors.list, r.skipped }()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	post := hooks.post
	if post == nil {
		post = process.New(process.Options{Changed: plan.changedOf(), MinSeverity: opts.MinSeverity})
	}
	*r = evalRun{e: e, plan: plan, opts: opts, hooks: hooks, post: post, emit: emit, cancel: cancel,
		runs: make([]*fileRun, len(plan.Files)),
		// a file holds a slot from its preparing to its emitting
		slots: semaphore.NewWeighted(int64(window))}
	events := r.start(runCtx)
	for ev := range events {
		if ev.done {
			if ev.file.pending--; ev.file.pending == 0 {
				ev.file.settle()
			}
		} else {
			r.runs[ev.index] = ev.file
		}
		r.flush()
	}
	if r.emitErr != nil {
		stats.NotRun = r.notRun
		return stats, r.emitErr
	}
	if err := r.rest(&stats); err != nil {
		return stats, err
	}
	stats.NotRun = r.notRun
	if len(stats.Incomplete) > 0 {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		return stats, context.Canceled
	}
	return stats, nil
}

// evalRun is one Evaluate: a producer prepares the files in order and sends their chunks to
// the workers; the collector (evaluateWith's loop) emits each file, in plan order, once all its
// chunks are done.
type evalRun struct {
	e      *evaluator
	plan   *Plan
	opts   EvalOptions
	hooks  evalHooks
	post   process.List // the processors after evaluation, before emit
	emit   func(finding.FileResult) error
	cancel context.CancelFunc
	slots  *semaphore.Weighted
	live   atomic.Int64 // files prepared and not yet released, for hooks.prepared
	runs   []*fileRun
	notRun int // written by the producer, read after it is done
	// next is the index of the next file to emit; emitErr the first error emit returned.
	next    int
	emitErr error
	// skipped are the files not sent for their size (FilePlan.TooLarge), in plan order.
	skipped []finding.Skipped
}

// prepare prepares the plan's file i for its run.
func (r *evalRun) prepare(i int) *fileRun {
	fp := r.plan.Files[i]
	f := &fileRun{fp: fp, release: !fp.Prepared()}
	fp.Prepare()
	if r.hooks.prepared != nil {
		r.hooks.prepared(int(r.live.Add(1)))
	}
	r.notRun += f.plan(r.opts)
	return f
}

// release releases a file once it is emitted or given up.
func (r *evalRun) release(f *fileRun) {
	if f.release {
		f.fp.release()
	}
	if r.hooks.prepared != nil {
		r.hooks.prepared(int(r.live.Add(-1)))
	}
}

// start starts the producer and the workers, and returns the collector's events: closed once
// the producer and every worker are done.
func (r *evalRun) start(runCtx context.Context) <-chan fileEvent {
	work := make(chan workItem)
	events := make(chan fileEvent, r.opts.Concurrency)
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		defer close(work)
		for i := range r.plan.Files {
			if r.slots.Acquire(runCtx, 1) != nil {
				return // interrupted: no file is prepared after that
			}
			f := r.prepare(i)
			// The collector learns of the file before any of its chunks is done: this send
			// happens before the work items', and so before the workers' reports.
			events <- fileEvent{index: i, file: f}
			for _, it := range f.items {
				select {
				case work <- it:
				case <-runCtx.Done():
					return
				}
			}
		}
	}()
	// The workers fail nothing: a chunk's failure is its result, reported with its file.
	var workers errgroup.Group
	for range r.opts.Concurrency {
		workers.Go(func() error {
			for it := range work {
				for k, res := range r.e.run(runCtx, it) {
					m := it.members[k]
					if it.samples > 0 {
						m.unit.results[m.chunk].samples[it.sample] = res
					} else {
						m.unit.results[m.chunk] = res
					}
				}
				events <- fileEvent{file: it.file, done: true}
			}
			return nil
		})
	}
	go func() {
		<-produced
		_ = workers.Wait()
		close(events)
	}()
	return events
}

// send emits file f (the next in order) and releases it; after an emit error it only releases.
func (r *evalRun) send(f *fileRun) {
	if tl := f.fp.TooLarge; tl != nil {
		// Not linted: reported with the skipped files, not as a result.
		r.skipped = append(r.skipped, tl.Skipped())
	} else if r.emitErr == nil {
		fr, err := r.post.Process(r.e.assemble(f)) // after evaluation: one list of processors
		if err == nil {
			err = r.emit(fr)
		}
		if err != nil {
			r.emitErr = err
			r.cancel()
		}
	}
	r.runs[r.next] = nil
	r.release(f)
	r.next++
}

// flush emits the files, in order, whose chunks are all done.
func (r *evalRun) flush() {
	for r.next < len(r.runs) && r.runs[r.next] != nil && r.runs[r.next].pending == 0 && !r.runs[r.next].interrupted() {
		r.send(r.runs[r.next])
		r.slots.Release(1)
	}
}

// rest deals with the files left once the run was interrupted (the producer stopped early) or
// is complete. A file the producer did not reach is emitted when it is already read (an eager
// plan) and needs no model call. One of a lazy plan is not read now: after Ctrl-C the run stops
// at once instead of reading what may be thousands of files, and it is listed as incomplete
// like the files whose calls were cut off. It returns emit's error.
func (r *evalRun) rest(stats *EvalStats) error {
	for r.next < len(r.runs) {
		f := r.runs[r.next]
		if f == nil && !r.plan.Files[r.next].Prepared() {
			stats.Incomplete = append(stats.Incomplete, r.plan.Files[r.next].Path)
			r.next++
			continue
		}
		if f == nil {
			f = r.prepare(r.next)
		}
		if f.pending == 0 && !f.interrupted() {
			r.send(f)
			if r.emitErr != nil {
				stats.NotRun = r.notRun
				return r.emitErr
			}
			continue
		}
		stats.Incomplete = append(stats.Incomplete, f.fp.Path)
		r.runs[r.next] = nil
		r.release(f)
		r.next++
	}
	return nil
}

// plan sets up the file's rule runs and chunks from its prepared plan and returns the model
// calls that cannot be made for want of a model (EvalStats.NotRun). The rule's kind says
// whether a unit runs with these options: without a model, a checklist still scores its
// deterministic points, other kinds do not run.
func (f *fileRun) plan(opts EvalOptions) (notRun int) {
	var unmade []groupCall // the groupable calls not made: counted as the requests they would be
	defer func() {
		for _, g := range callGroups(f.fp.RulesPerCall, unmade) {
			notRun += unmade[g[0]].key.samples
		}
	}()
	for _, pr := range f.fp.Rules {
		r := &ruleRun{pr: pr}
		f.rules = append(f.rules, r)
		if pr.Err != nil {
			continue
		}
		for _, u := range pr.Units {
			if !u.NeedsCall() {
				continue
			}
			run, missing := pr.Kind.runnable(u, opts)
			if !run && groupable(pr) {
				for _, ch := range u.Chunks() {
					unmade = append(unmade, groupCallOf(pr, ch))
				}
			} else {
				notRun += missing
			}
			if !run {
				r.notRun = true
				continue
			}
			r.unjudged += missing
			ur := &unitRun{unit: u, chunks: u.Chunks()}
			ur.results = make([]reply, len(ur.chunks))
			r.units = append(r.units, ur)
		}
	}
	f.items = f.workItems()
	f.pending = len(f.items)
	return notRun
}

// evaluator holds what every work item and every file's result share.
type evaluator struct {
	opts EvalOptions
	// runErrors collects the run-wide failures met while assembling files (assemble runs on
	// the collecting goroutine only).
	runErrors runErrorBook
	// js runs the $js points of checklists: one pool for the run, so its memory watchdog sees
	// every point scored at once.
	js *points.JSPool
}

// fileRun is one file's evaluation in progress. pending, the work items not yet done, is
// touched only by Evaluate's collecting goroutine; each item's replies are written by one
// worker before it reports the file on the done channel, which orders the writes before the
// collector reads them.
type fileRun struct {
	fp      *FilePlan
	rules   []*ruleRun
	items   []workItem
	pending int
	// release is set when Evaluate prepared the file and so releases it after emitting it.
	release bool
}

func (f *fileRun) interrupted() bool {
	for _, r := range f.rules {
		for _, u := range r.units {
			for _, res := range u.results {
				if res.interrupted {
					return true
				}
			}
		}
	}
	return false
}

// ruleRun is one rule's evaluation on a file: the replies of its units' chunks.
type ruleRun struct {
	pr *PlannedRule
	// units are the units that run.
	units []*unitRun
	// notRun is set when the rule needs the model and none is configured.
	notRun bool
	// unjudged counts the model calls of units that run without them (a checklist's
	// LLM-judged points without a judge).
	unjudged int
}

// missingTarget reports whether a required target of the rule is missing on the file.
func (r *ruleRun) missingTarget() bool {
	for _, u := range r.pr.Units {
		if u.Missing != nil {
			return true
		}
	}
	return false
}

// allTargetsMissing reports whether every unit of the rule has its required target missing
// (a subjective rule's own target, shared by its criteria).
func (r *ruleRun) allTargetsMissing() bool {
	for _, u := range r.pr.Units {
		if u.Missing == nil {
			return false
		}
	}
	return true
}

// failure returns the first failed chunk's error, naming the chunk's lines when the rule made
// more than one call on the file. A stopped endpoint (llm.StopError) comes first, as is: the
// rule could not complete for a reason of the whole run.
func (r *ruleRun) failure() error {
	calls := 0
	for _, u := range r.units {
		calls += len(u.chunks)
		for _, res := range u.results {
			if errors.Is(res.err, runwide.ErrStopped) {
				return res.err
			}
		}
	}
	for _, u := range r.units {
		for i, res := range u.results {
			if res.err != nil {
				if calls > 1 {
					return fmt.Errorf("%s: %w", lineRange(u.chunks[i]), res.err)
				}
				return res.err
			}
		}
	}
	return nil
}

// unitRun is one unit's evaluation: a reply per chunk.
type unitRun struct {
	unit    *Unit
	chunks  []document.Chunk
	results []reply
}

// workItem is one request of the pool's work: one chunk of one rule's unit, or the same chunk
// of several semi-objective rules evaluated together (RulesPerCall: callGroups). When its rules
// take several samples it is sample `sample` of `samples` (its replies go to the members'
// reply.samples; settle reads them), so that the samples of one chunk are made in parallel
// like any other calls; samples is 0 for an item that makes all of its calls (a kind that
// takes one sample, or a technical-accuracy rule, whose claim checks come first).
type workItem struct {
	file            *fileRun
	members         []member
	samples, sample int
}

// sampleCaller is a kind whose model evaluation of a chunk is one call per sample, made alone
// (semi-objective, subjective): its samples are work items of their own.
type sampleCaller interface {
	callOne(ctx context.Context, e *evaluator, j job) reply
}

// workItems are the file's work items, in plan order: its chunk evaluations grouped by
// callGroups with the file's RulesPerCall, each split into one item per sample when its kind
// is a sampleCaller (their members' replies made ready to take each sample's).
func (f *fileRun) workItems() []workItem {
	var (
		all   []member
		calls []groupCall
	)
	for _, rr := range f.rules {
		for _, u := range rr.units {
			for c := range u.chunks {
				all = append(all, member{rule: rr, unit: u, chunk: c})
				calls = append(calls, groupCallOf(rr.pr, u.chunks[c]))
			}
		}
	}
	groups := callGroups(f.fp.RulesPerCall, calls)
	items := make([]workItem, 0, len(groups))
	for _, g := range groups {
		ms := make([]member, len(g))
		for k, c := range g {
			ms[k] = all[c]
		}
		pr := ms[0].rule.pr
		n := pr.samples()
		if _, ok := pr.Kind.(sampleCaller); !ok || n == 1 {
			items = append(items, workItem{file: f, members: ms})
			continue
		}
		for _, m := range ms {
			m.unit.results[m.chunk] = reply{samples: make([]reply, n)}
		}
		for i := range n {
			items = append(items, workItem{file: f, members: ms, samples: n, sample: i})
		}
	}
	return items
}

// settle makes each chunk evaluation whose samples were made as work items of their own a
// reply as sampled makes it: the first failed (or interrupted) sample in order stands for the
// whole; otherwise the samples' replies. Evaluate's collector calls it once every item of the
// file is done.
func (f *fileRun) settle() {
	for _, r := range f.rules {
		for _, u := range r.units {
			for i := range u.results {
				for _, s := range u.results[i].samples {
					if s.err != nil || s.interrupted {
						u.results[i] = s
						break
					}
				}
			}
		}
	}
}
