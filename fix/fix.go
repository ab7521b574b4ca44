// Package fix applies the fixes of lint findings to the text they were found in
// (spec/linter.md §10): `vectorlint --fix` rewrites files with them, `--fix=diff` shows them as
// a unified diff, and with --stdin-filename the fixed text goes to standard output.
//
// Each finding's fix (its Edits) is applied whole or not at all. Fixes are taken in the order of
// their position in the file; a fix with an edit that overlaps an edit already taken is skipped
// (the first by position wins) and reported with the fix it collides with, never merged or
// applied twice. A fix whose every edit is an edit already taken (two rules proposing the same
// change) is a duplicate: the text already has it, so its finding counts as fixed too. A file is rewritten atomically (a temporary file renamed over it) with its
// mode kept, and only when its content is still what was linted.
package fix

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/controls"
)

// Fix is one finding's fix, as Apply takes it.
type Fix struct {
	// Finding is the index of the finding in its file's findings.
	Finding int
	// Rule and Start are the finding's, to say which fix was skipped.
	Rule  string
	Start finding.Position
	// Message says what the fix does; Edits are its edits, applied together.
	Message string
	Edits   []finding.TextEdit
}

// Where names the fix in messages: "Acme.Wordiness at 6:26".
func (f Fix) Where() string {
	return fmt.Sprintf("%s at %d:%d", f.Rule, f.Start.Line, f.Start.Column)
}

// Fixes returns the fixes of a file's findings, in the findings' order (findings without a fix
// or whose fix has no edit are left out).
func Fixes(findings []finding.Finding) []Fix {
	var out []Fix
	for i, f := range findings {
		if len(f.Edits) == 0 {
			continue
		}
		out = append(out, Fix{Finding: i, Rule: f.Rule, Start: f.Start, Message: f.FixMessage(), Edits: f.Edits})
	}
	return out
}

// Skipped is a fix that was not applied, and why.
type Skipped struct {
	Fix
	// Reason says why, e.g. "overlaps the fix of Acme.Tone at 6:20".
	Reason string
}

// Duplicate is a fix that was not applied because the text already has its change: every edit
// of it is an edit of an applied fix (two rules proposing the same change). Its finding is
// fixed as much as the applied fix's.
type Duplicate struct {
	Fix
	// Of is the applied fix that made the change first.
	Of Fix
}

// Result is what fixing did: Apply's to one text, File's to one linted file (which also sets
// Path, Written and Err).
type Result struct {
	// Path is the file's reported path (File).
	Path string
	// Text is the fixed text (the original when nothing was applied).
	Text []byte
	// Applied, Duplicates and Skipped are the fixes, in the order they were considered (by
	// position).
	Applied    []Fix
	Duplicates []Duplicate
	Skipped    []Skipped
	// Written tells whether the file was rewritten (File).
	Written bool
	// Err is why the file could not be rewritten (a *ChangedError, a *NotRewritableError, an
	// I/O error); its fixes then count as not applied (File).
	Err error
	// edits are the applied edits, sorted by position.
	edits []finding.TextEdit
}

// Changed reports whether any fix was applied.
func (r Result) Changed() bool { return len(r.Applied) > 0 }

// Apply applies fixes to src. Fixes are considered in the order of their first edit's start
// (then its end, then the order given); each is applied whole, or skipped with its reason when
// an edit of it
//   - lies outside src or cuts a UTF-8 character or a CRLF line break ("is outside the text"),
//   - overlaps another edit of the same fix ("its edits overlap each other"),
//   - writes what finding.FixableText refuses (control, bidi-override and invisible characters,
//     invalid UTF-8),
//   - overlaps an edit already applied, or inserts at the same place as one: "overlaps the fix
//     of …".
//
// A fix whose every edit equals one already applied is not skipped but a Duplicate: the text
// already has its change, so its finding is fixed too (Outcome.Remaining).
//
// The vectorlint control comments of the fixed text (internal/controls) must be those of
// src, none of them across an applied edit: each fix was checked alone where it was made
// (docs/security.md, "What a model may change"), and this keeps fixes from building or breaking
// one together, one half each. When they are not, the fixes are taken again one by one and a
// fix that would add, remove or change one is skipped.
//
// Two edits overlap when each starts before the other ends; an insertion (an empty edit) at
// the start or end of a replaced range does not overlap it. src is never modified.
func Apply(src []byte, fixes []Fix) Result {
	order := make([]int, len(fixes))
	for i := range order {
		order[i] = i
	}
	first := func(f Fix) finding.TextEdit {
		if len(f.Edits) == 0 {
			return finding.TextEdit{}
		}
		return slices.MinFunc(f.Edits, compareEdits)
	}
	slices.SortStableFunc(order, func(a, b int) int { return compareEdits(first(fixes[a]), first(fixes[b])) })
	res := apply(src, fixes, order, false)
	if !controlsKept(src, res.Text, res.edits) {
		res = apply(src, fixes, order, true)
	}
	return res
}

