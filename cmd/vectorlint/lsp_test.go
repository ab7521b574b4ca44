package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// nodeFor returns the Node.js to run a client with ($VECTORLINT_NODE, else node on the PATH)
// and the node_modules folder holding vscode-languageserver-protocol ($VECTORLINT_LSP_CLIENT,
// else where .ci/install-lsp-client puts it). Without them the test is skipped, unless
// VECTORLINT_REQUIRE_NODE=1 (CI) makes that a failure.
func nodeFor(t *testing.T) (node, modules string) {
	t.Helper()
	missing := func(why string) {
		if os.Getenv("VECTORLINT_REQUIRE_NODE") == "1" {
			t.Fatalf("VECTORLINT_REQUIRE_NODE=1 but %s (run .ci/install-node and .ci/install-lsp-client)", why)
		}
		t.Skipf("%s (run .ci/install-lsp-client; VECTORLINT_REQUIRE_NODE=1 makes this a failure)", why)
	}
	node = os.Getenv("VECTORLINT_NODE")
	if node == "" {
		p, err := exec.LookPath("node")
		if err != nil {
			missing("there is no node on the PATH and VECTORLINT_NODE is unset")
		}
		node = p
	}
	modules = os.Getenv("VECTORLINT_LSP_CLIENT")
	if modules == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		modules = filepath.Join(cache, "vectorlint-ci", "lsp-client-3.18.5", "node_modules")
	}
	if _, err := os.Stat(filepath.Join(modules, "vscode-languageserver-protocol", "package.json")); err != nil {
		missing("vscode-languageserver-protocol is not in " + modules)
	}
	return node, modules
}

// lspProject is a project with a model rule (Wordiness, which gives fixes), a deterministic
// checklist (Plain) and a required title (Title), and a document that breaks all three.
func lspProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases; give the shorter one as the fix.\n",
		"rules/Acme/plain.md": "---\nid: Plain\nname: Plain\nseverity: warning\nshould:\n  - $not_icontains: utilize\n---\nPlain words.\n",
		"rules/Acme/title.md": "---\nid: Title\nname: Title\nseverity: warning\n" +
			"target: {regex: '^#\\s+(.+)$', flags: mu, group: 1, required: true, suggestion: Add a title.}\n---\nCheck the title.\n",
		"docs/guide.md": "Le café 👋 — in order to deploy, utilize the CLI.\n",
	}
}

