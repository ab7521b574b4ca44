package config

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/rules"
)

// Listing is a project's resolved configuration, as `vectorlint ls-config` prints it
// (Vale's ls-config prints its resolved configuration as JSON too): the global settings with
// their defaults applied, the packs, the sections, and for each file asked about what applies
// to it. Paths are as the project has them (absolute); the command shows them relative.
type Listing struct {
	Config              string           `json:"config"`
	ZeroConfig          bool             `json:"zeroConfig,omitempty"`
	RulesPath           string           `json:"rulesPath,omitempty"`
	StyleGuide          string           `json:"styleGuide,omitempty"`
	Directive           string           `json:"directive,omitempty"`
	Concurrency         int              `json:"concurrency"`
	DefaultSeverity     finding.Severity `json:"defaultSeverity"`
	ConfidenceThreshold float64          `json:"confidenceThreshold"`
	Provider            string           `json:"provider,omitempty"`
	Model               string           `json:"model,omitempty"`
	BaseURL             string           `json:"baseURL,omitempty"`
	Temperature         *float64         `json:"temperature,omitempty"`
	Timeout             string           `json:"timeout,omitempty"`
	// Samples and Models are the global keys (absent when not set).
	Samples  int              `json:"samples,omitempty"`
	Models   []string         `json:"models,omitempty"`
	Packs    []PackListing    `json:"packs"`
	Sections []SectionListing `json:"sections"`
	Files    []FileListing    `json:"files,omitempty"`
}

// PackListing is one loaded pack.
type PackListing struct {
	Name    string `json:"name"`
	Dir     string `json:"dir,omitempty"`
	Builtin bool   `json:"builtin,omitempty"`
	Rules   int    `json:"rules"`
}

// SectionListing is one [GLOB] section as written.
type SectionListing struct {
	Glob string `json:"glob"`
	Line int    `json:"line"`
	// RunRules is absent when the section does not set it, [] when it sets it empty.
	RunRules  *[]string `json:"runRules,omitempty"`
	Overrides []string  `json:"overrides,omitempty"`
	// Samples is the section's Samples (absent when it sets none).
	Samples int `json:"samples,omitempty"`
}

// FileListing is what the configuration says about one file.
type FileListing struct {
	// Path is the file as asked about; RelPath the path the section globs match.
	Path    string `json:"path"`
	RelPath string `json:"relPath"`
	// Sections are the matching sections' globs, least specific first.
	Sections []string `json:"sections"`
	RunRules []string `json:"runRules"`
	// Format is the format the file is read in (spec/linter.md §14): a Format name.
	Format string `json:"format"`
	// Skipped says why no rule runs on the file ("" when rules run).
	Skipped string `json:"skipped,omitempty"`
	// Rules are the rules that run, with their effective settings; Disabled those turned off.
	Rules         []RuleListing     `json:"rules"`
	Disabled      []DisabledListing `json:"disabled,omitempty"`
	SkippedScopes []string          `json:"skippedScopes"`
	BlockIgnores  []string          `json:"blockIgnores,omitempty"`
	TokenIgnores  []string          `json:"tokenIgnores,omitempty"`
	// Error is an unknown pack in RunRules.
	Error string `json:"error,omitempty"`
}

// RuleListing is one rule as it runs on a file.
type RuleListing struct {
	ID         string             `json:"id"`
	Type       finding.RuleType   `json:"type"`
	Severity   finding.Severity   `json:"severity"`
	Strictness float64            `json:"strictness"`
	File       string             `json:"file"`
	Criteria   []CriterionListing `json:"criteria,omitempty"`
	// Samples is the number of samples each model evaluation of the rule takes on the file,
	// when more than one (docs/configuration.md, "Samples and majority"); absent for one, and
	// for a checklist, whose judged points take one.
	Samples int `json:"samples,omitempty"`
}

// CriterionListing is a criterion with the severity its rating-1 findings get.
type CriterionListing struct {
	ID       string           `json:"id"`
	Weight   float64          `json:"weight"`
	Severity finding.Severity `json:"severity"`
}

// DisabledListing is a rule turned off for a file, and the override that did it.
type DisabledListing struct {
	ID string `json:"id"`
	By string `json:"by"`
}

