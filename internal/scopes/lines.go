package scopes

import "bytes"

// The line scanners of AsciiDoc and reStructuredText read a document line by line, then the
// inline syntax of each run of prose lines. Helpers shared by both.

// line is one line of a document: src[start:end] without its line break, next where the
// following line starts.
type line struct{ start, end, next int }

// splitLines returns the lines of src; a line break is "\n", "\r\n" or a lone "\r".
func splitLines(src []byte) []line {
	var ls []line
	for off := 0; off < len(src); {
		i := bytes.IndexAny(src[off:], "\r\n")
		if i < 0 {
			ls = append(ls, line{off, len(src), len(src)})
			break
		}
		end, next := off+i, off+i+1
		if src[end] == '\r' && next < len(src) && src[next] == '\n' {
			next++
		}
		ls = append(ls, line{off, end, next})
		off = next
	}
	return ls
}

// text is the line without trailing spaces and tabs.
func (ln line) text(src []byte) []byte { return bytes.TrimRight(src[ln.start:ln.end], " \t") }

// blank reports whether the line holds only spaces and tabs.
func (ln line) blank(src []byte) bool { return len(ln.text(src)) == 0 }

// indent returns the line's indentation in columns (a tab advances to the next multiple of 8,
// as docutils reads it) and the offset of its first other byte.
func (ln line) indent(src []byte) (cols, at int) {
	at = ln.start
	for at < ln.end {
		switch src[at] {
		case ' ':
			cols++
		case '\t':
			cols += 8 - cols%8
		default:
			return cols, at
		}
		at++
	}
	return cols, at
}

// closer finds closing delimiters in one run of text, reading each byte a bounded number of
// times however many openers look for it: the first valid close at or after a position is
// the same for every position up to it, so it is kept.
type closer struct {
	delim string
	valid func(i int) bool // whether delim at i closes
	found int              // the last close found (-1: none yet)
	from  int              // where the search that found it started
	none  bool             // no close at or after from
}

func newCloser(delim string, valid func(i int) bool) *closer {
	return &closer{delim: delim, valid: valid, found: -1}
}

// next returns the first offset i in [from, end) where delim starts and valid(i) holds, or -1.
func (c *closer) next(src []byte, from, end int) int {
	if c.found >= from && from >= c.from {
		return c.found
	}
	if c.none && from >= c.from {
		return -1
	}
	c.from, c.found, c.none = from, -1, false
	for i := from; i < end; {
		k := bytes.Index(src[i:end], []byte(c.delim))
		if k < 0 {
			break
		}
		if c.valid == nil || c.valid(i+k) {
			c.found = i + k
			return c.found
		}
		i += k + 1
	}
	c.none = true
	return -1
}
