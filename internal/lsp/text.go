package lsp

import (
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	protocol "github.com/tliron/glsp/protocol_3_16"
	"github.com/vectorlint/vectorlint/finding"
)

// Positions in the protocol are 0-based lines and characters in UTF-16 code units, LSP's
// default and the one every client supports; finding.LineIndex computes them from byte
// offsets, which stay the truth.

// protocolPosition is the LSP position of a byte offset (clamped to the text).
func protocolPosition(x finding.LineIndex, offset int) protocol.Position {
	return protocol.Position{Line: protocol.UInteger(x.Line(offset) - 1), Character: protocol.UInteger(x.UTF16Column(offset) - 1)}
}

// protocolRange is the LSP range of the bytes [start, end).
func protocolRange(x finding.LineIndex, start, end int) protocol.Range {
	return protocol.Range{Start: protocolPosition(x, start), End: protocolPosition(x, end)}
}

// protocolOffset is the byte offset of an LSP position: a line past the end is the end of the
// text, a character past the line's end is the line's end (LSP's rule), and a character inside
// a surrogate pair counts the whole code point.
func protocolOffset(x finding.LineIndex, p protocol.Position) int {
	return x.UTF16Offset(int(p.Line)+1, int(p.Character)+1)
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
			x := finding.NewLineIndex(text)
			start, end := protocolOffset(x, c.Range.Start), protocolOffset(x, c.Range.End)
			if end < start {
				start, end = end, start
			}
			text = text[:start] + c.Text + text[end:]
		}
	}
	return text
}
