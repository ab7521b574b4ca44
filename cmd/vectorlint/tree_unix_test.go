//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// spec/trust.md §6, through the commands: a pull request commits symbolic links to files and
// folders outside the checkout, and nothing outside is read, sent, quoted or written. Every
// attack plants links to a canary folder outside the tree; the canary's text must appear in no
// output, no error and no request, and its files must be unchanged (bytes and modification
// times) with nothing added. Each attack has a positive control that keeps working: a link
// inside the tree (relative and absolute target), a path the user typed outside the tree, a
// plain folder.

// canaryMark is in every file of the canary folder.
const canaryMark = "CANARY-7f3e"

// canary is a folder outside the project that holds what an attacker wants: a key file, a
// document, a rule pack, a blueprint, an env file.
type canary struct {
	dir  string
	snap map[string]canaryState
}

type canaryState struct {
	data  string
	mtime time.Time
}

func newCanary(t *testing.T) *canary {
	t.Helper()
	c := &canary{dir: t.TempDir()}
	writeTestTree(t, c.dir, map[string]string{
		"id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n" + canaryMark + "-KEY-LINE-1 b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAABlwAAAAdzc2gtcn\n" +
			canaryMark + "-KEY-LINE-2\n-----END OPENSSH PRIVATE KEY-----\n",
		"notes.md":           "In order to leak, " + canaryMark + "-DOC.\n",
		"rules/Stolen/r.md":  "---\nid: Stolen\nname: Stolen\n---\nFlag " + canaryMark + "-RULE.\n",
		"bp.yml":             "models: [openai:m]\n---\n- id: p\n  prompt: " + canaryMark + "-BLUEPRINT\n  should: [{$contains: hi}]\n",
		"secrets.env":        "OPENAI_BASE_URL=http://" + canaryMark + ".test/v1\n",
		"models/CORE.json":   `["openai:` + canaryMark + `"]`,
		"fixtures.jsonl":     `{"promptId": "p", "model": "openai:m", "response": "` + canaryMark + `"}` + "\n",
		"report/placeholder": canaryMark,
	})
	c.snap = c.state(t)
	return c
}

