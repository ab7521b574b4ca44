package document

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunking thresholds (spec/linter.md §5 "Long documents").
const (
	// ChunkThresholdWords: texts with more words than this are split into chunks.
	ChunkThresholdWords = 600
	// MaxChunkWords is the most words a chunk holds.
	MaxChunkWords = 500
)

// Chunk is a piece of a unit's text sent to the model in one call.
type Chunk struct {
	Text string
	// Offset is the byte offset of Text in the document's Source; Line is its first line.
	Offset int
	Line   int
	// Words is the number of whitespace-separated words in Text.
	Words int
}

// CountWords returns the number of whitespace-separated words of s (spec/linter.md §5). It may
// be 0; scoring uses at least 1.
func CountWords(s string) int {
	// The same count as len(strings.Fields(s)) without building the slice: the splitter counts
	// every paragraph and line of a long document.
	n, inWord := 0, false
	for i := 0; i < len(s); {
		c := s[i]
		var space bool
		if c < utf8.RuneSelf {
			space = c == ' ' || ('\t' <= c && c <= '\r') // unicode.IsSpace's ASCII spaces
			i++
		} else {
			r, size := utf8.DecodeRuneInString(s[i:])
			space = unicode.IsSpace(r)
			i += size
		}
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// SplitChunks splits a text that starts at byte offset and line into chunks: one chunk when it
// has at most ChunkThresholdWords words, else chunks of at most MaxChunkWords words cut at
// paragraph boundaries (blank lines), then at line boundaries, then between words for a single
// line longer than MaxChunkWords. No text is ever dropped: the chunks' texts concatenate to
// text exactly.
func SplitChunks(text string, offset, line int) []Chunk {
	words := CountWords(text)
	if words <= ChunkThresholdWords {
		return []Chunk{{Text: text, Offset: offset, Line: line, Words: words}}
	}
	var pieces []string
	for _, para := range paragraphs(text) {
		if CountWords(para) <= MaxChunkWords {
			pieces = append(pieces, para)
			continue
		}
		for _, l := range strings.SplitAfter(para, "\n") {
			if l == "" {
				continue
			}
			if CountWords(l) <= MaxChunkWords {
				pieces = append(pieces, l)
				continue
			}
			pieces = append(pieces, splitWords(l, MaxChunkWords)...)
		}
	}
	var (
		chunks   []Chunk
		start    int // byte offset in text of the current chunk
		end      int
		curWords int
		// startLine is the line of text[start]; lines are counted once, chunk by chunk
		// (counting from the top for every chunk made long documents quadratic). Chunks
		// never end between "\r" and "\n", so counting in pieces counts what Document does.
		startLine = line
	)
	flush := func() {
		if end > start {
			chunks = append(chunks, Chunk{Text: text[start:end], Offset: offset + start, Line: startLine, Words: curWords})
			startLine += countLineBreaks(text[start:end])
		}
		start, curWords = end, 0
	}
	for _, p := range pieces {
		w := CountWords(p)
		if curWords > 0 && w > 0 && curWords+w > MaxChunkWords {
			flush()
		}
		end += len(p)
		curWords += w
	}
	flush()
	return chunks
}

// paragraphs splits text after each run of blank lines: every piece is a run of lines with text
// followed by the blank lines after it. Blank lines at the start belong to the first piece.
func paragraphs(text string) []string {
	var (
		out     []string
		start   int
		off     int
		seenTxt bool // the current piece has a line with text
		inBlank bool // the current piece is in its trailing blank lines
	)
	for _, l := range strings.SplitAfter(text, "\n") {
		blank := strings.TrimSpace(l) == ""
		if !blank && inBlank {
			out = append(out, text[start:off])
			start, inBlank = off, false
		}
		if blank && seenTxt {
			inBlank = true
		}
		if !blank {
			seenTxt = true
		}
		off += len(l)
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

// splitWords cuts s into pieces of at most n words, each ending after the whitespace that
// follows its last word.
func splitWords(s string, n int) []string {
	var out []string
	start, words, inWord := 0, 0, false
	for i, r := range s {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			if words == n {
				out = append(out, s[start:i])
				start, words = i, 0
			}
			words++
		}
		inWord = !space
	}
	return append(out, s[start:])
}

// countLineBreaks counts line breaks as Document does: "\n", "\r\n" and a lone "\r".
func countLineBreaks(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\n':
			n++
		case '\r':
			if i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			n++
		}
	}
	return n
}

// ChunkLines is the first and last line of a chunk.
func ChunkLines(c Chunk) (first, last int) {
	last = c.Line + countLineBreaks(c.Text)
	if n := len(c.Text); n > 0 && (c.Text[n-1] == '\n' || c.Text[n-1] == '\r') && last > c.Line {
		last-- // the break ends the chunk's last line
	}
	return c.Line, last
}
