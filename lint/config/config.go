package config

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
	"gopkg.in/ini.v1"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/replycache"
	"github.com/vectorlint/vectorlint/internal/retry"
	"github.com/vectorlint/vectorlint/internal/suggest"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// Defaults of the global configuration keys (spec/linter.md §2). Concurrency's is the model
// client's: the requests in flight it allows when given none.
const (
	DefaultConcurrency         = llm.DefaultConcurrency
	DefaultConfidenceThreshold = 0.75
	// DefaultMaxDocumentWords is the largest document, in words of prose, sent to the model
	// when MaxDocumentWords is not set (spec/linter.md §13; docs/configuration.md).
	DefaultMaxDocumentWords = 50_000
	// MaxMaxDocumentWords bounds the key: far above any document a model call can be made for.
	MaxMaxDocumentWords = 100_000_000
	// DefaultChunkWords is the most words sent in one call when ChunkWords is not set: a
	// document up to this size is sent whole (spec/linter.md §13; docs/configuration.md).
	DefaultChunkWords = document.DefaultChunkWords
	// MinChunkWords and MaxChunkWords bound the ChunkWords key.
	MinChunkWords = 100
	MaxChunkWords = 100_000
	// MaxSamples bounds Samples (and --samples): each sample is a model call of its own.
	MaxSamples = 25
	// MaxRulesPerCall bounds RulesPerCall (and --rules-per-call): the more rules one request
	// asks about, the more each answer depends on the model keeping them apart.
	MaxRulesPerCall = 10
)

// RulesPerCallRange is what RulesPerCall (and --rules-per-call) expects, as its problems say.
const RulesPerCallRange = "a whole number of rules from 1 to 10"

// SamplesRange is what Samples (and --samples) expects, as its problems say.
const SamplesRange = "a whole number of samples from 1 to 25"

// FileNames are the names config discovery looks for, in order, in each folder.
func FileNames() []string { return []string{".vectorlint.ini", "vectorlint.ini"} }

// Config is a parsed vectorlint.ini.
type Config struct {
	// Path is the config file; Dir its folder, against which RulesPath and section globs resolve.
	Path string
	Dir  string

	// RulesPath is the absolute folder of rule packs ("" when the key is not set).
	RulesPath string
	// RulesPathValue is RulesPath as written in the file; RulesPathLine is the key's line (0
	// when not set).
	RulesPathValue string
	RulesPathLine  int
	// Concurrency is the number of LLM requests in flight (DefaultConcurrency when not set).
	Concurrency int
	// DefaultSeverity applies to rules whose frontmatter sets no severity (warning by default).
	DefaultSeverity finding.Severity
	// Provider, Model and BaseURL are "" when not set; environment and flags override them.
	Provider string
	Model    string
	BaseURL  string
	// BaseURLLine is BaseURL's line (0 when not set), for the trust rule's messages: a base
	// URL from a repository's config file may not receive the user's key (spec/trust.md §1).
	BaseURLLine int
	// Temperature is nil when not set.
	Temperature *float64
	// ConfidenceThreshold drops findings the model is less sure of (DefaultConfidenceThreshold).
	ConfidenceThreshold float64
	// ConfidenceThresholdSet tells whether the file sets ConfidenceThreshold (the environment
	// variable CONFIDENCE_THRESHOLD overrides it either way).
	ConfidenceThresholdSet bool
	// MaxDocumentWords is the largest document, in words of prose (skipped scopes left out),
	// that is sent to the model; a larger one is reported as skipped, with no call
	// (DefaultMaxDocumentWords when not set).
	MaxDocumentWords int
	// ChunkWords is the most words of a document sent in one call: longer texts are split
	// into chunks (DefaultChunkWords when not set).
	ChunkWords int
	// Timeout bounds one attempt of a model call (llm.Config.Timeout; a call with its retries
	// is bounded by 3 × that); 0 when not set (--timeout overrides it, retry.DefaultTimeout
	// applies otherwise).
	Timeout time.Duration
	// CacheMaxSize caps the reply cache in bytes (0: no cap); CacheMaxSizeSet tells whether the
	// file sets it (replycache.DefaultCap applies when it does not).
	CacheMaxSize    int64
	CacheMaxSizeSet bool
	// Samples is the global Samples key: how many samples each model evaluation takes (0 when
	// not set; docs/configuration.md, "Samples"). A section may set its own (Section.Samples).
	Samples int
	// Models are the models the samples go to in turn (the Models key; nil when not set):
	// model names on the configured provider. Without Samples, a rule takes one sample per
	// model (SamplesFor).
	Models []string
	// RulesPerCall is the global RulesPerCall key: how many semi-objective rules that apply
	// to the same chunk one request evaluates (0 when not set; docs/configuration.md,
	// "RulesPerCall"). A section may set its own (Section.RulesPerCall).
	RulesPerCall int

	// Sections are the [GLOB] sections in file order.
	Sections []*Section
}

