package setup

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/blueprint"
	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/progress"
	"github.com/vectorlint/vectorlint/internal/runwide"
	"github.com/vectorlint/vectorlint/internal/safehttp"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
)

// MaxConcurrency and ConcurrencyRange bound a --concurrency flag (the model client's limit).
const (
	MaxConcurrency   = llm.MaxConcurrency
	ConcurrencyRange = llm.ConcurrencyRange
)

// Settings are the model settings given on the command line (--provider, --model,
// --base-url); empty fields are not given.
type Settings struct {
	Provider, Model, BaseURL string
}

// ProviderNames lists the providers --provider accepts, comma-separated.
func ProviderNames() string {
	ps := llm.Providers()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// KnownProvider reports whether name is a provider --provider accepts.
func KnownProvider(name string) bool {
	return slices.Contains(llm.Providers(), llm.Provider(name))
}

// Judges are the judges --judge names: each a Weval model id "provider:model", written as the
// model client writes it (the provider lower-cased, spaces around the colon removed), judging
// holistically. A malformed id is an error naming it.
func Judges(ids []string) ([]blueprint.JudgeSpec, error) {
	var specs []blueprint.JudgeSpec
	for _, id := range ids {
		provider, model, err := llm.ParseModelID(id)
		if err != nil {
			return nil, err
		}
		specs = append(specs, blueprint.JudgeSpec{Model: provider + ":" + model, Approach: points.ApproachHolistic})
	}
	return specs, nil
}

// AllowEnv reads --allow-env values (points.ParseAllowEnv): the variables a blueprint's ${VAR}
// references may read.
func AllowEnv(values []string) (points.AllowEnv, error) { return points.ParseAllowEnv(values) }

// EstimateTokens is the model client's estimate of the tokens of a text.
func EstimateTokens(text string) int64 { return llm.EstimateTokens(text) }

// Endpoints are a run's endpoints, resolved and checked against the trust rule before any
// call.
type Endpoints struct {
	// Endpoint is the model; NotConfigured (a *llm.NotConfiguredError) is set instead when no
	// provider is configured, and the run makes no model calls.
	Endpoint      llm.Endpoint
	NotConfigured error
	// Search is the search model of technical-accuracy rules (nil when not configured).
	Search *llm.Endpoint
}

// ConfigSettings are the model settings of a config file, with where BaseURL was written.
func ConfigSettings(cfg *config.Config) llm.Settings {
	if cfg == nil {
		return llm.Settings{}
	}
	s := llm.Settings{Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, Temperature: cfg.Temperature}
	if cfg.BaseURL != "" {
		s.BaseURLFrom = envsource.Source{Origin: envsource.OriginConfigFile, Name: "BaseURL", File: cfg.Path, Line: cfg.BaseURLLine}
	}
	return s
}

// Endpoints resolves the model's endpoint from env, the config file (nil for none) and the
// flags, and (withSearch) the search model's, and checks each against the trust rule. A
// setting with a bad value or a refused endpoint is an error; a provider that is not
// configured is not (see Endpoints.NotConfigured), since deterministic work still runs.
func (h *Host) Endpoints(env *envsource.Env, cfg *config.Config, flags Settings, withSearch bool) (Endpoints, error) {
	var eps Endpoints
	rule, err := h.Trust()
	if err != nil {
		return eps, err
	}
	ep, err := llm.Resolve(env, ConfigSettings(cfg), llm.Settings{Provider: flags.Provider, Model: flags.Model, BaseURL: flags.BaseURL})
	switch {
	case errors.Is(err, runwide.ErrNotConfigured):
		eps.NotConfigured = err
	case err != nil:
		return eps, err
	default:
		if err := rule.Check(ep.BaseURL, ep.KeySource, ep.BaseURLSource); err != nil {
			return eps, h.RelErr(err)
		}
		eps.Endpoint = ep
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
			return eps, h.RelErr(err)
		}
		eps.Search = &search
	}
	return eps, nil
}

