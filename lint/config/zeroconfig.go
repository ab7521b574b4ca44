package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/numfmt"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// StyleGuideFileName is the name of a project's style guide: prose guidelines that are sent to
// the model with every rule, and that zero-config checks every Markdown file against.
const StyleGuideFileName = "VECTORLINT.md"

// styleGuideTokenLimit is the size, in estimated tokens (llm.EstimateTokens), above which a
// style guide gets a warning: it is sent with every rule on every file, so its size multiplies.
const styleGuideTokenLimit = 4000

// zeroConfigGlob is the section of the configuration synthesized for zero-config: every
// Markdown file.
const zeroConfigGlob = "**/*.{md,mdx,markdown}"

// zeroConfigINI is the configuration zero-config runs with: the StyleGuide pack on every
// Markdown file, and not on the style guide itself (the second section is more specific: the
// same depth, fewer wildcards).
const zeroConfigINI = "[" + zeroConfigGlob + "]\nRunRules = " + rules.StyleGuidePackName + "\n" +
	"[**/" + StyleGuideFileName + "]\nRunRules =\n"

// FindProject is discovery for every command that lints: the configuration file (Find:
// --config, $VECTORLINT_CONFIG, else .vectorlint.ini or vectorlint.ini in dir or a parent), the
// style guide (FindStyleGuide) and the project directive (FindDirective). With no configuration
// file but a VECTORLINT.md in dir, the project is zero-config: the options carry no ConfigPath.
// With neither, the error is a *NotFoundError naming the files looked for. The project
// root (ProjectOptions.RootDir) is the configuration file's folder, else dir.
//
// configFlag and configEnv are the values of --config and VECTORLINT_CONFIG ("" when unset);
// dir is the working directory.
func FindProject(dir, configFlag, configEnv string) (ProjectOptions, error) {
	cfgPath, err := Find(dir, configFlag, configEnv)
	var notFound *NotFoundError
	switch {
	case errors.As(err, &notFound):
		guide := FindStyleGuide(dir, "")
		if guide == "" {
			return ProjectOptions{}, err
		}
		return ProjectOptions{StyleGuidePath: guide, DirectivePath: FindDirective(dir, ""), RootDir: dir, WorkDir: dir}, nil
	case err != nil:
		return ProjectOptions{}, err
	}
	return ProjectOptions{ConfigPath: cfgPath, StyleGuidePath: FindStyleGuide(dir, cfgPath),
		DirectivePath: FindDirective(dir, cfgPath), RootDir: filepath.Dir(cfgPath), WorkDir: dir}, nil
}

// FindStyleGuide returns the style guide of a project: VECTORLINT.md in dir (the working
// directory), else VECTORLINT.md beside configPath when configPath is not "". It returns ""
// when there is none. The working directory comes first, as the nearest configuration file
// does: a sub-project's guide beats the one at the repository root.
func FindStyleGuide(dir, configPath string) string {
	candidates := []string{filepath.Join(dir, StyleGuideFileName)}
	if configPath != "" {
		candidates = append(candidates, filepath.Join(filepath.Dir(configPath), StyleGuideFileName))
	}
	for _, path := range candidates {
		if fi, err := os.Stat(path); err == nil && !fi.IsDir() {
			return path
		}
	}
	return ""
}

// ZeroConfig returns the configuration of a project that has a style guide but no
// configuration file: its folder (the style guide's) anchors paths, and one section,
// [**/*.{md,mdx,markdown}], runs the built-in StyleGuide pack, whose rule checks each document
// against the guide. The guide itself is not linted. Config.Path is the style guide's path, so
// messages about the configuration name a file that exists.
func ZeroConfig(styleGuidePath string) *Config {
	cfg, _ := Parse(styleGuidePath, []byte(zeroConfigINI)) // a constant that parses (tested)
	return cfg
}

// readFunc reads a file of the project through its root (ProjectOptions.readFile).
type readFunc func(path string, limit int64) ([]byte, error)

// loadStyleGuide reads a style guide with read. An unreadable file is an error and a guide that is not
// UTF-8 an error problem. An empty guide is an error problem when the guide is all there is to
// run (zero-config), else a warning (it is ignored). A long guide gets a warning
// (styleGuideTokenLimit).
func loadStyleGuide(read readFunc, path string, zeroConfig bool) (string, finding.Problems, error) {
	data, err := read(path, rules.MaxFileSize)
	if err != nil {
		return "", nil, fmt.Errorf("cannot read the style guide: %w", err)
	}
	if bad := rules.FirstInvalidUTF8(data); bad < len(data) {
		line := strings.Count(string(data[:bad]), "\n") + 1
		return "", finding.Problems{{File: path, Line: line, Field: "style guide",
			Expected: "UTF-8 text", Found: "bytes that are not UTF-8"}}, nil
	}
	guide := strings.TrimSpace(strings.TrimPrefix(string(data), "\ufeff"))
	if guide == "" {
		p := finding.Problem{File: path, Field: "style guide",
			Expected: "your writing guidelines in prose (vectorlint init --style-guide writes a template)", Found: "an empty file"}
		if !zeroConfig {
			p.Level, p.Message = finding.LevelWarning, "ignored"
		}
		return "", finding.Problems{p}, nil
	}
	var problems finding.Problems
	if n := llm.EstimateTokens(guide); n > styleGuideTokenLimit {
		problems = append(problems, finding.Problem{File: path, Level: finding.LevelWarning, Field: "style guide",
			Message: fmt.Sprintf("about %s tokens, more than %s: the guide is sent with every rule on every file, so every model call pays for it; keep it short and turn detailed checks into rules",
				numfmt.Thousands(n), numfmt.Thousands(styleGuideTokenLimit))})
	}
	return guide, problems, nil
}

// addBuiltinPacks adds the built-in packs to the user's packs: VectorLint (except in
// zero-config, which runs only the style guide) and StyleGuide when there is a style guide,
// parsed by loader. A user pack with a built-in pack's name replaces it, with a note.
func addBuiltinPacks(loader rules.Loader, packs []*rules.Pack, styleGuide, zeroConfig bool) ([]*rules.Pack, finding.Problems) {
	type builtin struct {
		name string
		load func() ([]*rules.Pack, finding.Problems)
	}
	var builtins []builtin
	if !zeroConfig {
		builtins = append(builtins, builtin{rules.BuiltinPackName, loader.BuiltinPacks})
	}
	if styleGuide {
		builtins = append(builtins, builtin{rules.StyleGuidePackName, func() ([]*rules.Pack, finding.Problems) {
			p, probs := loader.StyleGuidePack()
			return []*rules.Pack{p}, probs
		}})
	}
	var problems finding.Problems
	for _, b := range builtins {
		// A replaced pack is not even parsed: every lint run would pay for it.
		if i := slices.IndexFunc(packs, func(p *rules.Pack) bool { return p.Name == b.name }); i >= 0 {
			problems = append(problems, finding.Problem{File: packs[i].Dir, Level: finding.LevelNote,
				Message: fmt.Sprintf("pack %s replaces the built-in pack of the same name", b.name)})
			continue
		}
		ps, probs := b.load()
		packs = append(packs, ps...)
		problems = append(problems, probs...)
	}
	slices.SortFunc(packs, func(a, b *rules.Pack) int { return strings.Compare(a.Name, b.Name) })
	return packs, problems
}
