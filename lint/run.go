package lint

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/fix"
	"github.com/vectorlint/vectorlint/internal/baseline"
	"github.com/vectorlint/vectorlint/internal/process"
)

// Progress is told how a run advances: the command's progress bar (*progress.Bar of
// internal/progress implements it) or an editor's status line. Start is called once before
// the first call, Advance once per file whose result is out, and Stop once the last file is
// done, before Run returns.
type Progress interface {
	// Start begins showing progress, refreshed every interval (the client's calls and tokens
	// change between files).
	Start(interval time.Duration)
	// Advance counts files whose results are out.
	Advance(files int)
	// Stop ends the display.
	Stop()
}

// RunOptions configure Run: the evaluation's settings, where each file's result goes, and
// who is told of the progress.
type RunOptions struct {
	EvalOptions
	// File receives each file's result, in path order, as soon as it and every file before it
	// are done, so output streams (a report.Writer's File). An error from it stops the run.
	// Nil keeps the results in the Result's Files instead.
	File func(finding.FileResult) error
	// Progress, when set, is told of the run's progress.
	Progress Progress
	// Fix, when set, applies each file's fixes (--fix; the run needs KeepSource): the fixer
	// processor (internal/process) runs it, and File receives what the fixes left.
	Fix *fix.Session
	// Baseline, when set, hides the findings it accepts (--baseline), and RecordBaseline, when
	// set, receives every finding for a new baseline file (--write-baseline): the baseline
	// processor (internal/process) runs them before the fixer. Both need KeepSource.
	Baseline       *baseline.Set
	RecordBaseline *baseline.Recorder
}

// progressInterval is how often the progress display refreshes.
const progressInterval = 100 * time.Millisecond

// Run lints a plan as the vectorlint command does, so Go programs and editors get the same
// behaviour: every file goes through Evaluate (one pool of model calls, results in path order)
// and then the one list of processors (internal/process: changed lines, minimum severity, the
// baseline, the fixer with opts.Fix, the summary), each result to opts.File or into the
// Result's Files, with progress through opts.Progress; then the totals: the summary of every
// file as the processors left it, the model client's usage (all of its calls, so a
// client shared between runs counts the earlier ones too), the files the plan skipped, the
// failures of the whole run and the files an interruption left unfinished.
//
// When ctx ends, the calls in flight stop, the files already done are reported, the Result's
// Interrupted lists the others, and the error is ctx's. Any other error (one from opts.File)
// stops the run and is returned with a nil Result.
func Run(ctx context.Context, plan *Plan, opts RunOptions) (*finding.Result, error) {
	res := &finding.Result{Totals: finding.Totals{Skipped: plan.Skipped}}
	// After evaluation, each file's result goes through the one list of processors; its last,
	// the summary, counts the totals.
	post := process.New(process.Options{Changed: plan.changedOf(), MinSeverity: opts.MinSeverity, Baseline: opts.Baseline,
		Record: opts.RecordBaseline, Fix: opts.Fix, Summary: &res.Summary})
	emit := func(fr finding.FileResult) error {
		if opts.Progress != nil {
			opts.Progress.Advance(1)
		}
		if opts.File != nil {
			return opts.File(fr)
		}
		res.Files = append(res.Files, fr)
		return nil
	}
	if opts.Progress != nil {
		opts.Progress.Start(progressInterval)
	}
	stats, err := evaluateWith(ctx, plan, opts.EvalOptions, evalHooks{post: post}, emit)
	if opts.Progress != nil {
		opts.Progress.Stop()
	}
	if err != nil && len(stats.Incomplete) == 0 {
		return nil, err
	}
	res.RunErrors, res.Interrupted = stats.RunErrors, stats.Incomplete
	if len(stats.Skipped) > 0 {
		res.Skipped = append(slices.Clip(res.Skipped), stats.Skipped...)
		slices.SortFunc(res.Skipped, func(a, b finding.Skipped) int { return strings.Compare(a.Path, b.Path) })
	}
	if opts.Client != nil {
		res.Usage = finding.Usage(opts.Client.Usage()) // the client's totals, as the output writes them
	}
	return res, err
}
