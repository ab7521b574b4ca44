package lint

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/internal/safefile"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/rules"
)

// Project is a configuration with its loaded, validated rule packs.
type Project struct {
	// Config is nil when the project was loaded from a rules folder alone (validate --rules).
	Config *Config
	Packs  []*rules.Pack
	// Warnings are problems that do not stop a run.
	Warnings rules.Problems
	// StyleGuide is the project's style guide in prose (VECTORLINT.md), sent to the model with
	// every rule; empty when there is none.
	StyleGuide string
	// StyleGuidePath is the file StyleGuide was read from ("" when there is none).
	StyleGuidePath string
	// Directive is the project's directive (DirectiveFileName), sent to the model with every
	// rule; empty when there is none. DirectivePath is the file it was read from.
	Directive     string
	DirectivePath string
	// ZeroConfig is true when no configuration file was found and Config was synthesized for
	// the style guide alone (see ZeroConfig).
	ZeroConfig bool
}

// ProjectOptions says what LoadProject loads. FindProject fills it for the commands.
type ProjectOptions struct {
	// ConfigPath is the configuration file ("" to load only RulesPath, or for zero-config).
	ConfigPath string
	// RulesPath, when set, replaces the configuration's RulesPath.
	RulesPath string
	// StyleGuidePath is the project's style guide (VECTORLINT.md), "" for none. With no
	// ConfigPath and no RulesPath, the project is zero-config: every Markdown file is checked
	// against the guide (see ZeroConfig).
	StyleGuidePath string
	// DirectivePath is the project's directive (DirectiveFileName), "" for none.
	DirectivePath string
}

// LoadProject loads the configuration, every rule pack, the style guide and the project
// directive, and checks them against each other. All problems are collected before it gives
// up: when any is an error, it returns them all (errors and warnings) as a rules.Problems
// error. Other errors are I/O failures. Rules are parsed with the points engine (a
// rules.Loader with points.Prepare), so a checklist rule's functions are compiled once, as it
// is loaded, and a script that does not compile is a problem of the rule like any other.
//
// A project with a configuration (a file, or zero-config) also gets the built-in packs
// (rules.BuiltinPacks; rules.StyleGuidePack when there is a style guide), unless a pack of
// RulesPath has the same name: the user's pack then replaces the built-in one, with a
// LevelNote problem saying so. A rules folder loaded on its own (RulesPath without ConfigPath)
// gets no built-in packs.
func LoadProject(opts ProjectOptions) (*Project, error) {
	var (
		proj     = &Project{}
		problems rules.Problems
		// The points engine compiles each function point of a `should` list as it is parsed:
		// a rule whose script does not compile is an error of that rule, reported at its line
		// with its other problems, and the compiled functions are kept for scoring. Package
		// rules itself links only the engine's parser.
		ruleLoader = rules.Loader{Prepare: points.Prepare}
	)
	// Packs that an error already reported may have emptied or hidden: the configuration is
	// still checked against the rest, so validate lists every problem at once.
	var (
		rulesUnreadable bool
		incompletePacks = map[string]bool{}
	)
	if opts.StyleGuidePath != "" {
		zeroConfig := opts.ConfigPath == "" && opts.RulesPath == ""
		guide, ps, err := loadStyleGuide(opts.StyleGuidePath, zeroConfig)
		if err != nil {
			return nil, err
		}
		problems = append(problems, ps...)
		incompletePacks[rules.StyleGuidePackName] = ps.HasErrors()
		proj.StyleGuide, proj.StyleGuidePath = guide, opts.StyleGuidePath
		if zeroConfig {
			proj.Config, proj.ZeroConfig = ZeroConfig(opts.StyleGuidePath), true
		}
	}
	if opts.DirectivePath != "" {
		directive, ps, err := loadDirective(opts.DirectivePath)
		if err != nil {
			return nil, err
		}
		problems = append(problems, ps...)
		proj.Directive, proj.DirectivePath = directive, opts.DirectivePath
	}
	rulesPath := opts.RulesPath
	if opts.ConfigPath != "" {
		data, err := safefile.ReadFile(opts.ConfigPath, rules.MaxFileSize)
		if err != nil {
			return nil, fmt.Errorf("cannot read the configuration: %w", err)
		}
		cfg, ps := ParseConfig(opts.ConfigPath, data)
		problems = append(problems, ps...)
		proj.Config = cfg
		if rulesPath == "" {
			rulesPath = cfg.RulesPath
		} else {
			cfg.RulesPath = rulesPath
		}
		if rulesPath != "" && cfg.RulesPathLine > 0 && opts.RulesPath == "" {
			if fi, err := os.Stat(rulesPath); err != nil || !fi.IsDir() {
				problems = append(problems, rules.Problem{File: cfg.Path, Line: cfg.RulesPathLine, Field: "RulesPath",
					Expected: "an existing folder of rule packs (relative to the config file's folder)",
					Found:    fmt.Sprintf("%q, which is not a folder", cfg.RulesPathValue)})
				rulesPath, rulesUnreadable = "", true
			}
		}
	}
	if rulesPath != "" {
		packs, ps, err := ruleLoader.LoadPacks(rulesPath)
		if err != nil {
			if opts.RulesPath != "" {
				return nil, fmt.Errorf("cannot read the rules folder: %w", err)
			}
			problems = append(problems, rules.Problem{File: proj.Config.Path, Line: proj.Config.RulesPathLine,
				Field: "RulesPath", Message: "cannot read the rules folder: " + err.Error()})
			rulesUnreadable = true
		}
		proj.Packs = packs
		problems = append(problems, ps...)
		for _, p := range ps {
			if p.Level != rules.LevelError {
				continue
			}
			if rel, err := filepath.Rel(rulesPath, p.File); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
				incompletePacks[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] = true
			}
		}
	}
	if proj.Config != nil {
		var ps rules.Problems
		proj.Packs, ps = addBuiltinPacks(ruleLoader, proj.Packs, proj.StyleGuide != "", proj.ZeroConfig)
		problems = append(problems, ps...)
	}
	if proj.Config != nil {
		incomplete := func(pack string) bool { return rulesUnreadable || incompletePacks[pack] }
		problems = append(problems, checkConfig(proj.Config, proj.Packs, incomplete)...)
	}
	problems.Sort()
	if problems.HasErrors() {
		return proj, problems
	}
	proj.Warnings = problems
	return proj, nil
}

// Pack returns the project's pack with the given name, or nil.
func (p *Project) Pack(name string) *rules.Pack {
	for _, pk := range p.Packs {
		if pk.Name == name {
			return pk
		}
	}
	return nil
}
