package document

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultChunkWords is the most words a chunk holds when the configuration sets no ChunkWords
// (spec/linter.md §13, docs/configuration.md): a text of at most this many words is sent whole.
const DefaultChunkWords = 1500

// Content-defined boundaries (spec/linter.md §13, "Requests that do not depend on position";
// docs/how-it-works.md). A chunk ends before a paragraph that is a cut point once it holds at
// least a fifth of its maximum: whether a paragraph is a cut point depends only on the paragraph's
// own first line, so an edit moves only the boundaries next to it and the chunks downstream of
// it come out the same. A heading is a cut point more often than a plain paragraph, so chunks
// tend to start at headings.
const (
	// headingCut and paragraphCut: one heading in headingCut, and one plain paragraph in
	// paragraphCut, is a cut point (by a hash of its first line).
	headingCut   = 4
	paragraphCut = 32
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

// SplitChunks splits a text that starts at byte offset and line into chunks of at most
// maxWords words (DefaultChunkWords when maxWords < 1): one chunk when the text has at most
// maxWords words. Longer texts are cut at paragraph boundaries (blank lines), content-defined:
// a chunk of at least maxWords/5 words ends before the next paragraph that is a cut point
// (isCutPoint: a heading or, less often, a plain paragraph, chosen by a hash of its first
// line), and before any paragraph that would take it over maxWords. A paragraph over maxWords
// is cut at line boundaries, then between words for a single line longer than maxWords. No
// text is ever dropped: the chunks' texts concatenate to text exactly.
func SplitChunks(text string, offset, line, maxWords int) []Chunk {
	if maxWords < 1 {
		maxWords = DefaultChunkWords
	}
	words := CountWords(text)
	if words <= maxWords {
		return []Chunk{{Text: text, Offset: offset, Line: line, Words: words}}
	}
	type piece struct {
		text  string
		words int
		cut   bool // a cut point: a chunk of minWords or more ends before it
	}
	var pieces []piece
	for _, para := range paragraphs(text) {
		w := CountWords(para)
		if w <= maxWords {
			pieces = append(pieces, piece{para, w, isCutPoint(para)})
			continue
		}
		for i, l := range strings.SplitAfter(para, "\n") {
			if l == "" {
				continue
			}
			first := i == 0 && isCutPoint(para)
			if lw := CountWords(l); lw <= maxWords {
				pieces = append(pieces, piece{l, lw, first})
				continue
			}
			for j, p := range splitWords(l, maxWords) {
				pieces = append(pieces, piece{p, CountWords(p), first && j == 0})
			}
		}
	}
	minWords := maxWords / 5
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
		if curWords > 0 && p.words > 0 && (curWords+p.words > maxWords || p.cut && curWords >= minWords) {
			flush()
		}
		end += len(p.text)
		curWords += p.words
	}
	flush()
	return chunks
}

// isCutPoint tells whether a chunk may end before the paragraph para: one heading in
// headingCut, one other paragraph in paragraphCut, by an FNV-1a hash of its first line with
// its spaces trimmed. Only the first line counts, so that editing the rest of a paragraph
// does not move a boundary.
func isCutPoint(para string) bool {
	first := strings.TrimLeft(para, " \t\r\n")
	if i := strings.IndexAny(first, "\r\n"); i >= 0 {
		first = first[:i]
	}
	first = strings.TrimSpace(first)
	if first == "" {
		return false
	}
	h := uint32(2166136261)
	for i := 0; i < len(first); i++ {
		h ^= uint32(first[i])
		h *= 16777619
	}
	if strings.HasPrefix(first, "#") {
		return h%headingCut == 0
	}
	return h%paragraphCut == 0
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