// Section is one [GLOB] section of the configuration.
type Section struct {
	// Pattern is the glob as written in the header (trimmed); it matches slash-separated paths
	// relative to the config file's folder.
	Pattern string
	// Line is the header's line.
	Line int
	// RunRules are the pack names the section applies; HasRunRules tells whether the section
	// sets RunRules at all (an empty RunRules turns rules off).
	RunRules     []string
	HasRunRules  bool
	RunRulesLine int
	// Overrides are the rule settings of the section in file order.
	Overrides []Override
	// SkippedScopes are the scope names of SkippedScopes (ScopeNames); HasSkippedScopes tells
	// whether the section sets the key (an empty SkippedScopes lints everything).
	SkippedScopes     []string
	HasSkippedScopes  bool
	SkippedScopesLine int
	// BlockIgnores and TokenIgnores are the section's ignore patterns; Has… tells whether it
	// sets the key (an empty value clears those of less specific sections).
	BlockIgnores    []*document.IgnorePattern
	HasBlockIgnores bool
	TokenIgnores    []*document.IgnorePattern
	HasTokenIgnores bool
	// Format is the format the section's files are read in (a FormatNames name, "" when the
	// section does not set Format; spec/linter.md §14), FormatLine its line.
	Format     string
	FormatLine int
	// Samples is the section's Samples (0 when it sets none): for its files it replaces the
	// global one, the most specific section that sets it winning.
	Samples int
	// RulesPerCall is the section's RulesPerCall (0 when it sets none): for its files it
	// replaces the global one, the most specific section that sets it winning.
	RulesPerCall int

	glob  string // Pattern normalised for matching
	index int    // order in the file
}

// OverrideKind says what an Override changes.
type OverrideKind int

// Override kinds.
const (
	// OverrideDisabled turns a rule off ("Pack.Rule = disabled").
	OverrideDisabled OverrideKind = iota + 1
	// OverrideEnabled turns a rule disabled by a less specific section back on ("= enabled").
	OverrideEnabled
	// OverrideSeverity sets a rule's severity ("Pack.Rule.severity = error").
	OverrideSeverity
	// OverrideStrictness sets a rule's strictness ("Pack.Rule.strictness = 20" or "= strict").
	OverrideStrictness
	// OverrideUnknown names a setting vectorlint does not have ("TechnicalAccuracy.threshold =
	// 8.0", as the original's documentation writes, or "Pack.Rule.threshold = 8"), or a
	// setting with no rule ("strictness = 7", Rule ""). It changes nothing; the configuration
	// check (Check) warns about it, or, for a two-part key that turns out to name a rule
	// ("Pack.Rule = 8"), reports the value as an error.
	OverrideUnknown
)

// Override is one rule setting in a section.
type Override struct {
	// Key is the ini key as written, Line its line.
	Key  string
	Line int
	// Pack is "" for "Rule.strictness" / "Rule.severity", which apply to the rule id in any pack.
	Pack string
	Rule string
	Kind OverrideKind
	// Severity is set for OverrideSeverity, Strictness for OverrideStrictness.
	Severity   finding.Severity
	Strictness float64
	// Setting and Value are set for OverrideUnknown: the setting as written ("threshold"; ""
	// for a two-part key, whose second part is then Rule) and the value.
	Setting string
	Value   string
}

// NotFoundError reports that discovery found nothing to run with: no configuration file
// (--config, VECTORLINT_CONFIG, or FileNames in the folder or a parent) and no style guide
// (StyleGuideFileName) in the folder for zero-config.
type NotFoundError struct {
	// Start is the folder the upward search started from (the working directory).
	Start string
}

// Error names the files looked for and suggests vectorlint init.
func (e *NotFoundError) Error() string {
	return fmt.Sprintf("no configuration found: looked for %s in %s and every parent folder, and for %s in %s, and no --config or VECTORLINT_CONFIG was given; run \"vectorlint init\" to create one",
		strings.Join(FileNames(), " and "), e.Start, StyleGuideFileName, e.Start)
}

// Find locates the configuration file: flagValue (--config) when set, else envValue
// (VECTORLINT_CONFIG) when set, else the first of FileNames in dir or any parent folder.
// Relative paths are relative to dir. A named file that does not exist is an error; nothing
// found is a *NotFoundError. A relative path inside dir must stay inside it once its
// symbolic links are followed: the configuration's folder becomes the project root, so a
// committed link on the way (conf -> /elsewhere) would otherwise move the root out of the
// tree (spec/trust.md §6). FindProject, which the commands use, then falls back to
// zero-config when dir holds a style guide; the error's message describes that whole search.
func Find(dir, flagValue, envValue string) (string, error) {
	for _, named := range []struct{ value, source string }{{flagValue, "--config"}, {envValue, "VECTORLINT_CONFIG"}} {
		if named.value == "" {
			continue
		}
		path := named.value
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
			if err := staysInside(dir, path); err != nil {
				return "", fmt.Errorf("config file %s (from %s): %v", named.value, named.source, err)
			}
		}
		fi, err := os.Stat(path)
		if err != nil {
			return "", fmt.Errorf("config file %s (from %s) not found", named.value, named.source)
		}
		if fi.IsDir() {
			return "", fmt.Errorf("config file %s (from %s) is a folder, expected a vectorlint.ini file", named.value, named.source)
		}
		return path, nil
	}
	for d := dir; ; {
		for _, name := range FileNames() {
			path := filepath.Join(d, name)
			if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
				return path, nil
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", &NotFoundError{Start: dir}
		}
		d = parent
	}
}

// staysInside fails when path, inside dir by its name, leads out of dir through a symbolic link.
func staysInside(dir, path string) error {
	root, err := tree.Open(dir)
	if err != nil {
		return nil // the working directory cannot be opened: the stat that follows says why
	}
	defer root.Close()
	if !root.Contains(path) {
		return nil // named outside: the user's choice
	}
	_, err = root.Resolve(path)
	var le *tree.LeavesRootError
	if errors.As(err, &le) {
		if le.Link == path {
			return fmt.Errorf("a symbolic link leading outside %s", dir)
		}
		return fmt.Errorf("the symbolic link %s leads outside %s", le.Link, dir)
	}
	return nil
}

