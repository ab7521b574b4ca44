// Package yamlerr reads the line and message of a gopkg.in/yaml.v3 syntax error.
//
// yaml.v3 reports its errors as text ("yaml: line 3: mapping values are not allowed in this
// context") and counts their lines two ways: the scanner's errors carry 1-based lines, the
// parser's errors ("did not find expected key", "did not find expected ',' or ']'", …) the
// 0-based line of the construct being parsed (the block mapping, the flow sequence…), or of
// the problem when that construct starts on the first line, and no line at all when that is 0.
// Split turns both into 1-based lines, so a message points at the line the user must look at.
package yamlerr

import (
	"bytes"
	"strconv"
	"strings"
)

// parserProblems are the messages of yaml.v3's parser (parserc.go); every other message comes
// from its scanner or reader.
var parserProblems = []string{
	"did not find expected <stream-start>",
	"did not find expected <document start>",
	"did not find expected node content",
	"did not find expected '-' indicator",
	"did not find expected key",
	"did not find expected ',' or ']'",
	"did not find expected ',' or '}'",
	"found duplicate %YAML directive",
	"found incompatible YAML document",
	"found duplicate %TAG directive",
	"found undefined tag handle",
}

// Split returns the 1-based line of a yaml.v3 syntax error (0 when the error names none) and
// its message without the "yaml: line N: " prefix. src, when not nil, is the parsed text: a
// line past its end (a parser error at the end of the input) becomes its last line.
func Split(err error, src []byte) (line int, msg string) {
	msg = strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, tail, ok := strings.Cut(rest, ": "); ok {
			if v, err := strconv.Atoi(n); err == nil && v > 0 {
				line, msg = v, tail
			}
		}
	}
	for _, p := range parserProblems {
		if msg == p {
			line++ // 0-based; and a parser error without a line is on line 1
			break
		}
	}
	if src != nil && line > 0 {
		last := bytes.Count(src, []byte("\n"))
		if len(src) > 0 && src[len(src)-1] != '\n' {
			last++
		}
		line = min(line, max(last, 1))
	}
	return line, msg
}
