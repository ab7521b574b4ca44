// Package safetext makes untrusted text — from documents, rules, configuration, blueprints,
// model replies, HTTP bodies and file names — safe to print (spec/trust.md §3). Two readers can
// act on what the tool prints, and each gets its own guarantee:
//
//   - A terminal acts on control characters (ESC sequences, OSC 8 links, BEL, backspace, CR, C1
//     controls) and a reader is misled by bidi overrides and invisible characters. In
//     human-readable output they are shown as visible escapes (Terminal, Human,
//     NewHumanWriter): \x1b, \x0d, \u202e, \U000e0041; invalid UTF-8 as \xff.
//   - A GitHub Actions runner acts on workflow commands in a job's output. With workflow set,
//     Human and the writers leave no line the runner could read as one (see below) by inserting a
//     visible backslash: a line whose first visible characters are "::" gets "\::", and "##["
//     becomes "##\[". Machine formats are encoded instead, so they decode to the exact text:
//     JSON writes that "[" as \u005b (JSON, NewJSONWriter), XML and HTML write it as &#91; and a
//     line-leading ":" as &#58; (XMLText, XMLAttr, HTML).
//
// # What the runner acts on
//
// GitHub's runner (github.com/actions/runner) reads a step's standard output and error one line
// at a time with .NET's StreamReader.ReadLine, which ends a line at LF, CR or CR LF
// (src/Runner.Sdk/ProcessInvoker.cs, StartReadStream). Each line goes to
// ActionCommandManager.TryProcessCommand (src/Runner.Worker/ActionCommandManager.cs), which
// tries two parsers in src/Runner.Common/ActionCommand.cs:
//
//   - TryParseV2: message.TrimStart(), then message.StartsWith("::"): a line whose first
//     non-blank characters are "::" ("::error::", "::add-mask::", "::stop-commands::TOKEN", after
//     which every command is ignored until "::TOKEN::");
//   - TryParse: message.IndexOf("##[") anywhere in the line (the older form, "##[error]text").
//
// TrimStart removes the characters .NET's Char.IsWhiteSpace accepts, which are Unicode's
// White_Space property: not only space and tab but also U+0085, U+00A0, U+1680, U+2000–U+200A,
// U+2028, U+2029, U+202F, U+205F, U+3000, VT and FF. StartsWith(string) and IndexOf(string) compare
// with the current culture (ICU on Linux), which skips "ignorable" code points: controls, format
// characters such as U+200B, U+200D, U+2060 and U+FEFF, variation selectors. So "\u200b::error::"
// and "#\u200d#[" are commands too. This package therefore treats every control, format
// character, combining mark, variation selector and default-ignorable code point as invisible:
// it looks through them when it looks for "::" at a line's start (after White_Space) and for
// "##[", and escapes the "[" or the ":" itself, which no culture skips. Escaping a little more
// than the runner would act on costs nothing; escaping less would be the bug.
//
// Library code applies these at composition time, where it knows the format; the command also
// passes its standard error through a NewHumanWriter, so no error message has to remember.
package safetext

