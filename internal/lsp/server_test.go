package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The server driven by a client speaking the protocol over a pipe (sourcegraph/jsonrpc2 on the
// client side too), against the fake model server. The same scenario runs through VS Code's
// own client library under Node in cmd/vectorlint (TestLSPWithVSCodeClient).

// project is a project with a model rule (Wordiness), a deterministic checklist (Plain) and a
// required title (Title: "target not found" without a model).
func project(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"vectorlint.ini":      "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\nFind wordy phrases.\n",
		"rules/Acme/plain.md": "---\nid: Plain\nname: Plain\nshould:\n  - $not_icontains: utilize\n---\nPlain words.\n",
		"rules/Acme/title.md": "---\nid: Title\nname: Title\nseverity: warning\n" +
			"target: {regex: '^#\\s+(.+)$', flags: mu, group: 1, required: true, suggestion: Add a title.}\n---\nCheck the title.\n",
	}
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// options are the server's options as the command gives them, with the fake model server.
func options(t *testing.T, srv *llmtest.Server, log *syncBuffer) Options {
	return Options{
		Version: "1.2.3",
		Project: func(dir string) (*config.Project, error) {
			opts, err := config.FindProject(dir, "", "")
			if err != nil {
				return nil, err
			}
			return config.LoadProject(opts)
		},
		Model: func(proj *config.Project) (Model, error) {
			client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, Concurrency: 2})
			if err != nil {
				return Model{}, err
			}
			ep := llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}
			return Model{Eval: lint.EvalOptions{Client: client, Endpoint: ep, ConfidenceThreshold: 0.75, Concurrency: 2,
				Judge: lint.ModelJudge{Client: client, Endpoint: ep}}, Close: client.Close}, nil
		},
		Debounce: 20 * time.Millisecond,
		Log:      log,
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// client is the test's side of the connection: it records what the server sends.
type client struct {
	t    *testing.T
	conn *jsonrpc2.Conn
	mu   sync.Mutex
	cond *sync.Cond
	// diags are the publications by URI, in order; messages the shown messages; progress the
	// $/progress values' kinds.
	diags    map[string][]protocol.PublishDiagnosticsParams
	messages []protocol.ShowMessageParams
	progress []string
	done     chan error
}

func start(t *testing.T, opts Options) *client {
	t.Helper()
	a, b := net.Pipe()
	c := &client{t: t, diags: map[string][]protocol.PublishDiagnosticsParams{}, done: make(chan error, 1)}
	c.cond = sync.NewCond(&c.mu)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { c.done <- Serve(ctx, a, opts) }()
	c.conn = jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(b, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(c.handle))
	t.Cleanup(func() { c.conn.Close() })
	return c
}

func (c *client) handle(_ context.Context, _ *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.cond.Broadcast()
	switch req.Method {
	case "textDocument/publishDiagnostics":
		// glsp's IntegerOrString does not decode (its UnmarshalJSON has a value receiver): the
		// code is read here.
		var raw struct {
			URI         string `json:"uri"`
			Diagnostics []struct {
				protocol.Diagnostic
				Code any `json:"code"`
			} `json:"diagnostics"`
		}
		if err := json.Unmarshal(*req.Params, &raw); err != nil {
			c.t.Error(err)
		}
		p := protocol.PublishDiagnosticsParams{URI: raw.URI, Diagnostics: []protocol.Diagnostic{}}
		for _, d := range raw.Diagnostics {
			if d.Code != nil {
				d.Diagnostic.Code = &protocol.IntegerOrString{Value: d.Code}
			}
			p.Diagnostics = append(p.Diagnostics, d.Diagnostic)
		}
		c.diags[p.URI] = append(c.diags[p.URI], p)
	case "window/showMessage":
		var p protocol.ShowMessageParams
		json.Unmarshal(*req.Params, &p)
		c.messages = append(c.messages, p)
	case "window/workDoneProgress/create":
		c.progress = append(c.progress, "create")
		return nil, nil
	case "$/progress":
		var p struct {
			Value struct{ Kind string } `json:"value"`
		}
		json.Unmarshal(*req.Params, &p)
		c.progress = append(c.progress, p.Value.Kind)
	}
	return nil, nil
}