// Load reads and parses a configuration file through a root at its folder (the project
// root, internal/tree) and checks that its RulesPath is a folder inside that root. Problems
// (with file and line) are returned as finding.Problems.
func Load(path string) (*Config, error) {
	root, err := tree.Open(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("cannot read the configuration: %w", err)
	}
	defer root.Close()
	data, err := root.ReadFile(path, rules.MaxFileSize)
	if err != nil {
		return nil, fmt.Errorf("cannot read the configuration: %w", err)
	}
	return loadConfig(root, path, data)
}

// ReadFile reads a configuration file through a root at its folder, the project root
// (internal/tree): a vectorlint.ini that is a link leading out of the folder is refused, and
// the error quotes none of it.
func ReadFile(path string) ([]byte, error) {
	root, err := tree.Open(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	defer root.Close()
	return root.ReadFile(path, rules.MaxFileSize)
}

// loadConfig is Load once the file is read.
func loadConfig(root *tree.Root, path string, data []byte) (*Config, error) {
	cfg, problems := Parse(path, data)
	if problems.HasErrors() {
		return nil, problems
	}
	if cfg.RulesPath != "" {
		if p := rulesPathOutside(root, cfg); p != nil {
			return nil, finding.Problems{*p}
		}
		fi, err := root.Stat(cfg.RulesPath)
		if err != nil || !fi.IsDir() {
			return nil, finding.Problems{{File: path, Line: cfg.RulesPathLine, Field: "RulesPath",
				Expected: "an existing folder of rule packs (relative to the config file's folder)",
				Found:    fmt.Sprintf("%q, which is not a folder", cfg.RulesPathValue)}}
		}
	}
	return cfg, nil
}

// DocumentWordLimit is MaxDocumentWords, or DefaultMaxDocumentWords for a Config that does not
// set it (one made by hand, the zero-config defaults).
func (c *Config) DocumentWordLimit() int {
	if c == nil || c.MaxDocumentWords <= 0 {
		return DefaultMaxDocumentWords
	}
	return c.MaxDocumentWords
}

// ChunkWordLimit is ChunkWords, or DefaultChunkWords for a Config that does not set it (or
// no Config).
func (c *Config) ChunkWordLimit() int {
	if c == nil || c.ChunkWords <= 0 {
		return DefaultChunkWords
	}
	return c.ChunkWords
}

// globalKeys are the keys allowed before the first section.
func globalKeys() []string {
	return []string{"RulesPath", "Concurrency", "DefaultSeverity", "Provider", "Model", "BaseURL",
		"Temperature", "ConfidenceThreshold", "Timeout",
		"CacheMaxSize", "MaxDocumentWords", "ChunkWords", keySamples, "Models", keyRulesPerCall}
}

// Parse parses vectorlint.ini content with gopkg.in/ini.v1. path names the file in problems
// and anchors RulesPath and the section globs. It returns every problem found; the config is
// usable only when none is an error.
func Parse(path string, data []byte) (*Config, finding.Problems) {
	abs, err := filepath.Abs(path)
	if err == nil {
		path = abs
	}
	cfg := &Config{
		Path:                path,
		Dir:                 filepath.Dir(path),
		Concurrency:         DefaultConcurrency,
		DefaultSeverity:     finding.SeverityWarning,
		ConfidenceThreshold: DefaultConfidenceThreshold,
		MaxDocumentWords:    DefaultMaxDocumentWords,
		ChunkWords:          DefaultChunkWords,
	}
	scan := scanINI(path, data)
	if scan.problems.HasErrors() {
		return cfg, clipQuotes(scan.problems)
	}
	file, err := ini.LoadSources(ini.LoadOptions{
		IgnoreContinuation:       true, // a trailing "\" (a Windows path) is not a line continuation
		SpaceBeforeInlineComment: true, // "#" and ";" start a comment only after a space (URLs keep their fragments)
	}, data)
	if err != nil {
		return cfg, clipQuotes(finding.Problems{{File: path, Expected: "an ini file", Found: clip(err.Error())}})
	}
	problems := scan.problems
	for _, k := range file.Section(ini.DefaultSection).Keys() {
		if p := parseGlobal(cfg, k.Name(), k.String(), scan.line(ini.DefaultSection, k.Name())); p != nil {
			problems = append(problems, *p)
		}
	}
	for i, s := range file.Sections() {
		if s.Name() == ini.DefaultSection {
			continue
		}
		sec, ps := parseSection(path, scan, i, s)
		problems = append(problems, ps...)
		cfg.Sections = append(cfg.Sections, sec)
	}
	problems.Sort()
	return cfg, clipQuotes(problems)
}

// parseGlobal sets the global key name (at line) of cfg, or returns its problem.
func parseGlobal(cfg *Config, name, value string, line int) *finding.Problem {
	switch name {
	case "RulesPath":
		if value != "" {
			cfg.RulesPath = value
			if !filepath.IsAbs(value) {
				cfg.RulesPath = filepath.Join(cfg.Dir, value)
			}
			cfg.RulesPathValue, cfg.RulesPathLine = value, line
		}
	case "Concurrency":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > llm.MaxConcurrency {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: llm.ConcurrencyRange, Found: strconv.Quote(value)}
		}
		cfg.Concurrency = n
	case "DefaultSeverity":
		s, err := finding.ParseSeverity(value)
		if err != nil {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: finding.SeverityExpected, Found: strconv.Quote(value)}
		}
		cfg.DefaultSeverity = s
	case "Provider":
		if !slices.Contains(llm.Providers(), llm.Provider(value)) {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "one of " + providerList(), Found: strconv.Quote(value)}
		}
		cfg.Provider = value
	case "Model":
		cfg.Model = value
	case "BaseURL":
		u, err := url.Parse(value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "an http:// or https:// URL", Found: strconv.Quote(value)}
		}
		cfg.BaseURL, cfg.BaseURLLine = value, line
	case "Temperature":
		t, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(t) || t < 0 || t > 2 {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "a number from 0 to 2", Found: strconv.Quote(value)}
		}
		cfg.Temperature = &t
	case "ConfidenceThreshold":
		t, err := strconv.ParseFloat(value, 64)
		if err != nil || math.IsNaN(t) || t < 0 || t > 1 {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "a number from 0 to 1", Found: strconv.Quote(value)}
		}
		cfg.ConfidenceThreshold, cfg.ConfidenceThresholdSet = t, true
	case "Timeout":
		d, err := retry.ParseTimeout(value)
		if err != nil {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h", Found: strconv.Quote(value)}
		}
		cfg.Timeout = d
	case "CacheMaxSize":
		n, err := replycache.ParseSize(value)
		if err != nil || !replycache.ValidCap(n) {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: replycache.CapRange, Found: strconv.Quote(value)}
		}
		cfg.CacheMaxSize, cfg.CacheMaxSizeSet = n, true
	case "MaxDocumentWords":
		n, err := strconv.Atoi(value)
		if err != nil || n < 1 || n > MaxMaxDocumentWords {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "a whole number of words from 1 to 100000000", Found: strconv.Quote(value)}
		}
		cfg.MaxDocumentWords = n
	case "ChunkWords":
		n, err := strconv.Atoi(value)
		if err != nil || n < MinChunkWords || n > MaxChunkWords {
			return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "a whole number of words from 100 to 100000", Found: strconv.Quote(value)}
		}
		cfg.ChunkWords = n
	case keySamples, keyRulesPerCall:
		n, p := parseCount(cfg.Path, value, line, name)
		if p != nil {
			return p
		}
		if name == keySamples {
			cfg.Samples = n
		} else {
			cfg.RulesPerCall = n
		}
	case "Models":
		var models []string
		for _, m := range strings.Split(value, ",") {
			if m = strings.TrimSpace(m); m == "" {
				return &finding.Problem{File: cfg.Path, Line: line, Field: name, Expected: "a comma-separated list of model names, such as gpt-4o, gpt-4o-mini", Found: strconv.Quote(value)}
			}
			models = append(models, m)
		}
		cfg.Models = models
	case "ScanPaths":
		return &finding.Problem{File: cfg.Path, Line: line, Field: name,
			Message: "ScanPaths is the old syntax; list file patterns as sections instead, e.g.\n  [docs/**/*.md]\n  RunRules = MyPack"}
	default:
		msg := "unknown global key (known keys: " + strings.Join(globalKeys(), ", ") + ")"
		if hint, ok := valeKeyHint(name, true); ok {
			msg = hint
		} else if s := suggest.Closest(name, globalKeys(), 2); s != "" {
			msg = fmt.Sprintf("unknown global key (did you mean %q?)", s)
		}
		return &finding.Problem{File: cfg.Path, Line: line, Field: name, Message: msg}
	}
	return nil
}

