package scopes

import (
	"strings"
	"testing"
)

// TestScanHostile: inputs built to make a scanner read the same bytes again and again —
// openers that never close, deep nesting, endless lines — are read in about linear time (the
// test has no timer: a quadratic scanner makes it run for minutes instead of a second).
func TestScanHostile(t *testing.T) {
	t.Parallel()
	const n = 256 << 10
	rep := func(s string) string { return strings.Repeat(s, n/len(s)) }
	tests := []struct {
		name string
		syn  Syntax
		src  string
	}{
		{"adoc backticks", SyntaxAsciiDoc, rep("`a ")},
		{"adoc double backticks", SyntaxAsciiDoc, rep("``a ")},
		{"adoc pluses", SyntaxAsciiDoc, rep("+a ")},
		{"adoc curved quotes", SyntaxAsciiDoc, rep("\"`a ")},
		{"adoc cross references", SyntaxAsciiDoc, rep("<<a ")},
		{"adoc macros without brackets", SyntaxAsciiDoc, rep("link:a ")},
		{"adoc macros without closing brackets", SyntaxAsciiDoc, rep("link:a[b ")},
		{"adoc footnotes in footnotes", SyntaxAsciiDoc, rep("footnote:[")},
		{"adoc anchors", SyntaxAsciiDoc, rep("[[a ")},
		{"adoc attribute links", SyntaxAsciiDoc, rep("{a}b")},
		{"adoc delimiters", SyntaxAsciiDoc, rep("====\n****\n")},
		{"adoc table cells", SyntaxAsciiDoc, "|===\n" + rep("2+|")},
		{"adoc index terms", SyntaxAsciiDoc, rep("(((a")},
		{"adoc URLs with brackets", SyntaxAsciiDoc, "https://a.example/" + rep(")")},
		{"rst backquotes", SyntaxRST, rep(" `a")},
		{"rst literals", SyntaxRST, rep(" ``a")},
		{"rst roles", SyntaxRST, rep(" :a:`b")},
		{"rst explicit markup", SyntaxRST, rep(".. a\n")},
		{"rst nested indentation", SyntaxRST, rep("a::\n\n ")},
		{"rst grid tables", SyntaxRST, "+" + rep("-+") + "\n" + rep("|")},
		{"rst titles", SyntaxRST, rep("a\n==\n")},
		{"rst footnote references", SyntaxRST, rep(" [a")},
		{"html unclosed tags", SyntaxHTML, rep("<a b=")},
		{"html nested pre", SyntaxHTML, rep("<pre>")},
		{"html headings", SyntaxHTML, rep("<h1>a")},
		{"text emails", SyntaxPlain, rep("a.b.c")},
		{"text URL prefixes", SyntaxPlain, rep("http://")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := Scan([]byte(tt.src), tt.syn); err != nil {
				t.Fatal(err)
			}
		})
	}
}
