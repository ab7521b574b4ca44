package blueprint

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/internal/tree"
)

// fileName returns the result file's name: <runLabel>_<timestamp>_comparison.json, with the
// label made a safe file name (safeFileName).
func (r *Result) fileName() string {
	return safeFileName(r.RunLabel) + "_" + r.Timestamp + "_comparison.json"
}

// folderName returns the name of the folder under the output folder that holds the result:
// safeFileName(ConfigID).
func (r *Result) folderName() string { return safeFileName(r.ConfigID) }

// maxFileNameBytes bounds a name safeFileName returns, below the 255 bytes file systems allow,
// leaving room for the timestamp and suffix FileName adds.
const maxFileNameBytes = 200

// safeFileName turns a blueprint id or run label into a name that is always exactly one file
// name inside the folder it is joined to: "/" and "\" (and : * ? " < > |, which Windows
// refuses) become "_"; NUL, control characters and bidirectional-text controls are dropped; a
// run of dots becomes one dot and leading or trailing dots and spaces go, so neither "." nor ".."
// can remain; at most 200 bytes are kept. A name that sanitises to nothing is "blueprint". A
// blueprint file named "...yml" has the id "..", which would otherwise put its results beside
// --out-dir instead of in it.
func safeFileName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '/' || r == '\\' || r == ':' || r == '*' || r == '?' || r == '"' || r == '<' || r == '>' || r == '|':
			r = '_'
		case unicode.IsControl(r) || isBidiControl(r):
			continue
		case r == '.' && strings.HasSuffix(b.String(), "."):
			continue
		}
		if b.Len()+utf8.RuneLen(r) > maxFileNameBytes {
			break
		}
		b.WriteRune(r)
	}
	name := strings.Trim(b.String(), ". ")
	if name == "" {
		return "blueprint"
	}
	return name
}

// isBidiControl reports the invisible characters that reorder text on screen, which could make
// a file name read as another.
func isBidiControl(r rune) bool {
	return r == 0x061C || r == 0x200E || r == 0x200F || (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069)
}

// prepareOutDir makes the folder the result of blueprint id will be written to,
// <outDir>/<safeFileName(id)>, through root (internal/tree: the project root, or a root of its
// own for a folder the user named outside it), and proves it usable by creating and removing a
// probe file in it. Run it before the first model call: an output folder that is a file, cannot
// be created, is not writable, leads out of the root through a link planted in the tree, or
// resolves outside outDir, is then found before any money is spent (a link leading out is
// refused before anything is created). It returns the folder.
func prepareOutDir(root *tree.Root, outDir, id string) (string, error) {
	dir := filepath.Join(outDir, safeFileName(id))
	if err := checkInside(root, outDir, dir); err != nil {
		return "", err
	}
	if err := root.MkdirAll(dir); err != nil {
		return "", unwrapPath(err)
	}
	if err := checkInside(root, outDir, dir); err != nil {
		return "", err
	}
	if err := root.Probe(dir); err != nil {
		return "", unwrapPath(err)
	}
	return dir, nil
}

// checkInside fails when dir, once the symbolic links inside root are resolved, leaves root or
// is not inside outDir (resolved): a folder of a result made a link elsewhere in the tree.
func checkInside(root *tree.Root, outDir, dir string) error {
	out, err := root.Resolve(outDir)
	if err != nil {
		return unwrapPath(err)
	}
	resolved, err := root.Resolve(dir)
	if err != nil {
		return unwrapPath(err)
	}
	if resolved == out || !tree.Within(out, resolved) {
		return fmt.Errorf("%s resolves to %s, which is not inside the output folder %s", dir, root.Resolved(resolved), root.Resolved(out))
	}
	return nil
}

// unwrapPath keeps an *fs.PathError's path and reason but not its operation ("mkdir x: not a
// directory" reads as "x: not a directory").
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s: %w", pe.Path, pe.Err)
	}
	return err
}

// WriteFile writes the result as indented JSON to <outDir>/<Folder()>/<FileName()> through
// root (as prepareOutDir), atomically (a temporary file renamed into place, which replaces a
// link at that name, never writing through it) and with mode 0666 less the umask, and returns
// the path. The folder is checked as prepareOutDir checks it: the path is always inside outDir.
func (r *Result) WriteFile(root *tree.Root, outDir string) (string, error) {
	dir := filepath.Join(outDir, r.folderName())
	if err := checkInside(root, outDir, dir); err != nil {
		return "", fmt.Errorf("cannot write the result: %w", err)
	}
	if err := root.MkdirAll(dir); err != nil {
		return "", fmt.Errorf("cannot create the results folder: %w", unwrapPath(err))
	}
	if err := checkInside(root, outDir, dir); err != nil {
		return "", fmt.Errorf("cannot write the result: %w", err)
	}
	data, err := r.JSON()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, r.fileName())
	if err := root.WriteFile(path, data); err != nil {
		return "", fmt.Errorf("cannot write the result %s: %w", path, unwrapPathErr(err))
	}
	return path, nil
}

// unwrapPathErr drops the path an *fs.PathError repeats (the message names the file already).
func unwrapPathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// JSON returns the result document, indented, with a final newline.
func (r *Result) JSON() ([]byte, error) {
	b, err := jsjson.MarshalIndent(r)
	if err != nil {
		return nil, err
	}
	// The document holds prompts and replies; printed in a CI log (--output json, or cat), it
	// must not carry a workflow command or a terminal escape. The decoded text is the same.
	return safetext.JSON(b), nil
}
