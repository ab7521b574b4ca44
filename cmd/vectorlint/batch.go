package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/numfmt"
	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm/batch"
)

const batchUsage = `Usage:
  vectorlint batch submit [lint flags] PATH...
  vectorlint batch status ID [--config FILE] [--provider NAME] [--model NAME] [--base-url URL]
  vectorlint batch collect ID [--wait] [--no-live] [lint flags] PATH...

Lints through the provider's batch API (OpenAI Batch API, Anthropic Message Batches) at the
batch price, BATCH_PRICE_FACTOR of the live price (default 0.5); docs/batch.md.
submit plans the lint run of PATH... as vectorlint would, sends every request the reply cache
does not answer as one batch, saves its state under .vectorlint/batches/ and prints its id
(--dry-run estimates the batch and sends nothing).
status prints the batch's state and counts.
collect fetches the batch's replies into the reply cache, then runs the same lint (give the same
PATH... and flags as submit) with the usual output and exit code: the requests the batch
answered make no live call; those it did not answer (failed, expired, or changed since the
submit) are made live, or with --no-live listed and not made (exit 2).

Flags of collect:
      --wait      wait for the batch to end (asking for its state every 30 seconds)
      --no-live   make no live call: list the requests the batch did not answer
`

// Batch subcommands.
const (
	batchSubmit  = "submit"
	batchStatus  = "status"
	batchCollect = "collect"
)

// batchStep is what a batch command adds to a lint run (lintFlags.batch).
type batchStep struct {
	op string // batchSubmit or batchCollect
	// id is the batch collected.
	id string
	// wait and noLive are collect's --wait and --no-live.
	wait, noLive bool
}

// batchOptions are the options of a batch command.
type batchOptions struct {
	lint *lintOptions
	step batchStep
	help bool
}

// batchCommand is "vectorlint batch submit|status|collect".
func (a *app) batchCommand(ctx context.Context, args []string) error {
	o, err := parseBatch(args)
	if err != nil {
		name := "vectorlint batch"
		if len(args) > 0 {
			name += " " + args[0]
		}
		return a.usageError(name, err)
	}
	return a.runBatch(ctx, o)
}

// parseBatch fills the options of a batch command from args and checks them.
func parseBatch(args []string) (*batchOptions, error) {
	if len(args) == 0 {
		return nil, errors.New("expected submit, status or collect")
	}
	o := &batchOptions{step: batchStep{op: args[0]}}
	rest := args[1:]
	switch args[0] {
	case "-h", "--help", "help":
		o.help = true
		return o, nil
	case batchSubmit:
	case batchStatus, batchCollect:
		if len(rest) == 0 || strings.HasPrefix(rest[0], "-") {
			if len(rest) > 0 && (rest[0] == "-h" || rest[0] == "--help") {
				o.help = true
				return o, nil
			}
			return nil, fmt.Errorf("expected the batch's ID (printed by vectorlint batch submit) after %s", args[0])
		}
		o.step.id, rest = rest[0], rest[1:]
	default:
		return nil, fmt.Errorf("unknown command %q (expected submit, status or collect)", args[0])
	}
	more := func(fs *pflag.FlagSet) {
		if o.step.op == batchCollect {
			fs.BoolVar(&o.step.wait, "wait", false, "wait for the batch to end")
			fs.BoolVar(&o.step.noLive, "no-live", false, "make no live call")
		}
	}
	lo, err := parseLintWith(rest, more)
	if err != nil {
		return nil, err
	}
	switch {
	case lo.usage && o.step.op == batchStatus && len(lo.paths) == 0:
		lo.usage = false // status plans no run: it needs no PATH
	case lo.usage || lo.version:
		o.help = true
		return o, nil
	case o.step.op == batchStatus && len(lo.paths) > 0:
		return nil, fmt.Errorf("unexpected argument %q", lo.paths[0])
	case lo.fix != "":
		return nil, errors.New("--fix cannot be used with a batch: collect the batch, then run vectorlint --fix from the cache")
	case lo.dryRun && o.step.op != batchSubmit:
		return nil, fmt.Errorf("--dry-run estimates a batch before it is submitted: use it with vectorlint batch submit")
	case lo.noCache:
		return nil, setup.ErrBatchNeedsCache
	}
	lo.batch = &o.step
	o.lint = lo
	return o, nil
}

