package lint

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
	"github.com/vectorlint/vectorlint/scoring"
)

// FileErrorRule is the rule name of a file's RuleError when the file itself could not be read
// (no rule ran on it).
const FileErrorRule = "vectorlint"

// EvalOptions configure Evaluate.
type EvalOptions struct {
	// Client makes the model calls. Nil means no model is configured: units that need the model
	// are not run (EvalStats.NotRun counts their calls, EvalStats.RunErrors says why once), and
	// everything deterministic is.
	Client *llm.Client
	// Endpoint is the model that evaluates rules.
	Endpoint llm.Endpoint
	// Search is the search-capable model of technical-accuracy rules (nil when none is
	// configured; the plan then marks those rules as unable to run).
	Search *llm.Endpoint
	// ConfidenceThreshold drops violations the model reports with a lower confidence (0 keeps
	// them all; the configuration's default is DefaultConfidenceThreshold).
	ConfidenceThreshold float64
	// Judge judges the LLM-judged points of checklist rules (rules with `should`); nil leaves
	// them not evaluated (counted in EvalStats.NotRun) while deterministic points still score.
	// The command passes a ModelJudge on the same endpoint.
	Judge blueprint.Judge
	// StyleGuide is the project's style guide, sent with every rule ("" for none).
	StyleGuide string
	// Concurrency is the number of workers evaluating chunks at once across the whole run
	// (DefaultConcurrency when 0).
	Concurrency int
	// NotConfigured says why the model is not configured when Client (or Judge) is nil (an
	// *llm.NotConfiguredError naming the variables to set): it is the message of the one
	// RunError that counts the rule runs that needed the model (spec/trust.md §5). Nil gives
	// DefaultNotRunReason.
	NotConfigured error
	// Warn receives problems that do not stop the run (a reply that rates a criterion the rule
	// does not have), one line each naming the file and rule. Calls are never concurrent. May
	// be nil.
	Warn func(string)
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
	RunErrors []RunError
	// Incomplete lists, in path order, the files that were not emitted because the run was
	// interrupted before their evaluation finished.
	Incomplete []string
}

// Evaluate runs a plan: every chunk of every unit of every rule on every file goes through one
// pool of Concurrency workers, and each file's result is passed to emit, in the plan's (path)
// order, as soon as it and every file before it are done, so output streams.
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
func Evaluate(ctx context.Context, plan *Plan, opts EvalOptions, emit func(FileResult) error) (EvalStats, error) {
	return evaluateWith(ctx, plan, opts, evalHooks{}, emit)
}