// ClientOptions are the choices, from the command line and the configuration, that shape the
// model client. Commands fill what they have; zero values take the defaults.
type ClientOptions struct {
	// Concurrency is the number of requests in flight (0: llm.DefaultConcurrency).
	Concurrency int
	// Timeout bounds one attempt of a call (0: the default); a call with its retries is bounded
	// by 3 × that.
	Timeout time.Duration
	// ConfigFile tells whether the command reads vectorlint.ini, so that messages name its keys
	// among the settings that fix a failure.
	ConfigFile bool
	// CacheDir is --cache-dir ("" for the user cache folder); NoCache is --no-cache.
	CacheDir string
	NoCache  bool
	// CacheMaxSize is the cache's size cap: 0 for the default, replycache.NoCap for none.
	CacheMaxSize int64
	// CacheOnly makes no live call: what the cache does not answer fails (llm.Config.CacheOnly).
	CacheOnly bool
	// Verbose logs every request, response, retry and cache problem to Log; ShowPrompt prints
	// the messages of every call to Log.
	Verbose    bool
	ShowPrompt bool
	// PromptLimit, when positive, cuts each message ShowPrompt prints to that many characters
	// (--show-prompt-trunc).
	PromptLimit int
	// Log receives those lines, and the stall reports (when standard error is not a terminal);
	// it must be safe for concurrent use.
	Log io.Writer
}

// Model is the model client of a run and the endpoints it calls.
type Model struct {
	Endpoints
	Client *llm.Client
	// CacheDir is the cache in use ("" when there is none).
	CacheDir string
	// Prices are INPUT_/OUTPUT_PRICE_PER_MILLION (nil when not set).
	Prices *llm.Prices
	// config is the configuration the client was built with (a provider batch builds its own
	// client from it: batch.go).
	config llm.Config
}

// Model builds the client for endpoints already resolved and checked (Host.Endpoints). It is
// the one place a run's model settings are checked: a dry run calls it too, so that it fails
// exactly as the real run would.
func (h *Host) Model(env *envsource.Env, eps Endpoints, o ClientOptions) (*Model, error) {
	m := &Model{Endpoints: eps}
	if m.NotConfigured == nil {
		m.Endpoint.SettingNames = llm.LinterSettingNames(m.Endpoint.Provider, o.ConfigFile)
	}
	cfg, cacheDir, err := h.clientConfig(env.Lookup, o)
	if err != nil {
		return nil, err
	}
	client, err := llm.New(cfg)
	if err != nil {
		return nil, err
	}
	m.Client, m.CacheDir, m.config = client, cacheDir, cfg
	if m.Prices, err = llm.ResolvePrices(env.Lookup); err != nil { // checked by Client already
		return nil, err
	}
	if cacheDir == "" && !o.NoCache && o.Verbose && m.NotConfigured == nil {
		fmt.Fprintln(o.Log, "vectorlint: no user cache folder (HOME and XDG_CACHE_HOME are unset): replies are not cached; use --cache-dir")
	}
	return m, nil
}

// Close releases the model client.
func (m *Model) Close() { m.Client.Close() }

// Progress is what the progress bar shows of the client's work so far.
func (m *Model) Progress() progress.Stats {
	u := m.Client.Usage()
	return progress.Stats{Calls: u.Calls, CachedCalls: u.CachedCalls, Tokens: u.InputTokens + u.OutputTokens}
}