// parseSection reads section s (the i-th of the file): its glob, RunRules, the document keys
// (skipped scopes, format, ignores) and its rule overrides, and returns its problems.
func parseSection(path string, scan *iniScan, i int, s *ini.Section) (sec *Section, problems finding.Problems) {
	sec = &Section{Pattern: strings.TrimSpace(s.Name()), Line: scan.sectionLine[s.Name()], index: i}
	sec.glob = strings.TrimPrefix(strings.TrimPrefix(sec.Pattern, "./"), "/")
	if sec.glob == "" || !doublestar.ValidatePattern(sec.glob) {
		problems = append(problems, finding.Problem{File: path, Line: sec.Line, Field: "[" + s.Name() + "]", Expected: "a file glob such as **/*.md or docs/**/*.{md,mdx}", Found: strconv.Quote(sec.Pattern)})
	}
	for _, k := range s.Keys() {
		name, value, line := k.Name(), k.String(), scan.line(s.Name(), k.Name())
		switch name {
		case "RunRules":
			sec.HasRunRules, sec.RunRulesLine = true, line
			for _, p := range strings.Split(value, ",") {
				if p = strings.TrimSpace(p); p != "" {
					sec.RunRules = append(sec.RunRules, p)
				}
			}
			continue
		case document.KeySkippedScopes:
			names, problem := parseSkippedScopes(path, value, line)
			if problem != nil {
				problems = append(problems, *problem)
				continue
			}
			sec.SkippedScopes, sec.HasSkippedScopes, sec.SkippedScopesLine = names, true, line
			continue
		case keyFormat:
			syn, problem := parseFormat(path, value, line)
			if problem != nil {
				problems = append(problems, *problem)
				continue
			}
			sec.Format, sec.FormatLine = syn.FormatName(), line
			continue
		case document.KeyBlockIgnores, document.KeyTokenIgnores:
			ps, problem := compileIgnores(path, name, value, line)
			if problem != nil {
				problems = append(problems, *problem)
				continue
			}
			if name == document.KeyBlockIgnores {
				sec.BlockIgnores, sec.HasBlockIgnores = ps, true
			} else {
				sec.TokenIgnores, sec.HasTokenIgnores = ps, true
			}
			continue
		}
		if name == keySamples || name == keyRulesPerCall {
			n, p := parseCount(path, value, line, name)
			switch {
			case p != nil:
				problems = append(problems, *p)
			case name == keySamples:
				sec.Samples = n
			default:
				sec.RulesPerCall = n
			}
			continue
		}
		if name == "Models" {
			problems = append(problems, finding.Problem{File: path, Line: line, Field: name,
				Message: "Models is a global key: set it before the first section"})
			continue
		}
		if name == "MaxDocumentWords" || name == "ChunkWords" {
			// One limit for the run: a document's size does not depend on its section.
			problems = append(problems, finding.Problem{File: path, Line: line, Field: name,
				Message: name + " is a global key: set it before the first section"})
			continue
		}
		o, problem := parseOverride(name, value)
		if problem != nil {
			problem.File, problem.Line = path, line
			problems = append(problems, *problem)
			continue
		}
		o.Line = line
		sec.Overrides = append(sec.Overrides, o)
	}
	return sec, problems
}

