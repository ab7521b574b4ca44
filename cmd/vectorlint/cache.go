package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/internal/setup"
	"github.com/vectorlint/vectorlint/lint/config"
)

const cacheUsage = `Usage:
  vectorlint cache info  [--cache-dir DIR] [--cache-max-size SIZE]
  vectorlint cache prune [--cache-dir DIR] [--max-size SIZE] [--older-than DURATION]
  vectorlint cache clear [--cache-dir DIR]
  vectorlint cache key   [--config FILE]

The reply cache holds every model reply, so a second run over unchanged files makes no call.
info shows its folder, entries, size, cap and the last use of its oldest and newest entries.
prune removes the least recently used entries until the cache fits in SIZE (default: the cap),
and with --older-than those not used for DURATION (30d, 12h, 90m). clear removes every entry.
key prints a hash of the configuration, the style guide and the rule packs (not the documents):
a CI job keys its saved cache with it.
Only cache entries are ever removed; a folder that does not look like a vectorlint cache is
refused. The cap: --cache-max-size, else $VECTORLINT_CACHE_MAX_SIZE, else CacheMaxSize in
vectorlint.ini, else 1GB; 0 means no cap. Sizes: 500MB, 2GB, 1GiB or a number of bytes.

Flags:
`

// cacheMaxSizeUsage is the help of the --cache-max-size flag of blueprint run and evaluate
// (lint's adds vectorlint.ini's CacheMaxSize).
const cacheMaxSizeUsage = "cap of the reply cache, a `SIZE` such as 500MB or 1GiB, 0 for none (default: $" + setup.CacheMaxSizeVar + ", else 1GB)"

// cacheCommand is the "cache" command: info, prune, clear and key.
func (a *app) cacheCommand(args []string) error {
	if len(args) == 0 {
		fmt.Fprint(a.stderr, cacheUsage)
		return errFailed
	}
	sub := args[0]
	switch sub {
	case "info", "prune", "clear", "key":
	case "-h", "--help", "help":
		fmt.Fprint(a.stdout, cacheUsage)
		return nil
	default:
		fmt.Fprintf(a.stderr, "vectorlint cache: unknown command %q (expected info, prune, clear or key)\n\n%s", sub, cacheUsage)
		return errFailed
	}
	o, err := parseCache(sub, args[1:])
	if err != nil {
		return a.usageError("vectorlint cache "+sub, err)
	}
	return a.runCache(o)
}

// cacheOptions are the options of "cache info", "cache prune", "cache clear" and "cache key".
type cacheOptions struct {
	sub         string // info, prune, clear or key
	config      string // key's --config
	cacheDir    string // --cache-dir
	maxSizeFlag string // info's --cache-max-size
	maxSizeSet  bool   // whether --cache-max-size was given
	maxSize     string // prune's --max-size
	olderThan   string // prune's --older-than
	help        string // the help to print instead, for --help
}

