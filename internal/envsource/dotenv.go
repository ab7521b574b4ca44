package envsource

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/redact"
)

// DotEnvError is a problem with an environment file (.env, .env.local, the user config): a
// syntax error with its 1-based line, or a file that may not be read.
type DotEnvError struct {
	File string
	// Line is 0 when the problem is the whole file.
	Line     int
	Expected string
	// Found describes what was there: quoted text, or a description such as "the end of the file".
	Found string
}

// Error names the file and line, what was expected and what was found. Values are never
// quoted, since environment files hold API keys.
func (e *DotEnvError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: expected %s, found %s", e.File, e.Expected, e.Found)
	}
	return fmt.Sprintf("%s:%d: expected %s, found %s", e.File, e.Line, e.Expected, e.Found)
}

// ParseDotEnv parses the contents of a .env file; name is used in errors. A key given twice
// keeps its last value.
//
// The syntax is that of the Node dotenv package the original VectorLint used: KEY=VALUE lines,
// optional "export ", # comments, single-, double- or back-quoted values (double quotes expand
// \n, \r, \t, \" and \\; quoted values may span lines), no variable expansion.
func ParseDotEnv(name string, data []byte) (map[string]string, error) {
	vars, _, err := parseDotEnv(name, data)
	return vars, err
}

// parseDotEnv is ParseDotEnv that also returns the line each variable was (last) set on.
func parseDotEnv(name string, data []byte) (map[string]string, map[string]int, error) {
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(text, "\n")
	vars := make(map[string]string)
	lineOf := make(map[string]int)
	for i := 0; i < len(lines); i++ {
		lineNo := i + 1
		line := strings.TrimSpace(lines[i])
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			line = strings.TrimSpace(rest)
		}
		eq := strings.IndexByte(line, '=')
		if eq < 0 {
			// The line may be a pasted key or "NAME value": show at most a variable name.
			first := strings.Fields(line)[0]
			rest := len(strings.TrimSpace(line[len(first):]))
			found := fmt.Sprintf("a line of %d characters without '=' (not shown: it may be secret)", len(line))
			if validEnvKey(first) && rest > 0 && redact.Text(first) == first {
				found = fmt.Sprintf("%s and %d more characters (not shown: the value may be secret)", strconv.Quote(clip(first, 60)), rest)
			}
			return nil, nil, &DotEnvError{File: name, Line: lineNo, Expected: "KEY=VALUE", Found: found}
		}
		key := strings.TrimSpace(line[:eq])
		if !validEnvKey(key) {
			return nil, nil, &DotEnvError{File: name, Line: lineNo,
				Expected: "a variable name of letters, digits, '_', '.' or '-' before '='", Found: strconv.Quote(clip(redact.Text(key), 60))}
		}
		value := strings.TrimLeft(line[eq+1:], " \t")
		lineOf[key] = lineNo
		if value == "" {
			vars[key] = ""
			continue
		}
		switch q := value[0]; q {
		case '"', '\'', '`':
			// The value runs to the matching quote, possibly on a later line.
			body := value[1:]
			end := closingQuote(body, q)
			for end < 0 && i+1 < len(lines) {
				i++
				body += "\n" + lines[i]
				end = closingQuote(body, q)
			}
			if end < 0 {
				return nil, nil, &DotEnvError{File: name, Line: lineNo,
					Expected: fmt.Sprintf("a closing %c quote for the value of %s", q, key), Found: "the end of the file"}
			}
			after := strings.TrimSpace(body[end+1:])
			if after != "" && !strings.HasPrefix(after, "#") {
				return nil, nil, &DotEnvError{File: name, Line: i + 1,
					Expected: "a comment or the end of the line after the quoted value of " + key,
					Found:    fmt.Sprintf("%d more characters (not shown: the value may be secret)", len(after))}
			}
			v := body[:end]
			if q == '"' {
				v = unescapeDouble(v)
			}
			vars[key] = v
		default:
			if c := strings.Index(value, " #"); c >= 0 {
				value = value[:c]
			} else if c := strings.Index(value, "\t#"); c >= 0 {
				value = value[:c]
			}
			vars[key] = strings.TrimSpace(value)
		}
	}
	return vars, lineOf, nil
}

// closingQuote returns the index of the first unescaped q in s, or -1.
func closingQuote(s string, q byte) int {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			if q == '"' {
				i++ // skip the escaped byte
			}
		case q:
			return i
		}
	}
	return -1
}

// unescapeDouble expands the escapes of a double-quoted value.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 == len(s) {
			b.WriteByte(s[i])
			continue
		}
		i++
		switch s[i] {
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case '"', '\\':
			b.WriteByte(s[i])
		default:
			b.WriteByte('\\')
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func validEnvKey(k string) bool {
	if k == "" {
		return false
	}
	for _, r := range k {
		ok := r == '_' || r == '.' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}

// clip shortens s to at most n bytes (on a rune boundary) with "…" when cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}
