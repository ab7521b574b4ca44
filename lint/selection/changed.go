package selection

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/internal/gitdiff"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/rules"
)

// Linting only what changed (spec/linter.md §11): FindChanges asks git which files differ from
// the merge base with a REF, and Changes.Keep selects the files that changed and the files whose
// rules or configuration changed. The engine's SelectChanged applies that to a plan.

// ChangedOptions configure SelectChanged.
type ChangedOptions struct {
	// Dir is the working directory (the plan's PlanInput.Dir); git runs there.
	Dir string
	// Ref is the branch, tag or commit to compare with: files are compared with the merge base
	// of Ref and HEAD. It may not start with "-".
	Ref string
	// Lines restricts each changed file to its changed lines (--changed-lines).
	Lines bool
	// GitEnv is the environment git runs with (nil: the process's).
	GitEnv []string
}

// ChangeSelection tells what SelectChanged kept.
type ChangeSelection struct {
	// MergeBase is the commit the files were compared with.
	MergeBase string
	// Planned is the number of files the plan had; Files the number kept.
	Planned, Files int
	// Changed, ByRules and ByConfig count the kept files by why they were kept (a file is
	// counted under the first that applies): the file itself changed, a rule pack it runs
	// changed, its settings in the configuration changed.
	Changed, ByRules, ByConfig int
	// Everything says why every file was kept ("" when files were chosen one by one): the
	// style guide changed, the configuration's global settings changed, …
	Everything string
}

// shortHash is the first 12 characters of a commit hash.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Changes is what changed since the merge base, by absolute path (written as the plan's paths
// are): FindChanges reads it from git, Keep decides which files it selects.
type Changes struct {
	repo *gitdiff.Repo
	// base is the merge base the files are compared with.
	base string
	// files are the changed files that exist; removed the paths deleted or renamed away.
	files   map[string]gitdiff.Change
	removed []string
	// configChanged is set when the configuration file changed; configAtBase is then its
	// content at the base (configAtBaseFound false: it did not exist there).
	configChanged     bool
	configAtBase      []byte
	configAtBaseFound bool
}

// FindChanges asks git, in opts.Dir, which files differ from the merge base of opts.Ref and
// HEAD (added, modified, renamed, copied, or untracked and not ignored; a deleted file is gone
// already). configPath is the configuration file ("" for none): when it changed, it is read as
// it was at the merge base.
func FindChanges(ctx context.Context, opts ChangedOptions, configPath string) (*Changes, error) {
	repo, err := gitdiff.Open(ctx, opts.Dir, opts.GitEnv)
	if err != nil {
		return nil, err
	}
	base, err := repo.MergeBase(ctx, opts.Ref)
	if err != nil {
		return nil, err
	}
	changes, err := repo.Changes(ctx, base)
	if err != nil {
		return nil, err
	}
	cs := &Changes{repo: repo, base: base, files: map[string]gitdiff.Change{}}
	for _, c := range changes {
		if c.Exists() {
			cs.files[repo.Abs(c.Path)] = c
		} else {
			cs.removed = append(cs.removed, repo.Abs(c.Path))
		}
		if c.OldPath != "" && c.Status == gitdiff.Renamed {
			cs.removed = append(cs.removed, repo.Abs(c.OldPath))
		}
	}
	if configPath == "" {
		return cs, nil
	}
	c, ok := cs.files[filepath.Clean(configPath)]
	if !ok {
		return cs, nil
	}
	cs.configChanged = true
	old := c.Path
	if c.Status == gitdiff.Renamed || c.Status == gitdiff.Copied {
		old = c.OldPath
	}
	if c.Status != gitdiff.Added && c.Status != gitdiff.Untracked {
		data, err := repo.Show(ctx, base, old)
		if err != nil {
			return nil, fmt.Errorf("reading %s as it was at %s: %w", configPath, shortHash(base), err)
		}
		cs.configAtBase, cs.configAtBaseFound = data, true
	}
	return cs, nil
}

// Lines returns the lines of the changed file at abs that differ from the merge base (all is
// set when the whole file counts as changed).
func (cs *Changes) Lines(ctx context.Context, abs string) (lines gitdiff.Lines, all bool, err error) {
	c, ok := cs.files[abs]
	if !ok {
		return gitdiff.Lines{}, true, nil
	}
	return cs.repo.ChangedLines(ctx, cs.base, c)
}

// SelectedFile is a planned file as Keep sees it: its absolute path (as the plan writes it)
// and its path relative to the configuration file's folder.
type SelectedFile struct {
	Abs, Rel string
}

// Keep says whether Keep keeps a file, and how.
type KeepReason int

// Keep's answers.
const (
	// KeepNot: the file is left out.
	KeepNot KeepReason = iota
	// KeepChanged: the file itself changed (it may be restricted to its changed lines).
	KeepChanged
	// KeepWhole: the file is kept for its rules or configuration, or because everything is:
	// it is evaluated whole.
	KeepWhole
)

// touched reports whether path, or a path under it, changed, was added or was removed.
func (cs *Changes) touched(path string, folder bool) bool {
	path = filepath.Clean(path)
	if _, ok := cs.files[path]; ok {
		return true
	}
	if slices.Contains(cs.removed, path) {
		return true
	}
	if !folder {
		return false
	}
	for p := range cs.files {
		if withinDir(path, p) {
			return true
		}
	}
	return slices.ContainsFunc(cs.removed, func(p string) bool { return withinDir(path, p) })
}

