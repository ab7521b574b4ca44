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
	body := doc.Body
	code := doc.codeScopes()
	var out []control
	for _, m := range controlComment().FindAllStringSubmatchIndex(body, -1) {
		if scopes.Contains(code, doc.BodyOffset+m[0]) {
			continue
		}
		c := control{start: m[0], end: m[1]}
		switch {
		case m[2] >= 0:
			c.kind = body[m[2]:m[3]]
			if m[4] >= 0 {
				c.names = body[m[4]:m[5]]
			}
		default:
			c.kind = body[m[6]:m[7]]
			if m[8] >= 0 {
				c.names = body[m[8]:m[9]]
			}
		}
		out = append(out, c)
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
