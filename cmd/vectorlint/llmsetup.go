package main

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/internal/runwide"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
)

// llmEnv loads the environment model settings are read from (spec/trust.md §5): the process
// environment, then .env.local and .env in dir — the folder of the config file that was found,
// or the working directory when no config file is used — then the [env] table of the user
// config, ~/.vectorlint/config.toml. Each value keeps its source for the trust rule. The .env
// files are read through root, the project root (nil, or a root dir is not in: a root opened
// at dir).
func (a *app) llmEnv(root *tree.Root, dir string) (*envsource.Env, error) {
	if root != nil && !root.Contains(dir) {
		root = nil
	}
	env, err := envsource.Load(envsource.Options{Process: a.lookupEnv, UserConfig: envsource.UserConfigPath(a.homeDir()), Dir: dir, Root: root})
	if err != nil {
		return nil, a.relErr(err)
	}
	return env, nil
}

// projectEnvDir is the folder of a project's .env files: its config file's, or the working
// directory when there is no config file (zero-config, or validate --rules).
func (a *app) projectEnvDir(proj *config.Project) string {
	if proj == nil || proj.Config == nil || proj.ZeroConfig {
		return a.dir
	}
	return proj.Config.Dir
}

// homeDir is the user's home folder from the process environment ("" when unset): the user
// config lives there.
func (a *app) homeDir() string {
	if runtime.GOOS == "windows" {
		if h := a.getenv("USERPROFILE"); h != "" {
			return h
		}
	}
	return a.getenv("HOME")
}

// trust is the trust rule of the run: which hosts, besides the providers' own endpoints, base
// URLs the user gave and loopback addresses, may receive a key the user holds. Its list comes
// from VECTORLINT_TRUSTED_HOSTS in the process environment only.
func (a *app) trust() (*trust.Rule, error) {
	return trust.ParseHosts(a.getenv(trust.HostsVar))
}

// relErr shows the files an environment or trust error names relative to the working
// directory, as every other message does.
func (a *app) relErr(err error) error {
	var de *envsource.DotEnvError
	if errors.As(err, &de) {
		c := *de
		c.File = a.rel(c.File)
		return &c
	}
	var ue *trust.UntrustedHostError
	if errors.As(err, &ue) {
		c := *ue
		c.Key.File, c.BaseURL.File = a.rel(c.Key.File), a.rel(c.BaseURL.File)
		return &c
	}
	return err
}

// llmEndpoints are the linter's endpoints, resolved and checked against the trust rule before
// any call.
type llmEndpoints struct {
	// endpoint is the linter's model; notConfigured (a *llm.NotConfiguredError) is set instead
	// when no provider is configured, and the run makes no linter calls.
	endpoint      llm.Endpoint
	notConfigured error
	// search is the search model of technical-accuracy rules (nil when not configured).
	search *llm.Endpoint
}

// resolveEndpoints resolves the linter's endpoint from env, the config file's settings and the
// flags, and (withSearch) the search model's, and checks each against the trust rule. A
// setting with a bad value or a refused endpoint is an error; a provider that is not
// configured is not (see llmEndpoints.notConfigured), since deterministic work still runs.
func (a *app) resolveEndpoints(env *envsource.Env, config, flags llm.Settings, withSearch bool) (llmEndpoints, error) {
	var eps llmEndpoints
	rule, err := a.trust()
	if err != nil {
		return eps, err
	}
	ep, err := llm.Resolve(env, config, flags)
	switch {
	case errors.Is(err, runwide.ErrNotConfigured):
		eps.notConfigured = err
	case err != nil:
		return eps, err
	default:
		if err := rule.Check(ep.BaseURL, ep.KeySource, ep.BaseURLSource); err != nil {
			return eps, a.relErr(err)
		}
		eps.endpoint = ep
	}
	if !withSearch {
		return eps, nil
	}
	search, err := llm.ResolveSearch(env)
	switch {
	case errors.Is(err, runwide.ErrNotConfigured):
	case err != nil:
		return eps, err
	default:
		if err := rule.Check(search.BaseURL, search.KeySource, search.BaseURLSource); err != nil {
			return eps, a.relErr(err)
		}
		eps.search = &search
	}
	return eps, nil
}

// configSettings are the LLM settings of a config file, with where BaseURL was written.
func configSettings(cfg *config.Config) llm.Settings {
	if cfg == nil {
		return llm.Settings{}
	}
	s := llm.Settings{Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, Temperature: cfg.Temperature}
	if cfg.BaseURL != "" {
		s.BaseURLFrom = envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL", File: cfg.Path, Line: cfg.BaseURLLine}
	}
	return s
}