// keySamples is the Samples key, global or in a section.
const keySamples = "Samples"

// parseCount reads the value of a count key, Samples or RulesPerCall (at line of path): a whole
// number from 1 to MaxSamples or MaxRulesPerCall, as SamplesRange or RulesPerCallRange says.
func parseCount(path, value string, line int, key string) (int, *finding.Problem) {
	most, want := MaxSamples, SamplesRange
	if key == keyRulesPerCall {
		most, want = MaxRulesPerCall, RulesPerCallRange
	}
	n, err := strconv.Atoi(strings.TrimSpace(value))
	if err != nil || n < 1 || n > most {
		return 0, &finding.Problem{File: path, Line: line, Field: key, Expected: want, Found: strconv.Quote(value)}
	}
	return n, nil
}

// keyRulesPerCall is the RulesPerCall key, global or in a section.
const keyRulesPerCall = "RulesPerCall"

// RulesPerCallFor is how many semi-objective rules one request evaluates on a file with
// settings fs (docs/configuration.md, "RulesPerCall"): the most specific matching section's
// RulesPerCall, else the global one, else 1.
func (c *Config) RulesPerCallFor(fs FileSettings) int {
	for i := len(fs.Sections) - 1; i >= 0; i-- {
		if n := fs.Sections[i].RulesPerCall; n > 0 {
			return n
		}
	}
	if c != nil && c.RulesPerCall > 0 {
		return c.RulesPerCall
	}
	return 1
}

// SamplesFor is the number of samples a rule's model evaluation takes on a file with rule
// settings rs (docs/configuration.md, "Samples"): the most specific matching section's Samples,
// else the global one, else one per model of Models, else 1.
func (c *Config) SamplesFor(rs RuleSettings) int {
	switch {
	case rs.Samples > 0:
		return rs.Samples
	case c == nil:
		return 1
	case c.Samples > 0:
		return c.Samples
	case len(c.Models) > 0:
		return len(c.Models)
	}
	return 1
}

// MaxQuoted is how many characters of a configuration line a problem quotes at most
// (spec/trust.md §6): a message shows what is wrong, never a whole file that happens to be
// lines of something else.
const MaxQuoted = 80

// quote is strconv.Quote of s cut to MaxQuoted characters (clip).
func quote(s string) string { return strconv.Quote(clip(s)) }

// clip cuts s to MaxQuoted characters, marking the cut with "…".
func clip(s string) string {
	if utf8.RuneCountInString(s) <= MaxQuoted {
		return s
	}
	return string([]rune(s)[:MaxQuoted]) + "…"
}

// clipQuotes cuts what the problems quote of the file (a quoted Found, a Field that is a key as
// written) to MaxQuoted characters.
func clipQuotes(ps finding.Problems) finding.Problems {
	for i := range ps {
		p := &ps[i]
		if text, err := strconv.Unquote(p.Found); err == nil && strings.HasPrefix(p.Found, `"`) && utf8.RuneCountInString(text) > MaxQuoted {
			p.Found = strconv.Quote(string([]rune(text)[:MaxQuoted])) + "…"
		}
		p.Field = clip(p.Field)
	}
	return ps
}

// valeKeyHint explains a key of Vale's .vale.ini found in vectorlint.ini, naming vectorlint's
// own way to say it (global tells whether the key is before the first section); ok is false
// for any other key. A Vale key stays an error: it would otherwise silently do nothing.
func valeKeyHint(key string, global bool) (hint string, ok bool) {
	switch key {
	case "StylesPath":
		return "a key of Vale's .vale.ini; vectorlint's is RulesPath, the folder of rule packs (each pack a subfolder of Markdown rules)", true
	case "BasedOnStyles":
		if global {
			return "a key of Vale's .vale.ini; vectorlint's is RunRules, in a [GLOB] section: [*.md] then RunRules = PackA, PackB", true
		}
		return "a key of Vale's .vale.ini; vectorlint's is RunRules = PackA, PackB (the packs to run)", true
	case "MinAlertLevel":
		return "a key of Vale's .vale.ini; vectorlint takes the level on the command line: --min-alert-level suggestion|warning|error (or --minAlertLevel)", true
	case "IgnoredScopes":
		return "a key of Vale's .vale.ini; vectorlint's is SkippedScopes, in a [GLOB] section (" + strings.Join(document.ScopeNames(), ", ") + ")", true
	}
	return "", false
}

