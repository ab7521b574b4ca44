package rules

import (
	"embed"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
)

// The rule packs compiled into the binary. Each folder under builtin/ is one pack; its rule
// files are parsed and validated exactly like a user's (Parse), so a built-in rule obeys the
// same format it documents. builtin/testdata holds sample documents for the tests and is not
// embedded.
//
//go:embed builtin/VectorLint/*.md builtin/StyleGuide/*.md
var builtinFS embed.FS

// Names of the built-in packs.
const (
	// BuiltinPackName is the pack of general writing rules that ships with vectorlint
	// (wordiness, passive voice, inclusive language, ...). "RunRules = VectorLint" works without
	// any RulesPath; a user pack with the same name replaces it.
	BuiltinPackName = "VectorLint"
	// StyleGuidePackName is the pack whose one rule checks a document against the project's
	// style guide (VECTORLINT.md). It is available only when a style guide is found.
	StyleGuidePackName = "StyleGuide"
)

// BuiltinPath is the pseudo-folder that built-in rule paths start with ("(built-in)/VectorLint/
// wordiness.md"), so messages and `vectorlint validate` say where a rule came from.
const BuiltinPath = "(built-in)"

// BuiltinPacks returns the general-purpose built-in packs (today one: VectorLint), parsed and
// validated. Every call parses the embedded files afresh, so callers may change what they get.
// Problems are impossible for the shipped rules (a test loads them) but are returned, never
// hidden, so a broken build cannot run a rule that is not what it says.
func BuiltinPacks() ([]*Pack, finding.Problems) { return Loader{}.BuiltinPacks() }

// BuiltinPacks returns the general-purpose built-in packs, parsed with the loader.
func (l Loader) BuiltinPacks() ([]*Pack, finding.Problems) {
	p, problems := l.loadBuiltinPack(BuiltinPackName)
	return []*Pack{p}, problems
}

// StyleGuidePack returns the built-in StyleGuide pack: one semi-objective rule, "Compliance",
// whose body asks the model to check the text against the style guide that the linter sends
// with every rule (config.Project.StyleGuide).
func StyleGuidePack() (*Pack, finding.Problems) { return Loader{}.StyleGuidePack() }

// StyleGuidePack returns the built-in StyleGuide pack, parsed with the loader.
func (l Loader) StyleGuidePack() (*Pack, finding.Problems) {
	return l.loadBuiltinPack(StyleGuidePackName)
}

// loadBuiltinPack parses the embedded pack folder builtin/name.
func (l Loader) loadBuiltinPack(name string) (*Pack, finding.Problems) {
	dir := "builtin/" + name
	pack := &Pack{Name: name, Builtin: true}
	var problems finding.Problems
	entries, err := fs.ReadDir(builtinFS, dir)
	if err != nil { // impossible: the folder is embedded at build time
		return pack, finding.Problems{{File: path.Join(BuiltinPath, name), Message: "cannot read the built-in pack: " + err.Error()}}
	}
	seen := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || !isRuleFile(e.Name()) {
			continue
		}
		file := path.Join(BuiltinPath, name, e.Name())
		data, err := builtinFS.ReadFile(dir + "/" + e.Name())
		if err != nil {
			problems = append(problems, finding.Problem{File: file, Message: "cannot read the rule: " + err.Error()})
			continue
		}
		r, ps := l.Parse(file, data)
		if r != nil { // also beside other problems: validate lists them all
			ps = append(ps, readExampleFiles(r, e.Name(), builtinExampleReader(name))...)
		}
		problems = append(problems, ps...)
		if r == nil || ps.HasErrors() {
			continue
		}
		r.Pack = name
		if other, dup := seen[r.ID]; dup {
			problems = append(problems, finding.Problem{File: file, Field: "id",
				Expected: fmt.Sprintf("an id unique within pack %s", name),
				Found:    fmt.Sprintf("%q, already used by %s", r.ID, other)})
			continue
		}
		seen[r.ID] = e.Name()
		r.Aliases = builtinAliases(name, r.ID)
		pack.Rules = append(pack.Rules, r)
	}
	slices.SortFunc(pack.Rules, func(a, b *Rule) int { return strings.Compare(a.Path, b.Path) })
	return pack, problems
}

// builtinAliases returns the ids the original VectorLint gives the presets that vectorlint's
// built-in pack names differently (its presets/VectorLint, 2.2 and later), so configurations
// written for it keep working: "VectorLint.AIPattern = disabled" turns VectorLint.AIPatterns
// off. The other presets of the original have the same ids here.
func builtinAliases(pack, id string) []string {
	if pack != BuiltinPackName {
		return nil
	}
	switch id {
	case "AIPatterns":
		return []string{"AIPattern"}
	case "InclusiveLanguage":
		return []string{"Inclusivity"}
	}
	return nil
}

// RetiredBuiltinRule says why a rule id that the built-in VectorLint pack does not have is
// still known: the original VectorLint's presets 2.2 and 2.3 had Directness and PseudoAdvice,
// which its 2.4 removed and vectorlint never had. It returns "" for any other id. A
// configuration that names one gets a warning saying so, not an error (spec/linter.md §2).
func RetiredBuiltinRule(id string) string {
	switch id {
	case "Directness", "PseudoAdvice":
		return "a preset of the original VectorLint 2.2 and 2.3, removed in its 2.4; vectorlint has no such rule"
	}
	return ""
}

// builtinExampleReader reads the example files of the embedded pack name (none is embedded
// today: the built-in rules give their examples as text).
func builtinExampleReader(name string) exampleReader {
	return func(rel string) (string, []byte, error) {
		data, err := builtinFS.ReadFile("builtin/" + name + "/" + rel)
		return path.Join(BuiltinPath, name, rel), data, err
	}
}