import (
	"fmt"
	"io"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Terminal returns s with every character a terminal could act on, or that hides or reorders
// text, shown as a visible escape: C0 controls other than tab and LF, DEL and invalid UTF-8
// bytes as \xNN, C1 controls and the format characters of Dangerous as \uNNNN (\UNNNNNNNN above
// U+FFFF). CR LF becomes LF (a line ending, harmless); a lone CR is shown as \x0d. Text without
// such characters is returned unchanged. A backslash already in s is kept as it is (escaping it
// would change every Windows path and regex a message quotes), so a literal "\x1b" in a document
// looks the same as an escaped ESC: both are harmless text.
func Terminal(s string) string {
	if plain(s) {
		return s
	}
	e := engine{enc: encHuman}
	return string(e.finish(e.feed(nil, []byte(s), true)))
}

// Human returns s escaped for a terminal as Terminal does and, when workflow is set (the command
// sets it when GITHUB_ACTIONS=true), with every line a GitHub runner could read as a workflow
// command made inert by a visible backslash: "\::" at a line's start, "##\[" anywhere. Since s
// may be placed after other text, its start is treated as a line's start (white space may
// precede it) and a trailing ":" that could meet another is escaped too. The caller must not put
// s directly after text that ends in '#' or before text that starts with '[' (the tool's own
// separators are spaces and punctuation), and must compose whole lines before calling Human where
// the layout can move words to a new line (wrapping): escape the laid-out text, or write it
// through NewHumanWriter.
func Human(s string, workflow bool) string {
	if !workflow {
		return Terminal(s)
	}
	e := engine{enc: encHuman, workflow: true, lineRule: true}
	return string(e.finish(e.feed(nil, []byte(s), true)))
}

// JSON returns the encoded JSON document or value b with the "[" of every "##[" (looking through
// invisible characters) written as \u005b, and DEL, C1 controls and the format characters of
// Dangerous written as \u escapes, so the decoded text is exactly the same while no line of it
// holds a workflow command or a raw character a terminal could act on. Such characters occur in
// JSON only inside strings, where those escapes mean the same; b must be JSON as encoding/json
// writes it (valid UTF-8, control characters already escaped). A line of JSON cannot start with
// "::": strings escape line breaks. b is returned unchanged when nothing needs escaping.
func JSON(b []byte) []byte {
	if !needsJSON(b) {
		return b
	}
	e := engine{enc: encJSON, workflow: true}
	return e.finish(e.feed(nil, b, true))
}

// XMLText escapes s as XML character data: &, < and > as entities, CR as &#xD; (a parser would
// turn a raw CR into LF), characters XML 1.0 cannot carry (other C0 controls, U+FFFE, U+FFFF,
// invalid UTF-8) as U+FFFD, and — so the document is safe to print under a GitHub runner and on a
// terminal while it decodes to the same text — DEL, C1 controls and the format characters of
// Dangerous as character references, the "[" of "##[" as &#91; and the first ":" of a line that
// starts with "::" as &#58;. Since the escapes cost nothing here, the start of s is treated as both
// a line's start and as following "##". The text must not be placed in a CDATA section, where
// references are not decoded.
func XMLText(s string) string {
	e := engine{enc: encXMLText, workflow: true, lineRule: true, hashes: 2}
	return string(e.finish(e.feed(nil, []byte(s), true)))
}

// XMLAttr escapes s for a double-quoted XML attribute value: as XMLText, plus the quote and the
// white space a parser would normalise to spaces (tab, LF, CR) as references, so the value stays
// on one line.
func XMLAttr(s string) string {
	e := engine{enc: encXMLAttr, workflow: true, lineRule: true, hashes: 2}
	return string(e.finish(e.feed(nil, []byte(s), true)))
}

// HTML returns the rendered HTML document b (html/template output) with the "[" of every "##["
// written as &#91; and the first ":" of every line that starts with "::" as &#58;, so the page
// shows the same text and is safe to print under a GitHub runner. References are decoded in
// text and attribute values, where html/template puts data; the caller must make sure its
// template's own <script> and <style> text holds neither pattern (they are left alone only
// because they never match).
func HTML(b []byte) []byte {
	e := engine{enc: encHTML, workflow: true, lineRule: true}
	return e.finish(e.feed(nil, b, true))
}

// Dangerous reports whether r is shown escaped by Terminal and Human (and written as a \u
// escape or character reference by JSON and XMLText): C0 controls other than tab and LF, DEL, C1
// controls, the bidi embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069: they can
// reorder what a reader sees, the "Trojan Source" attack), the line and paragraph separators
// (U+2028, U+2029: some terminals and editors break lines there), and the invisible characters
// with no use in prose that can hide text: zero-width space U+200B, word joiner and invisible
// operators U+2060–U+2064, the deprecated format characters U+206A–U+206F, U+FEFF, the interlinear
// annotation marks U+FFF9–U+FFFB, the Mongolian vowel separator U+180E and the tag characters
// U+E0000–U+E007F (which can smuggle invisible ASCII). Zero-width joiner and non-joiner, the
// left-to-right and right-to-left marks, the soft hyphen and variation selectors are kept: emoji
// sequences and right-to-left and Indic scripts need them, and none can reorder or hide text.
func Dangerous(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r < 0x7f:
		return false
	case r <= 0x9f:
		return true
	}
	return dangerousFormat(r)
}

