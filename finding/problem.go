package finding

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// Level says whether a Problem stops a run (LevelError), is advice (LevelWarning) or only
// information (LevelNote).
type Level int

// Problem levels. The zero value is an error, so a problem built without a level is never
// mistaken for advice.
const (
	LevelError Level = iota
	LevelWarning
	// LevelNote is information that is neither wrong nor risky, such as a user pack replacing
	// a built-in pack of the same name: shown where warnings are shown, never counted as one.
	LevelNote
)

// String returns "error", "warning" or "note".
func (l Level) String() string {
	switch l {
	case LevelWarning:
		return "warning"
	case LevelNote:
		return "note"
	}
	return "error"
}

// Problem is one thing wrong with an input file: a rule file, a pack, the configuration that
// selects rules (vectorlint.ini), a list of points or a blueprint, so every command lists them
// the same way.
//
// A problem names the file, the line when it is known, the field (a frontmatter path such as
// "criteria[1].weight", an ini key, or what a blueprint's problem is about, such as
// `prompt "greeting"`), what was expected and what was found. Message replaces the
// expected/found pair for problems that are not about one value. Code tells kinds of problems
// apart without reading messages (the blueprint and point-list codes of package rubric and
// blueprint; "" when the producer gives none).
type Problem struct {
	File     string
	Line     int
	Field    string
	Code     string
	Expected string
	Found    string
	Message  string
	Level    Level
}

// Error formats the problem as "file:line: field: expected X, found Y" (with "warning: " or
// "note: " after the position for those levels).
func (p Problem) Error() string {
	var b strings.Builder
	p.position(&b)
	if p.Level == LevelWarning || p.Level == LevelNote {
		b.WriteString(p.Level.String())
		b.WriteString(": ")
	}
	p.text(&b)
	return b.String()
}

// Labeled formats the problem with its level always named, as compilers write theirs:
// "file:line: error: prompt "id": message". Blueprints and lists of points are reported in this
// form; configuration and rule files in Error's.
func (p Problem) Labeled() string {
	var b strings.Builder
	p.position(&b)
	b.WriteString(p.Level.String())
	b.WriteString(": ")
	p.text(&b)
	return b.String()
}

// position writes "file:line: " ("file: " when the line is not known).
func (p Problem) position(b *strings.Builder) {
	b.WriteString(p.File)
	if p.Line > 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(p.Line))
	}
	b.WriteString(": ")
}

// text writes "field: " and what is wrong: the message, the expected/found pair, or both.
func (p Problem) text(b *strings.Builder) {
	if p.Field != "" {
		b.WriteString(p.Field)
		b.WriteString(": ")
	}
	switch {
	case p.Message != "" && p.Expected != "":
		b.WriteString(p.Message)
		b.WriteString(" (expected ")
		b.WriteString(p.Expected)
		b.WriteString(", found ")
		b.WriteString(p.Found)
		b.WriteByte(')')
	case p.Message != "":
		b.WriteString(p.Message)
	default:
		b.WriteString("expected ")
		b.WriteString(p.Expected)
		b.WriteString(", found ")
		b.WriteString(p.Found)
	}
}

// Problems is a list of problems. As an error it prints one problem per line.
type Problems []Problem

// Error prints every problem, one per line.
func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// HasErrors reports whether any problem is at LevelError.
func (ps Problems) HasErrors() bool {
	return slices.ContainsFunc(ps, func(p Problem) bool { return p.Level == LevelError })
}

// Errors returns the problems at LevelError.
func (ps Problems) Errors() Problems { return ps.filter(LevelError) }

// Warnings returns the problems at LevelWarning.
func (ps Problems) Warnings() Problems { return ps.filter(LevelWarning) }

func (ps Problems) filter(l Level) Problems {
	var out Problems
	for _, p := range ps {
		if p.Level == l {
			out = append(out, p)
		}
	}
	return out
}

// Sort orders problems by file, then line, keeping the order of problems on the same line.
func (ps Problems) Sort() {
	slices.SortStableFunc(ps, func(a, b Problem) int {
		return cmp.Or(cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	})
}
