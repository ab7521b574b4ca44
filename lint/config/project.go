package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/rules"
)

// Project is a configuration with its loaded, validated rule packs.
type Project struct {
	// Config is nil when the project was loaded from a rules folder alone (validate --rules).
	Config *Config
	Packs  []*rules.Pack
	// Warnings are problems that do not stop a run.
	Warnings finding.Problems
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
	// Root is the project root every file of the project and every document is read through,
	// and every file written (internal/tree; spec/trust.md §6): the configuration file's
	// folder, else the working directory. LoadProject opens it; Close closes it.
	Root *tree.Root
}

// Close closes the project's root. A nil Project closes without error.
func (p *Project) Close() error {
	if p == nil {
		return nil
	}
	return p.Root.Close()
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
	// RootDir is the project root (Project.Root): FindProject sets it to the configuration
	// file's folder, else the working directory. When empty, LoadProject takes ConfigPath's
	// folder, else StyleGuidePath's, else RulesPath's parent.
	RootDir string
	// WorkDir is the working directory discovery started from. A style guide or directive
	// found there while it lies outside the project root (--config naming a file elsewhere) is
	// read through a root of its own at WorkDir.
	WorkDir string
}

// rootDir is the folder the project root is opened at.
func (o ProjectOptions) rootDir() string {
	switch {
	case o.RootDir != "":
		return o.RootDir
	case o.ConfigPath != "":
		return filepath.Dir(o.ConfigPath)
	case o.StyleGuidePath != "":
		return filepath.Dir(o.StyleGuidePath)
	}
	return filepath.Dir(o.RulesPath)
}

// readFile reads a file of the project: through the root when it lies inside it; a style guide
// or directive found in the working directory outside the root, through a root at the working
// directory; a path the user named outside the root (validate --rules), through a root at its
// own folder (tree.Root.Named).
func (o ProjectOptions) readFile(root *tree.Root, path string, limit int64) ([]byte, error) {
	if root.Contains(path) {
		return root.ReadFile(path, limit)
	}
	dir := filepath.Dir(path)
	if o.WorkDir != "" {
		if wd, err := tree.Open(o.WorkDir); err == nil {
			defer wd.Close()
			if wd.Contains(path) {
				return wd.ReadFile(path, limit)
			}
		}
	}
	r, err := tree.Open(dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.ReadFile(path, limit)
}

// LoadProject loads the configuration, every rule pack, the style guide and the project
// directive, and checks them against each other. All problems are collected before it gives
// up: when any is an error, it returns them all (errors and warnings) as a finding.Problems
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
	root, err := tree.Open(opts.rootDir())
	if err != nil {
		return nil, fmt.Errorf("cannot open the project root: %w", err)
	}
	l := &projectLoad{
		opts: opts,
		root: root,
		proj: &Project{Root: root},
		// The points engine compiles each function point of a `should` list as it is parsed:
		// a rule whose script does not compile is an error of that rule, reported at its line
		// with its other problems, and the compiled functions are kept for scoring. Package
		// rules itself links only the engine's parser.
		ruleLoader:      rules.Loader{Prepare: points.Prepare, Root: root},
		incompletePacks: map[string]bool{},
	}
	fail := func(err error) (*Project, error) {
		root.Close()
		return nil, err
	}
	if err := l.guideAndDirective(); err != nil {
		return fail(err)
	}
	rulesPath, err := l.configFile()
	if err != nil {
		return fail(err)
	}
	closeRules, err := l.rules(rulesPath)
	if err != nil {
		return fail(err)
	}
	defer closeRules()
	return l.finish()
}

// projectLoad is LoadProject's work in progress.
type projectLoad struct {
	opts       ProjectOptions
	root       *tree.Root
	proj       *Project
	ruleLoader rules.Loader
	problems   finding.Problems
	// Packs that an error already reported may have emptied or hidden: the configuration is
	// still checked against the rest, so validate lists every problem at once.
	rulesUnreadable bool
	incompletePacks map[string]bool
}

// read reads a file of the project through its root.
func (l *projectLoad) read(path string, limit int64) ([]byte, error) {
	return l.opts.readFile(l.root, path, limit)
}

// guideAndDirective loads the style guide (a zero-config project's configuration with it) and
// the directive.
func (l *projectLoad) guideAndDirective() error {
	opts, proj := l.opts, l.proj
	if opts.StyleGuidePath != "" {
		zeroConfig := opts.ConfigPath == "" && opts.RulesPath == ""
		guide, ps, err := loadStyleGuide(l.read, opts.StyleGuidePath, zeroConfig)
		if err != nil {
			return err
		}
		l.problems = append(l.problems, ps...)
		l.incompletePacks[rules.StyleGuidePackName] = ps.HasErrors()
		proj.StyleGuide, proj.StyleGuidePath = guide, opts.StyleGuidePath
		if zeroConfig {
			proj.Config, proj.ZeroConfig = ZeroConfig(opts.StyleGuidePath), true
		}
	}
	if opts.DirectivePath != "" {
		directive, ps, err := loadDirective(l.read, opts.DirectivePath)
		if err != nil {
			return err
		}
		l.problems = append(l.problems, ps...)
		proj.Directive, proj.DirectivePath = directive, opts.DirectivePath
	}
	return nil
}