// dangerousFormat is the part of Dangerous above U+009F.
func dangerousFormat(r rune) bool {
	switch {
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069,
		r == 0x2028, r == 0x2029, r == 0x200b,
		r >= 0x2060 && r <= 0x2064, r >= 0x206a && r <= 0x206f,
		r == 0xfeff, r >= 0xfff9 && r <= 0xfffb, r == 0x180e,
		r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}

// Invisible reports whether a GitHub runner's culture-sensitive comparison could skip r when it
// looks for "::" or "##[" (see the package comment): controls that are not White_Space, format
// characters, combining marks, variation selectors and the other default-ignorable code points.
func Invisible(r rune) bool {
	if r < 0x80 {
		return (r < 0x20 || r == 0x7f) && !isSpace(r)
	}
	if isSpace(r) {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me, unicode.Variation_Selector,
		unicode.Other_Default_Ignorable_Code_Point)
}

// isSpace is .NET's Char.IsWhiteSpace, which String.TrimStart removes: Unicode's White_Space.
func isSpace(r rune) bool {
	if r < 0x80 {
		return r == ' ' || (r >= '\t' && r <= '\r')
	}
	return unicode.Is(unicode.White_Space, r)
}

// plain reports whether s needs no terminal escaping: valid UTF-8 without a Dangerous character.
func plain(s string) bool {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || Dangerous(r) {
			return false
		}
		i += size
	}
	return true
}

// needsJSON reports whether JSON would change b: a byte from DEL up (a character that may need
// escaping or may hide a "##["), or a literal "##[".
func needsJSON(b []byte) bool {
	hashes := 0
	for _, c := range b {
		switch {
		case c >= 0x7f:
			return true
		case c == '#':
			hashes++
		case c == '[' && hashes >= 2:
			return true
		default:
			hashes = 0
		}
	}
	return false
}

// encoding is how the engine writes each character.
type encoding uint8

const (
	encHuman   encoding = iota // visible escapes for a terminal
	encRaw                     // bytes as they are (a safety net over any output)
	encJSON                    // encoded JSON: \u escapes
	encXMLText                 // XML character data: entities and character references
	encXMLAttr                 // a double-quoted XML attribute value
	encHTML                    // rendered HTML: character references
)

// kind classifies a piece of output for the workflow-command rules.
type kind uint8

const (
	kOther     kind = iota // a visible character or an escape sequence (never ending in '#')
	kLineBreak             // LF or CR: the runner starts a new line
	kSpace                 // White_Space: trimmed at a line's start, visible elsewhere
	kInvisible             // skipped by the runner's comparisons
	kColon                 // ':'
	kHash                  // '#'
	kBracket               // '['
)

// state is where the engine is in the current output line.
type state uint8

const (
	leading state = iota // only white space and invisible characters so far
	pending              // the first visible character is ':', held until the next visible one
	body                 // past the line's start
)

// engine escapes a stream of bytes in one encoding and, with workflow, applies the runner's
// rules to what it writes: it tracks the line's start and how many '#' end the visible output.
type engine struct {
	enc      encoding
	workflow bool
	// lineRule applies the "::" at a line's start rule (not needed in JSON, whose lines cannot
	// start with text).
	lineRule bool
	st       state
	// held is, in the pending state, the invisible characters written after the held ':'.
	held []byte
	// hashes counts the '#' that end the visible output of the line, up to 2.
	hashes int
}

// feed escapes in, appending to out, and returns out. Unless final, it stops before a trailing
// incomplete UTF-8 sequence (and, for a terminal, a trailing CR that may begin CR LF); the caller
// keeps those bytes (see rest).
func (e *engine) feed(out, in []byte, final bool) []byte {
	out, _ = e.feedRest(out, in, final)
	return out
}

// feedRest is feed that also returns how many bytes of in it consumed.
func (e *engine) feedRest(out, in []byte, final bool) ([]byte, int) {
	i := 0
	for i < len(in) {
		c := in[i]
		if c < utf8.RuneSelf && !e.special(c) && (e.st == body || !e.workflow) {
			// The common case: a run of plain ASCII characters in a line's body, copied at once.
			j := i + 1
			for j < len(in) && in[j] < utf8.RuneSelf && !e.special(in[j]) {
				j++
			}
			out = append(out, in[i:j]...)
			e.hashes = 0
			i = j
			continue
		}
		if c < utf8.RuneSelf {
			if c == '\r' && e.enc == encHuman {
				if i+1 == len(in) && !final {
					return out, i
				}
				if i+1 < len(in) && in[i+1] == '\n' {
					i++ // CR LF is a line ending: write the LF alone
					continue
				}
			}
			out = e.char(out, rune(c))
			i++
			continue
		}
		r, size := utf8.DecodeRune(in[i:])
		if r == utf8.RuneError && size == 1 {
			if !final && !utf8.FullRune(in[i:]) {
				return out, i
			}
			out = e.invalid(out, c)
			i++
			continue
		}
		out = e.char(out, r)
		i += size
	}
	return out, i
}

