package setup

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/selection"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// LintOptions are a lint run's choices from the command line; zero values take the config
// file's settings, then the defaults (the editor server passes none).
type LintOptions struct {
	// Settings are --provider, --model and --base-url.
	Settings Settings
	// Concurrency is --concurrency (0: the config file's); Timeout is --timeout (0: the config
	// file's).
	Concurrency int
	Timeout     time.Duration
	// CacheDir and NoCache as in ClientOptions; CacheMaxSize is --cache-max-size when
	// CacheMaxSizeSet (else the cap comes from the environment or the config file).
	CacheDir        string
	NoCache         bool
	CacheMaxSize    string
	CacheMaxSizeSet bool
	// CacheOnly makes no live call (vectorlint batch collect --no-live).
	CacheOnly bool
	// Verbose, ShowPrompt and PromptLimit as in ClientOptions.
	Verbose     bool
	ShowPrompt  bool
	PromptLimit int
	// MinSeverity is --min-alert-level.
	MinSeverity finding.Severity
	// Log receives the client's event log and stall reports.
	Log io.Writer
}

// Lint is what a lint run needs beyond its plan, with every setting checked.
type Lint struct {
	*Model
	// SearchModel tells whether technical-accuracy rules have a search model.
	SearchModel bool
	threshold   float64
	concurrency int
	minSeverity finding.Severity
	jsTimeout   time.Duration
}

// LintEnv loads a lint run's environment and resolves its endpoints (Host.Env, then
// Host.Endpoints with the search model): envDir is the folder of the project's .env files
// (Host.ProjectEnvDir). Endpoints are checked against the trust rule before anything else, so a
// refused base URL stops a real run and a dry run alike, before any call.
func (h *Host) LintEnv(proj *config.Project, envDir string, flags Settings) (*envsource.Env, Endpoints, error) {
	env, err := h.Env(proj.Root, envDir)
	if err != nil {
		return nil, Endpoints{}, err
	}
	eps, err := h.Endpoints(env, proj.Config, flags, true)
	if err != nil {
		return nil, Endpoints{}, err
	}
	return env, eps, nil
}

// SearchModelConfigured tells whether technical-accuracy rules can run: a search model is
// resolved and its settings are in env.
func SearchModelConfigured(env *envsource.Env, eps Endpoints) bool {
	return eps.Search != nil && rules.SearchModelConfigured(env.Lookup)
}

// Lint checks every setting of a lint run on proj and builds its model client: the one path a
// real run, a dry run and the editor server take, so that they fail alike (the same message).
func (h *Host) Lint(env *envsource.Env, eps Endpoints, proj *config.Project, o LintOptions) (*Lint, error) {
	cfg := proj.Config
	limit, err := ResolveCacheCap(env.Lookup, o.CacheMaxSize, o.CacheMaxSizeSet, cfg)
	if err != nil {
		return nil, err
	}
	concurrency := cfg.Concurrency
	if o.Concurrency > 0 {
		concurrency = o.Concurrency
	}
	timeout := cfg.Timeout
	if o.Timeout > 0 {
		timeout = o.Timeout
	}
	m, err := h.Model(env, eps, ClientOptions{
		CacheMaxSize: limit.Limit,
		Concurrency:  concurrency,
		Timeout:      timeout,
		ConfigFile:   cfg.Path != "",
		CacheDir:     o.CacheDir,
		NoCache:      o.NoCache,
		CacheOnly:    o.CacheOnly,
		Verbose:      o.Verbose,
		ShowPrompt:   o.ShowPrompt,
		PromptLimit:  o.PromptLimit,
		Log:          o.Log,
	})
	if err != nil {
		return nil, err
	}
	threshold, err := ConfidenceThreshold(env.Lookup, cfg)
	if err != nil {
		m.Close()
		return nil, err
	}
	return &Lint{Model: m, SearchModel: SearchModelConfigured(env, eps), threshold: threshold, concurrency: concurrency, minSeverity: o.MinSeverity,
		jsTimeout: h.JSTimeout}, nil
}

// EvalOptions are the evaluation settings of a lint run on proj: the model and its judge (or
// why there is none), the threshold, the style guide, the concurrency. The editor server's
// model runs get the same.
func (l *Lint) EvalOptions(proj *config.Project) lint.EvalOptions {
	opts := lint.EvalOptions{
		Endpoint:            l.Endpoint,
		Search:              l.Search,
		ConfidenceThreshold: l.threshold,
		StyleGuide:          proj.StyleGuide,
		Directive:           proj.Directive,
		Concurrency:         l.concurrency,
		MinSeverity:         l.minSeverity,
		JSTimeout:           l.jsTimeout,
	}
	if proj.Config != nil {
		opts.Models = proj.Config.Models // the models samples go to in turn
	}
	if l.NotConfigured == nil {
		opts.Client = l.Client
		opts.Judge = lint.ModelJudge{Client: l.Client, Endpoint: l.Endpoint}
	} else {
		opts.NotConfigured = l.NotConfigured
	}
	return opts
}

// Budget is the plan's cost estimate against the run's prices (the endpoint's own, else
// INPUT_/OUTPUT_PRICE_PER_MILLION). Over is lint.ErrNoPrices when maxCost is asked without prices.
type Budget struct {
	// Cost is the estimate.
	Cost selection.PlanCost
	// Priced tells whether prices are known; InputPerMillion and OutputPerMillion are them.
	Priced                            bool
	InputPerMillion, OutputPerMillion float64
}

// Estimate is the plan's cost estimate with the run's prices (lint.EstimateCost).
func (l *Lint) Estimate(plan *lint.Plan, proj *config.Project) Budget {
	prices := l.runPrices()
	// The run's own options: the cache is asked for exactly the requests the run would send.
	b := Budget{Cost: lint.EstimateCost(plan, l.EvalOptions(proj), prices)}
	if prices != nil {
		b.Priced, b.InputPerMillion, b.OutputPerMillion = true, prices.InputPerMillion, prices.OutputPerMillion
	}
	return b
}

// Prices describes the prices of an estimate: " at INPUT_PRICE_PER_MILLION=… and
// OUTPUT_PRICE_PER_MILLION=…" ("" when none are known).
func (b Budget) Prices() string {
	if !b.Priced {
		return ""
	}
	return fmt.Sprintf(" at INPUT_PRICE_PER_MILLION=%s and OUTPUT_PRICE_PER_MILLION=%s",
		strconv.FormatFloat(b.InputPerMillion, 'f', -1, 64), strconv.FormatFloat(b.OutputPerMillion, 'f', -1, 64))
}

// ConfidenceThreshold is CONFIDENCE_THRESHOLD when set, else the configuration's value.
func ConfidenceThreshold(env envsource.LookupFunc, cfg *config.Config) (float64, error) {
	if v, ok := env("CONFIDENCE_THRESHOLD"); ok && strings.TrimSpace(v) != "" {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || !(f >= 0 && f <= 1) { // also refuses NaN
			return 0, fmt.Errorf("CONFIDENCE_THRESHOLD: expected a number from 0 to 1, found %q", v)
		}
		return f, nil
	}
	if cfg != nil && cfg.ConfidenceThresholdSet {
		return cfg.ConfidenceThreshold, nil
	}
	return config.DefaultConfidenceThreshold, nil
}

// runPrices are the prices a run's estimates use: the endpoint's own, else
// INPUT_/OUTPUT_PRICE_PER_MILLION (nil when neither is known).
func (l *Lint) runPrices() *llm.Prices {
	if l.Endpoint.Prices != nil {
		return l.Endpoint.Prices
	}
	return l.Prices
}
