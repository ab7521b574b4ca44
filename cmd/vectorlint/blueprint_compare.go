package main

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/blueprint/compare"
)

// failUnderFlag reads --fail-under SCORE (nil when not given).
func failUnderFlag(v string, given bool) (*float64, error) {
	if !given {
		return nil, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return nil, fmt.Errorf("--fail-under: expected a score from 0 to 1 such as 0.8, found %q", v)
	}
	return &f, nil
}

// passesFailUnder reports whether every model's average is at least score, naming on standard
// error each model that is below it (or has no average).
func (a *app) passesFailUnder(res *blueprint.Result, score float64) bool {
	ok := true
	for _, m := range res.EffectiveModels {
		// The gate reads the average as the table shows it (2 decimals), so a model shown at
		// 0.70 passes --fail-under 0.7.
		avg := res.EvaluationResults.PerModelScores[m].Rounded()
		switch {
		case avg == nil:
			fmt.Fprintf(a.stderr, "vectorlint blueprint run: --fail-under %s: %s has no average score (no prompt was scored)\n", formatGate(score), m)
			ok = false
		case *avg < score:
			fmt.Fprintf(a.stderr, "vectorlint blueprint run: --fail-under %s: %s averages %s\n", formatGate(score), m, strconv.FormatFloat(*avg, 'f', 2, 64))
			ok = false
		}
	}
	return ok
}

func formatGate(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// blueprintCompare is "blueprint compare BASE.json NEW.json": each prompt × model's score in
// two runs and each model's paired change, exit 1 when a score fell by more than --tolerance
// or, with --fail-if-worse, only when a model's mean did with a p-value below --alpha.
func (a *app) blueprintCompare(args []string) error {
	o, err := a.parseBlueprintCompare(args)
	if o == nil || err != nil { // --help, or a mistake
		return err
	}
	return a.runBlueprintCompare(o)
}

// blueprintCompareOptions are the options of "blueprint compare", filled from its flags.
type blueprintCompareOptions struct {
	tolerance, alpha float64
	output           string
	failIfWorse      bool
	files            []string // BASE.json and NEW.json
}

// blueprintCompareFail is an error of "blueprint compare".
func blueprintCompareFail(format string, args ...any) error {
	return failf("vectorlint blueprint compare", format, args...)
}

// parseBlueprintCompare fills the options of "blueprint compare" from args and checks them;
// nil options and a nil error for --help.
func (a *app) parseBlueprintCompare(args []string) (*blueprintCompareOptions, error) {
	o := &blueprintCompareOptions{}
	fs := blueprintFlagSet("vectorlint blueprint compare", a.stderr)
	fs.Float64Var(&o.tolerance, "tolerance", compare.DefaultTolerance, "how far a score (or, with --fail-if-worse, a model's mean) may fall before it counts")
	fs.StringVar(&o.output, "output", "line", "output: "+strings.Join(compare.Formats(), ", "))
	fs.BoolVar(&o.failIfWorse, "fail-if-worse", false, "exit 1 only for a model whose mean score fell by more than --tolerance with a p-value below --alpha")
	fs.Float64Var(&o.alpha, "alpha", compare.DefaultAlpha, "the significance level of --fail-if-worse, above 0 and at most 1")
	fs.Usage = func() {
		fmt.Fprintln(a.stderr, "Usage: vectorlint blueprint compare BASE.json NEW.json [--tolerance 0.05] [--fail-if-worse [--alpha 0.05]] [--output line|json|github|html]")
		fs.PrintDefaults()
	}
	fail := blueprintCompareFail
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return nil, nil
		}
		return nil, fail("%v (see --help)", err)
	}
	if fs.NArg() != 2 {
		return nil, fail("expected two result documents, BASE.json and NEW.json, found %d arguments", fs.NArg())
	}
	if !slices.Contains(compare.Formats(), o.output) {
		return nil, fail("--output: expected one of %s, found %q", strings.Join(compare.Formats(), ", "), o.output)
	}
	if o.tolerance < 0 || math.IsNaN(o.tolerance) || math.IsInf(o.tolerance, 0) {
		return nil, fail("--tolerance: expected a number of 0 or more such as 0.05, found %v", o.tolerance)
	}
	if !(o.alpha > 0 && o.alpha <= 1) {
		return nil, fail("--alpha: expected a significance level above 0 and at most 1 such as 0.05, found %v", o.alpha)
	}
	o.files = fs.Args()
	return o, nil
}

// runBlueprintCompare compares the two result documents compare's options name.
func (a *app) runBlueprintCompare(o *blueprintCompareOptions) error {
	fail := blueprintCompareFail
	root, err := a.openRoot()
	if err != nil {
		return fail("%v", err)
	}
	defer root.Close()
	var sheets []*compare.ScoreSheet
	for _, name := range o.files {
		data, err := a.readNamed(root, name, blueprint.MaxFileSize)
		if err != nil {
			return fail("cannot read %s: %v", name, blueprintPathErr(err))
		}
		s, err := compare.ReadScoreSheet(data, name)
		if err != nil {
			return fail("%v", err)
		}
		sheets = append(sheets, s)
	}
	c, err := compare.Runs(sheets[0], sheets[1], compare.Settings{Tolerance: o.tolerance, Alpha: o.alpha, FailIfWorse: o.failIfWorse})
	if err != nil {
		return fail("%v", err)
	}
	opts := compare.WriteOptions{GitHubActions: a.githubActions}
	stdout := a.stdout
	var summary *bufio.Writer
	if o.output == compare.FormatGitHub {
		stdout = a.rawStdout // its annotations are workflow commands by design
		if path := a.getenv("GITHUB_STEP_SUMMARY"); path != "" {
			f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err != nil {
				return fail("opening the step summary: %v", err)
			}
			defer f.Close()
			summary = bufio.NewWriter(f)
			opts.StepSummary = summary
		}
	}
	if err := compare.Write(stdout, o.output, c, opts); err != nil {
		return fail("%v", err)
	}
	if summary != nil {
		if err := summary.Flush(); err != nil {
			return fail("writing the step summary: %v", err)
		}
	}
	if c.Failed() {
		return errFindings
	}
	return nil
}
