package main

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/llm"
)

// llmEnv is the environment model settings are read from: the process environment first, then
// a .env file in the working directory.
func (a *app) llmEnv() (llm.LookupFunc, error) {
	return llm.LoadDotEnv(a.dir, a.lookupEnv)
}

// llmOptions are the choices, from the command line and the configuration, that shape the
// model client. Commands fill what they have; zero values take the defaults.
type llmOptions struct {
	// config and flags are the Provider/Model/BaseURL/Temperature settings of vectorlint.ini and
	// of --provider/--model/--base-url.
	config, flags llm.Settings
	// concurrency is the number of requests in flight (0: llm.DefaultConcurrency).
	concurrency int
	// cacheDir is --cache-dir ("" for the user cache folder); noCache is --no-cache.
	cacheDir string
	noCache  bool
	// cacheCap is the cache's size cap (resolveCacheCap).
	cacheCap cacheCap
	// verbose logs every request, response, retry and cache problem to log; showPrompt prints
	// the messages of every call to log.
	verbose    bool
	showPrompt bool
	// log receives those lines; it must be safe for concurrent use (a syncWriter or a progress
	// bar).
	log io.Writer
}

// llmSetup is the model client of a run and the endpoints it calls.
type llmSetup struct {
	client *llm.Client
	// endpoint is the linter's model; notConfigured (a *llm.NotConfiguredError) is set instead
	// when no provider is configured, and the run makes no linter calls.
	endpoint      llm.Endpoint
	notConfigured error
	// search is the search model of technical-accuracy rules (nil when not configured).
	search *llm.Endpoint
	// cacheDir is the cache in use ("" when there is none).
	cacheDir string
}

// setupLLM builds the client and resolves the endpoints from env (see llmEnv). A setting with a
// bad value is an error; a provider that is not configured is not (see llmSetup.notConfigured),
// since deterministic work still runs.
func (a *app) setupLLM(env llm.LookupFunc, o llmOptions) (*llmSetup, error) {
	s := &llmSetup{}
	ep, err := llm.Resolve(env, o.config, o.flags)
	switch {
	case errors.Is(err, llm.ErrNotConfigured):
		s.notConfigured = err
	case err != nil:
		return nil, err
	default:
		s.endpoint = ep
	}
	search, err := llm.ResolveSearch(env)
	switch {
	case errors.Is(err, llm.ErrNotConfigured):
	case err != nil:
		return nil, err
	default:
		s.search = &search
	}
	client, cacheDir, err := a.newLLMClient(env, o)
	if err != nil {
		return nil, err
	}
	s.client, s.cacheDir = client, cacheDir
	if cacheDir == "" && !o.noCache && o.verbose && s.notConfigured == nil {
		fmt.Fprintln(o.log, "vectorlint: no user cache folder (HOME and XDG_CACHE_HOME are unset): replies are not cached; use --cache-dir")
	}
	return s, nil
}

// newLLMClient builds the model client of a command — the one place every command (lint,
// evaluate, blueprint run) gets its client from, so they share one behaviour: the reply cache
// (--cache-dir relative to the working directory, else the user cache folder from env; none with
// --no-cache), prices (INPUT_/OUTPUT_PRICE_PER_MILLION), the proxy from the environment, the
// concurrency limit and the --verbose/--show-prompt event log. It returns the client and the
// cache folder in use ("" when there is none).
func (a *app) newLLMClient(env llm.LookupFunc, o llmOptions) (*llm.Client, string, error) {
	prices, err := llm.ResolvePrices(env)
	if err != nil {
		return nil, "", err
	}
	cacheDir := ""
	if !o.noCache {
		cacheDir = o.cacheDir
		if cacheDir == "" {
			cacheDir = userCacheDir(func(k string) string { v, _ := env(k); return v }, runtime.GOOS)
		} else if !filepath.IsAbs(cacheDir) {
			cacheDir = filepath.Join(a.dir, cacheDir)
		}
	}
	cfg := llm.Config{
		Concurrency:  o.concurrency,
		CacheDir:     cacheDir,
		NoCache:      o.noCache,
		CacheMaxSize: o.cacheCap.limit,
		Prices:       prices,
		Proxy:        http.ProxyFromEnvironment,
		UserAgent:    "vectorlint/" + versionString(),
	}
	if o.verbose || o.showPrompt {
		cfg.OnEvent = eventPrinter(o.log, o.verbose, o.showPrompt)
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
// from the cache. Messages are already free of keys (the llm package redacts them).
func eventPrinter(w io.Writer, verbose, showPrompt bool) func(llm.Event) {
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
				fmt.Fprintf(&b, "── %s\n%s\n", m.Role, strings.TrimRight(m.Content, "\n"))
			}
			b.WriteString("── end of prompt\n")
		}
		if b.Len() > 0 {
			io.WriteString(w, b.String())
		}
	}
}

// confidenceThreshold is CONFIDENCE_THRESHOLD when set, else the configuration's value.
func confidenceThreshold(env llm.LookupFunc, cfg *lint.Config) (float64, error) {
	if v, ok := env("CONFIDENCE_THRESHOLD"); ok && strings.TrimSpace(v) != "" {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || f < 0 || f > 1 {
			return 0, fmt.Errorf("CONFIDENCE_THRESHOLD: expected a number from 0 to 1, found %q", v)
		}
		return f, nil
	}
	if cfg != nil && cfg.ConfidenceThresholdSet {
		return cfg.ConfidenceThreshold, nil
	}
	return lint.DefaultConfidenceThreshold, nil
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