// special reports whether the ASCII byte c needs more than copying in the body of a line (past
// its start, where white space and ':' matter): a control character, '#' or '[' (which may make
// "##["), or an XML metacharacter.
func (e *engine) special(c byte) bool {
	switch c {
	case '#', '[', 0x7f:
		return true
	case '&', '<', '>', '"':
		return e.enc == encXMLText || e.enc == encXMLAttr
	}
	return c < 0x20
}

// invalid writes a byte that is not part of valid UTF-8.
func (e *engine) invalid(out []byte, c byte) []byte {
	switch e.enc {
	case encHuman:
		return e.put(out, fmt.Appendf(nil, `\x%02x`, c), kOther)
	case encXMLText, encXMLAttr:
		return e.put(out, []byte("\uFFFD"), kOther)
	}
	// Raw, JSON, HTML: passed through. The runner decodes it as U+FFFD, a visible character;
	// treating it as invisible only escapes more.
	return e.put(out, []byte{c}, kInvisible)
}

// char writes one valid character.
func (e *engine) char(out []byte, r rune) []byte {
	switch e.enc {
	case encHuman:
		switch {
		case r == '\n':
			return e.put(out, []byte{'\n'}, kLineBreak)
		case r < 0x80 && Dangerous(r):
			return e.put(out, fmt.Appendf(nil, `\x%02x`, r), kOther)
		case r >= 0x80 && Dangerous(r):
			return e.put(out, escapeU(r), kOther)
		}
	case encJSON:
		if r >= 0x7f && Dangerous(r) {
			return e.put(out, escapeJSON(r), kOther)
		}
	case encXMLText, encXMLAttr:
		attr := e.enc == encXMLAttr
		switch {
		case r == '&':
			return e.put(out, []byte("&amp;"), kOther)
		case r == '<':
			return e.put(out, []byte("&lt;"), kOther)
		case r == '>':
			return e.put(out, []byte("&gt;"), kOther)
		case r == '\r':
			return e.put(out, []byte("&#xD;"), kOther)
		case attr && r == '"':
			return e.put(out, []byte("&quot;"), kOther)
		case attr && r == '\n':
			return e.put(out, []byte("&#xA;"), kOther)
		case attr && r == '\t':
			return e.put(out, []byte("&#x9;"), kOther)
		case r == '\n':
			return e.put(out, []byte{'\n'}, kLineBreak)
		case r == '\t':
			return e.put(out, []byte{'\t'}, kSpace)
		case r < 0x20 || r == 0xfffe || r == 0xffff:
			return e.put(out, []byte("\uFFFD"), kOther)
		case Dangerous(r):
			return e.put(out, fmt.Appendf(nil, "&#x%X;", r), kOther)
		}
	}
	if r == '\n' || r == '\r' {
		return e.put(out, []byte{byte(r)}, kLineBreak)
	}
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	return e.put(out, buf[:n], classify(r))
}

// classify is the kind of a character written as it is.
func classify(r rune) kind {
	switch r {
	case ':':
		return kColon
	case '#':
		return kHash
	case '[':
		return kBracket
	}
	switch {
	case isSpace(r):
		return kSpace
	case Invisible(r):
		return kInvisible
	}
	return kOther
}

// escapeU is a terminal's visible escape of a character above U+007F.
func escapeU(r rune) []byte {
	if r > 0xffff {
		return fmt.Appendf(nil, `\U%08x`, r)
	}
	return fmt.Appendf(nil, `\u%04x`, r)
}

// escapeJSON is the JSON escape of r, as a UTF-16 surrogate pair above U+FFFF.
func escapeJSON(r rune) []byte {
	if r > 0xffff {
		hi, lo := utf16.EncodeRune(r)
		return fmt.Appendf(nil, `\u%04x\u%04x`, hi, lo)
	}
	return fmt.Appendf(nil, `\u%04x`, r)
}

// colon is the encoding's escape of a line-leading ':' (its first).
func (e *engine) colon() []byte {
	switch e.enc {
	case encXMLText, encXMLAttr, encHTML:
		return []byte("&#58;")
	}
	return []byte(`\:`)
}