// runBatch runs a batch command with its checked options.
func (a *app) runBatch(ctx context.Context, o *batchOptions) error {
	switch {
	case o.help:
		fmt.Fprint(a.stdout, batchUsage)
		var f lintFlags
		fmt.Fprintf(a.stdout, "\nLint flags:\n%s", newLintFlagSet(&f).FlagUsages())
		return nil
	case o.step.op == batchStatus:
		return a.batchStatus(ctx, o)
	}
	if o.lint.outputFile != "" {
		return a.lintToFile(ctx, &o.lint.lintFlags, o.lint.paths)
	}
	return a.lint(ctx, &o.lint.lintFlags, o.lint.paths)
}

// batchFail is the error of a batch command: its message prefixed with the command.
func batchFail(op string, err error) error {
	return &commandError{prefix: "vectorlint batch " + op, err: err}
}

// batchSubmit is "batch submit" once its run is planned: the plan's uncached requests are sent
// as one batch, whose id is printed (or, with --dry-run, estimated).
func (a *app) batchSubmit(ctx context.Context, env *envsource.Env, eps setup.Endpoints, proj *config.Project, f *lintFlags, plan *lint.Plan) error {
	if f.dryRun { // else the lint command has said them
		for _, e := range plan.OperationalErrors() {
			fmt.Fprintf(a.stderr, "vectorlint: %v\n", e)
		}
	}
	run, err := a.prepareLint(env, eps, proj, f, &syncWriter{w: a.stderr})
	if err != nil {
		return batchFail(batchSubmit, err)
	}
	defer run.Close()
	bs, err := a.host().Batches(env, run, proj.Root)
	if err != nil {
		return batchFail(batchSubmit, err)
	}
	defer bs.Close()
	bp := bs.Plan(plan, proj)
	if f.dryRun {
		a.printBatchPlan(a.stdout, bp, bs.Factor)
		return nil
	}
	if bp.Requests == 0 {
		fmt.Fprintf(a.stderr, "vectorlint batch submit: nothing to submit: the reply cache answers every request of this run (%s cached); run vectorlint on the same paths\n", numfmt.Count(bp.Cached, "request"))
		return nil
	}
	st, err := bs.Submit(ctx, bp)
	if err != nil {
		return batchFail(batchSubmit, err)
	}
	a.printBatchPlan(a.stderr, bp, bs.Factor)
	fmt.Fprintf(a.stderr, "vectorlint batch submit: batch %s submitted to %s (%s), state in .vectorlint/batches/%s.json; collect it with: vectorlint batch collect %s [lint flags] PATH...\n",
		st.ID, st.Provider, st.Model, st.ID, st.ID)
	fmt.Fprintln(a.stdout, st.ID)
	return nil
}

// printBatchPlan writes what a submit sends and what it is expected to cost.
func (a *app) printBatchPlan(w io.Writer, bp *setup.BatchPlan, factor float64) {
	fmt.Fprintf(w, "Batch: %s (~%s input and ~%s output tokens)", numfmt.Count(bp.Requests, "request"),
		numfmt.Thousands(bp.InputTokens), numfmt.Thousands(bp.OutputTokens))
	if bp.Cached > 0 {
		fmt.Fprintf(w, "; %s answered by the cache", numfmt.Count(bp.Cached, "request"))
	}
	if bp.Deferred > 0 {
		fmt.Fprintf(w, "; %s made live at collect (checklist points, technical accuracy)", numfmt.Count(bp.Deferred, "call"))
	}
	fmt.Fprintln(w)
	if bp.Cost != nil {
		fmt.Fprintf(w, "Estimated cost: $%.4f at %g × the live price (BATCH_PRICE_FACTOR)\n", *bp.Cost, factor)
	} else {
		fmt.Fprintf(w, "Estimated cost: unknown (set INPUT_PRICE_PER_MILLION and OUTPUT_PRICE_PER_MILLION); batches cost %g × the live price (BATCH_PRICE_FACTOR)\n", factor)
	}
}

