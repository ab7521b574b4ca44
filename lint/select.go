package lint

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/vectorlint/vectorlint/internal/gitdiff"
	"github.com/vectorlint/vectorlint/internal/process"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/lint/selection"
)

// Shard keeps the plan's files, and the skipped files, that are in the share s: a linted file
// by its path relative to the configuration file's folder (FilePlan.RelPath, the same in every
// job whatever its working directory), a skipped one by its reported path.
func (p *Plan) Shard(s selection.Shard) {
	files := p.Files[:0]
	for _, f := range p.Files {
		if s.Has(f.RelPath) {
			files = append(files, f)
		}
	}
	clear(p.Files[len(files):])
	p.Files = files
	skipped := p.Skipped[:0]
	for _, sk := range p.Skipped {
		if s.Has(sk.Path) {
			skipped = append(skipped, sk)
		}
	}
	p.Skipped = skipped
}

// SelectChanged keeps the files of plan that differ from the merge base of opts.Ref and HEAD,
// plus the files whose rules or configuration changed (selection.Changes.Keep says which and
// why; spec/linter.md §11).
//
// With opts.Lines, a file kept because it changed is restricted to its changed lines: a rule
// runs on it only when one of its texts holds a changed line, only the chunks holding one are
// sent, only findings on changed lines are reported, and a score computed from part of a text
// says so (Score.Partial). A file kept for its rules or configuration is evaluated whole. The
// plan's skipped files are left as they are. Standard input cannot be compared with git.
func SelectChanged(ctx context.Context, plan *Plan, proj *config.Project, opts selection.ChangedOptions) (selection.ChangeSelection, error) {
	for _, fp := range plan.Files {
		if fp.stdin {
			return selection.ChangeSelection{Planned: len(plan.Files)}, fmt.Errorf("%s is read from standard input: it cannot be compared with git", fp.Path)
		}
	}
	cfgPath := ""
	if proj.Config != nil {
		cfgPath = proj.Config.Path
	}
	cs, err := selection.FindChanges(ctx, opts, cfgPath)
	if err != nil {
		return selection.ChangeSelection{Planned: len(plan.Files)}, err
	}
	files := make([]selection.SelectedFile, len(plan.Files))
	for i, fp := range plan.Files {
		files[i] = selection.SelectedFile{Abs: fp.absPath(), Rel: fp.RelPath}
	}
	keep, sel := cs.Keep(proj, files)
	kept := plan.Files[:0]
	for i, fp := range plan.Files {
		switch keep[i] {
		case selection.KeepChanged:
			if opts.Lines {
				lines, all, err := cs.Lines(ctx, fp.absPath())
				if err != nil {
					return sel, err
				}
				if !all {
					fp.restrict(lines)
				}
			}
		case selection.KeepWhole:
		default:
			continue
		}
		kept = append(kept, fp)
	}
	clear(plan.Files[len(kept):])
	plan.Files = kept
	return sel, nil
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
				touched = touched || ch.lines.Overlaps(document.ChunkLines(c))
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
				if ch.lines.Overlaps(document.ChunkLines(c)) {
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