// parseCache fills the options of "cache SUB" from args and checks them.
func parseCache(sub string, args []string) (*cacheOptions, error) {
	o := &cacheOptions{sub: sub}
	name := "vectorlint cache " + sub
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	if sub != "key" {
		fs.StringVar(&o.cacheDir, "cache-dir", "", "the cache folder (default: the user cache folder/vectorlint)")
	}
	switch sub {
	case "key":
		fs.StringVar(&o.config, "config", "", "configuration file (default: found as the lint command finds it)")
	case "info":
		fs.StringVar(&o.maxSizeFlag, "cache-max-size", "", "the cap to show (default: $"+setup.CacheMaxSizeVar+", else CacheMaxSize in vectorlint.ini, else 1GB)")
	case "prune":
		fs.StringVar(&o.maxSize, "max-size", "", "remove the least recently used entries until the cache fits in `SIZE` (default: the cap)")
		fs.StringVar(&o.olderThan, "older-than", "", "remove the entries not used for `DURATION` (30d, 12h, 90m)")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			o.help = cacheUsage + fs.FlagUsages()
			return o, nil
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	o.maxSizeSet = fs.Changed("cache-max-size")
	return o, nil
}

// runCache runs "cache info", "cache prune", "cache clear" or "cache key" with its options.
func (a *app) runCache(o *cacheOptions) error {
	if o.help != "" {
		fmt.Fprint(a.stdout, o.help)
		return nil
	}
	if o.sub == "key" {
		return a.cacheKey(o.config)
	}
	sub, name := o.sub, "vectorlint cache "+o.sub
	maxSize, olderThan := o.maxSize, o.olderThan
	fail := func(err error) error { return &commandError{prefix: name, err: err} }
	// The cap may come from VECTORLINT_CACHE_MAX_SIZE in a .env file of the working directory.
	env, err := a.host().Env(nil, a.dir)
	if err != nil {
		return fail(err)
	}
	dir := o.cacheDir
	if dir == "" {
		// The folder comes from the process environment only, as for every command that
		// writes the cache (newLLMClient).
		if dir = setup.UserCacheDir(a.getenv, runtime.GOOS); dir == "" {
			return fail(errors.New("no user cache folder (HOME and XDG_CACHE_HOME are unset): give --cache-dir"))
		}
	} else {
		dir = a.abs(dir)
	}

	switch sub {
	case "info":
		return a.cacheInfo(name, dir, env.Lookup, o.maxSizeFlag, o.maxSizeSet)
	case "prune":
		opts := replycache.PruneOptions{Now: a.clock()()}
		if maxSize != "" {
			n, err := replycache.ParseSize(maxSize)
			if err != nil {
				return fail(fmt.Errorf("--max-size: %v", err))
			}
			opts.MaxSize = n
		} else {
			cfg, err := a.cacheConfig()
			if err != nil {
				return fail(err)
			}
			limit, err := setup.ResolveCacheCap(env.Lookup, "", false, cfg)
			if err != nil {
				return fail(err)
			}
			opts.MaxSize = limit.Bytes()
		}
		if olderThan != "" {
			d, err := parseAge(olderThan)
			if err != nil {
				return fail(fmt.Errorf("--older-than: %v", err))
			}
			opts.OlderThan = d
		}
		res, err := replycache.Prune(dir, opts)
		return a.cacheRemoved(name, dir, res, err)
	default: // clear
		res, err := replycache.Clear(dir)
		return a.cacheRemoved(name, dir, res, err)
	}
}

// cacheTimeLayout writes the last uses of entries.
const cacheTimeLayout = "2006-01-02 15:04:05 UTC"

// cacheInfo is "cache info": the folder, its entries, size and cap, and the last use of its
// oldest and newest entries.
func (a *app) cacheInfo(name, dir string, env envsource.LookupFunc, maxSizeFlag string, maxSizeSet bool) error {
	fail := func(err error) error { return &commandError{prefix: name, err: err} }
	cfg, err := a.cacheConfig()
	if err != nil {
		return fail(err)
	}
	limit, err := setup.ResolveCacheCap(env, maxSizeFlag, maxSizeSet, cfg)
	if err != nil {
		return fail(err)
	}
	info, err := replycache.ReadInfo(dir)
	if err != nil {
		return fail(err)
	}
	capText := "none (" + limit.Source + ")"
	if b := limit.Bytes(); b > 0 {
		capText = replycache.FormatSize(b) + " (" + limit.Source + ")"
	}
	fmt.Fprintf(a.stdout, "Folder:   %s\n", dir)
	fmt.Fprintf(a.stdout, "Entries:  %d\n", info.Entries)
	fmt.Fprintf(a.stdout, "Size:     %s (%d bytes)\n", replycache.FormatSize(info.Size), info.Size)
	fmt.Fprintf(a.stdout, "Cap:      %s\n", capText)
	if info.Entries > 0 {
		fmt.Fprintf(a.stdout, "Oldest:   %s (least recently used)\n", info.Oldest.UTC().Format(cacheTimeLayout))
		fmt.Fprintf(a.stdout, "Newest:   %s (most recently used)\n", info.Newest.UTC().Format(cacheTimeLayout))
	}
	return nil
}

// cacheRemoved reports what a prune or clear removed and what remains, then its error (some
// entries could not be removed) or why it refused the folder.
func (a *app) cacheRemoved(name, dir string, res replycache.PruneResult, err error) error {
	var nc *replycache.NotACacheError
	if !errors.As(err, &nc) {
		fmt.Fprintf(a.stdout, "Removed %s (%s) from %s; %s (%s) remain.\n", replycache.CountEntries(res.Removed), replycache.FormatSize(res.RemovedBytes), dir,
			replycache.CountEntries(res.Remaining), replycache.FormatSize(res.RemainingBytes))
	}
	if err != nil {
		fmt.Fprintf(a.stderr, "%s: %v\n", name, err)
		return errFailed
	}
	return nil
}

// cacheConfig is the configuration lint would use here, for its CacheMaxSize; nil when there is
// none. Only CacheMaxSize is looked at: the cache commands need no rules.
func (a *app) cacheConfig() (*config.Config, error) {
	path, err := config.Find(a.dir, "", a.getenv("VECTORLINT_CONFIG"))
	var nf *config.NotFoundError
	if errors.As(err, &nf) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	data, err := config.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read the configuration: %w", err)
	}
	cfg, problems := config.Parse(path, data)
	for _, p := range problems {
		if p.Field == "CacheMaxSize" {
			return nil, p
		}
	}
	return cfg, nil
}

// parseAge reads a duration as --older-than takes it: Go's (12h, 90m, 1h30m) or whole days (30d).
func parseAge(s string) (time.Duration, error) {
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.Atoi(days)
		if err == nil && n > 0 && n < 100_000 {
			return time.Duration(n) * 24 * time.Hour, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d, nil
	}
	return 0, fmt.Errorf("expected a duration such as 30d, 12h or 90m, found %q", s)
}
