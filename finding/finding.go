package finding

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/safetext"
)

// Finding is one problem in a document: a diagnostic in the style of golang.org/x/tools/go/analysis,
// with a start, an exclusive end, a message, a category (the rule) and an optional fix, its
// edits.
type Finding struct {
	// Rule is "Pack.RuleId", or "Pack.RuleId.CriterionId" for a subjective criterion.
	Rule     string
	Severity Severity
	Message  string
	// Suggestion is advice in prose.
	Suggestion string
	// Match is the document text between Start and End.
	Match    string
	Analysis string
	Start    Position
	End      Position
	// Edits are the finding's fix (none when it has none): the edits that make it, applied
	// together or not at all, sorted by position and not overlapping. A model's fix is one edit
	// of the whole match, made only when the model's quote was found exactly (Replacement
	// gives its text); a deterministic check may make others. `vectorlint --fix` applies them
	// (package fix), the editor server offers them as quick fixes, and the output formats carry
	// them (JSON "edits", rdjson "suggestions", SARIF "fixes").
	Edits []TextEdit
	// Votes is set when the finding was kept by a majority of samples (Samples above 1,
	// docs/configuration.md "Samples"): how many of the samples reported it. Nil otherwise.
	Votes *Votes
}

// Votes is how many samples of a model evaluation reported a finding: For of Of. A finding is
// kept only when For is a strict majority of Of. The native JSON writes it as
// {"votes": {"for": 2, "of": 3}} (docs/output-formats.md).
type Votes struct {
	For int `json:"for"`
	Of  int `json:"of"`
}

// TextEdit replaces the bytes [Start.Offset, End.Offset) of a file with NewText. Start and End
// are positions in the file the finding was made on, so every output format can place the edit
// in its own unit; an insertion has Start == End.
type TextEdit struct {
	Start, End Position
	NewText    string
}

// Replacement returns the text that replaces the finding's whole match when its fix is exactly
// that, one edit from its start to its end, and ok false otherwise. A model's fix is one: the
// native JSON writes its text as "fix", Vale's JSON as a "replace" action.
func (f Finding) Replacement() (text string, ok bool) {
	if len(f.Edits) != 1 {
		return "", false
	}
	e := f.Edits[0]
	if e.Start.Offset != f.Start.Offset || e.End.Offset != f.End.Offset {
		return "", false
	}
	return e.NewText, true
}

// FixMessage says what the finding's fix does, in a few words, as editors show a quick fix's
// title: one edit, what it does to the text it replaces (`Replace “in order to” with “to”`);
// several, the match before and after. It is worked out from the match, so edits outside it
// give only "Apply the fix". "" when there is no fix.
func (f Finding) FixMessage() string {
	if len(f.Edits) == 0 {
		return ""
	}
	inside := len(f.Match) == f.End.Offset-f.Start.Offset
	for _, e := range f.Edits {
		inside = inside && f.Start.Offset <= e.Start.Offset && e.Start.Offset <= e.End.Offset && e.End.Offset <= f.End.Offset
	}
	if !inside {
		return "Apply the fix"
	}
	old := func(e TextEdit) string {
		return f.Match[e.Start.Offset-f.Start.Offset : e.End.Offset-f.Start.Offset]
	}
	if len(f.Edits) == 1 {
		return ReplaceMessage(old(f.Edits[0]), f.Edits[0].NewText)
	}
	var b strings.Builder
	at := f.Start.Offset
	for _, e := range f.Edits {
		if e.Start.Offset < at {
			return ReplaceMessage(f.Match, "") // overlapping edits: nothing sensible to say
		}
		b.WriteString(f.Match[at-f.Start.Offset : e.Start.Offset-f.Start.Offset])
		b.WriteString(e.NewText)
		at = e.End.Offset
	}
	b.WriteString(f.Match[at-f.Start.Offset:])
	return ReplaceMessage(f.Match, b.String())
}

// ReplaceMessage says what replacing old with new does, in a few words: `Replace “in order
// to” with “to”`, `Delete “very”`, `Insert “the”`. Long texts are shortened and line breaks
// shown as spaces, since editors show the message on one line.
func ReplaceMessage(old, new string) string {
	switch {
	case old == "":
		return fmt.Sprintf("Insert “%s”", shorten(new))
	case new == "":
		return fmt.Sprintf("Delete “%s”", shorten(old))
	}
	return fmt.Sprintf("Replace “%s” with “%s”", shorten(old), shorten(new))
}

// shorten puts a text on one line and keeps at most 40 code points of it.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	const most = 40
	if utf8.RuneCountInString(s) <= most {
		return s
	}
	return string([]rune(s)[:most-1]) + "…"
}

// FixableText reports whether s may be written into a document by a fix: valid UTF-8 without
// the characters docs/security.md names ("What a model may change") — controls other than tab
// and LF (a CR only in a CRLF line break), C1 controls, bidi overrides and isolates, invisible
// characters (safetext.Dangerous) — so no escape sequence, NUL or reordering of text can come
// from a model's reply into a file.
func FixableText(s string) bool {
	_, bad := UnfixableRune(s)
	return !bad
}

// UnfixableRune returns the first character of s a fix may not write (FixableText): a
// character safetext.Dangerous names, a CR not followed by LF, or invalid UTF-8 (as
// utf8.RuneError).
func UnfixableRune(s string) (rune, bool) {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size <= 1 {
				return r, true
			}
		case r == '\r':
			if i+1 >= len(s) || s[i+1] != '\n' {
				return r, true
			}
		case safetext.Dangerous(r):
			return r, true
		}
	}
	return 0, false
}
