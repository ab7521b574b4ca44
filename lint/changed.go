package lint

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/internal/gitdiff"
	"github.com/vectorlint/vectorlint/internal/process"
	"github.com/vectorlint/vectorlint/rules"
)

// Linting only what changed (spec/linter.md §11): SelectChanged asks git which files differ
// from the merge base with a REF and keeps, of a plan, the files that changed and the files
// whose rules or configuration changed. With ChangedOptions.Lines, each file that changed is
// then evaluated only where it changed: a rule runs on it only when one of its texts holds a
// changed line, only the chunks holding one are sent, only findings on changed lines are
// reported, and a score computed from part of a text says so (Score.Partial).

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

// SelectChanged keeps the files of plan that differ from the merge base of opts.Ref and HEAD
// (added, modified, renamed, copied, or untracked and not ignored; a deleted file is gone
// already), plus the files whose rules or configuration changed:
//
//   - any file of a rule pack's folder changed, was added or removed: every file that runs the
//     pack (RunRules) is kept;
//   - the style guide (VECTORLINT.md) changed: every file;
//   - the configuration file changed: the file is read as it was at the merge base and each
//     planned file whose effective settings differ (the packs it runs, each rule's
//     enabled/disabled state, severity and strictness, or why it is skipped) is kept; a change
//     to a global setting that changes results (RulesPath, DefaultSeverity, ConfidenceThreshold,
//     Provider, Model, BaseURL, Temperature) keeps every file, and so does a configuration that
//     did not exist at the base or could not be parsed there. Concurrency, Timeout and
//     CacheMaxSize change no result and keep nothing.
//
// With opts.Lines, a file kept because it changed is restricted to its changed lines (see the
// package comment above); a file kept for its rules or configuration is evaluated whole. The
// plan's skipped files are left as they are. Standard input cannot be compared with git.
func SelectChanged(ctx context.Context, plan *Plan, proj *Project, opts ChangedOptions) (ChangeSelection, error) {
	sel := ChangeSelection{Planned: len(plan.Files)}
	for _, fp := range plan.Files {
		if fp.stdin {
			return sel, fmt.Errorf("%s is read from standard input: it cannot be compared with git", fp.Path)
		}
	}
	repo, err := gitdiff.Open(ctx, opts.Dir, opts.GitEnv)
	if err != nil {
		return sel, err
	}
	base, err := repo.MergeBase(ctx, opts.Ref)
	if err != nil {
		return sel, err
	}
	sel.MergeBase = base
	changes, err := repo.Changes(ctx, base)
	if err != nil {
		return sel, err
	}
	cs := &changeSet{files: map[string]gitdiff.Change{}}
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
	if cfg := proj.Config; cfg != nil && cfg.Path != "" {
		if c, ok := cs.files[filepath.Clean(cfg.Path)]; ok {
			cs.configChanged = true
			old := c.Path
			if c.Status == gitdiff.Renamed || c.Status == gitdiff.Copied {
				old = c.OldPath
			}
			if c.Status != gitdiff.Added && c.Status != gitdiff.Untracked {
				data, err := repo.Show(ctx, base, old)
				if err != nil {
					return sel, fmt.Errorf("reading %s as it was at %s: %w", cfg.Path, shortHash(base), err)
				}
				cs.configAtBase, cs.configAtBaseFound = data, true
			}
		}
	}
	whole := plan.selectChanged(proj, cs, &sel)
	if opts.Lines {
		for _, fp := range plan.Files {
			c, ok := cs.files[fp.absPath()]
			if !ok || whole[fp] {
				continue
			}
			lines, all, err := repo.ChangedLines(ctx, base, c)
			if err != nil {
				return sel, err
			}
			if !all {
				fp.restrict(lines)
			}
		}
	}
	return sel, nil
}

// shortHash is the first 12 characters of a commit hash.
func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// changeSet is what changed since the merge base, by absolute path (written as the plan's
// paths are).
type changeSet struct {
	// files are the changed files that exist; removed the paths deleted or renamed away.
	files   map[string]gitdiff.Change
	removed []string
	// configChanged is set when the configuration file changed; configAtBase is then its
	// content at the base (configAtBaseFound false: it did not exist there).
	configChanged     bool
	configAtBase      []byte
	configAtBaseFound bool
}