// llmOptions are the choices, from the command line and the configuration, that shape the
// model client. Commands fill what they have; zero values take the defaults.
type llmOptions struct {
	// concurrency is the number of requests in flight (0: llm.DefaultConcurrency).
	concurrency int
	// timeout bounds one attempt of a call (0: retry.DefaultTimeout); a call with its retries is
	// bounded by retry.CallTimeoutFactor × that.
	timeout time.Duration
	// configFile tells whether the command reads vectorlint.ini, so that messages name its keys
	// among the settings that fix a failure.
	configFile bool
	// cacheDir is --cache-dir ("" for the user cache folder); noCache is --no-cache.
	cacheDir string
	noCache  bool
	// cacheCap is the cache's size cap (resolveCacheCap).
	cacheCap cacheCap
	// verbose logs every request, response, retry and cache problem to log; showPrompt prints
	// the messages of every call to log.
	verbose    bool
	showPrompt bool
	// promptLimit, when positive, cuts each message --show-prompt prints to that many
	// characters (--show-prompt-trunc).
	promptLimit int
	// log receives those lines, and the stall reports (when standard error is not a
	// terminal); it must be safe for concurrent use (a syncWriter or a progress bar).
	log io.Writer
}

// llmSetup is the model client of a run and the endpoints it calls.
type llmSetup struct {
	llmEndpoints
	client *llm.Client
	// cacheDir is the cache in use ("" when there is none).
	cacheDir string
	// prices are INPUT_/OUTPUT_PRICE_PER_MILLION (nil when not set).
	prices *llm.Prices
}

// setupLLM builds the client for endpoints already resolved and checked (resolveEndpoints). It is
// the one place a run's model settings are checked: a dry run calls it too, so that it fails
// exactly as the real run would.
func (a *app) setupLLM(env *envsource.Env, eps llmEndpoints, o llmOptions) (*llmSetup, error) {
	s := &llmSetup{llmEndpoints: eps}
	if s.notConfigured == nil {
		s.endpoint.SettingNames = llm.LinterSettingNames(s.endpoint.Provider, o.configFile)
	}
	client, cacheDir, err := a.newLLMClient(env.Lookup, o)
	if err != nil {
		return nil, err
	}
	s.client, s.cacheDir = client, cacheDir
	if s.prices, err = llm.ResolvePrices(env.Lookup); err != nil { // checked by newLLMClient already
		return nil, err
	}
	if cacheDir == "" && !o.noCache && o.verbose && s.notConfigured == nil {
		fmt.Fprintln(o.log, "vectorlint: no user cache folder (HOME and XDG_CACHE_HOME are unset): replies are not cached; use --cache-dir")
	}
	return s, nil
}

// newLLMClient builds the model client of a command — the one place every command (lint,
// evaluate, blueprint run) gets its client from, so they share one behaviour: the reply cache
// (--cache-dir relative to the working directory, else the user cache folder from the process
// environment; none with --no-cache), prices (INPUT_/OUTPUT_PRICE_PER_MILLION), the proxy from
// the process environment (http.ProxyFromEnvironment reads the process's own variables, never a
// .env file's; never used for a loopback host), redirects only within one origin and no Referer
// (docs/security.md), the trust rule (every call is checked, VECTORLINT_TRUSTED_HOSTS), the
// concurrency limit, the timeout, the --verbose/--show-prompt event log and, when standard error
// is not a terminal, the stall reports. It returns the client and the cache folder in use (""
// when there is none).
func (a *app) newLLMClient(env envsource.LookupFunc, o llmOptions) (*llm.Client, string, error) {
	prices, err := llm.ResolvePrices(env)
	if err != nil {
		return nil, "", err
	}
	rule, err := a.trust()
	if err != nil {
		return nil, "", err
	}
	cacheDir := ""
	if !o.noCache {
		cacheDir = o.cacheDir
		if cacheDir == "" {
			// From the process environment only: a repository's .env must not choose where the
			// tool writes (spec/trust.md §2), so XDG_CACHE_HOME or HOME set there are ignored.
			cacheDir = userCacheDir(a.getenv, runtime.GOOS)
		} else if !filepath.IsAbs(cacheDir) {
			cacheDir = filepath.Join(a.dir, cacheDir)
		}
	}
	cfg := llm.Config{
		Concurrency:  o.concurrency,
		Timeout:      o.timeout,
		CacheDir:     cacheDir,
		NoCache:      o.noCache,
		CacheMaxSize: o.cacheCap.limit,
		Prices:       prices,
		Proxy:        a.proxyFunc(),
		UserAgent:    "vectorlint/" + versionString(),
		Trust:        rule,
	}
	if a.dialContext != nil {
		cfg.HTTPClient = safehttp.NewClient(safehttp.NewTransport(cfg.Proxy, a.dialContext))
	}
	if o.verbose || o.showPrompt {
		cfg.OnEvent = eventPrinter(o.log, o.verbose, o.showPrompt, o.promptLimit)
	}
	if !a.stderrIsTerminal && o.log != nil {
		// In a CI log nothing else shows that a run waiting on a hung server is alive.
		log := o.log
		cfg.OnStall = func(s llm.Stall) { fmt.Fprintf(log, "vectorlint: %s\n", s) }
	}
	if a.tuneLLM != nil {
		a.tuneLLM(&cfg)
	}
	client, err := llm.New(cfg)
	if err != nil {
		return nil, "", err
	}
	return client, cacheDir, nil
}