// state reads every file of the canary folder.
func (c *canary) state(t *testing.T) map[string]canaryState {
	t.Helper()
	out := map[string]canaryState{}
	err := filepath.WalkDir(c.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		out[p] = canaryState{string(data), fi.ModTime()}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// path is a file of the canary folder.
func (c *canary) path(name string) string { return filepath.Join(c.dir, filepath.FromSlash(name)) }

// check fails the test when the canary's text is in a result or a request to srv (nil: none),
// or when a file of the canary folder changed, went or came.
func (c *canary) check(t *testing.T, srv *llmtest.Server, results ...cliResult) {
	t.Helper()
	for _, r := range results {
		if strings.Contains(r.stdout+r.stderr, canaryMark) {
			t.Errorf("the canary is in the output:\nstdout:\n%.500s\nstderr:\n%.500s", r.stdout, r.stderr)
		}
	}
	if srv != nil {
		for _, req := range srv.Requests() {
			if strings.Contains(string(req.Body), canaryMark) || strings.Contains(req.Path, canaryMark) {
				t.Errorf("the canary reached the model (%s %s)", req.Method, req.Path)
			}
		}
	}
	now := c.state(t)
	if len(now) != len(c.snap) {
		t.Errorf("the canary folder has %d files, had %d", len(now), len(c.snap))
	}
	for p, was := range c.snap {
		if is, ok := now[p]; !ok || is.data != was.data || !is.mtime.Equal(was.mtime) {
			t.Errorf("the canary file %s changed", p)
		}
	}
}

// link commits a symbolic link at name (in dir) to target.
func link(t *testing.T, dir, name, target string) {
	t.Helper()
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, path); err != nil {
		t.Fatal(err)
	}
}

// wantRefused fails unless r exited 2 with want in its standard error.
func wantRefused(t *testing.T, r cliResult, want string) {
	t.Helper()
	if r.code != exitFailure || !strings.Contains(r.stderr, want) {
		t.Errorf("exit %d, stderr:\n%s\nwant exit 2 and %q", r.code, r.stderr, want)
	}
}

// TestTreeConfigLinkedOutside: vectorlint.ini (or .vectorlint.ini) committed as a link to a key
// file outside the checkout. Every command that reads it — lint, cache key (which the Action
// runs first), ls-config, validate, a dry run — refuses it without quoting a line of it. A link
// to a configuration inside the tree, by a relative or an absolute target, keeps working.
func TestTreeConfigLinkedOutside(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	c := newCanary(t)
	for _, name := range []string{"vectorlint.ini", ".vectorlint.ini"} {
		dir := t.TempDir()
		files := faultProject()
		delete(files, "vectorlint.ini")
		writeTestTree(t, dir, files)
		link(t, dir, name, c.path("id_rsa"))
		want := "open " + filepath.Join(dir, name) + ": a symbolic link leading outside the project root " + dir
		for _, args := range [][]string{{"--no-cache", "docs"}, {"cache", "key"}, {"ls-config"}, {"--dry-run", "docs"}, {"validate"}, {"merge", "x.json"}} {
			r := runVectorlint(t, dir, fakeEnv(srv), "", args...)
			if args[0] == "merge" {
				// merge reads the configuration only for rule descriptions: without --config
				// a refused one is passed over, and the missing result is the error.
				wantRefused(t, r, "x.json: cannot read the file")
			} else {
				wantRefused(t, r, want)
			}
			c.check(t, srv, r)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls", srv.Calls())
	}

	// Controls: the configuration linked from inside the tree.
	for _, target := range []string{"conf/lint.ini", "ABS"} {
		dir := t.TempDir()
		files := faultProject()
		files["conf/lint.ini"] = files["vectorlint.ini"]
		delete(files, "vectorlint.ini")
		writeTestTree(t, dir, files)
		if target == "ABS" {
			target = filepath.Join(dir, "conf", "lint.ini")
		}
		link(t, dir, "vectorlint.ini", target)
		r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--output", "json", "docs")
		if r.code != exitFindings || len(decodeJSON(t, r.stdout).Files) != 2 {
			t.Errorf("config linked to %s: exit %d\n%s", target, r.code, r.stderr)
		}
		if r := runVectorlint(t, dir, nil, "", "cache", "key"); r.code != exitOK || len(strings.TrimSpace(r.stdout)) != 64 {
			t.Errorf("cache key with the config linked to %s: exit %d %s%s", target, r.code, r.stdout, r.stderr)
		}
	}
}

// TestTreeConfigRelativeLinkFolder: --config names the configuration through a folder the
// repository committed as a link out of the working directory: refused, since that folder
// would become the project root.
func TestTreeConfigRelativeLinkFolder(t *testing.T) {
	t.Parallel()
	c := newCanary(t)
	writeTestTree(t, c.dir, nil)
	dir := t.TempDir()
	writeTestTree(t, dir, faultProject())
	link(t, dir, "conf", c.dir)
	r := runVectorlint(t, dir, nil, "", "--config", "conf/id_rsa", "docs")
	r.expect(t, exitFailure, "", "vectorlint: config file conf/id_rsa (from --config): the symbolic link "+filepath.Join(dir, "conf")+" leads outside "+dir+"\n")
	c.check(t, nil, r)
}

// TestTreeGuideAndDirectiveLinkedOutside: VECTORLINT.md and .vectorlint/directive.md committed
// as links out of the tree are refused before any call, and .vectorlint itself as a link too; a
// guide and a directive linked from inside the tree are sent.
func TestTreeGuideAndDirectiveLinkedOutside(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	c := newCanary(t)
	for _, tt := range []struct{ name, target, want string }{
		{"VECTORLINT.md", "notes.md", "cannot read the style guide: open DIR/VECTORLINT.md: a symbolic link leading outside the project root DIR"},
		{".vectorlint/directive.md", "notes.md", "cannot read the project directive: open DIR/.vectorlint/directive.md: a symbolic link leading outside the project root DIR"},
		{".vectorlint", ".", "cannot read the project directive: open DIR/.vectorlint/directive.md: the symbolic link DIR/.vectorlint leads outside the project root DIR"},
	} {
		dir := t.TempDir()
		writeTestTree(t, dir, faultProject())
		target := c.path(tt.target)
		if tt.name == ".vectorlint" {
			// A folder outside with a directive.md in it.
			target = t.TempDir()
			writeTestTree(t, target, map[string]string{"directive.md": "Obey " + canaryMark + ".\n"})
		}
		link(t, dir, tt.name, target)
		r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs")
		wantRefused(t, r, strings.ReplaceAll(tt.want, "DIR", dir))
		c.check(t, srv, r)
	}
	// A guide linked into .git (whose config holds the checkout's token on CI): refused too.
	dir := t.TempDir()
	files := faultProject()
	files[".git/config"] = "[http]\n\textraheader = AUTHORIZATION: basic " + canaryMark + "-TOKEN\n"
	writeTestTree(t, dir, files)
	link(t, dir, "VECTORLINT.md", ".git/config")
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs")
	r.expect(t, exitFailure, "", "vectorlint: cannot read the style guide: open "+filepath.Join(dir, "VECTORLINT.md")+": a symbolic link into .git: git's own files are never read\n")
	c.check(t, srv, r)
	if srv.Calls() != 0 {
		t.Errorf("%d model calls", srv.Calls())
	}

	// Controls: linked from inside the tree, relative and absolute; their text is sent.
	dir = t.TempDir()
	files = faultProject()
	files["guides/style.md"] = "GUIDE-INSIDE-THE-TREE: prefer short words.\n"
	files["guides/directive.md"] = "DIRECTIVE-INSIDE-THE-TREE: be brief.\n"
	writeTestTree(t, dir, files)
	link(t, dir, "VECTORLINT.md", "guides/style.md")
	link(t, dir, ".vectorlint/directive.md", filepath.Join(dir, "guides", "directive.md"))
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs/a.md")
	if r.code != exitFindings {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) == 0 || !strings.Contains(string(reqs[0].Body), "GUIDE-INSIDE-THE-TREE") || !strings.Contains(string(reqs[0].Body), "DIRECTIVE-INSIDE-THE-TREE") {
		t.Error("the guide and directive linked inside the tree were not sent")
	}
}

// TestTreeDocumentsLinkedOutside: the folder a workflow names (docs) committed as a link out of
// the tree is refused by name, also under --fix and as a glob's folder, and a walk of the
// project does not enter it; a document linked into .git is refused. Controls: a folder linked
// inside the tree is linted and fixed; a document the user types by its absolute path outside
// the tree is read but never rewritten.
func TestTreeDocumentsLinkedOutside(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	c := newCanary(t)
	dir := t.TempDir()
	files := faultProject()
	files["content/a.md"], files["content/b.md"] = files["docs/a.md"], files["docs/b.md"]
	delete(files, "docs/a.md")
	delete(files, "docs/b.md")
	files[".git/config"] = "[http]\n\textraheader = AUTHORIZATION: basic " + canaryMark + "-TOKEN\n"
	writeTestTree(t, dir, files)
	link(t, dir, "docs", c.dir)
	link(t, dir, "content/git.md", "../.git/config")
	outLink := "the symbolic link " + filepath.Join(dir, "docs") + " leads outside the project root " + dir
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"docs"}, "vectorlint: docs: a symbolic link leading outside the project root " + dir + "\n"},
		{[]string{"--fix", "docs/notes.md"}, "vectorlint: docs/notes.md: " + outLink + "\n"},
		{[]string{"docs/*.md"}, "vectorlint: docs/*.md: " + outLink + "\n"},
		{[]string{"docs/**"}, "vectorlint: docs/**: " + outLink + "\n"},
		{[]string{"content/git.md"}, "vectorlint: content/git.md: a symbolic link into .git: git's own files are never linted\n"},
		{[]string{".git/config"}, "vectorlint: .git/config: inside .git: git's own files are never linted\n"},
		{[]string{".git"}, "vectorlint: .git: inside .git: git's own files are never linted\n"},
	} {
		r := runVectorlint(t, dir, fakeEnv(srv), "", append([]string{"--no-cache"}, tt.args...)...)
		r.expectPathError(t, tt.args[len(tt.args)-1], tt.want)
		c.check(t, srv, r)
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls", srv.Calls())
	}
	// A walk of the project lints content/ only: the link to a folder is not entered, the link
	// into .git is skipped with its reason.
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--output", "json", ".")
	res := decodeJSON(t, r.stdout)
	var linted []string
	for _, f := range res.Files {
		linted = append(linted, f.Path)
	}
	if r.code != exitFindings || strings.Join(linted, " ") != "content/a.md content/b.md" {
		t.Errorf("walk: exit %d, linted %v\n%s", r.code, linted, r.stderr)
	}
	if !strings.Contains(r.stdout, `"path": "content/git.md",`) || !strings.Contains(r.stdout, `"reason": "a symbolic link into .git: git's own files are never linted"`) {
		t.Errorf("the link into .git is not in the skipped list:\n%s", r.stdout)
	}
	c.check(t, srv, r)

	// Controls: a folder linked inside the tree (relative and absolute) is linted and fixed.
	link(t, dir, "rel", "content")
	link(t, dir, "abs", filepath.Join(dir, "content"))
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--fix", "rel/a.md", "abs/b.md")
	if r.code != exitOK && r.code != exitFindings {
		t.Fatalf("--fix through links inside: exit %d\n%s", r.code, r.stderr)
	}
	for _, name := range []string{"a.md", "b.md"} {
		if data, _ := os.ReadFile(filepath.Join(dir, "content", name)); !strings.HasPrefix(string(data), "To ") {
			t.Errorf("content/%s not fixed through the link: %q", name, data)
		}
	}
	// A document the user names by its absolute path, outside the tree: linted, never rewritten.
	theirs := t.TempDir()
	writeTestTree(t, theirs, map[string]string{"mine.md": "In order to start, read MY-OWN-NOTES.\n"})
	before, _ := os.Stat(filepath.Join(theirs, "mine.md"))
	calls := srv.Calls()
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--fix", filepath.Join(theirs, "mine.md"))
	wantRefused(t, r, "vectorlint: "+filepath.Join(theirs, "mine.md")+": outside the project root "+dir+", not rewritten\n")
	if srv.Calls() != calls+3 || !strings.Contains(string(srv.Requests()[len(srv.Requests())-1].Body), "MY-OWN-NOTES") {
		t.Errorf("the document typed outside the tree was not linted (%d calls)", srv.Calls()-calls)
	}
	after, _ := os.Stat(filepath.Join(theirs, "mine.md"))
	if data, _ := os.ReadFile(filepath.Join(theirs, "mine.md")); string(data) != "In order to start, read MY-OWN-NOTES.\n" || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("the document outside the tree was rewritten: %q", data)
	}
	// --fix=diff writes nothing: the diff of a file outside is shown.
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--fix=diff", filepath.Join(theirs, "mine.md"))
	if !strings.Contains(r.stdout, "+To start, read MY-OWN-NOTES.") {
		t.Errorf("--fix=diff outside the tree: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	c.check(t, srv, r)
}

// TestTreeRulesPathOutside: RulesPath climbing out with .., absolute, or through a link is an
// error naming the key and line, and no rule from outside reaches the model; a RulesPath in a
// subfolder works.
func TestTreeRulesPathOutside(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	c := newCanary(t)
	for _, tt := range []struct{ value, found string }{
		{"CLIMB", "which is outside it"}, // ../../…/rules, from the project's folder
		{c.path("rules"), "which is outside it"},
		{"packs", "which leads outside it through the symbolic link DIR/packs"},
	} {
		dir := t.TempDir()
		if tt.value == "CLIMB" {
			rel, err := filepath.Rel(dir, c.path("rules"))
			if err != nil || !strings.HasPrefix(rel, "..") {
				t.Fatalf("%s from %s: %s, %v", c.path("rules"), dir, rel, err)
			}
			tt.value = rel
		}
		files := faultProject()
		files["vectorlint.ini"] = "RulesPath = " + tt.value + "\n[**/*.md]\nRunRules = Stolen\n"
		writeTestTree(t, dir, files)
		link(t, dir, "packs", c.path("rules"))
		want := "vectorlint.ini:1: RulesPath: rule packs are read from inside the project only; to share packs across repositories, " +
			"vendor them into a folder of the repository or add them as a git submodule (expected a folder inside the project root " + dir +
			", found \"" + tt.value + "\", " + strings.ReplaceAll(tt.found, "DIR", dir) + ")\n"
		for _, args := range [][]string{{"--no-cache", "docs"}, {"validate"}, {"cache", "key"}} {
			r := runVectorlint(t, dir, fakeEnv(srv), "", args...)
			wantRefused(t, r, want)
			c.check(t, srv, r)
		}
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls", srv.Calls())
	}
	// Control: RulesPath in a subfolder.
	dir := t.TempDir()
	files := faultProject()
	files["vectorlint.ini"] = "RulesPath = style/rules\n[**/*.md]\nRunRules = Acme\n"
	for k, v := range faultProject() {
		if strings.HasPrefix(k, "rules/") {
			files["style/"+k] = v
			delete(files, k)
		}
	}
	writeTestTree(t, dir, files)
	if r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "docs"); r.code != exitFindings {
		t.Errorf("RulesPath in a subfolder: exit %d\n%s", r.code, r.stderr)
	}
}

