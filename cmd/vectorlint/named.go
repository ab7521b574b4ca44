package main

import (
	"github.com/vectorlint/vectorlint/internal/tree"
)

// openRoot opens the working directory as the root of a command that has no project (merge,
// evaluate, blueprint): the files its arguments name are read and written through it
// (spec/trust.md §6). The caller closes it.
func (a *app) openRoot() (*tree.Root, error) { return tree.Open(a.dir) }

// readNamed reads a file the user named on the command line (relative to the working
// directory): through root when it lies inside it, so a link there that leads out is refused;
// outside it, the user's choice, through a root at its own folder (tree.Root.Named). Errors
// are *fs.PathError values naming the absolute path.
func (a *app) readNamed(root *tree.Root, name string, limit int64) ([]byte, error) {
	n, err := root.Named(a.abs(name))
	if err != nil {
		return nil, err
	}
	defer n.Close()
	return n.Root.ReadFile(n.Path, limit)
}
