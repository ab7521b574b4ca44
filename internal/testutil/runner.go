package testutil

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// IsWorkflowCommandLine reports whether GitHub's Actions runner could act on line as a workflow
// command. It is the tests' model of the runner (github.com/actions/runner), deliberately a
// little stricter than the runner itself, and kept apart from the code under test:
//
//   - src/Runner.Common/ActionCommand.cs TryParseV2: message.TrimStart() (.NET Char.IsWhiteSpace,
//     Unicode's White_Space), then message.StartsWith("::") — a line whose first non-blank
//     characters are "::", which includes "::stop-commands::TOKEN";
//   - TryParse: message.IndexOf("##[") >= 0 — "##[" anywhere in the line.
//
// Both StartsWith(string) and IndexOf(string) compare with the current culture (ICU on Linux),
// which skips ignorable code points, so this model drops every control that is not White_Space,
// every format character, combining mark, variation selector and default-ignorable code point
// before it looks. It also trims white space and such characters in any order at the start
// (the runner trims white space first), and it does not require the command name to be one the
// runner knows. Invalid UTF-8 counts as U+FFFD, as .NET's decoder reads it.
func IsWorkflowCommandLine(line string) bool {
	var b strings.Builder
	for _, r := range line {
		if ignorable(r) {
			continue
		}
		b.WriteRune(r)
	}
	skeleton := b.String()
	trimmed := strings.TrimLeftFunc(skeleton, func(r rune) bool { return unicode.Is(unicode.White_Space, r) })
	return strings.HasPrefix(trimmed, "::") || strings.Contains(skeleton, "##[")
}

// ignorable is what the model of IsWorkflowCommandLine skips.
func ignorable(r rune) bool {
	if unicode.Is(unicode.White_Space, r) {
		return false
	}
	return unicode.In(r, unicode.Cc, unicode.Cf, unicode.Mn, unicode.Me, unicode.Variation_Selector,
		unicode.Other_Default_Ignorable_Code_Point)
}

// RunnerLines splits output into lines as the runner reads them (.NET's StreamReader.ReadLine:
// a line ends at LF, CR or CR LF).
func RunnerLines(out string) []string {
	out = strings.ReplaceAll(out, "\r\n", "\n")
	return strings.FieldsFunc(out, func(r rune) bool { return r == '\n' || r == '\r' })
}

// WorkflowCommandLines returns the lines of out the runner could act on as workflow commands
// (IsWorkflowCommandLine), in order; nil when there is none.
func WorkflowCommandLines(out string) []string {
	var cmds []string
	for _, l := range RunnerLines(out) {
		if IsWorkflowCommandLine(l) {
			cmds = append(cmds, l)
		}
	}
	return cmds
}

// ParseWorkflowCommand reads line as the runner's TryParseV2 does (ActionCommand.cs): "::"
// (after white space), the command up to a space, comma-separated key=value properties up to the
// next "::", then the data; properties and data unescaped with the runner's mappings, in its
// order. ok is false when the line is not of that form.
func ParseWorkflowCommand(line string) (command string, props map[string]string, data string, ok bool) {
	line = strings.TrimLeftFunc(line, func(r rune) bool { return unicode.Is(unicode.White_Space, r) })
	if !strings.HasPrefix(line, "::") {
		return "", nil, "", false
	}
	end := strings.Index(line[2:], "::")
	if end < 0 {
		return "", nil, "", false
	}
	command, propStr, _ := strings.Cut(line[2:2+end], " ")
	props = map[string]string{}
	for _, kv := range strings.Split(propStr, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			props[k] = unescape(v, "%0D", "\r", "%0A", "\n", "%3A", ":", "%2C", ",", "%25", "%")
		}
	}
	data = unescape(line[2+end+2:], "%0D", "\r", "%0A", "\n", "%25", "%")
	return command, props, data, true
}

// unescape replaces each (escape, text) pair in turn, as the runner's loop over its mappings.
func unescape(s string, pairs ...string) string {
	for i := 0; i < len(pairs); i += 2 {
		s = strings.ReplaceAll(s, pairs[i], pairs[i+1])
	}
	return s
}

// TerminalHazard returns a description of the first thing in out that a terminal could act on,
// or that hides or reorders text — a C0 control other than tab and LF, DEL, a C1 control, a bidi
// embedding, override or isolate, a line or paragraph separator, an invisible format character
// (U+200B, U+2060–U+2064, U+206A–U+206F, U+FEFF, U+FFF9–U+FFFB, U+180E, tag characters) or a byte
// of invalid UTF-8 — and "" when there is none. Human-readable output must have none.
func TerminalHazard(out string) string {
	for i := 0; i < len(out); {
		r, size := utf8.DecodeRuneInString(out[i:])
		if r == utf8.RuneError && size == 1 {
			return fmt.Sprintf("invalid UTF-8 byte %#x at byte %d", out[i], i)
		}
		if hazard(r) {
			return fmt.Sprintf("character %U at byte %d", r, i)
		}
		i += size
	}
	return ""
}

func hazard(r rune) bool {
	switch {
	case r < 0x20:
		return r != '\t' && r != '\n'
	case r >= 0x7f && r <= 0x9f,
		r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029,
		r == 0x200b, r >= 0x2060 && r <= 0x2064, r >= 0x206a && r <= 0x206f, r == 0xfeff,
		r >= 0xfff9 && r <= 0xfffb, r == 0x180e, r >= 0xe0000 && r <= 0xe007f:
		return true
	}
	return false
}