// batchStatus is "batch status ID": the batch's state and counts, asked of the provider with
// the project's endpoint and key.
func (a *app) batchStatus(ctx context.Context, o *batchOptions) error {
	f := &o.lint.lintFlags
	proj, err := a.loadProject(f.config)
	if err != nil {
		a.printProblemsOrError(err)
		return errFailed
	}
	defer proj.Close()
	h := a.host()
	env, eps, err := h.LintEnv(proj, h.ProjectEnvDir(proj), setup.Settings{Provider: f.provider, Model: f.model, BaseURL: f.baseURL})
	if err != nil {
		return batchFail(batchStatus, err)
	}
	run, err := a.prepareLint(env, eps, proj, f, &syncWriter{w: a.stderr})
	if err != nil {
		return batchFail(batchStatus, err)
	}
	defer run.Close()
	bs, err := h.Batches(env, run, proj.Root)
	if err != nil {
		return batchFail(batchStatus, err)
	}
	defer bs.Close()
	st, status, err := bs.Status(ctx, o.step.id)
	if err != nil {
		return batchFail(batchStatus, err)
	}
	c := status.Counts
	fmt.Fprintf(a.stdout, "Batch %s: %s, %s %s, %s, submitted %s\n", st.ID, status.State, st.Provider, st.Model,
		numfmt.Count(st.Requests(), "request"), st.Created.UTC().Format("2006-01-02 15:04:05 UTC"))
	fmt.Fprintf(a.stdout, "  %d succeeded, %d failed, %d expired, %d canceled, %d pending\n", c.Succeeded, c.Failed, c.Expired, c.Canceled, c.Pending)
	if len(status.Parts) > 1 {
		for _, p := range status.Parts {
			fmt.Fprintf(a.stdout, "  part %s: %s, %d of %d done\n", p.ProviderID, p.State, p.Counts.Total-p.Counts.Pending, p.Counts.Total)
		}
	}
	for _, p := range status.Parts {
		if p.Message != "" {
			fmt.Fprintf(a.stdout, "  part %s: %s\n", p.ProviderID, p.Message)
		}
	}
	if status.Done {
		fmt.Fprintf(a.stdout, "Done: collect it with vectorlint batch collect %s [lint flags] PATH...\n", st.ID)
	}
	return nil
}

// batchCollect is the first step of "batch collect": the batch's replies are fetched into the
// reply cache, and what it did not answer is said (made live by the run, or with --no-live
// listed, the run failing them without a call).
func (a *app) batchCollect(ctx context.Context, env *envsource.Env, run *setup.Lint, proj *config.Project, plan *lint.Plan, step *batchStep, log io.Writer) (*setup.Batches, error) {
	bs, err := a.host().Batches(env, run, proj.Root)
	if err != nil {
		return nil, batchFail(batchCollect, err)
	}
	c, err := bs.Collect(ctx, step.id, plan, proj, step.wait)
	if err != nil {
		bs.Close()
		var notDone *batch.NotDoneError
		if errors.As(err, &notDone) {
			err = fmt.Errorf("%w: run it again later, or add --wait", err)
		}
		return nil, batchFail(batchCollect, err)
	}
	replies := "replies"
	if c.Stored == 1 {
		replies = "reply"
	}
	fmt.Fprintf(log, "vectorlint: batch %s: %d %s stored in the reply cache at %g × the live price\n", step.id, c.Stored, replies, bs.Factor)
	live := "made live"
	if step.noLive {
		live = "not made (--no-live)"
	}
	for _, fl := range c.Failed {
		why := "failed"
		if fl.Expired {
			why = "expired"
		}
		fmt.Fprintf(log, "vectorlint: batch %s: %s %s in the batch (%s): %s\n", step.id, c.Labels[fl.Request], why, fl.Reason, live)
	}
	if c.Changed {
		fmt.Fprintf(log, "vectorlint: batch %s: %s changed since the submit (documents, rules or settings): %s\n", step.id, numfmt.Count(len(c.NotInBatch), "request"), live)
		for _, i := range c.NotInBatch {
			fmt.Fprintf(log, "vectorlint:   %s\n", c.Labels[i])
		}
	}
	return bs, nil
}
