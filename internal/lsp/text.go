package lsp

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	protocol "github.com/tliron/glsp/protocol_3_16"
)

// lines indexes a text for LSP positions: 0-based lines (ended by "\n", "\r\n" or a lone "\r",
// as in LSP and in lint.Document) and characters in UTF-16 code units, LSP's default and the
// one every client supports.
type lines struct {
	text   string
	starts []int
}

func newLines(text string) lines {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch text[i] {
		case '\n':
			starts = append(starts, i+1)
		case '\r':
			if i+1 < len(text) && text[i+1] == '\n' {
				i++
			}
			starts = append(starts, i+1)
		}
	}
	return lines{text: text, starts: starts}
}

// position is the LSP position of a byte offset (clamped to the text).
func (l lines) position(offset int) protocol.Position {
	offset = max(0, min(offset, len(l.text)))
	line := 0
	for lo, hi := 0, len(l.starts)-1; lo <= hi; {
		mid := (lo + hi) / 2
		if l.starts[mid] <= offset {
			line, lo = mid, mid+1
		} else {
			hi = mid - 1
		}
	}
	return protocol.Position{Line: protocol.UInteger(line), Character: protocol.UInteger(utf16Len(l.text[l.starts[line]:offset]))}
}

// rng is the LSP range of the bytes [start, end).
func (l lines) rng(start, end int) protocol.Range {
	return protocol.Range{Start: l.position(start), End: l.position(end)}
}

// offset is the byte offset of an LSP position: a line past the end is the end of the text, a
// character past the line's end is the line's end (LSP's rule), and a character inside a
// surrogate pair counts the whole code point.
func (l lines) offset(p protocol.Position) int {
	line := int(p.Line)
	if line >= len(l.starts) {
		return len(l.text)
	}
	start := l.starts[line]
	end := len(l.text)
	if line+1 < len(l.starts) {
		end = l.starts[line+1]
	}
	// The line's content, without its break.
	content := strings.TrimRight(l.text[start:end], "\r\n")
	units := int(p.Character)
	i := 0
	for i < len(content) && units > 0 {
		r, size := utf8.DecodeRuneInString(content[i:])
		units -= utf16.RuneLen(r) // an invalid byte decodes as U+FFFD: one unit
		i += size
	}
	return start + i
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r) // an invalid byte ranges as U+FFFD: one unit
	}
	return n
}

// uriPath is the file path of a file: URI ("" for any other scheme: an unsaved buffer has no
// folder to find a configuration from).
func uriPath(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return ""
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		p = strings.TrimPrefix(p, "/") // file:///C:/x
	}
	return filepath.FromSlash(p)
}

// pathURI is the file: URI of an absolute path.
func pathURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}

// changed applies LSP content changes to text: a change with a range replaces it, one without
// is the whole new text.
func changed(text string, changes []any) string {
	for _, c := range changes {
		switch c := c.(type) {
		case protocol.TextDocumentContentChangeEventWhole:
			text = c.Text
		case protocol.TextDocumentContentChangeEvent:
			if c.Range == nil {
				text = c.Text
				continue
			}
			l := newLines(text)
			start, end := l.offset(c.Range.Start), l.offset(c.Range.End)
			if end < start {
				start, end = end, start
			}
			text = text[:start] + c.Text + text[end:]
		}
	}
	return text
}