// parseOverride reads a rule setting key of a section: "Pack.Rule", "Pack.Rule.severity",
// "Pack.Rule.strictness", "Rule.severity" or "Rule.strictness". A key of two or three parts
// whose setting vectorlint does not have ("Rule.threshold", "Pack.Rule.threshold"), and a bare
// "severity" or "strictness" that names no rule, are an OverrideUnknown, which the
// configuration check turns into a warning: the original VectorLint accepts any such key and
// its own documentation and tests write some.
func parseOverride(key, value string) (Override, *finding.Problem) {
	o := Override{Key: key}
	parts := strings.Split(key, ".")
	const forms = "RunRules, Format, SkippedScopes, BlockIgnores, TokenIgnores, Pack.Rule, Pack.Rule.severity or Pack.Rule.strictness"
	setting := ""
	switch {
	case len(parts) == 1 && (strings.EqualFold(key, "severity") || strings.EqualFold(key, "strictness")):
		// "strictness = 7" names no rule (the original's own config-loader test writes it,
		// and the original ignores it): a warning from the configuration check.
		o.Kind, o.Setting, o.Value = OverrideUnknown, key, value
		return o, nil
	case len(parts) == 2 && (strings.EqualFold(parts[1], "severity") || strings.EqualFold(parts[1], "strictness")):
		o.Rule, setting = parts[0], strings.ToLower(parts[1])
	case len(parts) == 2 && !strings.EqualFold(value, "disabled") && !strings.EqualFold(value, "enabled") &&
		strings.TrimSpace(parts[0]) != "" && strings.TrimSpace(parts[1]) != "":
		// "Rule.threshold = 8.0", or "Pack.Rule = 8": which one, only the packs can tell.
		o.Pack, o.Rule, o.Kind, o.Value = parts[0], parts[1], OverrideUnknown, value
		return o, nil
	case len(parts) == 2:
		o.Pack, o.Rule = parts[0], parts[1]
	case len(parts) == 3:
		o.Pack, o.Rule, setting = parts[0], parts[1], strings.ToLower(parts[2])
		if setting != "severity" && setting != "strictness" && strings.TrimSpace(o.Pack) != "" &&
			strings.TrimSpace(o.Rule) != "" && strings.TrimSpace(parts[2]) != "" {
			o.Kind, o.Setting, o.Value = OverrideUnknown, parts[2], value
			return o, nil
		}
	default:
		msg := "unknown key (expected " + forms + ")"
		if hint, ok := valeKeyHint(key, false); ok {
			msg = hint
		} else if s := suggest.Closest(key, []string{"RunRules", keyFormat, document.KeySkippedScopes, document.KeyBlockIgnores, document.KeyTokenIgnores}, 2); s != "" {
			msg = fmt.Sprintf("unknown key (did you mean %q?)", s)
		}
		return o, &finding.Problem{Field: key, Message: msg}
	}
	if strings.TrimSpace(o.Rule) == "" || (len(parts) > 2 || setting == "") && strings.TrimSpace(o.Pack) == "" {
		return o, &finding.Problem{Field: key, Expected: forms, Found: strconv.Quote(key)}
	}
	switch setting {
	case "":
		switch strings.ToLower(value) {
		case "disabled":
			o.Kind = OverrideDisabled
		case "enabled":
			o.Kind = OverrideEnabled
		default:
			return o, &finding.Problem{Field: key, Expected: `"disabled" or "enabled"`, Found: strconv.Quote(value)}
		}
	case "severity":
		s, err := finding.ParseSeverity(value)
		if err != nil {
			return o, &finding.Problem{Field: key, Expected: finding.SeverityExpected, Found: strconv.Quote(value)}
		}
		o.Kind, o.Severity = OverrideSeverity, s
	case "strictness":
		s, ok := rules.ParseStrictness(value)
		if !ok {
			return o, &finding.Problem{Field: key, Expected: rules.StrictnessExpected, Found: strconv.Quote(value)}
		}
		o.Kind, o.Strictness = OverrideStrictness, s
	}
	return o, nil
}

// iniScan is what a line scan of the file learns that ini.v1 does not keep: the line of every
// section header and key, syntax errors with their line, and keys given twice.
type iniScan struct {
	sectionLine map[string]int
	keyLine     map[string]map[string]int
	problems    finding.Problems
}

func (s *iniScan) line(section, key string) int { return s.keyLine[section][key] }

