package lsp

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// session starts a server on a new project and initializes it.
func session(t *testing.T, srv *llmtest.Server, tune func(*Options)) (*client, string) {
	t.Helper()
	dir := project(t)
	var log syncBuffer
	opts := options(t, srv, &log)
	if tune != nil {
		tune(&opts)
	}
	c := start(t, opts)
	c.call("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}, nil)
	c.notify("initialized", map[string]any{})
	return c, dir
}

func open(c *client, uri, text string) {
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": text}})
}

func change(c *client, uri string, version int, text string) {
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": version},
		"contentChanges": []any{map[string]any{"text": text}}})
}

func save(c *client, uri string) {
	c.notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": uri}})
}

// TestSavesDebounced: saves in quick succession make one model run, for the last text.
func TestSavesDebounced(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	// A debounce of a second: the five saves, sent at once, reach the server well within it
	// however loaded the machine (at 300 ms a starved server could take them as two bursts).
	c, dir := session(t, srv, func(o *Options) { o.Debounce = time.Second })
	uri := pathURI(filepath.Join(dir, "docs", "a.md"))
	open(c, uri, "In order to win.\n")
	for range 5 {
		save(c, uri)
	}
	c.wait(uri, "the model's finding", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Wordiness") })
	time.Sleep(1100 * time.Millisecond) // past another debounce: no other run starts
	if n := srv.Calls(); n != 1 {
		t.Errorf("%d model calls for an open and five saves, want 1", n)
	}
}

// TestChangeCancelsModelRun: a change while the model is answering cancels the run; its reply
// is never published, and the next save runs on the new text.
func TestChangeCancelsModelRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	release := make(chan struct{})
	wordy := testutil.WordyModel()
	srv.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.LastUser(), "slow") {
			<-release
		}
		return wordy.Func(r)
	}))
	t.Cleanup(func() { close(release) })
	c, dir := session(t, srv, nil)
	uri := pathURI(filepath.Join(dir, "docs", "a.md"))
	open(c, uri, "In order to win, slow.\n")
	waitFor(t, "the model call", func() bool { return srv.Calls() == 1 })
	change(c, uri, 2, "We act in order to win.\n")
	c.wait(uri, "the deterministic findings of the new text", func(ds []protocol.Diagnostic) bool { return len(ds) == 1 && has(ds, "Acme.Title") })
	save(c, uri)
	ds := c.wait(uri, "the model's finding on the new text", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Wordiness") })
	if got := show(ds); got != "0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.\n0:7-0:18 1 Acme.Wordiness: Wordy: use \"to\"." {
		t.Errorf("diagnostics\n%s", got)
	}
}

// TestUnchangedSaveFromCache: saving an unchanged document publishes the same findings from the
// reply cache, with no new call.
func TestUnchangedSaveFromCache(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	cache := t.TempDir()
	c, dir := session(t, srv, func(o *Options) {
		o.Model = func(*config.Project) (Model, error) {
			client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, CacheDir: cache})
			if err != nil {
				return Model{}, err
			}
			ep := llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}
			return Model{Eval: lint.EvalOptions{Client: client, Endpoint: ep}, Close: client.Close}, nil
		}
	})
	uri := pathURI(filepath.Join(dir, "docs", "a.md"))
	open(c, uri, "In order to win.\n")
	first := c.wait(uri, "the model's finding", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Wordiness") })
	c.mu.Lock()
	n := len(c.diags[uri])
	c.mu.Unlock()
	save(c, uri)
	waitFor(t, "the save's publication", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.diags[uri]) > n })
	again := c.wait(uri, "the same findings", func(ds []protocol.Diagnostic) bool { return show(ds) == show(first) })
	if srv.Calls() != 1 || show(again) != show(first) {
		t.Errorf("%d calls; %s", srv.Calls(), show(again))
	}
}

