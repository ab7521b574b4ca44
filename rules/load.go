package rules

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// MaxFileSize is the largest rule file, configuration file (vectorlint.ini) or style guide
// read, in bytes (10 MiB): a larger one is an error naming the file, not a run that runs out of
// memory.
const MaxFileSize = 10 << 20

// LoadPacks reads every pack under rulesPath: each immediate subfolder is a pack, and every
// ".md" file below it (recursively, skipping hidden entries) except README.md and the files
// below a folder named "examples" (ExamplesFolder: rule examples) is a rule. The files that
// rules name as examples are read too, and must lie inside their pack.
//
// Rules with errors are left out of their pack and reported in the problems, together with
// warnings; the error return is for a rulesPath that cannot be read at all. Packs are sorted
// by name, rules by path. It is Loader{}.LoadPacks (see Loader).
func LoadPacks(rulesPath string) ([]*Pack, finding.Problems, error) {
	return Loader{}.LoadPacks(rulesPath)
}

// LoadPacks reads every pack under rulesPath as the package-level LoadPacks does, parsing each
// rule with the loader, through l.Root: rulesPath itself must resolve inside it (a *tree
// .LeavesRootError otherwise), and so must every pack folder and rule file.
func (l Loader) LoadPacks(rulesPath string) ([]*Pack, finding.Problems, error) {
	root := l.Root
	if root == nil {
		r, err := tree.Open(rulesPath)
		if err != nil {
			return nil, nil, err
		}
		defer r.Close()
		root = r
	}
	inside, err := root.Resolve(rulesPath)
	if err != nil {
		return nil, nil, err
	}
	entries, err := root.ReadDir(rulesPath)
	if err != nil {
		return nil, nil, err
	}
	var (
		packs    []*Pack
		problems finding.Problems
	)
	for _, e := range entries {
		if isHidden(e.Name()) {
			continue
		}
		path := filepath.Join(rulesPath, e.Name())
		isDir := e.IsDir()
		if e.Type()&fs.ModeSymlink != 0 {
			if reason := linkOutside(root, path, inside); reason != "" {
				if isRuleFile(e.Name()) || reason != linkMissing {
					problems = append(problems, finding.Problem{File: path, Level: finding.LevelWarning, Message: "ignored: " + reason})
				}
				continue
			}
			if fi, err := root.Stat(path); err == nil {
				isDir = fi.IsDir()
			}
		}
		if !isDir {
			if isRuleFile(e.Name()) {
				problems = append(problems, finding.Problem{File: path, Level: finding.LevelWarning,
					Message: "ignored: a rule file must be inside a pack folder (RulesPath/Pack/rule.md)"})
			}
			continue
		}
		if strings.ContainsAny(e.Name(), ".,") {
			problems = append(problems, finding.Problem{File: path, Field: "pack name",
				Message:  "pack folder names appear in rule ids (Pack.Rule) and RunRules lists",
				Expected: "a name without '.' or ','", Found: fmt.Sprintf("%q", e.Name())})
			continue
		}
		pack, ps, err := l.loadPack(root, e.Name(), path, inside)
		problems = append(problems, ps...)
		if err != nil {
			problems = append(problems, finding.Problem{File: path, Message: "cannot read the pack: " + err.Error()})
			continue
		}
		packs = append(packs, pack)
	}
	slices.SortFunc(packs, func(a, b *Pack) int { return strings.Compare(a.Name, b.Name) })
	problems.Sort()
	return packs, problems, nil
}