// scanINI reads the file line by line with the same rules as ini.v1 (comments start with # or
// ;, section names run to the last "]", keys end at the first "=" or ":").
func scanINI(path string, data []byte) *iniScan {
	s := &iniScan{sectionLine: map[string]int{}, keyLine: map[string]map[string]int{}}
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	section := ini.DefaultSection
	for i, raw := range bytes.Split(data, []byte("\n")) {
		line := i + 1
		text := strings.TrimSpace(string(raw))
		switch {
		case text == "" || text[0] == '#' || text[0] == ';':
			continue
		case text[0] == '[':
			end := strings.LastIndexByte(text, ']')
			if end < 0 {
				s.problems = append(s.problems, finding.Problem{File: path, Line: line, Expected: "a section header [GLOB]", Found: strconv.Quote(text)})
				continue
			}
			section = text[1:end]
			if section == "" {
				s.problems = append(s.problems, finding.Problem{File: path, Line: line, Expected: "a file glob between [ and ]", Found: "[]"})
			}
			if _, seen := s.sectionLine[section]; !seen {
				s.sectionLine[section] = line
			}
			continue
		case text[0] == '"' || text[0] == '`':
			s.problems = append(s.problems, finding.Problem{File: path, Line: line, Expected: "KEY = VALUE with an unquoted key", Found: strconv.Quote(text)})
			continue
		}
		eq := strings.IndexAny(text, "=:")
		if eq <= 0 {
			s.problems = append(s.problems, finding.Problem{File: path, Line: line, Expected: "KEY = VALUE, a [GLOB] section header or a # comment", Found: strconv.Quote(text)})
			continue
		}
		if v := strings.TrimSpace(text[eq+1:]); strings.HasPrefix(v, "`") || strings.HasPrefix(v, `"""`) {
			s.problems = append(s.problems, finding.Problem{File: path, Line: line, Field: strings.TrimSpace(text[:eq]),
				Expected: "a one-line value", Found: "a quoted multi-line value"})
			continue
		}
		key := strings.TrimSpace(text[:eq])
		keys := s.keyLine[section]
		if keys == nil {
			keys = map[string]int{}
			s.keyLine[section] = keys
		}
		if first, dup := keys[key]; dup {
			where := "before the first section"
			if section != ini.DefaultSection {
				where = "in section [" + clip(section) + "]"
			}
			s.problems = append(s.problems, finding.Problem{File: path, Line: line, Field: key,
				Message: fmt.Sprintf("set twice %s (first on line %d)", where, first)})
			continue
		}
		keys[key] = line
	}
	return s
}

// FileSettings is what the configuration says about one file.
type FileSettings struct {
	// RelPath is the file's slash-separated path relative to the config file's folder.
	RelPath string
	// Sections are the sections whose glob matches, least specific first.
	Sections []*Section
	// RunRules are the packs of every matching section that sets RunRules, added up from the
	// least specific section to the most specific one (as the original VectorLint's scan-path
	// resolver does), each pack once; an explicit empty "RunRules =" clears the packs of the
	// less specific sections (spec/linter.md §2). RunRulesFrom is the most specific matching
	// section that sets RunRules (nil when none does).
	RunRules     []string
	RunRulesFrom *Section
}

// Settings returns the settings for a file given by its path relative to the config's folder.
func (c *Config) Settings(relPath string) FileSettings {
	relPath = filepath.ToSlash(relPath)
	fs := FileSettings{RelPath: relPath}
	for _, s := range c.Sections {
		if s.glob != "" && doublestar.MatchUnvalidated(s.glob, relPath) {
			fs.Sections = append(fs.Sections, s)
		}
	}
	sortSections(fs.Sections)
	for _, s := range fs.Sections {
		if !s.HasRunRules {
			continue
		}
		fs.RunRulesFrom = s
		if len(s.RunRules) == 0 {
			fs.RunRules = nil // "RunRules =" turns off what less specific sections turned on
			continue
		}
		for _, name := range s.RunRules {
			if !slices.Contains(fs.RunRules, name) {
				fs.RunRules = append(fs.RunRules, name)
			}
		}
	}
	return fs
}

// PackSection returns the most specific matching section whose RunRules names pack (nil when
// none does), for messages about that pack.
func (fs FileSettings) PackSection(pack string) *Section {
	for i := len(fs.Sections) - 1; i >= 0; i-- {
		if slices.Contains(fs.Sections[i].RunRules, pack) {
			return fs.Sections[i]
		}
	}
	return nil
}

// compareSpecificity orders sections from least to most specific (spec/linter.md §2): more
// path segments are more specific, then fewer wildcards, then a longer pattern; on a tie the
// section later in the file wins.
func compareSpecificity(a, b *Section) int {
	return cmp.Or(
		cmp.Compare(strings.Count(a.glob, "/"), strings.Count(b.glob, "/")),
		cmp.Compare(wildcards(b.glob), wildcards(a.glob)),
		cmp.Compare(len(a.glob), len(b.glob)),
		cmp.Compare(a.index, b.index),
	)
}

// wildcards counts the wildcard tokens of a glob: "**", "*", "?", a [class] and a {group}
// count one each.
func wildcards(glob string) int {
	n := 0
	for i := 0; i < len(glob); i++ {
		switch glob[i] {
		case '\\':
			i++
		case '*':
			n++
			if i+1 < len(glob) && glob[i+1] == '*' {
				i++
			}
		case '?':
			n++
		case '[':
			n++
			if j := strings.IndexByte(glob[i:], ']'); j > 0 {
				i += j
			}
		case '{':
			n++
			if j := strings.IndexByte(glob[i:], '}'); j > 0 {
				i += j
			}
		}
	}
	return n
}

// RuleSettings is the effect of the configuration on one rule for one file.
type RuleSettings struct {
	Disabled bool
	// Severity and Strictness are nil when no override applies.
	Severity   *finding.Severity
	Strictness *float64
	// DisabledBy is the override that disabled the rule (for messages).
	DisabledBy *Override
	// Samples is the Samples of the most specific matching section that sets it (0 when none
	// does): Config.SamplesFor gives the number the rule takes.
	Samples int
}

