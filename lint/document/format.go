package document

import (
	"bytes"
	"regexp"
	"strings"
	"sync"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/controls"
	"github.com/vectorlint/vectorlint/internal/scopes"
	"github.com/vectorlint/vectorlint/rules"
)

// Document formats (spec/linter.md §14): Markdown, MDX, AsciiDoc, reStructuredText, HTML and
// plain text, by extension (scopes.SyntaxOf) or by a section's Format key. What each format
// holds that is not prose is found by internal/scopes; this file wires it in:
//
//   - the Format key of a section, validated, the most specific matching section winning;
//   - the view targets run on (scopes.View): every heading as Markdown writes it, and a front
//     matter title when the document has no title of its own, so that the same target finds
//     a document's title in every format;
//   - inline controls in each format's own comments (suppress.go calls controls here).

// FormatNames are the values the Format key accepts.
func FormatNames() []string { return scopes.FormatNames() }

// Syntax returns the format a file is read in: the Format of its most specific matching
// section that sets one, else what its extension says.
func (s ScopeSettings) Syntax(path string) scopes.Syntax {
	if s.Format != "" {
		if syn, ok := scopes.ParseFormat(s.Format); ok {
			return syn
		}
	}
	return scopes.SyntaxOf(path)
}

// Syntax is the format the document is read in.
func (d *Document) Syntax() scopes.Syntax { return d.syntax }

// splitFrontmatter finds a document's YAML front matter. In reStructuredText a "---" line is
// also a title's overline ("---\nAPI\n---"): there a block is front matter only when it holds
// a YAML mapping.
func splitFrontmatter(src []byte, syn scopes.Syntax) rules.Frontmatter {
	fm := rules.SplitFrontmatter(src)
	if fm.Found && syn == scopes.SyntaxRST {
		var m map[string]any
		if err := yaml.Unmarshal(fm.Data, &m); err != nil || len(m) == 0 {
			return rules.Frontmatter{BodyOffset: bomLen(src)}
		}
	}
	return fm
}

// bomLen is the length of a byte order mark at the start of src.
func bomLen(src []byte) int {
	if bytes.HasPrefix(src, []byte("\ufeff")) {
		return 3
	}
	return 0
}

// frontmatterTitle returns the title a YAML front matter sets ("title: Install the CLI", as
// Docusaurus, Mintlify, Hugo and Jekyll pages write it), when its value is written on its
// line as it reads (plain, or quoted without escapes), so that a finding in it has the
// file's own bytes; nil otherwise.
func frontmatterTitle(d *Document, fm rules.Frontmatter) *scopes.Title {
	var m map[string]any
	if err := yaml.Unmarshal(fm.Data, &m); err != nil {
		return nil
	}
	want, ok := m["title"].(string)
	if !ok || strings.TrimSpace(want) == "" {
		return nil
	}
	for line := fm.Line; ; line++ {
		start := d.LineStart(line)
		if start >= d.BodyOffset || line > d.lines.Lines() {
			return nil
		}
		end := d.lineEnd(start)
		text := string(d.Source[start:end])
		rest, ok := strings.CutPrefix(text, "title:")
		if !ok {
			continue
		}
		at := start + len("title:") + len(rest) - len(strings.TrimLeft(rest, " \t"))
		value := strings.TrimRight(strings.TrimLeft(rest, " \t"), " \t")
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			at++
			value = value[1 : len(value)-1]
		} else if i := strings.Index(value, " #"); i >= 0 {
			value = strings.TrimRight(value[:i], " \t")
		}
		if value != want {
			return nil // written with escapes, folded or over several lines: not the bytes it reads as
		}
		return &scopes.Title{Start: at, End: at + len(value), Text: value}
	}
}

// targetView is the text targets run on (scopes.View), made once.
func (d *Document) targetView() scopes.View {
	if d.view == nil {
		v := scopes.NewView(d.Prose(), d.BodyOffset, d.headings, d.fmTitle)
		d.view = &v
	}
	return *d.view
}

// FindTarget runs a target on the document's view and maps its match back: the match's text
// is the prose (or the front matter title) it stands for, and Start and End are offsets from
// the start of the body (negative for a match in the front matter's title).
func (d *Document) FindTarget(t *rules.Target) (rules.TargetMatch, bool, error) {
	v := d.targetView()
	m, found, err := t.Find(v.Text)
	if err != nil || !found {
		return m, found, err
	}
	start, end := v.Source(m.Start, m.End)
	if t := d.fmTitle; t != nil && start < d.BodyOffset && end > t.End {
		start = d.BodyOffset // a match from the title into the body: the body's part
	}
	var text string
	switch {
	case end <= d.BodyOffset:
		text = string(d.Source[start:end])
	default:
		start = max(start, d.BodyOffset)
		text = d.Prose()[start-d.BodyOffset : end-d.BodyOffset]
	}
	if text == "" {
		return rules.TargetMatch{}, false, nil
	}
	return rules.TargetMatch{Text: text, Start: start - d.BodyOffset, End: end - d.BodyOffset}, true, nil
}

// formatControl matches an inline control in a comment of the format's own syntax:
// "// vectorlint-disable …" in AsciiDoc, ".. vectorlint-disable …" in reStructuredText,
// "<!-- vectorlint-disable … -->" in HTML. The comment is all there is: a comment that says
// more than the control is not one.
var formatControl = sync.OnceValue(func() map[scopes.Syntax]*regexp.Regexp {
	const words = `vectorlint-(disable-next-line|disable|enable)(?:[ \t]+([\s\S]*?))?\s*`
	return map[scopes.Syntax]*regexp.Regexp{
		scopes.SyntaxAsciiDoc: regexp.MustCompile(`^//[ \t]*` + words + `$`),
		scopes.SyntaxRST:      regexp.MustCompile(`^\.\.[ \t]+` + words + `$`),
		scopes.SyntaxHTML:     regexp.MustCompile(`^<!--\s*` + words + `-->$`),
	}
})

// formatControls returns the inline controls of a document whose format has comments of its
// own (AsciiDoc, reStructuredText, HTML), as the matches of controlComment would give them:
// offsets into Body of the control's start and end, its kind and its names. ok is false for
// Markdown, MDX and plain text, whose controls suppress.go reads itself.
func (d *Document) formatControls() (out []control, ok bool) {
	re := formatControl()[d.syntax]
	if re == nil {
		return nil, false
	}
	for _, c := range d.comments {
		text := string(d.Source[c.Start:c.End])
		m := re.FindStringSubmatch(text)
		if m == nil {
			continue
		}
		out = append(out, control{Comment: controls.Comment{Start: c.Start - d.BodyOffset, End: c.End - d.BodyOffset, Kind: m[1], Names: m[2]}, nextText: true})
	}
	return out, true
}

// control is one inline control comment of a document, with its offsets in Body. nextText makes "the next line" of
// disable-next-line the next line with text (a reStructuredText comment needs a blank line
// after it; AsciiDoc and HTML comments read the same).
type control struct {
	controls.Comment
	nextText bool
}

// blankLine reports whether a 1-based line holds only white space.
func (d *Document) blankLine(line int) bool {
	start := d.LineStart(line)
	return strings.TrimSpace(string(d.Source[start:d.lineEnd(start)])) == ""
}
