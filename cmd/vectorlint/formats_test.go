package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// formatsProject is a project whose Wordiness rule (answered by testutil.WordyModel: every
// "in order to" the model is shown is a finding, with "to" as its fix) runs on every file of
// docs/, and the pages of testdata/formats there: one page per format, with a word starting
// with "zq" in every construct that is not prose and "in order to" both in them and in prose.
func formatsProject(t *testing.T, config string) map[string]string {
	t.Helper()
	files := map[string]string{
		"vectorlint.ini": config,
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: warning\n---\n" +
			"Flag wordy phrases; give the shorter one as the fix.\n",
	}
	entries, err := os.ReadDir(filepath.Join("testdata", "formats"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		files["docs/"+e.Name()] = readFile(t, filepath.Join("testdata", "formats", e.Name()))
	}
	return files
}

// jsonFindings lists the findings of a JSON report, a line per file: "path: line:column
// match, …".
func jsonFindings(t *testing.T, stdout string) []string {
	t.Helper()
	var out struct {
		Files []struct {
			Path     string
			Findings []struct {
				Line, Column int
				Match, Rule  string
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("%v in\n%s", err, stdout)
	}
	var got []string
	for _, f := range out.Files {
		line := f.Path + ":"
		for _, fd := range f.Findings {
			line += fmt.Sprintf(" %d:%d %q", fd.Line, fd.Column, fd.Match)
		}
		got = append(got, line)
	}
	return got
}

// TestFormatsOneRun is issue 30's "done" test: one rule pack lints a Markdown, an MDX, an
// AsciiDoc, a reStructuredText, an HTML and a plain text page in one run; the model is sent
// nothing but prose (no "zq" canary of any construct that is not prose reaches a request),
// and every finding is reported at its place in the file.
func TestFormatsOneRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	dir := t.TempDir()
	writeTestTree(t, dir, formatsProject(t, "RulesPath = rules\n[docs/**]\nRunRules = Acme\n"))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	want := []string{
		`docs/page.adoc: 5:1 "In order to" 36:18 "in order to" 39:9 "in order to"`,
		`docs/page.html: 12:6 "In order to" 19:14 "in order to"`,
		`docs/page.md: 6:1 "In order to" 16:9 "in order to"`,
		`docs/page.mdx: 7:1 "In order to" 14:9 "in order to"`,
		`docs/page.rst: 1:11 "in order to" 9:1 "In order to" 39:17 "in order to" 41:9 "in order to"`,
		`docs/page.txt: 3:1 "In order to" 4:9 "in order to"`,
	}
	if got := jsonFindings(t, r.stdout); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Errorf("%d requests, want one per page", len(reqs))
	}
	for _, req := range reqs {
		if i := strings.Index(strings.ToLower(string(req.Body)), "zq"); i >= 0 {
			body := string(req.Body)
			t.Errorf("a request holds %q:\n%s", body[max(0, i-40):min(len(body), i+40)], req.LastUser())
		}
	}

	// The canaries are there to be found: with nothing skipped, every page sends some.
	srv.Reset()
	writeTestTree(t, dir, map[string]string{"vectorlint.ini": "RulesPath = rules\n[docs/**]\nRunRules = Acme\nSkippedScopes =\n"})
	if r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs"); r.code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	sent := 0
	for _, req := range srv.Requests() {
		if strings.Contains(req.LastUser(), "zq") {
			sent++
		}
	}
	if sent != 6 {
		t.Errorf("with SkippedScopes empty, %d pages sent their canaries, want 6", sent)
	}
}

// controlPages have inline controls in each format's own comments, and the same words in a
// listing, a literal block, a script or preformatted text, where they are not controls.
func controlPages() map[string]string {
	return map[string]string{
		"docs/c.adoc": "= Controls\n\n" +
			"// vectorlint-disable-next-line Acme.Wordiness\n" +
			"Line three in order to go.\n" +
			"Line four in order to go.\n" +
			"----\n// vectorlint-disable\n----\n" +
			"Line eight in order to go.\n" +
			"// vectorlint-disable\n" +
			"Line ten in order to go.\n" +
			"// vectorlint-enable Acme\n" +
			"Line twelve `// vectorlint-disable` in order to go.\n" +
			"Line thirteen in order to go.\n",
		"docs/c.rst": "Controls\n========\n\n" +
			".. vectorlint-disable-next-line Acme.Wordiness\n\n" +
			"Line six in order to go.\n\n" +
			"Line eight in order to go. ::\n\n" +
			"   .. vectorlint-disable\n\n" +
			"Line twelve ``.. vectorlint-disable`` in order to go.\n\n" +
			".. vectorlint-disable\n\n" +
			"Line sixteen in order to go.\n",
		"docs/c.html": "<h1>Controls</h1>\n" +
			"<!-- vectorlint-disable-next-line Acme.Wordiness -->\n" +
			"<p>Line three in order to go.</p>\n" +
			"<p>Line four in order to go.</p>\n" +
			"<script>var s = \"<!-- vectorlint-disable -->\";</script>\n" +
			"<p>Line six in order to go.</p>\n" +
			"<pre><!-- vectorlint-disable --></pre>\n" +
			"<p>Line eight in order to go.</p>\n" +
			"<!-- vectorlint-disable -->\n" +
			"<p>Line ten in order to go.</p>\n",
	}
}

// TestFormatsControls: inline controls work in each format's own comment syntax, and the same
// words in code are not controls.
func TestFormatsControls(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	dir := t.TempDir()
	files := controlPages()
	files["vectorlint.ini"] = "RulesPath = rules\n[docs/**]\nRunRules = Acme\n"
	files["rules/Acme/wordiness.md"] = "---\nid: Wordiness\nname: Wordiness\nseverity: warning\n---\nFlag wordy phrases.\n"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs")
	if r.code != exitOK || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	want := []string{
		`docs/c.adoc: 5:11 "in order to" 9:12 "in order to" 13:37 "in order to" 14:15 "in order to"`,
		`docs/c.html: 4:14 "in order to" 6:13 "in order to" 8:15 "in order to"`,
		`docs/c.rst: 8:12 "in order to" 12:39 "in order to"`,
	}
	if got := jsonFindings(t, r.stdout); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestFormatsFix: --fix rewrites each page at the source bytes of its findings, and nowhere
// else (the "in order to" in its code, markup and URLs stay), LF and CRLF alike; a second lint
// finds nothing.
func TestFormatsFix(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	dir := t.TempDir()
	files := formatsProject(t, "RulesPath = rules\n[docs/**]\nRunRules = Acme\n")
	files["docs/crlf.adoc"] = strings.ReplaceAll(files["docs/page.adoc"], "\n", "\r\n")
	files["docs/crlf.rst"] = strings.ReplaceAll(files["docs/page.rst"], "\n", "\r\n")
	writeTestTree(t, dir, files)
	// The places of the findings (TestFormatsOneRun), each "in order to" becoming "to".
	at := map[string][][2]int{
		"docs/page.adoc": {{5, 1}, {36, 18}, {39, 9}},
		"docs/crlf.adoc": {{5, 1}, {36, 18}, {39, 9}},
		"docs/page.html": {{12, 6}, {19, 14}},
		"docs/page.md":   {{6, 1}, {16, 9}},
		"docs/page.mdx":  {{7, 1}, {14, 9}},
		"docs/page.rst":  {{1, 11}, {9, 1}, {39, 17}, {41, 9}},
		"docs/crlf.rst":  {{1, 11}, {9, 1}, {39, 17}, {41, 9}},
		"docs/page.txt":  {{3, 1}, {4, 9}},
	}
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--fix", "--no-cache", "docs")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for path, places := range at {
		want := fixedAt(t, files[path], places)
		if got := readFile(t, filepath.Join(dir, filepath.FromSlash(path))); got != want {
			t.Errorf("%s after --fix:\n%q\nwant:\n%q", path, got, want)
		}
	}
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs")
	for _, f := range jsonFindings(t, r.stdout) {
		if !strings.HasSuffix(f, ":") {
			t.Errorf("a finding after --fix: %s", f)
		}
	}
}

// fixedAt replaces the "in order to" at each 1-based line and column of src (ASCII) by "to",
// keeping its case.
func fixedAt(t *testing.T, src string, places [][2]int) string {
	t.Helper()
	lines := strings.SplitAfter(src, "\n")
	for _, p := range places {
		l := lines[p[0]-1]
		i := p[1] - 1
		switch {
		case strings.HasPrefix(l[i:], "in order to"):
			lines[p[0]-1] = l[:i] + "to" + l[i+len("in order to"):]
		case strings.HasPrefix(l[i:], "In order to"):
			lines[p[0]-1] = l[:i] + "To" + l[i+len("In order to"):]
		default:
			t.Fatalf("no \"in order to\" at %d:%d of %q", p[0], p[1], l)
		}
	}
	return strings.Join(lines, "")
}

// TestFormatsIncludesNotFollowed: the directives that name other files — AsciiDoc's include::,
// reStructuredText's include, literalinclude and raw :file:, an HTML iframe — are not followed:
// a document cannot make vectorlint send a file it names (a secret beside the project) to the
// model. Nothing but the document's own prose is sent.
func TestFormatsIncludesNotFollowed(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[docs/**]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases.\n",
		"secret.txt":              "zqsecret token in order to leak\n",
		"docs/a.adoc":             "= A\n\ninclude::../secret.txt[]\n\nSee image::../secret.txt[] in order to look.\n",
		"docs/b.rst": "B\n=\n\n.. include:: ../secret.txt\n\n.. literalinclude:: ../secret.txt\n\n" +
			".. raw:: html\n   :file: ../secret.txt\n\nText in order to read.\n",
		"docs/c.html": "<p>Text in order to read.</p>\n<iframe src=\"../secret.txt\"></iframe>\n<object data=\"../secret.txt\"></object>\n",
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("%d requests, want 3", len(srv.Requests()))
	}
	for _, req := range srv.Requests() {
		if strings.Contains(string(req.Body), "zqsecret") {
			t.Errorf("a request holds the named file's text:\n%s", req.LastUser())
		}
	}
}