// bracket is the encoding's escape of the '[' of "##[".
func (e *engine) bracket() []byte {
	switch e.enc {
	case encJSON:
		return []byte(`\u005b`)
	case encXMLText, encXMLAttr, encHTML:
		return []byte("&#91;")
	}
	return []byte(`\[`)
}

// put writes one piece of output of the given kind, applying the runner's rules.
func (e *engine) put(out, piece []byte, k kind) []byte {
	if !e.workflow {
		return append(out, piece...)
	}
	switch e.st {
	case leading:
		switch k {
		case kLineBreak, kSpace, kInvisible:
			return append(out, piece...)
		case kColon:
			if e.lineRule {
				e.st, e.held = pending, e.held[:0]
				return out
			}
		}
		e.st = body
	case pending:
		switch k {
		case kInvisible:
			e.held = append(e.held, piece...)
			return out
		case kColon: // "::" begins the line: escape the first
			out = append(out, e.colon()...)
			out = append(out, e.held...)
			e.st, e.hashes = body, 0
			return append(out, piece...)
		}
		out = append(out, ':')
		out = append(out, e.held...)
		e.st, e.hashes = body, 0
	}
	switch k {
	case kLineBreak:
		e.st, e.hashes = leading, 0
	case kInvisible:
	case kHash:
		e.hashes = min(e.hashes+1, 2)
	case kBracket:
		if e.hashes >= 2 {
			e.hashes = 0
			return append(out, e.bracket()...)
		}
		e.hashes = 0
	default:
		e.hashes = 0
	}
	return append(out, piece...)
}

// finish resolves a held line-leading ':' as if another ':' could follow it (something written
// later might be one), and returns out.
func (e *engine) finish(out []byte) []byte {
	if e.st == pending {
		out = append(out, e.colon()...)
		out = append(out, e.held...)
		e.st, e.hashes = body, 0
	}
	return out
}

// Writer escapes everything written to it and passes it on. It holds back at most an incomplete
// UTF-8 sequence, a CR that may begin CR LF, and a line-leading ':' until the next visible
// character decides it; Flush writes those out. Escaping never depends on how the text is split
// into writes. A Writer is safe for concurrent use.
type Writer struct {
	mu   sync.Mutex
	w    io.Writer
	e    engine
	rest []byte
	buf  []byte
}

// NewHumanWriter returns a Writer for human-readable output: Terminal escaping, and with
// workflow the runner's rules as Human applies them. The stream is taken to begin at a line's
// start.
func NewHumanWriter(w io.Writer, workflow bool) *Writer {
	return &Writer{w: w, e: engine{enc: encHuman, workflow: workflow, lineRule: true}}
}

// NewWorkflowWriter returns a Writer that changes nothing but what a GitHub runner could read as
// a workflow command, inserting a backslash as Human does; control characters, invalid UTF-8 and
// everything else pass unchanged. It is a safety net for any output (a line the format's own
// escaping should already have made inert), so it never fires on correct output; on JSON, where a
// backslash before "[" is not valid, a slip makes the document fail to parse rather than reach the
// runner.
func NewWorkflowWriter(w io.Writer) *Writer {
	return &Writer{w: w, e: engine{enc: encRaw, workflow: true, lineRule: true}}
}

// NewJSONWriter returns a Writer that applies JSON to a stream of encoded JSON.
func NewJSONWriter(w io.Writer) *Writer {
	return &Writer{w: w, e: engine{enc: encJSON, workflow: true}}
}

// Write escapes p and writes the result. It reports len(p) when the underlying write succeeds.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	in := p
	if len(w.rest) > 0 {
		in = append(w.rest, p...)
	}
	out, n := w.e.feedRest(w.buf[:0], in, false)
	w.rest = append([]byte(nil), in[n:]...)
	w.buf = out[:0]
	if len(out) == 0 {
		return len(p), nil
	}
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Flush writes out what the Writer holds back, deciding conservatively (a held ':' is escaped,
// a held CR or incomplete UTF-8 sequence is escaped for a terminal and passed on otherwise).
// Writing may continue afterwards.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.e.finish(w.e.feed(w.buf[:0], w.rest, true))
	w.rest, w.buf = nil, out[:0]
	if len(out) == 0 {
		return nil
	}
	_, err := w.w.Write(out)
	return err
}
