package llm

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// replyParseError says why a model reply holds no usable JSON. Its text is written for the
// model as much as for the user: CompleteJSON quotes it back to the model on the retry.
type replyParseError struct {
	Expected string
	Found    string
}

// Error reads "expected …, found …".
func (e *replyParseError) Error() string { return "expected " + e.Expected + ", found " + e.Found }

// maxEmbeddedStarts bounds the scan for a JSON value embedded in prose, keeping extractJSON
// linear-ish on hostile input.
const maxEmbeddedStarts = 32

// extractJSON returns the JSON value in a model reply. It accepts, in this order: the whole
// reply (surrounding space allowed); the first ```json (or bare ```) fenced block holding valid
// JSON; the first complete JSON object or array embedded in prose ("Here is the result: {…}").
// A leading <think>…</think> block (reasoning models) is ignored. The returned text is valid
// JSON. Otherwise a *replyParseError says what was found, e.g. JSON cut off at max_tokens.
func extractJSON(reply string) (string, error) {
	s := strings.TrimSpace(stripThink(reply))
	if s == "" {
		return "", &replyParseError{Expected: "a JSON object", Found: "an empty reply"}
	}
	if json.Valid([]byte(s)) {
		return s, nil
	}
	var firstBad error
	for _, block := range fencedBlocks(s) {
		b := strings.TrimSpace(block)
		if json.Valid([]byte(b)) {
			return b, nil
		}
		if firstBad == nil && b != "" && (b[0] == '{' || b[0] == '[') {
			firstBad = describeInvalid(b)
		}
	}
	// Objects first: the replies asked for are objects, and prose often holds "[1]".
	for _, open := range []byte{'{', '['} {
		tries := 0
		for i := 0; i < len(s) && tries < maxEmbeddedStarts; i++ {
			if s[i] != open {
				continue
			}
			tries++
			dec := json.NewDecoder(strings.NewReader(s[i:]))
			var raw json.RawMessage
			if err := dec.Decode(&raw); err == nil {
				return string(raw), nil
			} else if firstBad == nil && open == '{' {
				firstBad = describeInvalid(s[i:])
			}
		}
	}
	if firstBad != nil {
		return "", firstBad
	}
	return "", &replyParseError{Expected: "a JSON object", Found: fmt.Sprintf("text without JSON: %q", oneLine(s, 80))}
}

// describeInvalid explains why s (which starts like JSON) does not parse.
func describeInvalid(s string) error {
	dec := json.NewDecoder(strings.NewReader(s))
	var raw json.RawMessage
	err := dec.Decode(&raw)
	if err == nil {
		return nil
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return &replyParseError{Expected: "complete JSON",
			Found: fmt.Sprintf("JSON cut off after %d characters (the reply may have hit the token limit)", len([]rune(s)))}
	}
	var syn *json.SyntaxError
	if errors.As(err, &syn) {
		at := int(syn.Offset)
		if at > len(s) {
			at = len(s)
		}
		start := at - 20
		if start < 0 {
			start = 0
		}
		for start > 0 && !utf8.RuneStart(s[start]) {
			start--
		}
		return &replyParseError{Expected: "valid JSON",
			Found: fmt.Sprintf("%s at character %d, near %q", syn.Error(), len([]rune(s[:at])), oneLine(s[start:at], 40))}
	}
	return &replyParseError{Expected: "valid JSON", Found: err.Error()}
}

// fencedBlocks returns the contents of the ``` fenced blocks of s, in order. An unclosed last
// fence yields the rest of the text (a reply cut off inside its fence).
func fencedBlocks(s string) []string {
	var blocks []string
	for {
		open := strings.Index(s, "```")
		if open < 0 {
			return blocks
		}
		rest := s[open+3:]
		// Skip the info string (json, JSON, jsonc…) up to the end of the line.
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			// "```{...}```" on one line: no info string.
			if end := strings.Index(rest, "```"); end >= 0 {
				blocks = append(blocks, rest[:end])
				s = rest[end+3:]
				continue
			}
			return append(blocks, rest)
		}
		info := strings.TrimSpace(rest[:nl])
		body := rest[nl+1:]
		if info != "" && (info[0] == '{' || info[0] == '[') {
			body = rest // JSON starts on the fence line
		}
		end := strings.Index(body, "```")
		if end < 0 {
			return append(blocks, body)
		}
		blocks = append(blocks, body[:end])
		s = body[end+3:]
	}
}

// stripThink removes a leading <think>…</think> (or <thinking>…</thinking>) block.
func stripThink(s string) string {
	t := strings.TrimLeft(s, " \t\r\n")
	for _, tag := range []string{"think", "thinking"} {
		if strings.HasPrefix(t, "<"+tag+">") {
			if end := strings.Index(t, "</"+tag+">"); end >= 0 {
				return t[end+len(tag)+3:]
			}
		}
	}
	return s
}