// EvalWindow is the number of files Evaluate keeps prepared but not yet emitted, at most: 64, or
// 4 × concurrency when that is more. It bounds how far the pool runs ahead of a slow file.
func EvalWindow(concurrency int) int {
	if concurrency <= 0 {
		concurrency = DefaultConcurrency
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
}

// fileEvent tells Evaluate's collector that a file was prepared (file set, with its index in
// the plan) or that one of its chunks is done (chunkDone).
type fileEvent struct {
	index     int
	file      *fileRun
	chunkDone bool
}

func evaluateWith(ctx context.Context, plan *Plan, opts EvalOptions, hooks evalHooks, emit func(FileResult) error) (stats EvalStats, err error) {
	if opts.Concurrency <= 0 {
		opts.Concurrency = DefaultConcurrency
	}
	window := hooks.window
	if window <= 0 {
		window = EvalWindow(opts.Concurrency)
	}
	e := &evaluator{opts: opts, js: blueprint.NewJSPool()}
	defer func() { stats.RunErrors = e.runErrors.list }()
	var (
		live   atomic.Int64 // files prepared and not yet released, for hooks.prepared
		runs   = make([]*fileRun, len(plan.Files))
		notRun int // written by the producer, read after it is done
	)
	prepare := func(i int) *fileRun {
		fp := plan.Files[i]
		f := &fileRun{fp: fp, release: !fp.Prepared()}
		fp.Prepare()
		if hooks.prepared != nil {
			hooks.prepared(int(live.Add(1)))
		}
		notRun += f.plan(opts)
		return f
	}
	release := func(f *fileRun) {
		if f.release {
			f.fp.release()
		}
		if hooks.prepared != nil {
			hooks.prepared(int(live.Add(-1)))
		}
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	work := make(chan workItem)
	events := make(chan fileEvent, opts.Concurrency)
	slots := make(chan struct{}, window) // a file holds a slot from its preparing to its emitting
	produced := make(chan struct{})
	go func() {
		defer close(produced)
		defer close(work)
		for i := range plan.Files {
			select {
			case slots <- struct{}{}:
			case <-runCtx.Done():
				return
			}
			f := prepare(i)
			// The collector learns of the file before any of its chunks is done: this send
			// happens before the work items', and so before the workers' reports.
			events <- fileEvent{index: i, file: f}
			for _, r := range f.rules {
				for _, u := range r.units {
					for c := range u.chunks {
						select {
						case work <- workItem{file: f, rule: r, unit: u, chunk: c}:
						case <-runCtx.Done():
							return
						}
					}
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range opts.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range work {
				it.unit.results[it.chunk] = e.runChunk(runCtx, it)
				events <- fileEvent{file: it.file, chunkDone: true}
			}
		}()
	}
	go func() {
		<-produced
		wg.Wait()
		close(events)
	}()

	var (
		next    int
		emitErr error
	)
	send := func(f *fileRun) {
		if emitErr == nil {
			if err := emit(e.assemble(f)); err != nil {
				emitErr = err
				cancel()
			}
		}
		runs[next] = nil
		release(f)
		next++
	}
	flush := func() {
		for next < len(runs) && runs[next] != nil && runs[next].pending == 0 && !runs[next].interrupted() {
			send(runs[next])
			<-slots
		}
	}
	for ev := range events {
		if ev.chunkDone {
			ev.file.pending--
		} else {
			runs[ev.index] = ev.file
		}
		flush()
	}
	if emitErr != nil {
		stats.NotRun = notRun
		return stats, emitErr
	}
	// The run was interrupted (the producer stopped early) or is complete. A file the producer
	// did not reach is emitted when it is already read (an eager plan) and needs no model
	// call. One of a lazy plan is not read now: after Ctrl-C the run stops at once instead of
	// reading what may be thousands of files, and it is listed as incomplete like the files
	// whose calls were cut off.
	for next < len(runs) {
		f := runs[next]
		if f == nil && !plan.Files[next].Prepared() {
			stats.Incomplete = append(stats.Incomplete, plan.Files[next].Path)
			next++
			continue
		}
		if f == nil {
			f = prepare(next)
		}
		if f.pending == 0 && !f.interrupted() {
			send(f)
			if emitErr != nil {
				stats.NotRun = notRun
				return stats, emitErr
			}
			continue
		}
		stats.Incomplete = append(stats.Incomplete, f.fp.Path)
		runs[next] = nil
		release(f)
		next++
	}
	stats.NotRun = notRun
	if len(stats.Incomplete) > 0 {
		if err := ctx.Err(); err != nil {
			return stats, err
		}
		return stats, context.Canceled
	}
	return stats, nil
}

// plan sets up the file's rule runs and chunks from its prepared plan and returns the model
// calls that cannot be made for want of a model (EvalStats.NotRun).
func (f *fileRun) plan(opts EvalOptions) (notRun int) {
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
			ur := &unitRun{unit: u, chunks: u.Chunks()}
			if u.Checklist != nil {
				// Deterministic points need no model: a checklist always runs, and only
				// its LLM-judged points wait for one.
				if opts.Judge == nil && u.ModelCalls() > 0 {
					notRun += u.ModelCalls()
					r.unjudged += u.ModelCalls()
				}
				ur.results = make([]chunkResult, 1)
				f.pending++
				r.units = append(r.units, ur)
				continue
			}
			if opts.Client == nil {
				notRun += len(ur.chunks)
				r.notRun = true
				continue
			}
			ur.results = make([]chunkResult, len(ur.chunks))
			f.pending += len(ur.chunks)
			r.units = append(r.units, ur)
		}
	}
	return notRun
}

// evaluator holds what every work item shares.
type evaluator struct {
	opts EvalOptions
	// runErrors collects the run-wide failures met while assembling files (assemble runs on
	// the collecting goroutine only).
	runErrors runErrorBook
	// js runs the $js points of checklists: one pool for the run, so its memory watchdog sees
	// every point scored at once.
	js *blueprint.JSPool
}

// runErrorBook collects RunErrors in the order they are met, one per cause.
type runErrorBook struct {
	index map[any]int // *llm.StopError, notConfiguredKey or rules.ErrNoSearchModel → position in list
	list  []RunError
}

// notConfiguredKey is the runErrorBook key of the rules not run for want of a model.
type notConfiguredKey struct{}

// count adds one rule run kept from completing by the failure key identifies.
func (b *runErrorBook) count(key any, cause, message string) {
	if b.index == nil {
		b.index = map[any]int{}
	}
	i, ok := b.index[key]
	if !ok {
		i = len(b.list)
		b.index[key] = i
		b.list = append(b.list, RunError{Cause: cause, Message: message})
	}
	b.list[i].NotRun++
}

// notConfigured counts one rule run not done for want of a model.
func (a *assembler) notConfigured() {
	a.fr.NotRun++
	cause, msg := DefaultNotRunReason, DefaultNotRunReason
	var nc *llm.NotConfiguredError
	if errors.As(a.opts.NotConfigured, &nc) && nc.Provider != "" {
		cause = fmt.Sprintf("LLM provider %s is not fully configured", nc.Provider)
	}
	if a.opts.NotConfigured != nil {
		msg = a.opts.NotConfigured.Error()
	}
	a.runErrors.count(notConfiguredKey{}, cause, msg)
}

// stopped counts one rule run kept from completing by a stopped endpoint.
func (a *assembler) stopped(se *llm.StopError) {
	a.fr.NotRun++
	a.runErrors.count(se, se.Cause(), se.Error())
}

// fileRun is one file's evaluation in progress. pending is touched only by Evaluate's
// collecting goroutine; each chunk result is written by one worker before it reports the file
// on the done channel, which orders the write before the collector reads it.
type fileRun struct {
	fp      *FilePlan
	rules   []*ruleRun
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

type ruleRun struct {
	pr *PlannedRule
	// units are the units that need a call.
	units []*unitRun
	// notRun is set when the rule needs the model and none is configured.
	notRun bool
	// unjudged counts the LLM-judged checklist points left unjudged for want of a model.
	unjudged int
}

type unitRun struct {
	unit    *Unit
	chunks  []Chunk
	results []chunkResult
}

// chunkResult is the model's answer for one chunk.
type chunkResult struct {
	violations  []Violation
	ratings     []CriterionRating
	warnings    []string
	coverage    *blueprint.CoverageResult
	err         error
	interrupted bool
}

type workItem struct {
	file  *fileRun
	rule  *ruleRun
	unit  *unitRun
	chunk int
}

// label names a call in events and --show-prompt: "docs/a.md Acme.Tone lines 12-40".
func (it workItem) label() string {
	l := it.file.fp.Path + " " + it.rule.pr.ID
	if len(it.rule.units) > 1 || len(it.unit.chunks) > 1 {
		c := it.unit.chunks[it.chunk]
		l += " " + lineRange(c)
	}
	return l
}

// lineRange is "lines A-B" (or "line A") of a chunk.
func lineRange(c Chunk) string {
	last := c.Line + len(relLineStarts(c.Text)) - 1
	if last <= c.Line {
		return fmt.Sprintf("line %d", c.Line)
	}
	return fmt.Sprintf("lines %d-%d", c.Line, last)
}

// runChunk makes the model call(s) of one chunk.
func (e *evaluator) runChunk(ctx context.Context, it workItem) chunkResult {
	if ctx.Err() != nil {
		return chunkResult{interrupted: true}
	}
	pr := it.rule.pr
	if it.unit.unit.Checklist != nil {
		return e.scoreChecklist(ctx, it)
	}
	chunk := it.unit.chunks[it.chunk]
	in := PromptInput{Rule: pr.Rule, Criteria: it.unit.unit.Criteria, Text: chunk.Text, Line: chunk.Line,
		StyleGuide: e.opts.StyleGuide}
	var res chunkResult
	if pr.Rule.Evaluator == rules.EvaluatorTechnicalAccuracy {
		rule, extra, err := e.gatherEvidence(ctx, it, chunk)
		if err != nil {
			return failed(ctx, err)
		}
		in.Rule, in.Extra = rule, extra
	}
	req := llm.Request{Endpoint: e.opts.Endpoint, Messages: BuildMessages(in), Label: it.label()}
	var err error
	if pr.Rule.Type == rules.Subjective && len(in.Criteria) > 0 {
		req.Schema = CriteriaSchema(in.Criteria)
		_, err = e.opts.Client.CompleteJSON(ctx, req, func(js string) error {
			ratings, warnings, err := ParseCriteriaReply(js, in.Criteria)
			if err != nil {
				return err
			}
			res.ratings, res.warnings = ratings, warnings
			return nil
		})
	} else {
		req.Schema = ViolationsSchema()
		_, err = e.opts.Client.CompleteJSON(ctx, req, func(js string) error {
			vs, err := ParseViolationsReply(js)
			if err != nil {
				return err
			}
			res.violations = vs
			return nil
		})
	}
	if err != nil {
		return failed(ctx, err)
	}
	return res
}

// failed is the result of a chunk whose call failed: interrupted when the run was stopped,
// else an operational error.
func failed(ctx context.Context, err error) chunkResult {
	var apiErr *llm.APIError
	if ctx.Err() != nil || (errors.As(err, &apiErr) && apiErr.Kind == llm.KindCanceled) {
		return chunkResult{interrupted: true}
	}
	return chunkResult{err: err}
}

// assemble turns a finished file's replies into its result: findings located, filtered and
// sorted, scores, unverified quotes and errors.
func (e *evaluator) assemble(f *fileRun) FileResult {
	fr := FileResult{Path: f.fp.Path}
	if f.fp.Err != nil {
		// The file could not be read: no rule ran. The path is already the result's.
		msg := strings.TrimSpace(strings.TrimPrefix(f.fp.Err.Error(), f.fp.Path+":"))
		fr.Errors = append(fr.Errors, RuleError{Rule: FileErrorRule, Message: msg})
		return fr
	}
	a := &assembler{opts: e.opts, runErrors: &e.runErrors, doc: f.fp.Doc, supp: ParseSuppressions(f.fp.Doc), fr: &fr}
	for _, r := range f.rules {
		a.rule(r)
	}
	sort.SliceStable(fr.Findings, func(i, j int) bool {
		x, y := fr.Findings[i], fr.Findings[j]
		if x.Start.Offset != y.Start.Offset {
			return x.Start.Offset < y.Start.Offset
		}
		if x.Rule != y.Rule {
			return x.Rule < y.Rule
		}
		return x.End.Offset < y.End.Offset
	})
	return fr
}

// assembler builds one file's result.
type assembler struct {
	opts      EvalOptions
	runErrors *runErrorBook
	doc       *Document
	supp      *Suppressions
	fr        *FileResult
}

// keep adds a finding unless an inline control suppresses it; it reports whether it was added.
func (a *assembler) keep(f Finding) bool {
	if a.supp.Suppressed(f.Rule, f.Start.Offset, f.Start.Line) {
		return false
	}
	a.fr.Findings = append(a.fr.Findings, f)
	return true
}

func (a *assembler) rule(r *ruleRun) {
	pr := r.pr
	if errors.Is(pr.Err, rules.ErrNoSearchModel) {
		// A fact about the run's settings, like a missing provider: counted, said once.
		a.fr.NotRun++
		a.runErrors.count(rules.ErrNoSearchModel, "no search model is configured", pr.Err.Error())
		return
	}
	if pr.Err != nil {
		a.fr.Errors = append(a.fr.Errors, RuleError{Rule: pr.ID, Message: pr.Err.Error()})
		return
	}
	for _, f := range pr.Findings() {
		a.keep(f)
	}
	if r.notRun {
		a.notConfigured()
		return
	}
	for _, u := range r.units {
		for i, res := range u.results {
			for _, w := range res.warnings {
				if a.opts.Warn != nil {
					a.opts.Warn(fmt.Sprintf("%s: %s (%s): %s", a.fr.Path, pr.ID, lineRange(u.chunks[i]), w))
				}
			}
		}
	}
	if err := r.failure(); err != nil {
		var se *llm.StopError
		if errors.As(err, &se) {
			a.stopped(se)
			return
		}
		a.fr.Errors = append(a.fr.Errors, RuleError{Rule: pr.ID, Message: err.Error()})
		return
	}
	switch {
	case pr.Rule.Should != nil:
		if r.unjudged > 0 {
			// Deterministic points still score; the LLM-judged ones make the rule run
			// incomplete, counted under the run error that names what to configure.
			a.notConfigured()
		}
		a.checklist(r)
	case pr.Rule.Type == rules.Subjective && len(pr.Rule.Criteria) > 0:
		a.subjective(r)
	default:
		a.semiObjective(r)
	}
}

// failure returns the first failed chunk's error, naming the chunk's lines when the rule made
// more than one call on the file. A stopped endpoint (llm.StopError) comes first, as is: the
// rule could not complete for a reason of the whole run.
func (r *ruleRun) failure() error {
	calls := 0
	for _, u := range r.units {
		calls += len(u.chunks)
		for _, res := range u.results {
			if errors.Is(res.err, llm.ErrStopped) {
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

// locator places a rule's violations: it drops those under the confidence threshold, locates
// the others, removes duplicates and lists the quotes it cannot find as unverified.
type locator struct {
	a     *assembler
	rule  string
	seen  map[Span]bool
	quote map[[2]string]bool
}

func (a *assembler) locator(rule string) *locator {
	return &locator{a: a, rule: rule, seen: map[Span]bool{}, quote: map[[2]string]bool{}}
}

// place returns the finding of violation v of chunk c, or false when it is dropped, a
// duplicate, or unverified.
func (l *locator) place(c Chunk, v Violation, sev rules.Severity) (Finding, bool) {
	if v.Confidence < l.a.opts.ConfidenceThreshold {
		return Finding{}, false
	}
	span, method := Locate(c, v)
	if method == NotLocated {
		key := [2]string{v.QuotedText, v.Message}
		if l.quote[key] {
			return Finding{}, false
		}
		l.quote[key] = true
		if v.Line > 0 && l.a.supp.Suppressed(l.rule, l.a.doc.LineStart(v.Line), v.Line) {
			return Finding{}, false
		}
		l.a.fr.Unverified = append(l.a.fr.Unverified, Unverified{Rule: l.rule, Message: v.Message, Quote: v.QuotedText, Line: v.Line})
		return Finding{}, false
	}
	if l.seen[span] {
		return Finding{}, false
	}
	l.seen[span] = true
	match := string(l.a.doc.Source[span.Start:span.End])
	f := Finding{Rule: l.rule, Severity: sev, Message: v.Message, Suggestion: v.Suggestion, Fix: v.Fix,
		Match: match, Analysis: v.Analysis, Start: l.a.doc.Position(span.Start), End: l.a.doc.Position(span.End)}
	if f.Fix == match {
		f.Fix = ""
	}
	return f, true
}

// semiObjective scores a rule by violation density over the whole evaluated text.
func (a *assembler) semiObjective(r *ruleRun) {
	pr := r.pr
	strictness := pr.Strictness
	for _, u := range pr.Units {
		if u.Missing != nil {
			a.fr.Scores = append(a.fr.Scores, Score{Rule: pr.ID, Type: SemiObjective, Score: 0, Strictness: &strictness})
			return
		}
	}
	loc := a.locator(pr.ID)
	count, words := 0, 0
	for _, u := range r.units {
		words += CountWords(u.unit.Text)
		for i, c := range u.chunks {
			for _, v := range u.results[i].violations {
				if f, ok := loc.place(c, v, pr.Severity); ok && a.keep(f) {
					count++
				}
			}
		}
	}
	d, err := scoring.ScoreDensity(count, words, scoring.Strictness(strictness))
	if err != nil {
		a.fr.Errors = append(a.fr.Errors, RuleError{Rule: pr.ID, Message: err.Error()})
		return
	}
	a.fr.Scores = append(a.fr.Scores, Score{Rule: pr.ID, Type: SemiObjective, Score: Rounded1(d.Score),
		Violations: &count, Words: &d.Words, Strictness: &strictness})
}

// subjective scores a rule from its criteria's ratings, aggregated over chunks, and reports
// each criterion's violations (spec/linter.md §5).
func (a *assembler) subjective(r *ruleRun) {
	pr := r.pr
	missing := true
	for _, u := range pr.Units {
		missing = missing && u.Missing != nil
	}
	if missing {
		// The rule's own required target is missing: score 0, no criteria rated.
		a.fr.Scores = append(a.fr.Scores, Score{Rule: pr.ID, Type: Subjective, Score: 0})
		return
	}
	var (
		scores            []CriterionScore
		weighted, weights float64
	)
	for _, c := range pr.Rule.Criteria {
		unit, run := a.unitOf(pr, r, c)
		weights += c.Weight
		if unit == nil || unit.Missing != nil || run == nil {
			scores = append(scores, CriterionScore{ID: c.ID, Name: c.Name, Rating: 0, Score: 0, Weight: c.Weight})
			continue
		}
		var (
			chunkRatings []scoring.ChunkRating
			lowest       *CriterionRating
		)
		for i, res := range run.results {
			for j := range res.ratings {
				cr := &res.ratings[j]
				if cr.Criterion != c {
					continue
				}
				chunkRatings = append(chunkRatings, scoring.ChunkRating{Rating: cr.Rating, Words: run.chunks[i].Words})
				if lowest == nil || cr.Rating < lowest.Rating {
					lowest = cr
				}
			}
		}
		rating, err := scoring.AggregateRatings(chunkRatings)
		if err != nil {
			a.fr.Errors = append(a.fr.Errors, RuleError{Rule: pr.ID, Message: err.Error()})
			return
		}
		sev, _ := scoring.CriterionSeverity(rating, pr.CriterionSeverity(c), pr.Severity, rules.SeverityWarning)
		id := pr.Rule.CriterionID(c)
		loc := a.locator(id)
		reported := 0
		for i, res := range run.results {
			for _, cr := range res.ratings {
				if cr.Criterion != c {
					continue
				}
				for _, v := range cr.Violations {
					if f, ok := loc.place(run.chunks[i], v, sev); ok {
						reported++
						a.keep(f)
					}
				}
			}
		}
		if scoring.NeedsSummaryFinding(rating, reported) {
			a.keep(a.summaryFinding(id, sev, c, rating, lowest, unit))
		}
		normalized, _ := scoring.NormalizeRating(rating)
		weighted += normalized * c.Weight
		scores = append(scores, CriterionScore{ID: c.ID, Name: c.Name, Rating: rating, Score: Rounded1(normalized), Weight: c.Weight})
	}
	score := 0.0
	if weights > 0 {
		score = weighted / weights
	}
	a.fr.Scores = append(a.fr.Scores, Score{Rule: pr.ID, Type: Subjective, Score: Rounded1(score), Criteria: scores})
}

// unitOf returns the unit that evaluates criterion c and its run (nil when it made no call).
func (a *assembler) unitOf(pr *PlannedRule, r *ruleRun, c *rules.Criterion) (*Unit, *unitRun) {
	for _, u := range pr.Units {
		for _, uc := range u.Criteria {
			if uc != c {
				continue
			}
			for _, run := range r.units {
				if run.unit == u {
					return u, run
				}
			}
			return u, nil
		}
	}
	return nil, nil
}

// summaryFinding is the finding of a criterion rated 1 or 2 without violations: it spans the
// first line of the evaluated text and carries the model's summary (of the lowest-rated chunk).
func (a *assembler) summaryFinding(id string, sev rules.Severity, c *rules.Criterion, rating int, cr *CriterionRating, u *Unit) Finding {
	msg, analysis := "", ""
	if cr != nil {
		msg, analysis = strings.TrimSpace(cr.Summary), strings.TrimSpace(cr.Reasoning)
	}
	if msg == "" {
		msg = fmt.Sprintf("%s is rated %d of 4.", c.Name, rating)
	}
	return a.startFinding(id, sev, msg, analysis, u)
}
