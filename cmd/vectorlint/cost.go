package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/selection"
)

// costFlags are the lint command's cost controls for CI (spec/linter.md §11).
type costFlags struct {
	changedSince string
	changedLines bool
	maxCalls     int
	maxCost      string
	shard        string

	// Checked values.
	budget     selection.Budget
	shardValue *selection.Shard
}

func (c *costFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&c.changedSince, "changed-since", "", "lint only the files that differ from the merge base with `REF` (a branch, tag or commit), and those whose rules or config settings changed")
	fs.BoolVar(&c.changedLines, "changed-lines", false, "with --changed-since: send the model only the chunks holding a changed line and report findings on changed lines only")
	fs.IntVar(&c.maxCalls, "max-calls", 0, "stop before any call, exit 2, when the run needs more than `N` LLM calls (cached calls do not count)")
	fs.StringVar(&c.maxCost, "max-cost", "", "stop before any call, exit 2, when the run's estimated cost is over `USD` (needs INPUT_PRICE_PER_MILLION and OUTPUT_PRICE_PER_MILLION)")
	fs.StringVar(&c.shard, "shard", "", "lint only share `K/N` of the files (by a hash of their path), so N jobs split a repository; join their --output json with vectorlint merge")
}

// check validates the cost flags.
func (c *costFlags) check(fs *pflag.FlagSet, stdin bool) error {
	if fs.Changed("changed-since") {
		if c.changedSince == "" {
			return errors.New("--changed-since: expected a branch, tag or commit, found nothing")
		}
		if strings.HasPrefix(c.changedSince, "-") {
			return fmt.Errorf("--changed-since: expected a branch, tag or commit, found %q (a REF may not start with \"-\")", c.changedSince)
		}
		if stdin {
			return errors.New("--changed-since compares files with git: it cannot be combined with --stdin-filename")
		}
	}
	if c.changedLines && c.changedSince == "" {
		return errors.New("--changed-lines needs --changed-since REF: the lines changed since when?")
	}
	if fs.Changed("max-calls") {
		if c.maxCalls < 0 {
			return fmt.Errorf("--max-calls: expected a whole number of 0 or more, found %d", c.maxCalls)
		}
		n := c.maxCalls
		c.budget.MaxCalls = &n
	}
	if fs.Changed("max-cost") {
		v, err := strconv.ParseFloat(strings.TrimPrefix(strings.TrimSpace(c.maxCost), "$"), 64)
		if err != nil || v < 0 || math.IsNaN(v) || v > 1e12 {
			return fmt.Errorf("--max-cost: expected an amount of 0 or more such as 0.50, found %q", c.maxCost)
		}
		c.budget.MaxCost = &v
	}
	if fs.Changed("shard") {
		s, err := selection.ParseShard(c.shard)
		if err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		c.shardValue = &s
	}
	return nil
}

// selectFiles applies --changed-since (and --changed-lines) and --shard to the plan, and says
// on standard error what was kept.
func (a *app) selectFiles(ctx context.Context, f *lintFlags, proj *config.Project, plan *lint.Plan) error {
	c := &f.cost
	if c.changedSince != "" {
		sel, err := lint.SelectChanged(ctx, plan, proj, selection.ChangedOptions{Dir: a.dir, Ref: c.changedSince, Lines: c.changedLines})
		if err != nil {
			return fmt.Errorf("--changed-since %s: %w", c.changedSince, err)
		}
		fmt.Fprintf(a.stderr, "vectorlint: %s\n", describeSelection(c.changedSince, sel, c.changedLines))
	}
	if c.shardValue != nil {
		before := len(plan.Files)
		plan.Shard(*c.shardValue)
		fmt.Fprintf(a.stderr, "vectorlint: shard %s: %s of %d\n", c.shardValue, pluralize(len(plan.Files), "file"), before)
	}
	return nil
}

// describeSelection says what --changed-since kept: "changed since main (merge base
// 1a2b3c4d5e6f): 3 of 200 files (2 changed, 1 for its rules); changed lines only".
func describeSelection(ref string, sel selection.ChangeSelection, lines bool) string {
	base := sel.MergeBase
	if len(base) > 12 {
		base = base[:12]
	}
	s := fmt.Sprintf("changed since %s (merge base %s): %d of %s", ref, base, sel.Files, pluralize(sel.Planned, "file"))
	if sel.Everything != "" {
		s += ": every file, since " + sel.Everything
	} else {
		var why []string
		if sel.Changed > 0 {
			why = append(why, strconv.Itoa(sel.Changed)+" changed")
		}
		if sel.ByRules > 0 {
			why = append(why, strconv.Itoa(sel.ByRules)+" for their rules")
		}
		if sel.ByConfig > 0 {
			why = append(why, strconv.Itoa(sel.ByConfig)+" for their settings in the config")
		}
		if len(why) > 0 {
			s += " (" + strings.Join(why, ", ") + ")"
		}
	}
	if lines {
		s += "; findings on changed lines only"
	}
	return s
}

// withinBudget checks --max-calls and --max-cost against the plan before any call. Over the
// budget, it prints the plan's figures on log and returns false (the command exits 2). With
// --verbose it prints the figures when within the budget too.
func (a *app) withinBudget(f *lintFlags, run *setup.Lint, proj *config.Project, plan *lint.Plan, log io.Writer) bool {
	b := f.cost.budget
	if b.MaxCalls == nil && b.MaxCost == nil {
		return true
	}
	est := run.Estimate(plan, proj)
	if b.MaxCost != nil && !est.Priced {
		fmt.Fprintf(a.stderr, "vectorlint: --max-cost: %v\n", selection.ErrNoPrices)
		return false
	}
	figures := fmt.Sprintf("vectorlint: the plan: %s, %s", pluralize(len(plan.Files), "file"), est.Cost.Describe()) + est.Prices()
	err := b.Check(est.Cost)
	if err == nil {
		if f.verbose {
			fmt.Fprintf(log, "%s; within the budget\n", figures)
		}
		return true
	}
	fmt.Fprintf(log, "vectorlint: %v (%s); no LLM call made\n%s\n", err, budgetFlags(b), figures)
	return false
}

// budgetFlags names the limits given: "--max-calls 100, --max-cost 0.5".
func budgetFlags(b selection.Budget) string {
	var parts []string
	if b.MaxCalls != nil {
		parts = append(parts, "--max-calls "+strconv.Itoa(*b.MaxCalls))
	}
	if b.MaxCost != nil {
		parts = append(parts, "--max-cost "+strconv.FormatFloat(*b.MaxCost, 'f', -1, 64))
	}
	return strings.Join(parts, ", ")
}
