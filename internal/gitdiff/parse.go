// Package gitdiff asks git what changed since a base commit: the files (git diff -z
// --name-status -M, plus untracked files) and, for each, the lines of its new version that
// changed (git diff -U0). It runs the git program (os/exec, never a shell) and parses its
// machine-readable output; the parsers are exported for tests and fuzzing.
//
// Every name and revision comes from untrusted input (a pull request's files, a workflow's
// REF): names are read from NUL-separated output, so any byte but NUL may be in them; a REF may
// not start with "-" (it would be read as an option); paths are passed after "--" with literal
// pathspecs, so "*" or ":" in a name is not a pattern.
package gitdiff

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Status is how a file changed, as git diff --name-status writes it.
type Status byte

// Statuses of a changed file. Untracked is not git's: it marks a file that git does not track
// yet (git ls-files --others), which differs from the base as an added file does.
const (
	Added       Status = 'A'
	Copied      Status = 'C'
	Deleted     Status = 'D'
	Modified    Status = 'M'
	Renamed     Status = 'R'
	TypeChanged Status = 'T'
	Unmerged    Status = 'U'
	Unknown     Status = 'X'
	Broken      Status = 'B'
	Untracked   Status = '?'
)

// String is the status in words ("modified").
func (s Status) String() string {
	switch s {
	case Added:
		return "added"
	case Copied:
		return "copied"
	case Deleted:
		return "deleted"
	case Modified:
		return "modified"
	case Renamed:
		return "renamed"
	case TypeChanged:
		return "type changed"
	case Unmerged:
		return "unmerged"
	case Unknown:
		return "unknown"
	case Broken:
		return "broken pair"
	case Untracked:
		return "untracked"
	}
	return fmt.Sprintf("status %q", byte(s))
}

// Change is one changed file.
type Change struct {
	Status Status
	// Score is the similarity of a rename or copy (0–100), else 0.
	Score int
	// Path is the file's path relative to the repository's top folder, with slashes: the new
	// path of a rename or copy.
	Path string
	// OldPath is the path at the base of a rename or copy ("" otherwise).
	OldPath string
}

// Exists reports whether the file is in the working tree (not deleted).
func (c Change) Exists() bool { return c.Status != Deleted }

// ParseError is output of git that is not what was expected.
type ParseError struct {
	// What names the output ("git diff --name-status").
	What string
	// Entry is the 1-based entry (or line) the problem is in.
	Entry    int
	Expected string
	Found    string
}

// Error reads like "git diff --name-status: entry 3: expected a path after R100, found the end
// of the output".
func (e *ParseError) Error() string {
	return fmt.Sprintf("%s: entry %d: expected %s, found %s", e.What, e.Entry, e.Expected, e.Found)
}

// ParseNameStatus parses the output of git diff -z --name-status (with or without -M or -C):
// for each file its status (a letter, followed by a similarity score for R and C), a NUL, its
// path and a NUL; a rename or copy has the old path, then the new one.
func ParseNameStatus(data []byte) ([]Change, error) {
	const what = "git diff --name-status"
	var out []Change
	fields := bytes.Split(data, []byte{0})
	// Output ends with a NUL, so the last field is empty.
	if n := len(fields); n > 0 && len(fields[n-1]) == 0 {
		fields = fields[:n-1]
	}
	for i := 0; i < len(fields); {
		entry := len(out) + 1
		st := fields[i]
		i++
		if len(st) == 0 || strings.IndexByte("ACDMRTUXB", st[0]) < 0 {
			return nil, &ParseError{What: what, Entry: entry, Expected: "a status letter (A, C, D, M, R, T, U, X or B)", Found: strconv.Quote(string(st))}
		}
		c := Change{Status: Status(st[0])}
		if len(st) > 1 {
			score, err := strconv.Atoi(string(st[1:]))
			if err != nil || score < 0 || score > 100 || st[1] == '+' || st[1] == '-' {
				return nil, &ParseError{What: what, Entry: entry, Expected: "a similarity score of 0 to 100 after the status letter", Found: strconv.Quote(string(st))}
			}
			c.Score = score
		}
		paths := 1
		if c.Status == Renamed || c.Status == Copied {
			paths = 2
		}
		var names []string
		for range paths {
			if i >= len(fields) {
				return nil, &ParseError{What: what, Entry: entry, Expected: "a path after " + string(st), Found: "the end of the output"}
			}
			if len(fields[i]) == 0 {
				return nil, &ParseError{What: what, Entry: entry, Expected: "a path after " + string(st), Found: "an empty name"}
			}
			names = append(names, string(fields[i]))
			i++
		}
		if paths == 2 {
			c.OldPath, c.Path = names[0], names[1]
		} else {
			c.Path = names[0]
		}
		out = append(out, c)
	}
	return out, nil
}