// touched reports whether path, or a path under it, changed, was added or was removed.
func (cs *changeSet) touched(path string, folder bool) bool {
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

// selectChanged keeps the files of the plan that changed or whose rules or settings changed
// (see SelectChanged), and returns the files kept for their rules or settings: they are
// evaluated whole.
func (p *Plan) selectChanged(proj *Project, cs *changeSet, sel *ChangeSelection) (whole map[*FilePlan]bool) {
	whole = map[*FilePlan]bool{}
	if proj.StyleGuidePath != "" && cs.touched(proj.StyleGuidePath, false) {
		sel.Everything = "the style guide " + filepath.Base(proj.StyleGuidePath) + " changed"
	}
	cfg := proj.Config
	var old *Config
	if sel.Everything == "" && cs.configChanged && cfg != nil {
		name := filepath.Base(cfg.Path)
		switch {
		case !cs.configAtBaseFound:
			sel.Everything = name + " did not exist at the merge base"
		default:
			o, problems := ParseConfig(cfg.Path, cs.configAtBase)
			if problems.HasErrors() {
				sel.Everything = name + " could not be read as it was at the merge base"
			} else if g := globalChange(o, cfg); g != "" {
				sel.Everything = name + ": " + g + " changed"
			} else {
				old = o
			}
		}
	}
	changedPacks := map[string]bool{}
	byName := map[string]*rules.Pack{}
	for _, pk := range proj.Packs {
		byName[pk.Name] = pk
		if pk.Dir != "" && cs.touched(pk.Dir, true) {
			changedPacks[pk.Name] = true
		}
	}
	kept := p.Files[:0]
	for _, fp := range p.Files {
		_, changed := cs.files[fp.absPath()]
		switch {
		case sel.Everything != "":
			whole[fp] = true
			if changed {
				sel.Changed++
			}
		case changed:
			sel.Changed++
		case cfg != nil && slices.ContainsFunc(cfg.Settings(fp.RelPath).RunRules, func(name string) bool { return changedPacks[name] }):
			sel.ByRules++
			whole[fp] = true
		case old != nil && settingsFingerprint(old, byName, fp.RelPath) != settingsFingerprint(cfg, byName, fp.RelPath):
			sel.ByConfig++
			whole[fp] = true
		default:
			continue
		}
		kept = append(kept, fp)
	}
	clear(p.Files[len(kept):])
	p.Files = kept
	sel.Files = len(kept)
	return whole
}

// globalChange names the first global setting that differs between two configurations and
// can change results, or "".
func globalChange(a, b *Config) string {
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
func settingsFingerprint(cfg *Config, packs map[string]*rules.Pack, rel string) string {
	s := cfg.Settings(rel)
	if reason := skipReason(s); reason != "" {
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

// absPath is the file's absolute path, written as the plan's folder is ("" for standard
// input).
func (fp *FilePlan) absPath() string {
	switch {
	case fp.stdin:
		return ""
	case fp.abs != "":
		return fp.abs
	case fp.env != nil:
		return filepath.Join(fp.env.dir, filepath.FromSlash(fp.Path))
	}
	return filepath.Clean(fp.Path)
}

// changedLines restricts a file's evaluation to some of its lines (--changed-lines).
type changedLines struct {
	lines gitdiff.Lines
	// partial holds the rules of the prepared file whose texts are sent in part: their scores
	// are marked partial.
	partial map[string]bool
}

// restrict limits the file's evaluation to lines (see SelectChanged). It applies when the file
// is prepared.
func (fp *FilePlan) restrict(lines gitdiff.Lines) {
	fp.changed = &changedLines{lines: lines}
	if fp.prepared || fp.env == nil {
		fp.restrictRules()
	}
}

// restrictRules drops the rules none of whose texts holds a changed line (a missing required
// target counts as on line 1, where its finding is) and, in the others, keeps only the chunks
// that hold a changed line. A text of a kept rule with no changed line (a criterion's own
// target elsewhere in the file) is sent whole, so every criterion is still rated.
func (fp *FilePlan) restrictRules() {
	ch := fp.changed
	ch.partial = map[string]bool{}
	kept := fp.Rules[:0]
	for _, pr := range fp.Rules {
		if pr.Err != nil { // reported as it is: the rule cannot run
			kept = append(kept, pr)
			continue
		}
		touched := false
		for _, u := range pr.Units {
			if u.Missing != nil {
				touched = touched || ch.lines.Contains(1)
				continue
			}
			for _, c := range u.Chunks() {
				touched = touched || ch.lines.Overlaps(chunkLines(c))
			}
		}
		if !touched {
			continue
		}
		for _, u := range pr.Units {
			if u.Missing != nil {
				continue
			}
			all := u.Chunks()
			n := 0
			for _, c := range all {
				if ch.lines.Overlaps(chunkLines(c)) {
					n++
				}
			}
			if n > 0 && n < len(all) {
				u.only = ch.lines
				ch.partial[pr.ID] = true
			}
		}
		kept = append(kept, pr)
	}
	clear(fp.Rules[len(kept):])
	fp.Rules = kept
}

// chunkLines is the first and last line of a chunk.
func chunkLines(c Chunk) (first, last int) {
	last = c.Line + countLineBreaks(c.Text)
	if n := len(c.Text); n > 0 && (c.Text[n-1] == '\n' || c.Text[n-1] == '\r') && last > c.Line {
		last-- // the break ends the chunk's last line
	}
	return c.Line, last
}

// changedOf returns the changed lines of the plan's files by path, for the changed-lines
// processor (internal/process): nil for a file evaluated whole.
func (p *Plan) changedOf() func(path string) *process.Changed {
	byPath := map[string]*FilePlan{}
	for _, fp := range p.Files {
		if fp.changed != nil {
			byPath[fp.Path] = fp
		}
	}
	return func(path string) *process.Changed {
		fp := byPath[path]
		if fp == nil {
			return nil
		}
		return &process.Changed{Lines: fp.changed.lines, Partial: fp.changed.partial}
	}
}