// TestTreeDotEnvLinkedInside: a .env linked to a file inside the tree is read (its value is
// used); one linked outside is refused (TestDotEnvNotRegular).
func TestTreeDotEnvLinkedInside(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	dir := t.TempDir()
	files := faultProject()
	files["env/dev.env"] = "OPENAI_MODEL=model-from-the-linked-env\n"
	writeTestTree(t, dir, files)
	link(t, dir, ".env", "env/dev.env")
	env := fakeEnv(srv)
	delete(env, "OPENAI_MODEL")
	r := runVectorlint(t, dir, env, "", "--no-cache", "docs/a.md")
	if reqs := srv.Requests(); r.code != exitFindings || len(reqs) == 0 || reqs[0].Model != "model-from-the-linked-env" {
		t.Errorf("exit %d, %d requests\n%s", r.code, len(reqs), r.stderr)
	}
}

// TestTreeWrites: everything the lint command writes stays in the tree. --debug-json's folder
// (or .vectorlint) committed as a link out is refused before anything is created; --output-file
// at a committed link replaces the link, and in a folder linked out is refused before any call.
func TestTreeWrites(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	c := newCanary(t)
	for _, name := range []string{".vectorlint", ".vectorlint/runs"} {
		dir := t.TempDir()
		writeTestTree(t, dir, faultProject())
		link(t, dir, name, c.path("report"))
		r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--debug-json", "docs")
		wantRefused(t, r, "vectorlint: --debug-json: mkdir "+filepath.Join(dir, ".vectorlint", "runs")+": ")
		c.check(t, srv, r)
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls", srv.Calls())
	}

	dir := t.TempDir()
	writeTestTree(t, dir, faultProject())
	link(t, dir, "report.json", c.path("id_rsa"))
	link(t, dir, "out", c.path("report"))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--output-file", "out/r.json", "--output", "json", "docs")
	r.expect(t, exitFailure, "", "vectorlint: --output-file: stat "+filepath.Join(dir, "out")+": a symbolic link leading outside the project root "+dir+"\n")
	if srv.Calls() != 0 {
		t.Errorf("%d model calls before refusing --output-file", srv.Calls())
	}
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--output-file", "report.json", "--output", "json", "docs")
	if r.code != exitFindings || r.stdout != "" {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
	}
	fi, err := os.Lstat(filepath.Join(dir, "report.json"))
	data, _ := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil || !fi.Mode().IsRegular() || len(decodeJSON(t, string(data)).Files) != 2 {
		t.Errorf("report.json: %v %v\n%s", fi, err, data)
	}
	c.check(t, srv, r)

	// --debug-json into a plain folder still works.
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--debug-json", "docs/a.md")
	if entries, _ := os.ReadDir(filepath.Join(dir, ".vectorlint", "runs")); r.code != exitFindings || len(entries) != 1 {
		t.Errorf("--debug-json: exit %d, %d run folders\n%s", r.code, len(entries), r.stderr)
	}
}

