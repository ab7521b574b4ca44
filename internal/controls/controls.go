// Package controls reads vectorlint's inline control comments (docs/how-it-works.md, "Inline
// controls"): HTML comments in Markdown, and the same words in MDX comments, AsciiDoc's "//"
// comments and reStructuredText's ".." comments.
//
//	<!-- vectorlint-disable -->                  every rule off from here
//	<!-- vectorlint-enable -->                   every rule back on
//	<!-- vectorlint-disable Acme.Tone, Acme.X --> these rules off (a pack name turns off the pack)
//	<!-- vectorlint-enable Acme.Tone -->         this rule back on (also inside a disabled region)
//	<!-- vectorlint-disable-next-line -->        every rule off on the next line
//	<!-- vectorlint-disable-next-line Acme.X --> this rule off on the next line
//	{/* vectorlint-disable */}                   the MDX form of each
//
// It knows the syntax only. The suppression filter (package lint) leaves out the comments that
// lie in code, where they are examples; package fix compares a text's comments before and after
// its fixes, wherever they are, since it has no markup to tell an example from a control.
package controls

import (
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Prefix is in every control comment: a text without it has none.
const Prefix = "vectorlint-"

// comment matches a control comment: the HTML form, then the MDX form, each with its kind and
// the names it lists.
var comment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		`<!--\s*vectorlint-(disable-next-line|disable|enable)(?:\s+([^>]*?))?\s*-->` +
			`|\{\s*/\*\s*vectorlint-(disable-next-line|disable|enable)(?:\s+(.*?))?\s*\*/\s*\}`)
})

// Comment is one control comment of a text.
type Comment struct {
	// Start and End are its byte offsets in the text, End exclusive.
	Start, End int
	// Kind is "disable", "enable" or "disable-next-line".
	Kind string
	// Names are the rule and pack names it lists, as written ("" for every rule).
	Names string
}

// Find returns the control comments of text, in order.
func Find(text string) []Comment {
	if !strings.Contains(text, Prefix) {
		return nil
	}
	var out []Comment
	for _, m := range comment().FindAllStringSubmatchIndex(text, -1) {
		c := Comment{Start: m[0], End: m[1]}
		switch {
		case m[2] >= 0:
			c.Kind = text[m[2]:m[3]]
			if m[4] >= 0 {
				c.Names = text[m[4]:m[5]]
			}
		default:
			c.Kind = text[m[6]:m[7]]
			if m[8] >= 0 {
				c.Names = text[m[8]:m[9]]
			}
		}
		out = append(out, c)
	}
	return out
}

// line matches, as text, the control comments of AsciiDoc ("// vectorlint-…") and
// reStructuredText (".. vectorlint-…"): a line that starts with one, to its end.
var line = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(?://[ \t]*|\.\.[ \t]+)vectorlint-(disable-next-line|disable|enable)\b[^\n]*`)
})

// FindText returns the control comments of text in every format's syntax, read as text: the
// HTML and MDX forms (Find) and the line comments of AsciiDoc and reStructuredText, in order.
// A model's fix and package fix compare them before and after a change, so that no fix writes
// or removes a control in any format, whatever the document's own format makes of it.
func FindText(text string) []Comment {
	out := Find(text)
	if !strings.Contains(text, Prefix) {
		return out
	}
	for _, m := range line().FindAllStringSubmatchIndex(text, -1) {
		out = append(out, Comment{Start: m[0], End: m[1], Kind: text[m[2]:m[3]]})
	}
	slices.SortStableFunc(out, func(a, b Comment) int { return a.Start - b.Start })
	return out
}
