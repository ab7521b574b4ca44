package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// scopeProject lints Markdown, .markdown, MDX and plain text with skipped scopes (spec/linter.md
// §9).
func scopeProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.{md,markdown,mdx,txt}]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"docs/a.md":       "# A\n\nIn order to start, run `acme init`.\n\n```sh\n# in order to init\nacme init\n```\n\nDone in order to finish.\n",
		"docs/b.markdown": "# B\n\n    # in order to: indented code\n\nIn order to read.\n",
		"docs/c.mdx":      "import X from 'x'\n\n<X prop=\"in order to\">\n\nIn order to use X.\n\n</X>\n",
		"docs/d.txt":      "In order to write, `in order to` stays text here.\n",
	}
}

// TestLintScopesJSON: the quotes the model copied from code are not findings, and are counted
// under "ignored" in JSON, per file and in the summary; .md, .markdown, .mdx and .txt all lint.
func TestLintScopesJSON(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	reply := func(vs ...map[string]any) llmtest.Reply {
		items := []any{map[string]any{"quoted_text": "in order to", "message": "Say 'to'."}}
		for _, v := range vs {
			items = append(items, v)
		}
		return llmtest.JSON(map[string]any{"violations": items})
	}
	srv.On(llmtest.UserContains("# A"), reply(
		map[string]any{"quoted_text": "# in order to init", "line": 6, "message": "In code."},
		map[string]any{"quoted_text": "acme init", "message": "In code."}))
	srv.On(llmtest.UserContains("# B"), reply(
		map[string]any{"quoted_text": "# in order to: indented code", "line": 3, "message": "In code."}))
	srv.On(llmtest.UserContains("In order to use X"), reply(
		map[string]any{"quoted_text": `prop="in order to"`, "line": 3, "message": "In JSX."}))
	srv.On(llmtest.UserContains("In order to write"), reply(
		map[string]any{"quoted_text": "`in order to`", "line": 1, "message": "In a code span, in plain text."}))
	dir := t.TempDir()
	writeTestTree(t, dir, scopeProject())
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	var out struct {
		Files []struct {
			Path     string
			Findings []struct {
				Line, Column int
				Match        string
			}
			Unverified []struct{ Quote string }
			Ignored    *int
		}
		Summary map[string]int
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range out.Files {
		line := f.Path + ":"
		for _, fd := range f.Findings {
			line += fmt.Sprintf(" %d:%d %q", fd.Line, fd.Column, fd.Match)
		}
		for _, u := range f.Unverified {
			line += fmt.Sprintf(" unverified %q", u.Quote)
		}
		if f.Ignored != nil {
			line += fmt.Sprintf(" ignored %d", *f.Ignored)
		}
		got = append(got, line)
	}
	want := []string{
		// "in order to" without a line: its first place in the prose (exactly, else ignoring
		// case: in b.markdown and c.mdx it is in lower case only in code). The quotes from
		// code are ignored.
		`docs/a.md: 10:6 "in order to" ignored 2`,
		`docs/b.markdown: 5:1 "In order to" ignored 1`,
		`docs/c.mdx: 5:1 "In order to" ignored 1`,
		// Plain text has no code: every quote is a finding.
		`docs/d.txt: 1:20 "` + "`in order to`" + `" 1:21 "in order to"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("files:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if out.Summary["ignored"] != 4 {
		t.Errorf("summary %v, want ignored 4", out.Summary)
	}
}

// TestLintScopesShowPrompt: --show-prompt shows the text as the model gets it.
func TestLintScopesShowPrompt(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	dir := t.TempDir()
	writeTestTree(t, dir, scopeProject())
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--show-prompt", "--no-cache", "docs/a.md")
	if r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	// The fenced block's lines (5-8) are not sent; the rule follows the text.
	want := "── user\n1\t# A\n2\t\n3\tIn order to start, run `…`.\n4\t\n9\t\n10\tDone in order to finish.\n── system\n"
	if !strings.Contains(r.stderr, want) {
		t.Errorf("--show-prompt:\n%s\nwant it to hold:\n%s", r.stderr, want)
	}
}

// TestLintScopesWarnings: a document whose markup cannot be read is linted whole, with a warning
// printed without --verbose, by a real run and a dry run.
func TestLintScopesWarnings(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	dir := t.TempDir()
	files := scopeProject()
	files["docs/e.mdx"] = "# E\n\nThe {value is not closed.\n"
	writeTestTree(t, dir, files)
	const warning = "vectorlint: warning: docs/e.mdx:3: an MDX expression whose { does not close in its paragraph: the MDX markup could not be read as expected, so its code, URLs and markup are linted as prose\n"
	for _, args := range [][]string{{"--no-cache", "docs/e.mdx"}, {"--dry-run", "docs/e.mdx"}} {
		r := runVectorlint(t, dir, fakeEnv(srv), "", args...)
		if r.code != exitOK || r.stderr != warning {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant:\n%s", args, r.code, r.stderr, warning)
		}
	}
}

// TestValidateScopeKeys: a bad scope name or regex is a configuration error naming the file,
// line, what was expected and what was found; lint and validate stop on it (exit 2).
func TestValidateScopeKeys(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := scopeProject()
	files["vectorlint.ini"] += "SkippedScopes = code, tables\nBlockIgnores = ^\\{\\{<.*(\n"
	writeTestTree(t, dir, files)
	want := []string{
		`vectorlint.ini:4: SkippedScopes: expected scope names from code, inlinecode, urls, html, mdx, math, frontmatter, markup, found "tables"`,
		`vectorlint.ini:5: BlockIgnores: expected JavaScript regular expressions separated by commas, found "^\\{\\{<.*(", which does not compile: missing closing )`,
	}
	for _, args := range [][]string{{"validate"}, {"docs"}} {
		r := runVectorlint(t, dir, nil, "", args...)
		if r.code != exitFailure {
			t.Errorf("%v: exit %d, want 2", args, r.code)
		}
		for _, w := range want {
			if !strings.Contains(r.stdout+r.stderr, w) {
				t.Errorf("%v: output lacks %q:\n%s%s", args, w, r.stdout, r.stderr)
			}
		}
	}
}