// ParseNames parses NUL-terminated names (git ls-files -z) into untracked changes.
func ParseNames(data []byte) []Change {
	var out []Change
	for name := range bytes.SplitSeq(data, []byte{0}) {
		if len(name) > 0 {
			out = append(out, Change{Status: Untracked, Path: string(name)})
		}
	}
	return out
}

// Range is lines First to Last of a file (1-based, both included).
type Range struct {
	First, Last int
}

// Lines are the changed lines of a file: ranges sorted by their first line, neither
// overlapping nor touching.
type Lines []Range

// Contains reports whether line is in one of the ranges.
func (l Lines) Contains(line int) bool { return l.Overlaps(line, line) }

// Overlaps reports whether any line from first to last (included) is in one of the ranges.
func (l Lines) Overlaps(first, last int) bool {
	// The first range that ends at or after first; it overlaps when it starts by last.
	i, _ := slices.BinarySearchFunc(l, first, func(r Range, line int) int {
		switch {
		case r.Last < line:
			return -1
		case r.Last > line:
			return 1
		}
		return 0
	})
	return i < len(l) && l[i].First <= last
}

// Count is the number of lines in the ranges.
func (l Lines) Count() int {
	n := 0
	for _, r := range l {
		n += r.Last - r.First + 1
	}
	return n
}

// Normalize sorts the ranges and merges those that overlap or touch; empty ranges (Last <
// First) are dropped.
func Normalize(rs []Range) Lines {
	rs = slices.DeleteFunc(slices.Clone(rs), func(r Range) bool { return r.Last < r.First })
	slices.SortFunc(rs, func(a, b Range) int { return a.First - b.First })
	var out Lines
	for _, r := range rs {
		if n := len(out); n > 0 && r.First <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// ParseHunks reads the hunk headers of a unified diff (git diff -U0) and returns the lines of
// the new file they add or change. A hunk "@@ -a,b +c,d @@" changes lines c to c+d-1 of the
// new file; d = 0 is a deletion, which changes no line of the new file; a missing d is 1. Every
// other line of the diff is ignored: in a patch, the file's own lines start with "+", "-", " "
// or "\", so a line that starts with "@@" is always a hunk header.
func ParseHunks(data []byte) (Lines, error) {
	const what = "git diff -U0"
	var rs []Range
	n := 0
	for line := range bytes.SplitSeq(data, []byte{'\n'}) {
		n++
		if !bytes.HasPrefix(line, []byte("@@")) {
			continue
		}
		r, err := parseHunkHeader(line)
		if err != nil {
			return nil, &ParseError{What: what, Entry: n, Expected: "a hunk header @@ -A,B +C,D @@", Found: strconv.Quote(string(line))}
		}
		rs = append(rs, r)
	}
	return Normalize(rs), nil
}

// parseHunkHeader reads "@@ -a[,b] +c[,d] @@…" into the new file's range.
func parseHunkHeader(line []byte) (Range, error) {
	bad := fmt.Errorf("not a hunk header")
	rest, ok := bytes.CutPrefix(line, []byte("@@ -"))
	if !ok {
		return Range{}, bad
	}
	old, rest, ok := bytes.Cut(rest, []byte(" +"))
	if !ok {
		return Range{}, bad
	}
	if _, _, err := parseSpan(old); err != nil {
		return Range{}, bad
	}
	nw, _, ok := bytes.Cut(rest, []byte(" @@"))
	if !ok {
		return Range{}, bad
	}
	start, count, err := parseSpan(nw)
	if err != nil {
		return Range{}, bad
	}
	if count == 0 {
		return Range{First: start + 1, Last: start}, nil // empty: a deletion
	}
	if start < 1 {
		return Range{}, bad
	}
	return Range{First: start, Last: start + count - 1}, nil
}

// parseSpan reads "a" or "a,b" (b defaults to 1).
func parseSpan(s []byte) (start, count int, err error) {
	a, b, hasCount := bytes.Cut(s, []byte(","))
	if start, err = atoiStrict(a); err != nil {
		return 0, 0, err
	}
	count = 1
	if hasCount {
		if count, err = atoiStrict(b); err != nil {
			return 0, 0, err
		}
	}
	// Bound the numbers so start+count cannot overflow.
	if start > 1<<40 || count > 1<<40 {
		return 0, 0, fmt.Errorf("line number too large")
	}
	return start, count, nil
}

// atoiStrict reads a non-empty run of ASCII digits.
func atoiStrict(b []byte) (int, error) {
	if len(b) == 0 || len(b) > 15 {
		return 0, fmt.Errorf("expected digits")
	}
	n := 0
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("expected digits")
		}
		n = n*10 + int(c-'0')
	}
	return n, nil
}