// configFile reads and parses the configuration file, if any, and returns the rules folder to
// load ("" for none: not set, or reported as a problem).
func (l *projectLoad) configFile() (rulesPath string, _ error) {
	opts := l.opts
	rulesPath = opts.RulesPath
	if opts.ConfigPath == "" {
		return rulesPath, nil
	}
	data, err := l.root.ReadFile(opts.ConfigPath, rules.MaxFileSize)
	if err != nil {
		return "", fmt.Errorf("cannot read the configuration: %w", err)
	}
	cfg, ps := Parse(opts.ConfigPath, data)
	l.problems = append(l.problems, ps...)
	l.proj.Config = cfg
	if rulesPath == "" {
		rulesPath = cfg.RulesPath
	} else {
		cfg.RulesPath = rulesPath
	}
	if rulesPath != "" && cfg.RulesPathLine > 0 && opts.RulesPath == "" {
		if p := rulesPathOutside(l.root, cfg); p != nil {
			l.problems = append(l.problems, *p)
			rulesPath, l.rulesUnreadable = "", true
		} else if fi, err := l.root.Stat(rulesPath); err != nil || !fi.IsDir() {
			l.problems = append(l.problems, finding.Problem{File: cfg.Path, Line: cfg.RulesPathLine, Field: "RulesPath",
				Expected: "an existing folder of rule packs (relative to the config file's folder)",
				Found:    fmt.Sprintf("%q, which is not a folder", cfg.RulesPathValue)})
			rulesPath, l.rulesUnreadable = "", true
		}
	}
	return rulesPath, nil
}

// rules loads the rule packs of rulesPath ("" loads none). The returned function closes what
// reading a folder named on the command line opened; it is called when the project is loaded.
func (l *projectLoad) rules(rulesPath string) (closeRules func(), _ error) {
	closeRules = func() {}
	if rulesPath == "" {
		return closeRules, nil
	}
	loader, loadPath := l.ruleLoader, rulesPath
	if l.opts.RulesPath != "" {
		// --rules names the folder on the command line: the user's choice, also outside
		// the project root (through a root of its own there).
		named, err := l.root.Named(rulesPath)
		if err != nil {
			return closeRules, fmt.Errorf("cannot read the rules folder: %w", err)
		}
		closeRules = func() { named.Close() }
		loader.Root, loadPath = named.Root, named.Path
	}
	packs, ps, err := loader.LoadPacks(loadPath)
	if err != nil {
		if l.opts.RulesPath != "" {
			closeRules()
			return func() {}, fmt.Errorf("cannot read the rules folder: %w", err)
		}
		l.problems = append(l.problems, finding.Problem{File: l.proj.Config.Path, Line: l.proj.Config.RulesPathLine,
			Field: "RulesPath", Message: "cannot read the rules folder: " + err.Error()})
		l.rulesUnreadable = true
	}
	l.proj.Packs = packs
	l.problems = append(l.problems, ps...)
	for _, p := range ps {
		if p.Level != finding.LevelError {
			continue
		}
		if rel, err := filepath.Rel(loadPath, p.File); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			l.incompletePacks[strings.SplitN(filepath.ToSlash(rel), "/", 2)[0]] = true
		}
	}
	return closeRules, nil
}

// finish adds the built-in packs, checks the configuration against the packs and returns the
// project with its warnings, or with its problems when one is an error.
func (l *projectLoad) finish() (*Project, error) {
	proj := l.proj
	if proj.Config != nil {
		var ps finding.Problems
		proj.Packs, ps = addBuiltinPacks(l.ruleLoader, proj.Packs, proj.StyleGuide != "", proj.ZeroConfig)
		l.problems = append(l.problems, ps...)
		incomplete := func(pack string) bool { return l.rulesUnreadable || l.incompletePacks[pack] }
		l.problems = append(l.problems, checkConfig(proj.Config, proj.Packs, incomplete)...)
	}
	l.problems.Sort()
	if l.problems.HasErrors() {
		return proj, l.problems
	}
	proj.Warnings = l.problems
	return proj, nil
}

// rulesPathOutside is the problem of a configuration whose RulesPath resolves outside the
// project root (absolute, through "..", or through a symbolic link): the rules would be read
// from, and sent to the model from, wherever the repository points. nil when it is inside.
func rulesPathOutside(root *tree.Root, cfg *Config) *finding.Problem {
	_, err := root.Resolve(cfg.RulesPath)
	var le *tree.LeavesRootError
	if !errors.As(err, &le) {
		return nil
	}
	found := fmt.Sprintf("%q, which is outside it", cfg.RulesPathValue)
	if le.Link != "" {
		found = fmt.Sprintf("%q, which leads outside it through the symbolic link %s", cfg.RulesPathValue, le.Link)
	}
	return &finding.Problem{File: cfg.Path, Line: cfg.RulesPathLine, Field: "RulesPath",
		Message:  "rule packs are read from inside the project only; to share packs across repositories, vendor them into a folder of the repository or add them as a git submodule",
		Expected: "a folder inside the project root " + root.Dir(),
		Found:    found}
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
