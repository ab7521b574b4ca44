package safetext

import "strings"

// MarkdownCell makes text safe inside a GitHub-flavoured Markdown table cell: control,
// bidi and invisible characters are shown as escapes (Terminal: a cell must not reorder
// what the reader sees), Markdown and HTML punctuation is backslash-escaped (CommonMark allows it
// before any ASCII punctuation), the cell separator | and the escapes' own backslashes included,
// and line breaks become <br>.
func MarkdownCell(s string) string {
	s = Terminal(s)
	var b strings.Builder
	for _, r := range s {
		switch r {
		case '\\', '`', '*', '_', '[', ']', '<', '>', '&', '|', '~', '#', '!':
			b.WriteByte('\\')
			b.WriteRune(r)
		case '\n':
			b.WriteString("<br>")
		case '\t':
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
