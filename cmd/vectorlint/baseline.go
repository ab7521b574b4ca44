package main

import (
	"fmt"
	"io"

	"github.com/vectorlint/vectorlint/internal/baseline"
)

// maxBaselineSize bounds the baseline file read (a file of a million findings is about 300 MB;
// a stranger's file is not read past this).
const maxBaselineSize = 256 << 20

// runBaseline is the baseline of a run: the one applied (--baseline) or the one recorded
// (--write-baseline); both nil without those flags.
type runBaseline struct {
	set    *baseline.Set
	record *baseline.Recorder
}

// openBaseline reads --baseline's file (through the working directory's tree when it lies
// inside it, as every file named on the command line) or starts --write-baseline's record.
func (a *app) openBaseline(f *lintFlags) (runBaseline, error) {
	switch {
	case f.writeBaseline != "":
		return runBaseline{record: &baseline.Recorder{}}, nil
	case f.baseline == "":
		return runBaseline{}, nil
	}
	root, err := a.openRoot()
	if err != nil {
		return runBaseline{}, fmt.Errorf("--baseline: %w", err)
	}
	defer root.Close()
	data, err := a.readNamed(root, f.baseline, maxBaselineSize)
	if err != nil {
		return runBaseline{}, fmt.Errorf("--baseline: %w", err)
	}
	set, err := baseline.Parse(a.rel(a.abs(f.baseline)), data)
	if err != nil {
		return runBaseline{}, fmt.Errorf("--baseline: %w", err)
	}
	return runBaseline{set: set}, nil
}

// closeBaseline writes --write-baseline's file (whole, by a rename, through the tree as
// --output-file is written) and, with --verbose, lists --baseline's entries that no longer
// occur in the files linted.
func (a *app) closeBaseline(f *lintFlags, bl runBaseline, log io.Writer) error {
	if bl.record != nil {
		root, err := a.openRoot()
		if err != nil {
			return fmt.Errorf("--write-baseline: %w", err)
		}
		defer root.Close()
		n, err := root.Named(a.abs(f.writeBaseline))
		if err != nil {
			return fmt.Errorf("--write-baseline: %w", err)
		}
		defer n.Close()
		if err := checkOutputFile(n); err != nil {
			return fmt.Errorf("--write-baseline: %w", err)
		}
		if err := n.Root.WriteFile(n.Path, bl.record.Marshal()); err != nil {
			return fmt.Errorf("--write-baseline: %w", err)
		}
		fmt.Fprintf(log, "vectorlint: baseline of %s written to %s\n", pluralize(bl.record.Len(), "finding"), a.rel(a.abs(f.writeBaseline)))
	}
	if bl.set != nil && f.verbose {
		stale := bl.set.Stale()
		switch len(stale) {
		case 0:
		case 1:
			fmt.Fprintln(log, "vectorlint: 1 entry of the baseline no longer occurs (fixed, or its text changed); --write-baseline drops it:")
		default:
			fmt.Fprintf(log, "vectorlint: %d entries of the baseline no longer occur (fixed, or their text changed); --write-baseline drops them:\n", len(stale))
		}
		for _, e := range stale {
			fmt.Fprintf(log, "vectorlint:   %s %s %q\n", e.Path, e.Rule, e.Match)
		}
	}
	return nil
}
