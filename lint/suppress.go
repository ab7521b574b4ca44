package lint

import (
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/vectorlint/vectorlint/internal/scopes"
)

// Inline controls (spec/linter.md §7 and §14): HTML comments in Markdown, and the same words
// in MDX comments ({/* vectorlint-disable */}), in AsciiDoc comments (// vectorlint-disable),
// in reStructuredText comments (.. vectorlint-disable) and in HTML comments.
//
//	<!-- vectorlint-disable -->                  every rule off from here
//	<!-- vectorlint-enable -->                   every rule back on
//	<!-- vectorlint-disable Acme.Tone, Acme.X --> these rules off (a pack name turns off the pack)
//	<!-- vectorlint-enable Acme.Tone -->         this rule back on (also inside a disabled region)
//	<!-- vectorlint-disable-next-line -->        every rule off on the next line
//	<!-- vectorlint-disable-next-line Acme.X --> this rule off on the next line
var controlComment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(
		`<!--\s*vectorlint-(disable-next-line|disable|enable)(?:\s+([^>]*?))?\s*-->` +
			`|\{\s*/\*\s*vectorlint-(disable-next-line|disable|enable)(?:\s+(.*?))?\s*\*/\s*\}`)
})

// Suppressions are the inline controls of one document. The zero value suppresses nothing.
type Suppressions struct {
	events   []suppressEvent
	nextLine map[int][][]string // line → the name lists of disable-next-line comments (nil list: every rule)
}

type suppressEvent struct {
	offset  int
	disable bool
	names   []string // nil: every rule
}

// ParseSuppressions finds the inline controls of a document. In Markdown and MDX, comments
// inside code (code blocks and code spans, as goldmark reads the document: the scopes of
// skip.go, whatever the configuration skips) are examples, not controls, and are ignored; in
// AsciiDoc, reStructuredText and HTML only a comment of the format's own syntax is a control
// (format.go), never the same words in a listing, a literal block or a script. A disable
// comment with nothing but blank lines (and frontmatter, and skipped scopes such as MDX
// imports) before it covers the whole document, so that a comment on the first line also
// silences findings reported at line 1, column 1.
func ParseSuppressions(doc *Document) *Suppressions {
	s := &Suppressions{}
	body := doc.Body
	if !strings.Contains(body, "vectorlint-") {
		return s
	}
	controls, ok := doc.formatControls()
	if !ok {
		controls = markdownControls(doc)
	}
	prose := doc.Prose() // Body's offsets; MDX imports before a disable are not text before it
	for _, c := range controls {
		list := splitNames(c.names)
		start := doc.BodyOffset + c.start
		switch c.kind {
		case "disable-next-line":
			if s.nextLine == nil {
				s.nextLine = map[int][][]string{}
			}
			line := doc.Position(doc.BodyOffset+c.end).Line + 1
			for c.nextText && line < doc.Lines() && doc.blankLine(line) {
				line++
			}
			s.nextLine[line] = append(s.nextLine[line], list)
		case "disable":
			if strings.TrimSpace(prose[:c.start]) == "" {
				start = 0
			}
			s.events = append(s.events, suppressEvent{offset: start, disable: true, names: list})
		case "enable":
			s.events = append(s.events, suppressEvent{offset: start, names: list})
		}
	}
	sort.SliceStable(s.events, func(i, j int) bool { return s.events[i].offset < s.events[j].offset })
	return s
}

// markdownControls returns the inline controls of a Markdown, MDX or plain text document: the
// HTML and MDX comments outside code that hold one.
func markdownControls(doc *Document) []control {
	return findControls(doc.Body, doc.BodyOffset, doc.codeScopes())
}

// controlPrefix is what every control comment holds: a text without it has none.
const controlPrefix = "vectorlint-"

