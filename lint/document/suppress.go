package document

import (
	"sort"
	"strings"

	"github.com/vectorlint/vectorlint/internal/controls"
	"github.com/vectorlint/vectorlint/internal/scopes"
)

// Inline controls (spec/linter.md §7 and §14): the control comments of package controls in
// Markdown and MDX, read outside code, and in AsciiDoc, reStructuredText and HTML the comments of
// the format's own syntax (format.go).

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
	ctrls, ok := doc.formatControls()
	if !ok {
		ctrls = markdownControls(doc)
	}
	prose := doc.Prose() // Body's offsets; MDX imports before a disable are not text before it
	for _, c := range ctrls {
		list := splitNames(c.Names)
		start := doc.BodyOffset + c.Start
		switch c.Kind {
		case "disable-next-line":
			if s.nextLine == nil {
				s.nextLine = map[int][][]string{}
			}
			line := doc.Position(doc.BodyOffset+c.End).Line + 1
			for c.nextText && line < doc.Lines() && doc.blankLine(line) {
				line++
			}
			s.nextLine[line] = append(s.nextLine[line], list)
		case "disable":
			if strings.TrimSpace(prose[:c.Start]) == "" {
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
	var out []control
	for _, c := range findControls(doc.Body, doc.BodyOffset, doc.codeScopes()) {
		out = append(out, control{Comment: c})
	}
	return out
}

// findControls returns the control comments of text (HTML and MDX forms) in order, with offsets
// into text, leaving out those that start inside code: there they are examples, not controls.
// code holds the code blocks and code spans, disjoint and sorted (scopes.Union), in offsets
// where text starts at base. The suppression filter and the check on a model's fix
// (fixsafe.go) both read control comments with it.
func findControls(text string, base int, code []scopes.Scope) []controls.Comment {
	all := controls.Find(text)
	out := all[:0]
	for _, c := range all {
		if !scopes.Contains(code, base+c.Start) {
			out = append(out, c)
		}
	}
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