// TestTreeDoubleDash: "--" ends the lint command's options, so a file named like a flag (as a
// pull request can commit one) is a path: linted, not taken for --fix.
func TestTreeDoubleDash(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	dir := t.TempDir()
	files := faultProject()
	files["--fix.md"] = files["docs/a.md"]
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--no-cache", "--output", "json", "--", "--fix.md")
	if res := decodeJSON(t, r.stdout); r.code != exitFindings || len(res.Files) != 1 || res.Files[0].Path != "--fix.md" {
		t.Errorf("exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "--fix.md")); string(data) != files["docs/a.md"] {
		t.Errorf("--fix.md was rewritten: %q", data)
	}
}

// TestTreeBlueprint: a blueprint, its collections folder and fixtures, and the results folder
// (.results or --out-dir) committed as links out of the tree are refused before any call; an
// --html report at a committed link replaces the link. A plain .results works.
func TestTreeBlueprint(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("hi there"))
	c := newCanary(t)
	run := func(dir string, args ...string) cliResult {
		code, stdout, stderr := runBlueprintAt(t, dir, outputsEnv(srv), append([]string{"blueprint"}, args...)...)
		return cliResult{code: code, stdout: stdout, stderr: stderr}
	}
	for _, tt := range []struct {
		name, target string
		args         []string
		want         string
	}{
		{"bp.yml", "bp.yml", []string{"run", "bp.yml", "--no-cache"}, "vectorlint blueprint run: cannot read bp.yml: a symbolic link leading outside the project root DIR\n"},
		{"bp.yml", "bp.yml", []string{"check", "bp.yml"}, "bp.yml: error: cannot read the file: a symbolic link leading outside the project root DIR\n"},
		{".results", "report", []string{"run", "c.yml", "--no-cache"}, "vectorlint blueprint run: --out-dir .results cannot hold the results: DIR/.results: a symbolic link leading outside the project root DIR (no model was called)\n"},
		{"out", "report", []string{"run", "c.yml", "--no-cache", "--out-dir", "out/x"}, "vectorlint blueprint run: --out-dir out/x cannot hold the results: DIR/out/x: the symbolic link DIR/out leads outside the project root DIR (no model was called)\n"},
		{"colls", "models", []string{"check", "c.yml", "--collections", "colls"}, "vectorlint blueprint check: model collections: open DIR/colls: a symbolic link leading outside the project root DIR\n"},
		{"fx.jsonl", "fixtures.jsonl", []string{"run", "c.yml", "--no-cache", "--fixtures", "fx.jsonl"}, "vectorlint blueprint run: cannot read fx.jsonl: a symbolic link leading outside the project root DIR\n"},
	} {
		dir := writeBlueprintFiles(t, map[string]string{"c.yml": outputsBlueprint})
		link(t, dir, tt.name, c.path(tt.target))
		r := run(dir, tt.args...)
		want := strings.ReplaceAll(tt.want, "DIR", dir)
		if r.code != exitFailure || (r.stderr != want && r.stdout != want+"checked 1 blueprint: 1 invalid, 0 warnings\n") {
			t.Errorf("%s → %s: exit %d\nstdout %s\nstderr %q\nwant   %q", tt.name, tt.target, r.code, r.stdout, r.stderr, want)
		}
		c.check(t, srv, r)
	}
	if srv.Calls() != 0 {
		t.Errorf("%d model calls", srv.Calls())
	}

	// --html at a committed link: the report replaces the link. A plain .results is used.
	dir := writeBlueprintFiles(t, map[string]string{"c.yml": outputsBlueprint})
	link(t, dir, "report.html", c.path("id_rsa"))
	r := run(dir, "run", "c.yml", "--no-cache", "--html", "report.html")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "report.html")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("report.html: %v %v", fi, err)
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, ".results", "c")); len(entries) != 1 {
		t.Errorf(".results/c holds %v", entries)
	}
	c.check(t, srv, r)
}

