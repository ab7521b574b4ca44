package config

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
)

// TestSkippedScopesConfig: the keys, per section, with their errors.
func TestSkippedScopesConfig(t *testing.T) {
	t.Parallel()
	cfg, problems := Parse("vectorlint.ini", []byte(`RulesPath = .
[**/*.md]
RunRules = A
BlockIgnores = (?s)^\{\{< file >\}\}.*?^\{\{< /file >\}\}, ^<!-- raw -->$
TokenIgnores = \$+[^\n$]+\$+, x{1,3}, [,;]

[docs/**]
SkippedScopes = code, InlineCode,  urls
TokenIgnores = ver-\d+

[docs/api/**]
SkippedScopes =
BlockIgnores =
`))
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	sources := func(ps []*document.IgnorePattern) string {
		var out []string
		for _, p := range ps {
			out = append(out, fmt.Sprintf("%s@%d %s", p.Key, p.Line, p.Regexp))
		}
		return strings.Join(out, "; ")
	}
	tests := []struct {
		path, skipped, block, token string
	}{
		{"a.md", "code,inlinecode,urls,html,mdx,math,frontmatter,markup",
			`BlockIgnores@4 /^\{\{< file >\}\}.*?^\{\{< /file >\}\}/s; BlockIgnores@4 /^<!-- raw -->$/`,
			`TokenIgnores@5 /\$+[^\n$]+\$+/; TokenIgnores@5 /x{1,3}/; TokenIgnores@5 /[,;]/`},
		{"docs/a.md", "code,inlinecode,urls",
			`BlockIgnores@4 /^\{\{< file >\}\}.*?^\{\{< /file >\}\}/s; BlockIgnores@4 /^<!-- raw -->$/`,
			`TokenIgnores@5 /\$+[^\n$]+\$+/; TokenIgnores@5 /x{1,3}/; TokenIgnores@5 /[,;]/; TokenIgnores@9 /ver-\d+/`},
		{"docs/api/a.md", "", "",
			`TokenIgnores@5 /\$+[^\n$]+\$+/; TokenIgnores@5 /x{1,3}/; TokenIgnores@5 /[,;]/; TokenIgnores@9 /ver-\d+/`},
	}
	for _, tt := range tests {
		s := cfg.Settings(tt.path).Scopes()
		if got := strings.Join(s.Skipped, ","); got != tt.skipped {
			t.Errorf("%s: SkippedScopes %q, want %q", tt.path, got, tt.skipped)
		}
		if got := sources(s.BlockIgnores); got != tt.block {
			t.Errorf("%s: BlockIgnores %s, want %s", tt.path, got, tt.block)
		}
		if got := sources(s.TokenIgnores); got != tt.token {
			t.Errorf("%s: TokenIgnores %s, want %s", tt.path, got, tt.token)
		}
	}
	if d := document.DefaultScopeSettings(); strings.Join(d.Skipped, ",") != strings.Join(document.ScopeNames(), ",") {
		t.Errorf("default %v", d.Skipped)
	}
}

func TestSkippedScopesConfigProblems(t *testing.T) {
	t.Parallel()
	_, problems := Parse("vectorlint.ini", []byte(`[**/*.md]
SkippedScopes = code, cod
[b/**]
SkippedScopes = pre, script
[c/**]
BlockIgnores = ok, (unclosed
[d/**]
TokenIgnores = a{2,1}
[e/**]
SkipedScopes = code
`))
	var got []string
	for _, p := range problems {
		got = append(got, strings.TrimPrefix(p.Error(), filepath.Dir(p.File)+string(filepath.Separator)))
	}
	want := []string{
		`vectorlint.ini:2: SkippedScopes: expected scope names from code, inlinecode, urls, html, mdx, math, frontmatter, markup, found "cod" (did you mean "code"?)`,
		`vectorlint.ini:4: SkippedScopes: expected scope names from code, inlinecode, urls, html, mdx, math, frontmatter, markup, found "pre" (a Vale HTML tag name; here fenced and indented code is "code", code spans "inlinecode")`,
		`vectorlint.ini:6: BlockIgnores: expected JavaScript regular expressions separated by commas, found "(unclosed", which does not compile: missing closing )`,
		`vectorlint.ini:8: TokenIgnores: expected JavaScript regular expressions separated by commas, found "a{2,1}", which does not compile: invalid repeat count`,
		`vectorlint.ini:10: SkipedScopes: unknown key (did you mean "SkippedScopes"?)`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, p := range problems {
		if p.File == "" || p.Line == 0 || p.Level != finding.LevelError {
			t.Errorf("problem %+v: want an error with file and line", p)
		}
	}
}

func TestSplitPatterns(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`a, b`:                     "a|b",
		`x{1,3}, [,;], \,y, (a,b)`: `x{1,3}|[,;]|\,y|(a,b)`,
		` , a ,, `:                 "a",
		`[\],], z`:                 `[\],]|z`,
		``:                         "",
	} {
		if got := strings.Join(splitPatterns(in), "|"); got != want {
			t.Errorf("splitPatterns(%q) = %q, want %q", in, got, want)
		}
	}
}