// Keep decides which of files a change selects, in their order, and counts them in the
// returned ChangeSelection:
//
//   - a file that changed is kept;
//   - any file of a rule pack's folder changed, was added or removed: every file that runs the
//     pack (RunRules) is kept whole;
//   - the style guide (VECTORLINT.md) changed: every file, whole;
//   - the configuration file changed: the file is read as it was at the merge base and each
//     file whose effective settings differ (the packs it runs, each rule's enabled/disabled
//     state, severity and strictness, or why it is skipped) is kept whole; a change to a global
//     setting that changes results (RulesPath, DefaultSeverity, ConfidenceThreshold, Provider,
//     Model, BaseURL, Temperature) keeps every file, and so does a configuration that did not
//     exist at the base or could not be parsed there. Concurrency, Timeout and CacheMaxSize
//     change no result and keep nothing.
func (cs *Changes) Keep(proj *config.Project, files []SelectedFile) ([]KeepReason, ChangeSelection) {
	sel := ChangeSelection{MergeBase: cs.base, Planned: len(files)}
	cfg := proj.Config
	old := cs.everything(proj, &sel)
	changedPacks := map[string]bool{}
	byName := map[string]*rules.Pack{}
	for _, pk := range proj.Packs {
		byName[pk.Name] = pk
		if pk.Dir != "" && cs.touched(pk.Dir, true) {
			changedPacks[pk.Name] = true
		}
	}
	keep := make([]KeepReason, len(files))
	for i, f := range files {
		_, changed := cs.files[f.Abs]
		switch {
		case sel.Everything != "":
			keep[i] = KeepWhole
			if changed {
				sel.Changed++
			}
		case changed:
			keep[i] = KeepChanged
			sel.Changed++
		case cfg != nil && slices.ContainsFunc(cfg.Settings(f.Rel).RunRules, func(name string) bool { return changedPacks[name] }):
			keep[i] = KeepWhole
			sel.ByRules++
		case old != nil && settingsFingerprint(old, byName, f.Rel) != settingsFingerprint(cfg, byName, f.Rel):
			keep[i] = KeepWhole
			sel.ByConfig++
		default:
			continue
		}
		sel.Files++
	}
	return keep, sel
}

// everything sets sel.Everything when a change selects every file (the style guide, the
// configuration's global settings); otherwise it returns the configuration as it was at the
// merge base when it changed (nil when it did not).
func (cs *Changes) everything(proj *config.Project, sel *ChangeSelection) (old *config.Config) {
	if proj.StyleGuidePath != "" && cs.touched(proj.StyleGuidePath, false) {
		sel.Everything = "the style guide " + filepath.Base(proj.StyleGuidePath) + " changed"
		return nil
	}
	cfg := proj.Config
	if !cs.configChanged || cfg == nil {
		return nil
	}
	name := filepath.Base(cfg.Path)
	if !cs.configAtBaseFound {
		sel.Everything = name + " did not exist at the merge base"
		return nil
	}
	o, problems := config.Parse(cfg.Path, cs.configAtBase)
	switch {
	case problems.HasErrors():
		sel.Everything = name + " could not be read as it was at the merge base"
	case globalChange(o, cfg) != "":
		sel.Everything = name + ": " + globalChange(o, cfg) + " changed"
	default:
		return o
	}
	return nil
}

// globalChange names the first global setting that differs between two configurations and
// can change results, or "".
func globalChange(a, b *config.Config) string {
	eqf := func(x, y *float64) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	switch {
	case a.RulesPath != b.RulesPath:
		return "RulesPath"
	case a.DefaultSeverity != b.DefaultSeverity:
		return "DefaultSeverity"
	case a.ConfidenceThreshold != b.ConfidenceThreshold || a.ConfidenceThresholdSet != b.ConfidenceThresholdSet:
		return "ConfidenceThreshold"
	case a.Provider != b.Provider:
		return "Provider"
	case a.Model != b.Model:
		return "Model"
	case a.BaseURL != b.BaseURL:
		return "BaseURL"
	case !eqf(a.Temperature, b.Temperature):
		return "Temperature"
	}
	return ""
}

// settingsFingerprint is everything the configuration decides for a file, as text: why it is
// skipped, or the packs it runs and, for each rule of them, whether it is on and its severity
// and strictness overrides. Two configurations treat a file alike when its fingerprints are
// equal.
func settingsFingerprint(cfg *config.Config, packs map[string]*rules.Pack, rel string) string {
	s := cfg.Settings(rel)
	if reason := config.SkipReason(s); reason != "" {
		return "skip: " + reason
	}
	var b strings.Builder
	for _, name := range s.RunRules {
		fmt.Fprintf(&b, "[%s]", name)
		pk := packs[name]
		if pk == nil {
			continue
		}
		for _, r := range pk.Rules {
			rs := s.Rule(pk.Name, r.ID)
			fmt.Fprintf(&b, " %s:%v", r.ID, rs.Disabled)
			if rs.Severity != nil {
				fmt.Fprintf(&b, ",severity=%s", *rs.Severity)
			}
			if rs.Strictness != nil {
				fmt.Fprintf(&b, ",strictness=%g", *rs.Strictness)
			}
		}
	}
	return b.String()
}

// withinDir reports whether path is dir or under it.
func withinDir(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