// apply applies fixes in the given order, each whole or skipped with its reason; with
// controls, a fix that would change the control comments of src (controlsKept) is skipped too.
func apply(src []byte, fixes []Fix, order []int, controls bool) Result {
	var (
		res   = Result{}
		taken []takenEdit
	)
	for _, i := range order {
		f := fixes[i]
		reason := f.check(src)
		if reason == "" {
			var of *Fix
			if reason, of = collision(f, taken); of != nil {
				res.Duplicates = append(res.Duplicates, Duplicate{Fix: f, Of: *of})
				continue
			}
		}
		if reason == "" && controls {
			edits := slices.Clone(f.Edits)
			for _, t := range taken {
				edits = append(edits, t.edit)
			}
			slices.SortStableFunc(edits, compareEdits)
			if !controlsKept(src, splice(src, edits), edits) {
				reason = "would add, remove or change a vectorlint control comment"
			}
		}
		if reason != "" {
			res.Skipped = append(res.Skipped, Skipped{Fix: f, Reason: reason})
			continue
		}
		for _, e := range f.Edits {
			taken = append(taken, takenEdit{edit: e, fix: f})
		}
		res.Applied = append(res.Applied, f)
	}
	res.edits = make([]finding.TextEdit, len(taken))
	for i, t := range taken {
		res.edits[i] = t.edit
	}
	slices.SortStableFunc(res.edits, compareEdits)
	res.Text = splice(src, res.edits)
	return res
}

// controlsKept reports whether out, src with the sorted, non-overlapping edits applied, has
// the same vectorlint control comments as src, in the same order, with none across an edit: in
// the text an edit replaces, in the text it writes, or around an insertion or deletion point.
func controlsKept(src, out []byte, edits []finding.TextEdit) bool {
	if !bytes.Contains(src, []byte(controls.Prefix)) && !bytes.Contains(out, []byte(controls.Prefix)) {
		return true
	}
	before, after := controls.FindText(string(src)), controls.FindText(string(out))
	if len(before) != len(after) {
		return false
	}
	for i := range before {
		if !bytes.Equal(src[before[i].Start:before[i].End], out[after[i].Start:after[i].End]) {
			return false
		}
	}
	// An edit overlaps a comment when each starts before the other ends, which an insertion
	// or deletion point strictly inside one does too.
	across := func(cs []controls.Comment, s, e int) bool {
		for _, c := range cs {
			if c.Start < e && s < c.End {
				return true
			}
		}
		return false
	}
	delta := 0
	for _, e := range edits {
		s := e.Start.Offset + delta
		if across(before, e.Start.Offset, e.End.Offset) || across(after, s, s+len(e.NewText)) {
			return false
		}
		delta += len(e.NewText) - (e.End.Offset - e.Start.Offset)
	}
	return true
}

// takenEdit is an applied edit and the fix it belongs to.
type takenEdit struct {
	edit finding.TextEdit
	fix  Fix
}

// compareEdits orders edits by start, then end: an insertion before a replacement starting at
// the same place.
func compareEdits(a, b finding.TextEdit) int {
	if c := cmp.Compare(a.Start.Offset, b.Start.Offset); c != 0 {
		return c
	}
	return cmp.Compare(a.End.Offset, b.End.Offset)
}

// check says what makes a fix unusable on its own ("" when nothing does).
func (f Fix) check(src []byte) string {
	if len(f.Edits) == 0 {
		return "has no edit"
	}
	for _, e := range f.Edits {
		s, t := e.Start.Offset, e.End.Offset
		if s < 0 || t < s || t > len(src) || !boundary(src, s) || !boundary(src, t) {
			return fmt.Sprintf("is outside the text (bytes %d to %d of %d)", s, t, len(src))
		}
		if !finding.FixableText(e.NewText) {
			return "would write a control, bidi-override or invisible character, or bytes that are not UTF-8"
		}
	}
	edits := slices.Clone(f.Edits)
	slices.SortFunc(edits, compareEdits)
	for i := 1; i < len(edits); i++ {
		if overlap(edits[i-1], edits[i]) {
			return "its edits overlap each other"
		}
	}
	return ""
}

// boundary reports whether offset i of src starts a character and does not split a CRLF.
func boundary(src []byte, i int) bool {
	if i == 0 || i == len(src) {
		return true
	}
	c := src[i]
	if c&0xC0 == 0x80 { // a UTF-8 continuation byte
		return false
	}
	return !(c == '\n' && src[i-1] == '\r')
}

// overlap reports whether two edits conflict: each starts before the other ends, or both
// insert at the same place (their order would be a guess).
func overlap(a, b finding.TextEdit) bool {
	if a.Start.Offset < b.End.Offset && b.Start.Offset < a.End.Offset {
		return true
	}
	return a.Start.Offset == a.End.Offset && b.Start.Offset == b.End.Offset && a.Start.Offset == b.Start.Offset
}

// collision says why f cannot be applied after the taken edits ("" when it can): the first
// applied fix one of its edits overlaps. When each of its edits equals an applied edit, f is a
// duplicate: the reason is "" and same is the fix that already made the change.
func collision(f Fix, taken []takenEdit) (reason string, same *Fix) {
	var (
		equal   = 0
		against *Fix
	)
	for _, e := range f.Edits {
		for j := range taken {
			t := &taken[j]
			if t.edit.Start.Offset == e.Start.Offset && t.edit.End.Offset == e.End.Offset && t.edit.NewText == e.NewText {
				equal++
			} else if !overlap(t.edit, e) {
				continue
			}
			if against == nil {
				against = &t.fix
			}
			break
		}
	}
	switch {
	case against == nil:
		return "", nil
	case equal == len(f.Edits):
		return "", against
	}
	return "overlaps the fix of " + against.Where(), nil
}

// splice returns src with the sorted, non-overlapping edits applied.
func splice(src []byte, edits []finding.TextEdit) []byte {
	if len(edits) == 0 {
		return bytes.Clone(src)
	}
	var b bytes.Buffer
	b.Grow(len(src))
	at := 0
	for _, e := range edits {
		b.Write(src[at:e.Start.Offset])
		b.WriteString(e.NewText)
		at = e.End.Offset
	}
	b.Write(src[at:])
	return b.Bytes()
}