func (c *client) call(method string, params, result any) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.conn.Call(ctx, method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

// wait waits until the latest publication for uri satisfies ok, and returns it.
func (c *client) wait(uri string, what string, ok func([]protocol.Diagnostic) bool) []protocol.Diagnostic {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	timer := time.AfterFunc(10*time.Second, func() { c.mu.Lock(); c.cond.Broadcast(); c.mu.Unlock() })
	defer timer.Stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if ps := c.diags[uri]; len(ps) > 0 && ok(ps[len(ps)-1].Diagnostics) {
			return ps[len(ps)-1].Diagnostics
		}
		if time.Now().After(deadline) {
			var last []protocol.Diagnostic
			if ps := c.diags[uri]; len(ps) > 0 {
				last = ps[len(ps)-1].Diagnostics
			}
			c.t.Fatalf("waiting for %s on %s; last published: %s", what, uri, show(last))
		}
		c.cond.Wait()
	}
}

// show lists diagnostics one a line: "LINE:CHAR-LINE:CHAR severity code: message".
func show(ds []protocol.Diagnostic) string {
	var out []string
	for _, d := range ds {
		code := ""
		if d.Code != nil {
			code = fmt.Sprint(d.Code.Value)
		}
		sev := 0
		if d.Severity != nil {
			sev = int(*d.Severity)
		}
		out = append(out, fmt.Sprintf("%d:%d-%d:%d %d %s: %s", d.Range.Start.Line, d.Range.Start.Character,
			d.Range.End.Line, d.Range.End.Character, sev, code, d.Message))
	}
	return strings.Join(out, "\n")
}

func has(ds []protocol.Diagnostic, code string) bool {
	for _, d := range ds {
		if d.Code != nil && d.Code.Value == code {
			return true
		}
	}
	return false
}

