package setup

import (
	"fmt"
	"strings"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/lint/config"
)

// CacheMaxSizeVar is the variable that sets the cache cap for every command.
const CacheMaxSizeVar = "VECTORLINT_CACHE_MAX_SIZE"

// CacheCap is the cache's size cap and where it comes from.
type CacheCap struct {
	// Limit is as ClientOptions.CacheMaxSize takes it: 0 for the default, replycache.NoCap for
	// none.
	Limit int64
	// Source says where it was set ("default" when nowhere).
	Source string
}

// Bytes is the cap in bytes (0 for none).
func (c CacheCap) Bytes() int64 {
	switch c.Limit {
	case 0:
		return replycache.DefaultCap
	case replycache.NoCap:
		return 0
	}
	return c.Limit
}

// ResolveCacheCap works out the cap: the --cache-max-size flag (flagValue, when flagSet), else
// VECTORLINT_CACHE_MAX_SIZE, else CacheMaxSize of cfg (nil when there is no configuration),
// else the default.
func ResolveCacheCap(env envsource.LookupFunc, flagValue string, flagSet bool, cfg *config.Config) (CacheCap, error) {
	toLimit := func(n int64) int64 {
		if n == 0 {
			return replycache.NoCap
		}
		return n
	}
	if flagSet {
		n, err := replycache.ParseSize(flagValue)
		if err != nil {
			return CacheCap{}, fmt.Errorf("--cache-max-size: %v", err)
		}
		return CacheCap{Limit: toLimit(n), Source: "--cache-max-size"}, nil
	}
	if v, ok := env(CacheMaxSizeVar); ok && strings.TrimSpace(v) != "" {
		n, err := replycache.ParseSize(v)
		if err != nil {
			return CacheCap{}, fmt.Errorf("%s: %v", CacheMaxSizeVar, err)
		}
		if !replycache.ValidCap(n) {
			// A project's .env may set it: bounded as vectorlint.ini's CacheMaxSize is.
			return CacheCap{}, fmt.Errorf("%s: expected %s, found %q", CacheMaxSizeVar, replycache.CapRange, v)
		}
		return CacheCap{Limit: toLimit(n), Source: CacheMaxSizeVar}, nil
	}
	if cfg != nil && cfg.CacheMaxSizeSet {
		return CacheCap{Limit: toLimit(cfg.CacheMaxSize), Source: "CacheMaxSize in " + cfg.Path}, nil
	}
	return CacheCap{Source: "default"}, nil
}
