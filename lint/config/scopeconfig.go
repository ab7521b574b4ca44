package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsregex"
	"github.com/vectorlint/vectorlint/internal/scopes"
	"github.com/vectorlint/vectorlint/internal/suggest"
	"github.com/vectorlint/vectorlint/lint/document"
)

// compileIgnores reads the value of a BlockIgnores or TokenIgnores key: patterns separated by
// commas (a comma inside brackets, braces or parentheses, or escaped, is part of its pattern).
func compileIgnores(file, key, value string, line int) ([]*document.IgnorePattern, *finding.Problem) {
	var out []*document.IgnorePattern
	for _, src := range splitPatterns(value) {
		p, err := document.CompileIgnorePattern(key, src, file, line)
		if err != nil {
			reason := err.Error()
			var se *jsregex.SyntaxError
			if errors.As(err, &se) {
				reason = se.Reason
			}
			return nil, &finding.Problem{File: file, Line: line, Field: key,
				Expected: "JavaScript regular expressions separated by commas",
				Found:    fmt.Sprintf("%s, which does not compile: %s", quote(src), clip(reason))}
		}
		out = append(out, p)
	}
	return out, nil
}

// splitPatterns splits a list of regexes at the commas outside brackets, braces and
// parentheses and not escaped; spaces around each are trimmed and empty entries dropped.
func splitPatterns(value string) []string {
	var (
		out   []string
		depth int
		class bool
		start int
	)
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	for i := 0; i < len(value); i++ {
		switch c := value[i]; {
		case c == '\\':
			i++
		case class:
			class = c != ']'
		case c == '[':
			class = true
		case c == '(' || c == '{':
			depth++
		case (c == ')' || c == '}') && depth > 0:
			depth--
		case c == ',' && depth == 0:
			add(value[start:i])
			start = i + 1
		}
	}
	add(value[start:])
	return out
}

// parseSkippedScopes reads the value of SkippedScopes: scope names separated by commas.
func parseSkippedScopes(file, value string, line int) ([]string, *finding.Problem) {
	var out []string
	for _, name := range strings.Split(value, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		k, ok := scopes.ParseName(name)
		if !ok {
			expected := "scope names from " + strings.Join(document.ScopeNames(), ", ")
			found := quote(name)
			switch s := suggest.Closest(name, document.ScopeNames(), 2); {
			case s != "":
				found += fmt.Sprintf(" (did you mean %q?)", s)
			case valeTag(name):
				found += " (a Vale HTML tag name; here fenced and indented code is \"code\", code spans \"inlinecode\")"
			}
			return nil, &finding.Problem{File: file, Line: line, Field: "SkippedScopes", Expected: expected, Found: found}
		}
		if n := k.Name(); !containsString(out, n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// valeTag reports whether name is one of the HTML tags Vale's SkippedScopes and IgnoredScopes
// name by default.
func valeTag(name string) bool {
	switch strings.ToLower(name) {
	case "script", "style", "pre", "figure", "tt":
		return true
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// keyFormat is the section key that names a file's format.
const keyFormat = "Format"

// parseFormat reads the value of a Format key.
func parseFormat(file, value string, line int) (scopes.Syntax, *finding.Problem) {
	name := strings.TrimSpace(value)
	syn, ok := scopes.ParseFormat(name)
	if !ok {
		found := strconv.Quote(name)
		if s := suggest.Closest(name, document.FormatNames(), 3); s != "" && name != "" {
			found += fmt.Sprintf(" (did you mean %q?)", s)
		}
		return 0, &finding.Problem{File: file, Line: line, Field: keyFormat,
			Expected: "one of " + strings.Join(document.FormatNames(), ", "), Found: found}
	}
	return syn, nil
}
