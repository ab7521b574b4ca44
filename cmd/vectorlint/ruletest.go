package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/ruletest"
	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/rules"
)

const testUsage = `Usage: vectorlint test [flags] [PATH...]

Runs the examples of rules as tests (docs/rules.md, "Testing a rule"): each example goes
through the same prompts, masking and locating as a lint run, --repeat times, each repeat a
distinct sample (cached: an unchanged suite runs again at no cost). For each rule and model it
counts true positives (a marked {==span==} a finding overlaps), false positives (a finding
overlapping no marked span, or a quote that could not be located) and false negatives (a
marked span no finding overlaps), and shows precision, recall, the flaky examples and those
that passed every repeat. PATH is a rule file or a pack folder; without PATH every rule the
configuration loads is tested. Examples that need no model (deterministic should points) are
checked once, with no call.

Exit 0 when every gate passes, 1 when a rule is below a gate (each is named), 2 when the run
could not do its work (bad flags or rules, no model configured, a call that failed).

Flags:
`

// testOptions are the options of the "test" command.
type testOptions struct {
	config       string
	output       string
	repeat       int
	models       []string
	provider     string
	baseURL      string
	noCache      bool
	cacheDir     string
	concurrency  int
	gates        ruletest.Gates
	minPrecision float64
	minRecall    float64
	minPassRate  float64
	paths        []string
	fs           *pflag.FlagSet
	help         string
}

// maxRepeat bounds --repeat: each repeat is a model call per example.
const maxRepeat = 100

// testCommand is the "test" command.
func (a *app) testCommand(ctx context.Context, args []string) error {
	o, err := parseTest(args)
	if err != nil {
		return a.usageError("vectorlint test", err)
	}
	return a.runTest(ctx, o)
}

// parseTest fills the options of "test" from args and checks them.
func parseTest(args []string) (*testOptions, error) {
	o := &testOptions{}
	fs := pflag.NewFlagSet("vectorlint test", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	fs.StringVar(&o.config, "config", "", "configuration file (default: discovered as for linting)")
	fs.StringVar(&o.output, "output", ruletest.FormatLine, "output format: "+strings.Join(ruletest.Formats(), ", "))
	fs.IntVar(&o.repeat, "repeat", 3, fmt.Sprintf("run each example `N` times, as distinct samples (1 to %d)", maxRepeat))
	fs.StringArrayVar(&o.models, "model", nil, "model to test on the configured provider; repeat for a side-by-side table (default: the configured model)")
	fs.StringVar(&o.provider, "provider", "", "LLM provider: "+providerNames()+" (default: $LLM_PROVIDER)")
	fs.StringVar(&o.baseURL, "base-url", "", "OpenAI-compatible endpoint (overrides BaseURL)")
	fs.Float64Var(&o.minPrecision, "min-precision", 0, "exit 1 when a rule's precision is below `P` (0 to 1)")
	fs.Float64Var(&o.minRecall, "min-recall", 0, "exit 1 when a rule's recall is below `R` (0 to 1)")
	fs.Float64Var(&o.minPassRate, "min-pass-rate", 0, "exit 1 when the share of a rule's examples that passed every repeat is below `F` (0 to 1)")
	fs.BoolVar(&o.noCache, "no-cache", false, "do not read or write the reply cache")
	fs.StringVar(&o.cacheDir, "cache-dir", "", "reply cache folder (default: the user cache folder/vectorlint)")
	fs.IntVar(&o.concurrency, "concurrency", 0, "LLM requests in flight at once (default: Concurrency from the config, else 8)")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = testUsage + fs.FlagUsages()
			return o, nil
		}
		return nil, err
	}
	o.fs = fs
	l := strings.ToLower(o.output)
	if !slices.Contains(ruletest.Formats(), l) {
		return nil, fmt.Errorf("--output: expected one of %s, found %q", strings.Join(ruletest.Formats(), ", "), o.output)
	}
	o.output = l
	if o.repeat < 1 || o.repeat > maxRepeat {
		return nil, fmt.Errorf("--repeat: expected 1 to %d, found %d", maxRepeat, o.repeat)
	}
	for _, g := range []struct {
		name string
		v    *float64
		gate **float64
	}{{"min-precision", &o.minPrecision, &o.gates.MinPrecision}, {"min-recall", &o.minRecall, &o.gates.MinRecall},
		{"min-pass-rate", &o.minPassRate, &o.gates.MinPassRate}} {
		if !fs.Changed(g.name) {
			continue
		}
		if !(*g.v >= 0 && *g.v <= 1) {
			return nil, fmt.Errorf("--%s: expected a number from 0 to 1, found %v", g.name, *g.v)
		}
		*g.gate = g.v
	}
	for i, m := range o.models {
		if strings.TrimSpace(m) == "" {
			return nil, fmt.Errorf("--model: expected a model name, found an empty one (--model number %d)", i+1)
		}
		if slices.Contains(o.models[:i], m) {
			return nil, fmt.Errorf("--model: %q given twice", m)
		}
	}
	if fs.Changed("concurrency") && (o.concurrency < 1 || o.concurrency > setup.MaxConcurrency) {
		return nil, fmt.Errorf("--concurrency: expected %s, found %d", setup.ConcurrencyRange, o.concurrency)
	}
	if o.provider != "" && !setup.KnownProvider(o.provider) {
		return nil, fmt.Errorf("--provider: expected one of %s, found %q", providerNames(), o.provider)
	}
	o.paths = operands(fs)
	return o, nil
}