// findControls returns the control comments of text (HTML and MDX forms) in order, with offsets
// into text, leaving out those that start inside code: there they are examples, not controls.
// code holds the code blocks and code spans, disjoint and sorted (scopes.Union), in offsets
// where text starts at base. The suppression filter and the check on a model's fix
// (fixsafe.go) both read control comments with it.
func findControls(text string, base int, code []scopes.Scope) []control {
	if !strings.Contains(text, controlPrefix) {
		return nil
	}
	var out []control
	for _, m := range controlComment().FindAllStringSubmatchIndex(text, -1) {
		if scopes.Contains(code, base+m[0]) {
			continue
		}
		c := control{start: m[0], end: m[1]}
		switch {
		case m[2] >= 0:
			c.kind = text[m[2]:m[3]]
			if m[4] >= 0 {
				c.names = text[m[4]:m[5]]
			}
		default:
			c.kind = text[m[6]:m[7]]
			if m[8] >= 0 {
				c.names = text[m[8]:m[9]]
			}
		}
		out = append(out, c)
	}
	return out
}

// lineControl matches, as text, the control comments of AsciiDoc ("// vectorlint-…") and
// reStructuredText (".. vectorlint-…"): a line that starts with one, to its end.
var lineControl = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(?://[ \t]*|\.\.[ \t]+)vectorlint-(disable-next-line|disable|enable)\b[^\n]*`)
})

// textControls returns the control comments of text read as text, whatever the document's
// format: the HTML and MDX forms (findControls, code included) and the line comments of
// AsciiDoc and reStructuredText, in order. A model's fix (fixsafe.go) and package fix
// (ControlComments) compare them before and after a change, so a fix cannot write or remove a
// control in any format's syntax.
func textControls(text string) []control {
	out := findControls(text, 0, nil)
	if !strings.Contains(text, controlPrefix) {
		return out
	}
	for _, m := range lineControl().FindAllStringSubmatchIndex(text, -1) {
		out = append(out, control{start: m[0], end: m[1], kind: text[m[2]:m[3]]})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].start < out[j].start })
	return out
}

// splitNames splits "A.B, C.D E" into rule names; nil when there are none.
func splitNames(s string) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	if len(f) == 0 {
		return nil
	}
	return f
}

// Suppressed reports whether a finding of rule (a rule or criterion id) starting at byte
// offset on line is silenced by an inline control.
func (s *Suppressions) Suppressed(rule string, offset, line int) bool {
	if s == nil {
		return false
	}
	for _, names := range s.nextLine[line] {
		if names == nil || matchName(names, rule) >= 0 {
			return true
		}
	}
	all := false
	named := map[string]bool{}
	for _, e := range s.events {
		if e.offset > offset {
			break
		}
		if e.names == nil {
			all = e.disable
			clear(named)
			continue
		}
		for _, n := range e.names {
			named[n] = e.disable
		}
	}
	best := ""
	for n := range named {
		if nameCovers(n, rule) && len(n) > len(best) {
			best = n
		}
	}
	if best != "" {
		return named[best]
	}
	return all
}

// matchName returns the index of the first name that covers rule, or -1.
func matchName(names []string, rule string) int {
	for i, n := range names {
		if nameCovers(n, rule) {
			return i
		}
	}
	return -1
}

// nameCovers reports whether a name in a control comment applies to a rule id: the same id,
// or a prefix of it at a dot ("Acme" covers "Acme.Tone", "Acme.Tone" covers "Acme.Tone.Clarity").
func nameCovers(name, rule string) bool {
	return rule == name || strings.HasPrefix(rule, name+".")
}

// ControlComment is a vectorlint control comment found in a text.
type ControlComment struct {
	// Start and End are its byte offsets in the text, End exclusive.
	Start, End int
	// Text is the comment as written.
	Text string
}

// ControlComments returns the vectorlint control comments of text, in order, read as text in
// every format's syntax (textControls) and wherever they are: code included,
// since text comes without the markup that would tell an example from a control. Package fix
// compares a text's control comments before and after its fixes with it.
func ControlComments(text []byte) []ControlComment {
	var out []ControlComment
	for _, c := range textControls(string(text)) {
		out = append(out, ControlComment{Start: c.start, End: c.end, Text: string(text[c.start:c.end])})
	}
	return out
}