// userCacheDir is os.UserCacheDir()/vectorlint computed from the given environment, so tests
// stay hermetic: $XDG_CACHE_HOME or $HOME/.cache on Unix, $HOME/Library/Caches on macOS,
// %LocalAppData% on Windows. "" when the variables are unset.
func userCacheDir(getenv func(string) string, goos string) string {
	var base string
	switch goos {
	case "windows":
		base = getenv("LocalAppData")
	case "darwin", "ios":
		if h := getenv("HOME"); h != "" {
			base = filepath.Join(h, "Library", "Caches")
		}
	case "plan9":
		if h := getenv("home"); h != "" {
			base = filepath.Join(h, "lib", "cache")
		}
	default:
		base = getenv("XDG_CACHE_HOME")
		if !filepath.IsAbs(base) {
			base = ""
			if h := getenv("HOME"); h != "" {
				base = filepath.Join(h, ".cache")
			}
		}
	}
	if base == "" {
		return ""
	}
	return filepath.Join(base, "vectorlint")
}

// eventPrinter returns the llm.Config.OnEvent that logs events (--verbose) and prints the
// messages of each call (--show-prompt): once per message list actually sent (first attempts;
// a format fallback or a retry after a rejected reply sends a new list) and for replies served
// from the cache. Messages are already free of keys (the llm package redacts them). A positive
// limit cuts each message to that many characters (--show-prompt-trunc), marked as the
// original VectorLint marks it.
func eventPrinter(w io.Writer, verbose, showPrompt bool, limit int) func(llm.Event) {
	return func(e llm.Event) {
		var b strings.Builder
		if verbose {
			b.WriteString("vectorlint: ")
			b.WriteString(e.String())
			b.WriteByte('\n')
		}
		if showPrompt && ((e.Kind == llm.EventRequest && e.Attempt == 1) || e.Kind == llm.EventCacheHit) {
			how := "sent, response format " + string(e.Format)
			if e.Kind == llm.EventCacheHit {
				how = "answered from the cache"
			}
			fmt.Fprintf(&b, "── prompt: %s (%s at %s, %s)\n", e.Label, e.Model, e.Host, how)
			for _, m := range e.Messages {
				fmt.Fprintf(&b, "── %s\n%s\n", m.Role, cutPrompt(strings.TrimRight(m.Content, "\n"), limit))
			}
			b.WriteString("── end of prompt\n")
		}
		if b.Len() > 0 {
			io.WriteString(w, b.String())
		}
	}
}

// confidenceThreshold is CONFIDENCE_THRESHOLD when set, else the configuration's value.
func confidenceThreshold(env envsource.LookupFunc, cfg *config.Config) (float64, error) {
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

// timeoutFlag returns the value of a --timeout flag, checked (0 when not given).
func timeoutFlag(value string, given bool) (time.Duration, error) {
	if !given {
		return 0, nil
	}
	d, err := retry.ParseTimeout(value)
	if err != nil {
		return 0, fmt.Errorf("--timeout: %w", err)
	}
	return d, nil
}

// timeoutUsage is the help of every command's --timeout flag.
const timeoutUsage = "time limit of one model request, a `DURATION` such as 30s or 2m (a bare number is seconds); with all its retries a request gets 3 × that (default 60s)"

// printRunErrors writes each run-wide failure once, with the rule runs (or other units) it kept
// from completing.
func printRunErrors(w io.Writer, prefix string, errs []finding.RunError) {
	for _, e := range errs {
		fmt.Fprintf(w, "%s: %s (%s not done)\n", prefix, e.Message, pluralize(e.NotRun, "rule run"))
	}
}

// syncWriter serialises writes from concurrent goroutines.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// promptPreviewChars is how much of each message --show-prompt-trunc prints, as in the original
// VectorLint (its first 500 characters of the prompt and of the content).
const promptPreviewChars = 500

// promptLimit is the eventPrinter limit for --show-prompt-trunc (0: whole messages).
func promptLimit(trunc bool) int {
	if trunc {
		return promptPreviewChars
	}
	return 0
}

// cutPrompt keeps the first limit characters (code points) of s, followed by the original's
// "... [truncated]" line when anything was cut; s whole when limit is not positive.
func cutPrompt(s string, limit int) string {
	if limit <= 0 || utf8.RuneCountInString(s) <= limit {
		return s
	}
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + "\n... [truncated]"
		}
		n++
	}
	return s
}