// loadPack reads the rules of one pack folder through root. A rule file that is a symbolic link
// is read only when its target is a regular file inside the rules folder (inside, resolved and
// root-relative): a rule's body is sent to the model, so a link out of the tree (to a key file,
// to /proc/self/environ) must not become a rule.
func (l Loader) loadPack(root *tree.Root, name, dir, inside string) (*Pack, finding.Problems, error) {
	pack := &Pack{Name: name, Dir: dir}
	var (
		problems finding.Problems
		files    []string
	)
	err := root.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if path != dir && isHidden(d.Name()) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path != dir && d.IsDir() && d.Name() == ExamplesFolder {
			return filepath.SkipDir // rule examples, never rules
		}
		if d.IsDir() || !isRuleFile(d.Name()) {
			return nil
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if reason := linkOutside(root, path, inside); reason != "" {
				problems = append(problems, finding.Problem{File: path, Level: finding.LevelWarning, Message: "ignored: " + reason})
				return nil
			}
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	slices.Sort(files)
	seen := map[string]string{}
	for _, path := range files {
		data, err := root.ReadFile(path, MaxFileSize)
		if err != nil {
			problems = append(problems, finding.Problem{File: path, Message: "cannot read the rule: " + pathErrorReason(err)})
			continue
		}
		r, ps := l.Parse(path, data)
		if r != nil { // also beside other problems: validate lists them all
			rel, _ := filepath.Rel(dir, path)
			ps = append(ps, readExampleFiles(r, filepath.ToSlash(rel), packExampleReader(root, dir))...)
		}
		problems = append(problems, ps...)
		if r == nil || ps.HasErrors() {
			continue
		}
		r.Pack = name
		if other, dup := seen[r.ID]; dup {
			problems = append(problems, finding.Problem{File: path, Field: "id",
				Expected: fmt.Sprintf("an id unique within pack %s", name),
				Found:    fmt.Sprintf("%q, already used by %s", r.ID, other)})
			continue
		}
		seen[r.ID], _ = filepath.Rel(dir, path)
		pack.Rules = append(pack.Rules, r)
	}
	if len(files) == 0 {
		problems = append(problems, finding.Problem{File: dir, Level: finding.LevelWarning, Message: fmt.Sprintf("pack %s has no rule files", name)})
	}
	return pack, problems, nil
}

// linkMissing is linkOutside's reason for a link whose target does not exist.
const linkMissing = "a symbolic link that cannot be followed (no such file or directory)"

// linkOutside returns why the symbolic link at path is not followed: its target is missing or
// resolves outside the rules folder inside (resolved, root-relative), or out of the root
// altogether. "" when the link may be followed; what the target is (a regular file or not) is
// checked when it is read.
func linkOutside(root *tree.Root, path, inside string) string {
	resolved, err := root.Resolve(path)
	var le *tree.LeavesRootError
	switch {
	case errors.As(err, &le):
		// The target's name, for the message only: nothing of it is read.
		target, terr := filepath.EvalSymlinks(path)
		if terr != nil {
			target = "a place outside the project root " + le.Root
		}
		return "a symbolic link to " + target + ", outside the rules folder " + root.Resolved(inside) + ": only links inside it are followed"
	case err != nil:
		return "a symbolic link that cannot be followed (" + pathErrorReason(err) + ")"
	}
	if _, err := root.Stat(path); err != nil {
		return "a symbolic link that cannot be followed (" + pathErrorReason(err) + ")"
	}
	if !tree.Within(inside, resolved) {
		return "a symbolic link to " + root.Resolved(resolved) + ", outside the rules folder " + root.Resolved(inside) + ": only links inside it are followed"
	}
	return ""
}

// pathErrorReason is err without the path an *fs.PathError repeats (the problem names the file).
func pathErrorReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func isHidden(name string) bool { return strings.HasPrefix(name, ".") }

// isRuleFile reports whether a file name is a rule: ".md", and not a README.
func isRuleFile(name string) bool {
	ext := filepath.Ext(name)
	return strings.EqualFold(ext, ".md") && !strings.EqualFold(name, "README.md")
}

// SearchModelConfigured reports whether a search model for `evaluator: technical-accuracy` is
// configured in the environment: PERPLEXITY_API_KEY (Perplexity's sonar-pro by default), or
// SEARCH_MODEL with PERPLEXITY_BASE_URL (any OpenAI-compatible search-capable endpoint).
// lookupEnv is os.LookupEnv in the command; the package itself never reads the environment.
func SearchModelConfigured(lookupEnv func(string) (string, bool)) bool {
	nonEmpty := func(k string) bool { v, ok := lookupEnv(k); return ok && v != "" }
	return nonEmpty("PERPLEXITY_API_KEY") || (nonEmpty("SEARCH_MODEL") && nonEmpty("PERPLEXITY_BASE_URL"))
}

// SearchModelHelp names the variables that configure a search model, for messages.
const SearchModelHelp = "set PERPLEXITY_API_KEY, or SEARCH_MODEL with PERPLEXITY_BASE_URL"

// ErrNoSearchModel is the reason a technical-accuracy rule cannot run: no search model is
// configured (see SearchModelConfigured).
var ErrNoSearchModel = errors.New("evaluator technical-accuracy needs a search model: " + SearchModelHelp)

// CheckRunnable reports a rule that cannot run in the current environment: a
// technical-accuracy rule without a search model. It returns nil when the rule can run.
func CheckRunnable(r *Rule, searchModel bool) *finding.Problem {
	if r.Evaluator == EvaluatorTechnicalAccuracy && !searchModel {
		return &finding.Problem{File: r.Path, Field: "evaluator",
			Message: fmt.Sprintf("rule %s cannot run: %v", r.FullID(), ErrNoSearchModel)}
	}
	return nil
}