// Client builds the model client of a command — the one place every command (lint, evaluate,
// blueprint run) gets its client from, so they share one behaviour: the reply cache
// (--cache-dir relative to the working directory, else the user cache folder from the process
// environment; none with --no-cache), prices (INPUT_/OUTPUT_PRICE_PER_MILLION), the proxy from
// the process environment (never a .env file's; never used for a loopback host), redirects only
// within one origin and no Referer (docs/security.md), the trust rule (every call is checked,
// VECTORLINT_TRUSTED_HOSTS), the concurrency limit, the timeout, the --verbose/--show-prompt
// event log and, when standard error is not a terminal, the stall reports. It returns the
// client and the cache folder in use ("" when there is none).
func (h *Host) Client(env envsource.LookupFunc, o ClientOptions) (*llm.Client, string, error) {
	cfg, cacheDir, err := h.clientConfig(env, o)
	if err != nil {
		return nil, "", err
	}
	client, err := llm.New(cfg)
	if err != nil {
		return nil, "", err
	}
	return client, cacheDir, nil
}

// clientConfig is the configuration Client builds its client with, and the cache folder.
func (h *Host) clientConfig(env envsource.LookupFunc, o ClientOptions) (llm.Config, string, error) {
	prices, err := llm.ResolvePrices(env)
	if err != nil {
		return llm.Config{}, "", err
	}
	rule, err := h.Trust()
	if err != nil {
		return llm.Config{}, "", err
	}
	cacheDir := ""
	if !o.NoCache {
		cacheDir = o.CacheDir
		if cacheDir == "" {
			// From the process environment only: a repository's .env must not choose where the
			// tool writes (spec/trust.md §2), so XDG_CACHE_HOME or HOME set there are ignored.
			cacheDir = UserCacheDir(h.Getenv, runtime.GOOS)
		} else if !filepath.IsAbs(cacheDir) {
			cacheDir = filepath.Join(h.Dir, cacheDir)
		}
	}
	cfg := llm.Config{
		Concurrency:  o.Concurrency,
		Timeout:      o.Timeout,
		CacheDir:     cacheDir,
		NoCache:      o.NoCache,
		CacheOnly:    o.CacheOnly,
		CacheMaxSize: o.CacheMaxSize,
		Prices:       prices,
		Proxy:        h.proxy(),
		UserAgent:    h.UserAgent,
		Trust:        rule,
	}
	if h.DialContext != nil {
		cfg.HTTPClient = safehttp.NewClient(safehttp.NewTransport(cfg.Proxy, h.DialContext))
	}
	if o.Verbose || o.ShowPrompt {
		cfg.OnEvent = eventPrinter(o.Log, o.Verbose, o.ShowPrompt, o.PromptLimit)
	}
	if !h.StderrIsTerminal && o.Log != nil {
		// In a CI log nothing else shows that a run waiting on a hung server is alive.
		log := o.Log
		cfg.OnStall = func(s llm.Stall) { fmt.Fprintf(log, "vectorlint: %s\n", s) }
	}
	if h.Tune != nil {
		h.Tune(&cfg)
	}
	return cfg, cacheDir, nil
}

// ServiceClient is the HTTP client of $call and $factcheck: the proxy from the process
// environment (never for a loopback host), the test dial hook when set, and redirects only
// within one origin, without Referer (docs/security.md), as the model client's.
func (h *Host) ServiceClient() *http.Client {
	return safehttp.NewClient(safehttp.NewTransport(h.proxy(), h.DialContext))
}

// UserCacheDir is os.UserCacheDir()/vectorlint computed from the given environment, so tests
// stay hermetic: $XDG_CACHE_HOME or $HOME/.cache on Unix, $HOME/Library/Caches on macOS,
// %LocalAppData% on Windows. "" when the variables are unset.
func UserCacheDir(getenv func(string) string, goos string) string {
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
				fmt.Fprintf(&b, "── %s\n%s\n", m.Role, CutPrompt(strings.TrimRight(m.Content, "\n"), limit))
			}
			b.WriteString("── end of prompt\n")
		}
		if b.Len() > 0 {
			io.WriteString(w, b.String())
		}
	}
}

// CutPrompt keeps the first limit characters (code points) of s, followed by the original's
// "... [truncated]" line when anything was cut; s whole when limit is not positive.
func CutPrompt(s string, limit int) string {
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
