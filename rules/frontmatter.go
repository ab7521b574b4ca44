package rules

import (
	"bytes"

	"github.com/adrg/frontmatter"
)

// Frontmatter locates a YAML frontmatter block at the top of a file: an opening "---" (or
// "---yaml") line, possibly after blank lines, and a closing "---" line.
type Frontmatter struct {
	// Found is true when a complete block was found.
	Found bool
	// Unclosed is true when the file opens a block that never closes (the whole file is then
	// the body).
	Unclosed bool
	// Data is the YAML between the delimiter lines.
	Data []byte
	// Line is the 1-based line of the file where Data starts.
	Line int
	// BodyOffset is the byte offset where the body (everything after the block) starts; 0 when
	// there is no block, or just after a UTF-8 byte order mark.
	BodyOffset int
}

// bom is the UTF-8 byte order mark some editors write at the start of a file.
const bom = "\ufeff"

// capture is the value the frontmatter library "decodes" into: the raw block, so it can be
// decoded with gopkg.in/yaml.v3 (which keeps line numbers for error messages).
type capture struct {
	data  []byte
	found bool
}

func captureBlock(data []byte, v any) error {
	c := v.(*capture)
	c.data = bytes.Clone(data)
	c.found = true
	return nil
}

// SplitFrontmatter finds the YAML frontmatter of a rule file or a document with
// github.com/adrg/frontmatter. A file without one has Found false and its whole content as body.
func SplitFrontmatter(data []byte) Frontmatter {
	skip := 0
	if bytes.HasPrefix(data, []byte(bom)) {
		skip = len(bom)
	}
	src := data[skip:]
	var c capture
	rest, err := frontmatter.Parse(bytes.NewReader(src), &c,
		frontmatter.NewFormat("---", "---", captureBlock),
		frontmatter.NewFormat("---yaml", "---", captureBlock))
	if err != nil || !c.found {
		// The library only fails on read errors, impossible on a bytes.Reader; treat as absent.
		open, _ := openingLine(src)
		return Frontmatter{Unclosed: open >= 0, BodyOffset: skip}
	}
	open, _ := openingLine(src)
	return Frontmatter{
		Found:      true,
		Data:       c.data,
		Line:       open + 2, // the line after the opening delimiter, 1-based
		BodyOffset: skip + len(src) - len(rest),
	}
}

// openingLine returns the 0-based line index of the opening delimiter (the first non-blank line,
// as the frontmatter library sees it) and its byte offset, or -1 when that line is not a
// delimiter.
func openingLine(src []byte) (line, offset int) {
	for off := 0; off < len(src); line++ {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end >= 0 {
			next = off + end + 1
		}
		text := bytes.TrimSpace(src[off:next])
		if len(text) > 0 {
			if string(text) == "---" || string(text) == "---yaml" {
				return line, off
			}
			return -1, -1
		}
		off = next
	}
	return -1, -1
}