// runTest runs the rule examples of the project as test's options ask.
func (a *app) runTest(ctx context.Context, o *testOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	const name = "vectorlint test"
	proj, err := a.loadProject(o.config)
	if err != nil {
		a.printProblemsOrError(err)
		return errFailed
	}
	defer proj.Close()
	selected, err := a.testedRules(proj, o.paths)
	if err != nil {
		return &commandError{prefix: name, err: err}
	}
	models := o.models
	if len(models) == 0 {
		models = []string{""} // the configured model
	}
	h := a.host()
	var all []ruletest.RuleResult
	var failures []string
	for _, m := range models {
		env, eps, err := h.LintEnv(proj, h.ProjectEnvDir(proj), setup.Settings{Provider: o.provider, Model: m, BaseURL: o.baseURL})
		if err != nil {
			return &commandError{prefix: name, err: err}
		}
		lo := setup.LintOptions{CacheDir: o.cacheDir, NoCache: o.noCache, Log: &syncWriter{w: a.stderr}}
		if o.fs.Changed("concurrency") {
			lo.Concurrency = o.concurrency
		}
		run, err := h.Lint(env, eps, proj, lo)
		if err != nil {
			return &commandError{prefix: name, err: err}
		}
		label := m
		if run.NotConfigured == nil {
			label = run.Endpoint.Model
		}
		res, err := ruletest.Run(ctx, selected, ruletest.Options{
			Config: proj.Config, Eval: run.EvalOptions(proj), Model: label, Repeats: o.repeat,
			SearchModel: run.SearchModel, SharedPrompt: proj.Directive + proj.StyleGuide,
		})
		run.Close()
		if err != nil {
			return &commandError{prefix: name, err: err}
		}
		all = append(all, res.Rules...)
		failures = append(failures, res.Failures...)
		if len(res.Failures) > 0 {
			break // the next model would not be compared with a complete run
		}
	}
	// Side by side: each rule's rows for every model together, in the order the models were given.
	order := map[string]int{}
	for i, r := range selected {
		order[r.FullID()] = i
	}
	slices.SortStableFunc(all, func(x, y ruletest.RuleResult) int { return order[x.Rule] - order[y.Rule] })
	below := o.gates.Check(all)
	if err := ruletest.Write(a.stdout, o.output, all, ruletest.Summarize(all, o.repeat, below)); err != nil {
		return &commandError{prefix: name, err: err}
	}
	for _, f := range failures {
		fmt.Fprintf(a.stderr, "%s: %s\n", name, f)
	}
	if len(failures) > 0 {
		return errFailed
	}
	for _, b := range below {
		fmt.Fprintf(a.stderr, "%s: %s\n", name, b)
	}
	if len(below) > 0 {
		return errFindings
	}
	return nil
}

// testedRules are the rules with examples that paths name (rule files or pack folders), among
// those the configuration loads; without paths, the rules of the packs a section runs
// (RunRules; every loaded pack without a configuration file). A path that names no loaded rule
// is an error, as is a selection without any example.
func (a *app) testedRules(proj *config.Project, paths []string) ([]*rules.Rule, error) {
	run := map[string]bool{}
	if proj.Config != nil {
		for _, s := range proj.Config.Sections {
			for _, p := range s.RunRules {
				run[p] = true
			}
		}
	}
	var loaded, selected []*rules.Rule
	for _, p := range proj.Packs {
		loaded = append(loaded, p.Rules...)
		if proj.ZeroConfig || run[p.Name] {
			selected = append(selected, p.Rules...)
		}
	}
	if len(paths) > 0 {
		selected = nil
		for _, p := range paths {
			abs := a.abs(p)
			n := 0
			for _, r := range loaded {
				if r.Path == "" || (r.Path != abs && !strings.HasPrefix(r.Path, abs+string(filepath.Separator))) {
					continue
				}
				n++
				if !slices.Contains(selected, r) {
					selected = append(selected, r)
				}
			}
			if n == 0 {
				return nil, fmt.Errorf("%s: no rule the configuration loads is there (expected a rule file or a pack folder of RulesPath)", p)
			}
		}
	}
	var out []*rules.Rule
	for _, r := range selected {
		if len(r.Examples) > 0 {
			out = append(out, r)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no rule to test: none of the selected rules has examples (docs/rules.md, \"Examples\")")
	}
	return out, nil
}
