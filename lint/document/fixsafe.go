package document

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/controls"
	"github.com/vectorlint/vectorlint/internal/scopes"
)

// What a model may change (docs/security.md, "What a model may change"). A model's fix is an
// edit nobody reviewed, so it is decided here, once, where the finding's fix is built (ExactFix),
// and every consumer — --fix in each mode, the editor server's code actions, the JSON, rdjson and
// SARIF outputs — gets the same answer. A fix is kept only when
//
//   - its whole span lies in the text the model was sent: inside the chunk it evaluated, after
//     the front matter, and touching no skipped scope (spec/linter.md §9: code blocks, code
//     spans, URLs, HTML, MDX syntax, math, TOML front matter, BlockIgnores and TokenIgnores
//     matches), which the model saw only as blanks or placeholders;
//   - it adds, removes or changes no vectorlint control comment: the document's control
//     comments, read with the suppression matcher (suppress.go), are the same before and after,
//     in order, both as text and as controls (not code examples, code read anew from the fixed
//     text), and none lies across the edit;
//   - its new text holds no control, bidi-override or invisible character (safetext.Dangerous,
//     spec/trust.md §3's list; a CR only as part of a CRLF line break).
//
// Otherwise the finding stays, without a fix, and the reason goes to EvalOptions.Warn
// (--verbose, the editor server's log) and to the --debug-json record.

// unsafeFix says why a model's fix — replacing span, located exactly in chunk c, with text — is
// not kept ("" when it is).
func (d *Document) unsafeFix(c Chunk, span Span, text string) string {
	if span.Start < c.Offset || span.End > c.Offset+len(c.Text) || span.Start > span.End {
		return "it reaches outside the text the model was sent"
	}
	if span.Start < d.BodyOffset {
		return "it reaches into the front matter, which the model was not sent"
	}
	if r, ok := finding.UnfixableRune(text); ok {
		if r == utf8.RuneError {
			return "its text is not UTF-8"
		}
		return fmt.Sprintf("its text holds %U, a control, bidi-override or invisible character", r)
	}
	if why := d.controlChange(span, text); why != "" {
		return why
	}
	for _, sc := range d.skippedIn(span.Start, span.End) {
		// An edit overlaps a scope when each starts before the other ends; an insertion (an
		// empty span) strictly inside a scope does too, by the same test.
		if sc.Start < span.End && span.Start < sc.End {
			return fmt.Sprintf("it reaches into %s on line %d, which the model was not sent", scopeWhat(sc.Kind), d.Position(sc.Start).Line)
		}
	}
	return ""
}

// scopeWhat names a kind of skipped scope in a sentence.
func scopeWhat(k scopes.Kind) string {
	switch k {
	case scopes.Code:
		return "a code block"
	case scopes.InlineCode:
		return "a code span"
	case scopes.URL:
		return "a URL"
	case scopes.HTML:
		return "HTML markup"
	case scopes.MDX:
		return "MDX syntax"
	case scopes.Math:
		return "math"
	case scopes.Frontmatter:
		return "the front matter"
	case scopes.BlockIgnore:
		return "a BlockIgnores match"
	case scopes.TokenIgnore:
		return "a TokenIgnores match"
	}
	return "a skipped scope"
}

// controlChange says how replacing span of the document with text would add, remove or change
// a vectorlint control comment ("" when it would not). The control comments of the text as it
// is and as fixed must be the same, in order, whether read as text (what package fix compares
// when it applies fixes) or as controls, code read anew from the fixed text (a fix that opens a
// code fence turns the control comments after it into examples); and none may lie across the
// edit, in the text replaced or in the text written, even when the lists end up equal.
func (d *Document) controlChange(span Span, text string) string {
	start, end := span.Start-d.BodyOffset, span.End-d.BodyOffset
	after := d.Body[:start] + text + d.Body[end:]
	if !strings.Contains(d.Body, controls.Prefix) && !strings.Contains(after, controls.Prefix) {
		return ""
	}
	line := func(c controls.Comment) int { return d.Position(d.BodyOffset + c.Start).Line }
	// Offsets into Body and into after, code included.
	before, fixed := controls.FindText(d.Body), controls.FindText(after)
	// The comments across the edit: an edit overlaps a comment when each starts before the
	// other ends, which an insertion or deletion point strictly inside one does too.
	across := func(cs []controls.Comment, s, e int) int {
		for i, c := range cs {
			if c.Start < e && s < c.End {
				return i
			}
		}
		return -1
	}
	was, now := across(before, start, end), across(fixed, start, start+len(text))
	switch {
	case len(fixed) < len(before):
		if was < 0 {
			was = firstDifferent(fixed, before)
		}
		return fmt.Sprintf("it removes the control comment vectorlint-%s on line %d", before[was].Kind, line(before[was]))
	case len(fixed) > len(before):
		if now < 0 {
			now = firstDifferent(before, fixed)
		}
		return fmt.Sprintf("it adds a control comment, vectorlint-%s", fixed[now].Kind)
	case was >= 0:
		return fmt.Sprintf("it changes the control comment vectorlint-%s on line %d", before[was].Kind, line(before[was]))
	case now >= 0:
		return fmt.Sprintf("it writes a control comment, vectorlint-%s", fixed[now].Kind)
	}
	if i := firstDifferent(fixed, before); i < len(before) {
		return fmt.Sprintf("it changes the control comment vectorlint-%s on line %d", before[i].Kind, line(before[i]))
	}
	if len(before) == 0 {
		return ""
	}
	// The same comments as text: are the same ones controls, and not code examples?
	found, err := scopes.Find([]byte(after), scopes.SyntaxOf(d.Path))
	if err != nil {
		return "the fixed text's markup could not be read to check its control comments"
	}
	codeBefore, codeAfter := d.codeScopes(), codeOf(found)
	for i := range before {
		wasCode, isCode := scopes.Contains(codeBefore, d.BodyOffset+before[i].Start), scopes.Contains(codeAfter, fixed[i].Start)
		switch {
		case !wasCode && isCode:
			return fmt.Sprintf("it turns the control comment vectorlint-%s on line %d into a code example", before[i].Kind, line(before[i]))
		case wasCode && !isCode:
			return fmt.Sprintf("it turns the code example on line %d into a control comment, vectorlint-%s", line(before[i]), before[i].Kind)
		}
	}
	return ""
}

// firstDifferent is the index of the first control comment of b that a does not have at the
// same place in the list (len(b) when a starts with all of b's).
func firstDifferent(a, b []controls.Comment) int {
	for i := range b {
		if i >= len(a) || a[i].Kind != b[i].Kind || a[i].Names != b[i].Names {
			return i
		}
	}
	return len(b)
}
