package config

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestConfigBounds checks the range of every number vectorlint.ini sets (spec/trust.md §8): the
// values at each end of a range load, the values just past it are errors naming the key, the
// line, the range and the value found.
func TestConfigBounds(t *testing.T) {
	t.Parallel()
	const concurrency = `expected a whole number from 1 to 256`
	const cacheSize = `expected 0 (no cap) or a size from 1MB to 100TB, such as 500MB, 2GB or 1GiB`
	const strictness = `expected a number greater than 0 and at most 1000, or "lenient", "standard" or "strict"`
	const timeout = `expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h`
	tests := []struct {
		src, want string // want "" for a value in range
		check     func(*Config) bool
	}{
		{"Concurrency = 1", "", func(c *Config) bool { return c.Concurrency == 1 }},
		{"Concurrency = 256", "", func(c *Config) bool { return c.Concurrency == 256 }},
		{"Concurrency = 257", `Concurrency: ` + concurrency + `, found "257"`, nil},
		{"Concurrency = 1000000000", `Concurrency: ` + concurrency + `, found "1000000000"`, nil},
		{"Concurrency = 9223372036854775807", `Concurrency: ` + concurrency + `, found "9223372036854775807"`, nil},
		{"Concurrency = 99999999999999999999", `Concurrency: ` + concurrency + `, found "99999999999999999999"`, nil},
		{"Concurrency = -1", `Concurrency: ` + concurrency + `, found "-1"`, nil},
		{"Timeout = 24h", "", func(c *Config) bool { return c.Timeout == 24*time.Hour }},
		{"Timeout = 86401", `Timeout: ` + timeout + `, found "86401"`, nil},
		{"Timeout = 1e308", `Timeout: ` + timeout + `, found "1e308"`, nil},
		{"Timeout = NaN", `Timeout: ` + timeout + `, found "NaN"`, nil},
		{"CacheMaxSize = 0", "", func(c *Config) bool { return c.CacheMaxSize == 0 && c.CacheMaxSizeSet }},
		{"CacheMaxSize = 1MB", "", func(c *Config) bool { return c.CacheMaxSize == 1_000_000 }},
		{"CacheMaxSize = 100TB", "", func(c *Config) bool { return c.CacheMaxSize == 100_000_000_000_000 }},
		{"CacheMaxSize = 999999", `CacheMaxSize: ` + cacheSize + `, found "999999"`, nil},
		{"CacheMaxSize = 1kB", `CacheMaxSize: ` + cacheSize + `, found "1kB"`, nil},
		{"CacheMaxSize = 101TB", `CacheMaxSize: ` + cacheSize + `, found "101TB"`, nil},
		{"CacheMaxSize = 1e300", `CacheMaxSize: ` + cacheSize + `, found "1e300"`, nil},
		{"Temperature = 2", "", func(c *Config) bool { return *c.Temperature == 2 }},
		{"Temperature = Inf", `Temperature: expected a number from 0 to 2, found "Inf"`, nil},
		{"ConfidenceThreshold = NaN", `ConfidenceThreshold: expected a number from 0 to 1, found "NaN"`, nil},
		{"[*.md]\nA.R.strictness = 1000", "", func(c *Config) bool { return c.Sections[0].Overrides[0].Strictness == 1000 }},
		{"[*.md]\nA.R.strictness = 0.001", "", func(c *Config) bool { return c.Sections[0].Overrides[0].Strictness == 0.001 }},
		{"[*.md]\nA.R.strictness = 1000.5", `A.R.strictness: ` + strictness + `, found "1000.5"`, nil},
		{"[*.md]\nA.R.strictness = 1e308", `A.R.strictness: ` + strictness + `, found "1e308"`, nil},
		{"[*.md]\nR.strictness = +Inf", `R.strictness: ` + strictness + `, found "+Inf"`, nil},
		{"[*.md]\nR.strictness = NaN", `R.strictness: ` + strictness + `, found "NaN"`, nil},
	}
	for _, tt := range tests {
		cfg, ps := Parse("/d/vectorlint.ini", []byte(tt.src+"\n"))
		got := strings.Join(problemLines(ps, "/d"), "\n")
		if tt.want == "" {
			if got != "" || !tt.check(cfg) {
				t.Errorf("%q: problems %q, config %+v", tt.src, got, cfg)
			}
			continue
		}
		line := strings.Count(tt.src, "\n") + 1
		if want := "vectorlint.ini:" + strconv.Itoa(line) + ": " + tt.want; got != want {
			t.Errorf("%q:\n got %s\nwant %s", tt.src, got, want)
		}
	}
}