// Rule merges the overrides of the matching sections for a rule, named by its id or one of its
// aliases (rules.Rule.Aliases): less specific sections first, so the most specific one wins;
// within a section "Rule.x" applies before "Pack.Rule.x".
func (fs FileSettings) Rule(pack, id string, aliases ...string) RuleSettings {
	var rs RuleSettings
	for _, s := range fs.Sections {
		if s.Samples > 0 {
			rs.Samples = s.Samples
		}
		for _, qualified := range []bool{false, true} {
			for i := range s.Overrides {
				o := &s.Overrides[i]
				if (o.Rule != id && !slices.Contains(aliases, o.Rule)) || (o.Pack != "") != qualified || (qualified && o.Pack != pack) {
					continue
				}
				switch o.Kind {
				case OverrideDisabled:
					rs.Disabled, rs.DisabledBy = true, o
				case OverrideEnabled:
					rs.Disabled, rs.DisabledBy = false, nil
				case OverrideSeverity:
					sev := o.Severity
					rs.Severity = &sev
				case OverrideStrictness:
					st := o.Strictness
					rs.Strictness = &st
				}
			}
		}
	}
	return rs
}

// Check checks the configuration against the loaded packs: every pack named in RunRules
// must exist (an error: a typo must not silently change what runs), and every override must
// name a rule and a setting it uses; an override that does not is a warning (overrides.go),
// so that configurations written for the original VectorLint keep running.
func Check(cfg *Config, packs []*rules.Pack) finding.Problems {
	return checkConfig(cfg, packs, func(string) bool { return false })
}

// checkConfig is Check for a project that already has problems: incomplete(pack) is true
// for a pack that may be missing or have lost rules because of an error already reported (a
// rule file that did not parse, an unreadable rules folder). Names of such packs, and rule ids
// that could be in them, are not reported again as unknown: the first problem is the one to fix.
// incomplete("") is true when packs may be missing altogether (the rules folder could not be read).
func checkConfig(cfg *Config, packs []*rules.Pack, incomplete func(pack string) bool) finding.Problems {
	var problems finding.Problems
	byName := map[string]*rules.Pack{}
	var names, builtin []string
	for _, p := range packs {
		byName[p.Name] = p
		if p.Builtin {
			builtin = append(builtin, p.Name)
		} else {
			names = append(names, p.Name)
		}
	}
	var found string
	switch {
	case cfg.RulesPath == "" && len(builtin) > 0:
		found = "RulesPath is not set"
	case cfg.RulesPath == "":
		found = "no packs: RulesPath is not set"
	case len(names) == 0:
		found = "no packs found in RulesPath"
	default:
		found = "packs found in RulesPath: " + strings.Join(names, ", ")
	}
	if len(builtin) > 0 {
		found += "; built-in packs: " + strings.Join(builtin, ", ")
	}
	overrides := &overrideChecker{cfg: cfg, packs: packs, byName: byName, found: found, incomplete: incomplete}
	for _, s := range cfg.Sections {
		for _, name := range s.RunRules {
			if byName[name] == nil && !incomplete(name) {
				problems = append(problems, finding.Problem{File: cfg.Path, Line: s.RunRulesLine, Field: "RunRules",
					Message: fmt.Sprintf("unknown pack %q (%s)", name, found)})
			}
		}
		for _, o := range s.Overrides {
			problems = append(problems, overrides.check(o)...)
		}
	}
	return clipQuotes(problems)
}

// IsProblems reports whether err is a list of input problems (as opposed to an I/O failure).
func IsProblems(err error) (finding.Problems, bool) {
	var ps finding.Problems
	ok := errors.As(err, &ps)
	return ps, ok
}

// sortSections orders sections from least to most specific.
func sortSections(secs []*Section) { slices.SortStableFunc(secs, compareSpecificity) }

// providerList is llm.Providers() as "openai, azure-openai, …" for messages.
func providerList() string {
	ps := llm.Providers()
	names := make([]string, len(ps))
	for i, p := range ps {
		names[i] = string(p)
	}
	return strings.Join(names, ", ")
}

// Scopes returns what a file's lint skips: SkippedScopes from the most specific matching
// section that sets it (every scope when none does); the BlockIgnores and TokenIgnores of
// every matching section, least specific first, an empty value clearing those of the less
// specific sections; the Format of the most specific section that sets one.
func (fs FileSettings) Scopes() document.ScopeSettings {
	s := document.DefaultScopeSettings()
	for _, sec := range fs.Sections {
		if sec.HasSkippedScopes {
			s.Skipped = sec.SkippedScopes
		}
		if sec.Format != "" {
			s.Format = sec.Format
		}
		if sec.HasBlockIgnores {
			if len(sec.BlockIgnores) == 0 {
				s.BlockIgnores = nil
			}
			s.BlockIgnores = append(s.BlockIgnores, sec.BlockIgnores...)
		}
		if sec.HasTokenIgnores {
			if len(sec.TokenIgnores) == 0 {
				s.TokenIgnores = nil
			}
			s.TokenIgnores = append(s.TokenIgnores, sec.TokenIgnores...)
		}
	}
	return s
}

// SkipReason says why no rule applies to a file, or "" when rules apply.
func SkipReason(s FileSettings) string {
	switch {
	case len(s.Sections) == 0:
		return "no section of vectorlint.ini matches"
	case s.RunRulesFrom == nil:
		return "no matching section of vectorlint.ini sets RunRules"
	case len(s.RunRules) == 0:
		return fmt.Sprintf("RunRules is empty in [%s]", s.RunRulesFrom.Pattern)
	}
	return ""
}

// CriterionSeverity is the severity of a criterion's findings in a rule whose severity is
// ruleSeverity: the criterion's own, unless the configuration overrode the rule's severity
// (overridden) or the criterion sets none.
func CriterionSeverity(c *rules.Criterion, ruleSeverity finding.Severity, overridden bool) finding.Severity {
	if !overridden && c.Severity != finding.SeverityUnset {
		return c.Severity
	}
	return ruleSeverity
}