// TestTreeInit: vectorlint init writes inside the tree only: a rules folder committed as a link
// out of it is refused, nothing is written there, and a link at vectorlint.ini is replaced
// (--force), not written through.
func TestTreeInit(t *testing.T) {
	t.Parallel()
	c := newCanary(t)
	dir := t.TempDir()
	link(t, dir, "rules", c.path("report"))
	r := runVectorlint(t, dir, nil, "", "init")
	wantRefused(t, r, "vectorlint init: mkdir "+filepath.Join(dir, "rules", "Starter")+": the symbolic link "+filepath.Join(dir, "rules")+" leads outside the project root "+dir)
	c.check(t, nil, r)

	dir = t.TempDir()
	link(t, dir, "vectorlint.ini", c.path("id_rsa"))
	r = runVectorlint(t, dir, nil, "", "init", "--force")
	if r.code != exitOK {
		t.Fatalf("init --force: exit %d\n%s", r.code, r.stderr)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "vectorlint.ini")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("vectorlint.ini: %v %v", fi, err)
	}
	entries, _ := os.ReadDir(dir)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"rules", "vectorlint.ini"}) {
		t.Errorf("init wrote %v", names)
	}
	c.check(t, nil, r)
}

// TestTreeInitDocusaurusLinkedOutside: init reads a Docusaurus configuration through the
// project root, so one committed as a link leading out of the tree is not read (its "path:"
// values would otherwise be written into vectorlint.ini); the same file inside the tree is.
func TestTreeInitDocusaurusLinkedOutside(t *testing.T) {
	t.Parallel()
	outside := t.TempDir()
	writeTestTree(t, outside, map[string]string{"docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {path: 'secret-" + canaryMark + "'}}]]};\n"})
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"docs/a.md": "# A\n", "secret-" + canaryMark + "/b.md": "# B\n"})
	link(t, dir, "docusaurus.config.js", filepath.Join(outside, "docusaurus.config.js"))
	root, err := tree.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	if site, found := findDocusaurus(root, dir); found {
		t.Errorf("a configuration linked outside the tree was read: %+v", site)
	}
	// Control: the same configuration inside the tree is read.
	writeTestTree(t, dir, map[string]string{"website/docusaurus.config.js": "module.exports = {presets: [['classic', {docs: {path: 'guides'}}]]};\n", "website/guides/x.md": "# X\n"})
	if site, found := findDocusaurus(root, dir); !found || site.glob() != "website/guides/**/*.md" {
		t.Errorf("inside the tree: found %v, %+v", found, site)
	}
}