// TestOutsideAProject: a document in no project, and a buffer that is not a file, get no
// diagnostics and no message.
func TestOutsideAProject(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	c, _ := session(t, srv, nil)
	uri := pathURI(filepath.Join(t.TempDir(), "loose.md"))
	open(c, uri, "In order to win.\n")
	ds := c.wait(uri, "a publication", func([]protocol.Diagnostic) bool { return true })
	open(c, "untitled:Untitled-1", "In order to win.\n")
	time.Sleep(100 * time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(ds) != 0 || len(c.diags["untitled:Untitled-1"]) != 0 || len(c.messages) != 0 || srv.Calls() != 0 {
		t.Errorf("diagnostics %s; untitled %v; messages %v; %d calls", show(ds), c.diags["untitled:Untitled-1"], c.messages, srv.Calls())
	}
}

// TestModelNotSetUp: when the model cannot be set up (the command refuses a base URL), the
// document says so and the deterministic findings stay; the message is shown once.
func TestModelNotSetUp(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	c, dir := session(t, srv, func(o *Options) {
		o.Model = func(*config.Project) (Model, error) {
			return Model{}, errors.New("vectorlint.ini:3: BaseURL https://attacker.test is not trusted")
		}
	})
	uri := pathURI(filepath.Join(dir, "docs", "a.md"))
	open(c, uri, "In order to win, utilize it.\n")
	ds := c.wait(uri, "the note", func(ds []protocol.Diagnostic) bool { return len(ds) == 3 })
	want := "0:0-0:0 2 : vectorlint cannot call the model, only the deterministic checks run: vectorlint.ini:3: BaseURL https://attacker.test is not trusted\n" +
		"0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.\n" +
		"0:17-0:24 2 Acme.Plain: Avoid \"utilize\"."
	if got := show(ds); got != want {
		t.Errorf("diagnostics\n%s\nwant\n%s", got, want)
	}
	// The message follows the publication; the save's run publishes again, then would show
	// the message a second time.
	waitFor(t, "the message", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.messages) == 1 })
	c.mu.Lock()
	published := len(c.diags[uri])
	c.mu.Unlock()
	save(c, uri)
	waitFor(t, "the save's publication", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.diags[uri]) > published })
	time.Sleep(100 * time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.messages) != 1 || c.messages[0].Message != "vectorlint: vectorlint.ini:3: BaseURL https://attacker.test is not trusted" {
		t.Errorf("messages %+v", c.messages)
	}
}

// TestNoProviderShownOnce: without a provider the model's rules are counted under one run
// error, shown once however often the document is saved.
func TestNoProviderShownOnce(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	c, dir := session(t, srv, func(o *Options) {
		o.Model = func(*config.Project) (Model, error) {
			return Model{Eval: lint.EvalOptions{NotConfigured: &llm.NotConfiguredError{}}}, nil
		}
	})
	uri := pathURI(filepath.Join(dir, "docs", "a.md"))
	open(c, uri, "# T\n\nIn order to win.\n")
	waitFor(t, "the message", func() bool { c.mu.Lock(); defer c.mu.Unlock(); return len(c.messages) == 1 })
	save(c, uri)
	save(c, uri)
	time.Sleep(150 * time.Millisecond)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.messages) != 1 || c.messages[0].Type != protocol.MessageTypeWarning || !strings.HasPrefix(c.messages[0].Message, "vectorlint: ") {
		t.Errorf("messages %+v", c.messages)
	}
}

// TestShutdownWithWorkPending: a model run waiting for its debounce when the text changes, and
// another when shutdown comes, stop cleanly: shutdown answers at once, nothing is published
// after it, and exit ends the server.
func TestShutdownWithWorkPending(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	c, dir := session(t, srv, func(o *Options) { o.Debounce = time.Hour })
	uri := pathURI(filepath.Join(dir, "docs", "a.md"))
	open(c, uri, "In order to win.\n")
	change(c, uri, 2, "In order to win!\n")
	save(c, uri)
	c.wait(uri, "the deterministic findings", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Title") })
	done := make(chan struct{})
	go func() {
		c.call("shutdown", nil, nil)
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("shutdown did not answer")
	}
	c.mu.Lock()
	n := len(c.diags[uri])
	c.mu.Unlock()
	c.notify("exit", nil)
	select {
	case err := <-c.done:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.diags[uri]) != n || srv.Calls() != 0 {
		t.Errorf("%d publications after shutdown, %d model calls", len(c.diags[uri])-n, srv.Calls())
	}
}

// TestExitWithoutShutdown: exit before shutdown ends the server with ErrExitWithoutShutdown
// (the command exits 1); a request before initialize is refused.
func TestExitWithoutShutdown(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	var log syncBuffer
	c := start(t, options(t, srv, &log))
	err := c.conn.Call(context.Background(), "textDocument/codeAction", map[string]any{}, nil)
	if err == nil || !strings.Contains(err.Error(), "code -32002") {
		t.Errorf("a request before initialize: %v", err)
	}
	c.notify("exit", nil)
	select {
	case err := <-c.done:
		if !errors.Is(err, ErrExitWithoutShutdown) {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
}

// TestClientGone: the stream ending without exit ends the server with ErrClientGone.
func TestClientGone(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	var log syncBuffer
	c := start(t, options(t, srv, &log))
	c.conn.Close()
	select {
	case err := <-c.done:
		if !errors.Is(err, ErrClientGone) {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not stop")
	}
}