// TestLSPWithVSCodeClient runs `vectorlint lsp` (in-process, on pipes) under the protocol client
// VS Code's extensions use, driven from Node by testdata/lsp/client.cjs, against the fake model
// server: initialize, open (the deterministic findings, then the model's), a quick fix applied,
// save, a change that removes a finding, a broken rule (on the document, the rule file and in a
// message) then mended, shutdown and exit with code 0.
func TestLSPWithVSCodeClient(t *testing.T) {
	t.Parallel()
	node, modules := nodeFor(t)
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	dir := t.TempDir()
	writeTestTree(t, dir, lspProject())
	result := filepath.Join(t.TempDir(), "session.json")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	script := filepath.Join(testutil.RepoRoot(t), "cmd", "vectorlint", "testdata", "lsp", "client.cjs")
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules, "VECTORLINT_LSP_PROJECT="+dir, "VECTORLINT_LSP_RESULT="+result)
	toServer, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	fromServer, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var nodeErr strings.Builder
	cmd.Stderr = &nodeErr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}

	env := fakeEnv(srv)
	env["XDG_CACHE_HOME"] = t.TempDir()
	var serverLog syncWriterBuffer
	a := &app{stdin: toServer, stdout: fromServer, stderr: &serverLog, dir: dir, jsTimeout: calmJSLimit,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }}
	code := make(chan int, 1)
	go func() {
		code <- a.run(ctx, []string{"lsp", "--debounce", "20ms"})
		fromServer.Close()
	}()
	nodeDone := cmd.Wait()
	var exit int
	select {
	case exit = <-code:
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not stop after the client's exit; node: %v\n%s", nodeDone, nodeErr.String())
	}
	if nodeDone != nil {
		t.Fatalf("the client failed: %v\n%s\nserver log:\n%s", nodeDone, nodeErr.String(), serverLog.String())
	}
	if exit != exitOK {
		t.Errorf("vectorlint lsp exited %d after shutdown and exit, want 0; log:\n%s", exit, serverLog.String())
	}

	data, err := os.ReadFile(result)
	if err != nil {
		t.Fatal(err)
	}
	var steps []map[string]json.RawMessage
	if err := json.Unmarshal(data, &steps); err != nil {
		t.Fatal(err)
	}
	got := map[string]map[string]json.RawMessage{}
	for _, s := range steps {
		var name string
		json.Unmarshal(s["step"], &name)
		got[name] = s
	}
	check := func(step, field, want string) {
		t.Helper()
		var v any
		json.Unmarshal(got[step][field], &v)
		b, _ := json.Marshal(v)
		if string(b) != want {
			t.Errorf("%s: %s =\n%s\nwant\n%s", step, field, b, want)
		}
	}
	check("initialize", "serverInfo", `{"name":"vectorlint","version":"`+versionString()+`"}`)
	check("initialize", "capabilities", `{"codeActionProvider":{"codeActionKinds":["quickfix","source.fixAll.vectorlint"]},`+
		`"textDocumentSync":{"change":1,"openClose":true,"save":{"includeText":false}}}`)
	// Columns are UTF-16 units, as VS Code counts them: "👋" is two.
	check("open", "diagnostics", `["0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.",`+
		`"0:13-0:24 1 Acme.Wordiness: Wordy: use \"to\".","0:33-0:40 2 Acme.Plain: Avoid \"utilize\"."]`)
	check("open", "progress", `["create","begin","end"]`)
	check("codeAction", "actions", `[{"isPreferred":true,"kind":"quickfix","title":"Replace “in order to” with “to” (Acme.Wordiness)"},`+
		`{"isPreferred":false,"kind":"source.fixAll.vectorlint","title":"Apply all vectorlint fixes (1)"}]`)
	check("fixed", "text", `"Le café 👋 — to deploy, utilize the CLI.\n"`)
	check("fixed", "diagnostics", `["0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.","0:24-0:31 2 Acme.Plain: Avoid \"utilize\"."]`)
	check("saved", "diagnostics", `["0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.","0:24-0:31 2 Acme.Plain: Avoid \"utilize\"."]`)
	check("changed", "diagnostics", `["0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title."]`)
	rulePath := filepath.Join(dir, "rules", "Acme", "words.md")
	check("broken rule", "diagnostics", mustJSON(t, []string{`0:0-0:0 1 : vectorlint cannot lint this file: the configuration or a rule has errors: ` +
		rulePath + `:4: severity: expected "suggestion", "warning" or "error", found "fatal"`}))
	check("broken rule", "rule", `["3:0-3:15 1 : severity: expected \"suggestion\", \"warning\" or \"error\", found \"fatal\""]`)
	check("broken rule", "messages", mustJSON(t, []map[string]any{{"type": 1, "message": "vectorlint: " + rulePath +
		`:4: severity: expected "suggestion", "warning" or "error", found "fatal"`}}))
	check("mended", "rule", `[]`)
	check("mended", "diagnostics", `["0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title."]`)
	check("shutdown", "result", `null`)
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// syncWriterBuffer is a log written from several goroutines.
type syncWriterBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncWriterBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncWriterBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestLSPFlags(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := runVectorlint(t, dir, nil, "", "lsp", "--help")
	if r.code != exitOK || !strings.HasPrefix(r.stdout, "Usage: vectorlint lsp [--config FILE] [--debounce DURATION]\n") ||
		!strings.Contains(r.stdout, "--debounce duration") {
		t.Errorf("--help: exit %d\n%s", r.code, r.stdout)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"lsp", "docs"}, "vectorlint lsp: unexpected argument \"docs\"\n"},
		{[]string{"lsp", "--debounce", "-1s"}, "vectorlint lsp: --debounce: expected a duration of 0 or more, found -1s\n"},
		{[]string{"lsp", "--tcp"}, "vectorlint lsp: unknown flag: --tcp\n"},
	} {
		r := runVectorlint(t, dir, nil, "", tt.args...)
		if r.code != exitFailure || !strings.HasPrefix(r.stderr, tt.want) {
			t.Errorf("%v: exit %d, stderr %q", tt.args, r.code, r.stderr)
		}
	}
	// The stream ending without shutdown and exit: exit code 1, as LSP asks.
	r = runVectorlint(t, dir, nil, "", "lsp", "--stdio")
	if r.code != exitFindings || r.stdout != "" || !strings.Contains(r.stderr, "the client closed the connection without exit") {
		t.Errorf("no client: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// TestFindProjectUp: a document in a subfolder of a zero-config project (VECTORLINT.md above it)
// finds the guide; a configuration file above it wins, as for the command; with neither, the
// document is in no project.
func TestFindProjectUp(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"VECTORLINT.md": "Write plainly.\n", "docs/deep/a.md": "x\n",
		"other/vectorlint.ini": "[*.md]\nRunRules = VectorLint\n", "other/sub/b.md": "x\n"})
	opts, err := findProjectUp(filepath.Join(dir, "docs", "deep"), "", "")
	if err != nil || opts.StyleGuidePath != filepath.Join(dir, "VECTORLINT.md") || opts.ConfigPath != "" {
		t.Errorf("zero-config from a subfolder: %+v, %v", opts, err)
	}
	opts, err = findProjectUp(filepath.Join(dir, "other", "sub"), "", "")
	if err != nil || opts.ConfigPath != filepath.Join(dir, "other", "vectorlint.ini") {
		t.Errorf("a configuration above: %+v, %v", opts, err)
	}
	var notFound *config.NotFoundError
	if _, err := findProjectUp(t.TempDir(), "", ""); !errors.As(err, &notFound) {
		t.Errorf("no project: %v", err)
	}
}