// ListConfig resolves the project's configuration, and what it says about each file of rels
// (paths relative to the configuration's folder; the listing shows them as given in paths).
func (p *Project) ListConfig(paths, rels []string) Listing {
	cfg := p.Config
	if cfg == nil {
		cfg = &Config{Concurrency: DefaultConcurrency, DefaultSeverity: finding.SeverityWarning,
			ConfidenceThreshold: DefaultConfidenceThreshold}
	}
	l := Listing{Config: cfg.Path, ZeroConfig: p.ZeroConfig, RulesPath: cfg.RulesPath,
		StyleGuide: p.StyleGuidePath, Directive: p.DirectivePath, Concurrency: cfg.Concurrency,
		DefaultSeverity: cfg.DefaultSeverity, ConfidenceThreshold: cfg.ConfidenceThreshold,
		Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, Temperature: cfg.Temperature,
		Samples: cfg.Samples, Models: cfg.Models, Packs: []PackListing{}, Sections: []SectionListing{}}
	if cfg.Timeout > 0 {
		l.Timeout = cfg.Timeout.Round(time.Millisecond).String()
	}
	byName := map[string]*rules.Pack{}
	for _, pk := range p.Packs {
		byName[pk.Name] = pk
		l.Packs = append(l.Packs, PackListing{Name: pk.Name, Dir: pk.Dir, Builtin: pk.Builtin, Rules: len(pk.Rules)})
	}
	for _, s := range cfg.Sections {
		sl := SectionListing{Glob: s.Pattern, Line: s.Line, Samples: s.Samples}
		if s.HasRunRules {
			packs := append([]string{}, s.RunRules...)
			sl.RunRules = &packs
		}
		for _, o := range s.Overrides {
			sl.Overrides = append(sl.Overrides, o.Key)
		}
		l.Sections = append(l.Sections, sl)
	}
	for i, rel := range rels {
		l.Files = append(l.Files, listFile(cfg, byName, paths[i], filepath.ToSlash(rel)))
	}
	return l
}

// listFile resolves one file's settings as a lint run does (BuildPlan's resolveRules).
func listFile(cfg *Config, byName map[string]*rules.Pack, path, rel string) FileListing {
	fs := cfg.Settings(rel)
	fl := FileListing{Path: path, RelPath: rel, Sections: []string{}, RunRules: fs.RunRules, Rules: []RuleListing{},
		Skipped: SkipReason(fs)}
	if fl.RunRules == nil {
		fl.RunRules = []string{}
	}
	for _, s := range fs.Sections {
		fl.Sections = append(fl.Sections, s.Pattern)
	}
	sc := fs.Scopes()
	fl.Format = sc.Syntax(rel).FormatName()
	fl.SkippedScopes = append([]string{}, sc.Skipped...)
	for _, ip := range sc.BlockIgnores {
		fl.BlockIgnores = append(fl.BlockIgnores, ip.Source)
	}
	for _, ip := range sc.TokenIgnores {
		fl.TokenIgnores = append(fl.TokenIgnores, ip.Source)
	}
	for _, name := range fs.RunRules {
		pack := byName[name]
		if pack == nil {
			fl.Error = fmt.Sprintf("RunRules: unknown pack %q", name)
			continue
		}
		for _, r := range pack.Rules {
			rs := fs.Rule(pack.Name, r.ID, r.Aliases...)
			if rs.Disabled {
				by := ""
				if o := rs.DisabledBy; o != nil {
					by = fmt.Sprintf("%s:%d: %s", filepath.Base(cfg.Path), o.Line, o.Key)
				}
				fl.Disabled = append(fl.Disabled, DisabledListing{ID: r.FullID(), By: by})
				continue
			}
			severity, overridden, strictness := cfg.DefaultSeverity, false, r.Strictness
			if r.Severity != finding.SeverityUnset {
				severity = r.Severity
			}
			if rs.Severity != nil {
				severity, overridden = *rs.Severity, true
			}
			if rs.Strictness != nil {
				strictness = *rs.Strictness
			}
			rl := RuleListing{ID: r.FullID(), Type: r.Type, Severity: severity, Strictness: strictness, File: r.Path}
			if n := cfg.SamplesFor(rs); n > 1 && r.Kind() != rules.KindChecklist {
				rl.Samples = n
			}
			for _, c := range r.Criteria {
				rl.Criteria = append(rl.Criteria, CriterionListing{ID: c.ID, Weight: c.Weight, Severity: CriterionSeverity(c, severity, overridden)})
			}
			fl.Rules = append(fl.Rules, rl)
		}
	}
	return fl
}