// TestServer runs a whole session: initialize; open a document (the deterministic findings at
// once, then the model's); a quick fix applied; the change removes the finding; save; a broken
// rule shown on the document, on the rule file and in a message, then mended; close; shutdown
// and exit.
func TestServer(t *testing.T) {
	t.Parallel()
	dir := project(t)
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	var log syncBuffer
	c := start(t, options(t, srv, &log))

	var init struct {
		Capabilities struct {
			TextDocumentSync struct {
				OpenClose bool
				Change    int
			}
			CodeActionProvider struct{ CodeActionKinds []string }
		}
		ServerInfo struct{ Name, Version string }
	}
	c.call("initialize", map[string]any{"processId": nil, "rootUri": pathURI(dir),
		"capabilities": map[string]any{"window": map[string]any{"workDoneProgress": true}}}, &init)
	if !init.Capabilities.TextDocumentSync.OpenClose || init.Capabilities.TextDocumentSync.Change != 1 ||
		strings.Join(init.Capabilities.CodeActionProvider.CodeActionKinds, ",") != "quickfix,source.fixAll.vectorlint" ||
		init.ServerInfo.Name != "vectorlint" || init.ServerInfo.Version != "1.2.3" {
		t.Fatalf("initialize: %+v", init)
	}
	c.notify("initialized", map[string]any{})

	path := filepath.Join(dir, "docs", "a.md")
	uri := pathURI(path)
	text := "Le café 👋 — in order to start, utilize the tool.\n"
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": text}})

	// The deterministic findings come at once, then the model's.
	c.wait(uri, "the deterministic findings", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Plain") && has(ds, "Acme.Title") })
	ds := c.wait(uri, "the model's finding", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Wordiness") })
	// Columns are UTF-16 units: "Le café 👋 — " is 12 of them ("👋" is two).
	want := "0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.\n" +
		"0:13-0:24 1 Acme.Wordiness: Wordy: use \"to\".\n" +
		"0:32-0:39 2 Acme.Plain: Avoid \"utilize\"."
	if got := show(ds); got != want {
		t.Errorf("diagnostics\n%s\nwant\n%s", got, want)
	}
	c.mu.Lock()
	progress := strings.Join(c.progress, ",")
	c.mu.Unlock()
	if progress != "create,begin,end" {
		t.Errorf("progress %q", progress)
	}

	// The quick fix at the finding: its edit replaces exactly the quote.
	var actions []struct {
		Title       string
		Kind        string
		IsPreferred bool
		Edit        struct {
			Changes map[string][]protocol.TextEdit
		}
	}
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   map[string]any{"start": map[string]any{"line": 0, "character": 15}, "end": map[string]any{"line": 0, "character": 15}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions)
	if len(actions) != 2 || actions[0].Kind != "quickfix" || !actions[0].IsPreferred ||
		actions[0].Title != "Replace “in order to” with “to” (Acme.Wordiness)" || actions[1].Kind != "source.fixAll.vectorlint" {
		t.Fatalf("code actions %+v", actions)
	}
	edits := actions[0].Edit.Changes[uri]
	if len(edits) != 1 || edits[0].NewText != "to" || edits[0].Range.Start.Character != 13 || edits[0].Range.End.Character != 24 {
		t.Fatalf("edits %+v", edits)
	}
	l := finding.NewLineIndex(text)
	fixed := text[:protocolOffset(l, edits[0].Range.Start)] + edits[0].NewText + text[protocolOffset(l, edits[0].Range.End):]
	if fixed != "Le café 👋 — to start, utilize the tool.\n" {
		t.Fatalf("applied: %q", fixed)
	}
	// Applying it is a change: the finding goes at once, the others stay (moved).
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": fixed}}})
	ds = c.wait(uri, "the fixed finding gone", func(ds []protocol.Diagnostic) bool { return !has(ds, "Acme.Wordiness") })
	want = "0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.\n" +
		"0:23-0:30 2 Acme.Plain: Avoid \"utilize\"."
	if got := show(ds); got != want {
		t.Errorf("after the fix\n%s\nwant\n%s", got, want)
	}
	calls := srv.Calls()
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	waitFor(t, "a model call after the save", func() bool { return srv.Calls() > calls })
	c.wait(uri, "the same after the save's run", func(ds []protocol.Diagnostic) bool { return show(ds) == want })

	// A broken rule: a diagnostic on the document, one on the rule file, a message; the server
	// keeps running.
	rule := filepath.Join(dir, "rules", "Acme", "words.md")
	if err := os.WriteFile(rule, []byte("---\nid: Wordiness\nname: Wordiness\nseverity: fatal\n---\nFind wordy phrases.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 3},
		"contentChanges": []any{map[string]any{"text": "# Title\n\n" + fixed}}})
	ds = c.wait(uri, "the configuration error", func(ds []protocol.Diagnostic) bool {
		return len(ds) == 1 && strings.Contains(ds[0].Message, "the configuration or a rule has errors")
	})
	if !strings.Contains(ds[0].Message, "severity: expected \"suggestion\", \"warning\" or \"error\", found \"fatal\"") {
		t.Errorf("the document's diagnostic: %s", show(ds))
	}
	rd := c.wait(pathURI(rule), "the rule's problem", func(ds []protocol.Diagnostic) bool { return len(ds) == 1 })
	if got := show(rd); !strings.HasPrefix(got, "3:0-3:15 1 : severity: expected \"suggestion\", \"warning\" or \"error\", found \"fatal\"") {
		t.Errorf("the rule file's diagnostic: %s", got)
	}
	waitFor(t, "the message", func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.messages) == 1 && c.messages[0].Type == protocol.MessageTypeError &&
			strings.Contains(c.messages[0].Message, `severity: expected "suggestion", "warning" or "error"`)
	})
	// Mended: the rule file's diagnostic is cleared and the document is linted again.
	if err := os.WriteFile(rule, []byte("---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\nFind wordy phrases.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.wait(pathURI(rule), "the rule's problem cleared", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })
	ds = c.wait(uri, "the document linted again", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Plain") })
	if got := show(ds); got != "2:23-2:30 2 Acme.Plain: Avoid \"utilize\"." {
		t.Errorf("after mending the rule:\n%s", got)
	}

	// Diagnostics are replaced, never duplicated: no publication ever held a finding twice.
	c.mu.Lock()
	for _, p := range c.diags[uri] {
		seen := map[string]bool{}
		for _, d := range p.Diagnostics {
			k := show([]protocol.Diagnostic{d})
			if seen[k] {
				t.Errorf("published twice in one set: %s", k)
			}
			seen[k] = true
		}
	}
	c.mu.Unlock()

	c.notify("textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": uri}})
	c.wait(uri, "the closed document's diagnostics cleared", func(ds []protocol.Diagnostic) bool { return len(ds) == 0 })

	var result any = "unset"
	c.call("shutdown", nil, &result)
	if result != nil {
		t.Errorf("shutdown result %v", result)
	}
	var refused *jsonrpc2.Error
	if err := c.conn.Call(context.Background(), "textDocument/codeAction", map[string]any{}, nil); !errors.As(err, &refused) || refused.Code != jsonrpc2.CodeInvalidRequest {
		t.Errorf("a request after shutdown: %v", err)
	}
	c.notify("exit", nil)
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop after exit")
	}
}

func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s", what)
		}
	}
}
