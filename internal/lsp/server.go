// Package lsp is vectorlint's editor server (`vectorlint lsp`): the Language Server Protocol
// over a stream, with the linter's own library calls (config.FindProject's discovery through
// Options.Project, lint.BuildPlan with the buffer as standard input, lint.Run), so an editor
// shows exactly what the command prints (spec/linter.md §10).
//
// What it does for each open document (a file: URI):
//
//   - on open and on every change, the deterministic checks (required targets, a `should`
//     list's $ functions) run at once on the buffer, without the model;
//   - on open and on save, after Options.Debounce without another save, the whole lint runs with
//     the model (replies come from the reply cache when the text is unchanged); a change
//     cancels a model run in flight. Until the next save, the model's findings are kept where
//     the text around them did not change and dropped where it did;
//   - its diagnostics are published whole each time (replacing the previous ones): the
//     deterministic findings, the model's, the rules that could not run;
//   - textDocument/codeAction offers each finding's fix as a quick fix with its edits, and all
//     of them at once as source.fixAll;
//   - a configuration or rule error is a diagnostic on the document and on the file at fault,
//     and a window/showMessage; the server keeps running and lints again once it is fixed;
//   - model runs report $/progress when the client supports it.
//
// The protocol types and method dispatch are github.com/tliron/glsp's (protocol_3_16); the
// JSON-RPC connection is github.com/sourcegraph/jsonrpc2, on which glsp's own server is built.
// glsp's server package is not used: it reads os.Stdin and writes os.Stdout itself, and logs
// through a global logger, where this server runs on the streams it is given (the command's,
// or a test's).
package lsp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"sync"
	"time"

	"github.com/sourcegraph/jsonrpc2"
	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/config"
)

// Options configure the server. The command fills them with its own discovery and model setup,
// so the server finds projects and calls the model exactly as `vectorlint` does.
type Options struct {
	// Version is the server's version, given to the client.
	Version string
	// Project finds and loads the project of the folder a document is in (the configuration
	// found from there upwards, its rule packs, the style guide): config.FindProject and
	// config.LoadProject. A *config.NotFoundError means the document is in no project and
	// gets no diagnostics.
	Project func(dir string) (*config.Project, error)
	// Model sets up the model for one run on a project (its client, endpoint, judge, threshold
	// and concurrency, as the command's lint run has them). An error (a base URL the trust rule
	// refuses, an unreadable .env) is shown, and only the deterministic checks run. Nil runs only
	// the deterministic checks.
	Model func(proj *config.Project) (Model, error)
	// Debounce is how long a model run waits after a save for another one (DefaultDebounce
	// when 0).
	Debounce time.Duration
	// Log receives the server's log (the command passes standard error); nil discards it.
	Log io.Writer
	// JSTimeout bounds each $js point of the deterministic runs' checklist rules
	// (points.DefaultJSTimeout when 0; a model run takes Model.Eval's). Tests raise it so that
	// a legitimate script cannot reach it on a loaded machine.
	JSTimeout time.Duration
}

// Model is what a model run needs beyond the plan.
type Model struct {
	// Eval has the model's settings (Client nil when no provider is configured: the rules that
	// need it are then counted under a run error, which the server shows once).
	Eval lint.EvalOptions
	// SearchModel tells whether technical-accuracy rules have a search model.
	SearchModel bool
	// Close releases the client; may be nil.
	Close func()
}

// DefaultDebounce is the wait after a save before the model is called.
const DefaultDebounce = 500 * time.Millisecond

// ErrExitWithoutShutdown is returned by Serve when the client sent exit without shutdown
// first (LSP: the server then exits with code 1).
var ErrExitWithoutShutdown = errors.New("lsp: exit without shutdown")

// ErrClientGone is returned by Serve when the stream ended without exit.
var ErrClientGone = errors.New("lsp: the client closed the connection without exit")

// Serve runs the server on stream (LSP's base protocol: Content-Length headers, JSON-RPC 2.0)
// until the client sends exit, the stream ends, or ctx is done. It returns nil after shutdown
// and exit, ErrExitWithoutShutdown or ErrClientGone otherwise, or ctx's error.
func Serve(ctx context.Context, stream io.ReadWriteCloser, opts Options) error {
	if opts.Debounce <= 0 {
		opts.Debounce = DefaultDebounce
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s := &server{opts: opts, ctx: ctx, ready: make(chan struct{}), docs: map[string]*document{},
		problems: map[string]map[string][]protocol.Diagnostic{}, shown: map[string]bool{}}
	s.handler = s.protocolHandler()
	conn := jsonrpc2.NewConn(ctx, jsonrpc2.NewBufferedStream(stream, jsonrpc2.VSCodeObjectCodec{}),
		jsonrpc2.HandlerWithError(s.handle), jsonrpc2.SetLogger(log.New(opts.Log, "vectorlint lsp: ", 0)))
	s.conn = conn
	close(s.ready)
	select {
	case <-conn.DisconnectNotify():
	case <-ctx.Done():
		conn.Close()
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.stopWork()
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.exited && s.shutdown:
		return nil
	case s.exited:
		return ErrExitWithoutShutdown
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.Canceled):
		return ctx.Err()
	}
	return ErrClientGone
}

// server is one connection's state.
type server struct {
	opts    Options
	ctx     context.Context
	conn    *jsonrpc2.Conn
	ready   chan struct{} // closed once conn is set
	handler *protocol.Handler
	work    sync.WaitGroup // lint runs and timers in flight

	// pubMu orders publications: each is built from the latest state and sent before the next.
	pubMu sync.Mutex

	mu       sync.Mutex
	docs     map[string]*document // by URI
	progress bool                 // the client takes window/workDoneProgress
	shutdown bool
	exited   bool
	// closed is set when the connection is gone: no work starts after it (stopWork waits for
	// what is running).
	closed bool
	// problems are the diagnostics of configuration and rule errors, by the document whose lint
	// met them, then by the URI of the file at fault.
	problems map[string]map[string][]protocol.Diagnostic
	// shown are the messages shown once (window/showMessage), so a saved document does not
	// show the same error again.
	shown  map[string]bool
	tokens int // progress tokens made
}

// handle answers one message: exit closes the connection, requests after shutdown and before
// initialize are refused, everything else goes to glsp's dispatch. Unknown notifications are
// ignored, as LSP asks.
func (s *server) handle(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
	<-s.ready
	s.mu.Lock()
	shutdown := s.shutdown
	s.mu.Unlock()
	switch {
	case req.Method == string(protocol.MethodExit):
		s.mu.Lock()
		s.exited = true
		s.mu.Unlock()
		conn.Close()
		return nil, nil
	case shutdown && !req.Notif:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidRequest, Message: "the server is shut down: only exit is accepted"}
	case shutdown:
		return nil, nil
	case !s.handler.IsInitialized() && req.Method != string(protocol.MethodInitialize):
		if req.Notif {
			return nil, nil
		}
		return nil, &jsonrpc2.Error{Code: codeServerNotInitialized, Message: "the server is not initialized"}
	}
	gc := &glsp.Context{Method: req.Method,
		Notify: func(method string, params any) { s.notify(method, params) },
		Call: func(method string, params, result any) {
			if err := conn.Call(s.ctx, method, params, result); err != nil {
				s.logf("%s: %v", method, err)
			}
		}}
	if req.Params != nil {
		gc.Params = *req.Params
	}
	r, validMethod, validParams, err := s.handler.Handle(gc)
	switch {
	case !validMethod && req.Notif:
		return nil, nil
	case !validMethod:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeMethodNotFound, Message: "method not supported: " + req.Method}
	case !validParams:
		msg := "invalid params"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInvalidParams, Message: msg}
	case err != nil:
		return nil, &jsonrpc2.Error{Code: jsonrpc2.CodeInternalError, Message: err.Error()}
	}
	return r, nil
}

// codeServerNotInitialized is LSP's ServerNotInitialized error code.
const codeServerNotInitialized = -32002

// protocolHandler maps the LSP methods the server implements to its functions.
func (s *server) protocolHandler() *protocol.Handler {
	return &protocol.Handler{
		Initialize:             s.initialize,
		Initialized:            func(*glsp.Context, *protocol.InitializedParams) error { return nil },
		Shutdown:               s.shutdownServer,
		SetTrace:               func(*glsp.Context, *protocol.SetTraceParams) error { return nil },
		TextDocumentDidOpen:    s.didOpen,
		TextDocumentDidChange:  s.didChange,
		TextDocumentDidSave:    s.didSave,
		TextDocumentDidClose:   s.didClose,
		TextDocumentCodeAction: s.codeAction,
	}
}

// Code action kinds the server offers.
const (
	kindQuickFix = protocol.CodeActionKindQuickFix
	kindFixAll   = protocol.CodeActionKind("source.fixAll.vectorlint")
)

func (s *server) initialize(_ *glsp.Context, p *protocol.InitializeParams) (any, error) {
	s.mu.Lock()
	if w := p.Capabilities.Window; w != nil && w.WorkDoneProgress != nil {
		s.progress = *w.WorkDoneProgress
	}
	s.mu.Unlock()
	yes, no, full := true, false, protocol.TextDocumentSyncKindFull
	version := s.opts.Version
	return protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			// A save needs no text: the server has the buffer from open and change.
			TextDocumentSync: &protocol.TextDocumentSyncOptions{OpenClose: &yes, Change: &full,
				Save: &protocol.SaveOptions{IncludeText: &no}},
			CodeActionProvider: &protocol.CodeActionOptions{CodeActionKinds: []protocol.CodeActionKind{kindQuickFix, kindFixAll}},
		},
		ServerInfo: &protocol.InitializeResultServerInfo{Name: "vectorlint", Version: &version},
	}, nil
}

// shutdownServer stops every run and timer; the reply follows once they are done, so nothing
// is published after it.
func (s *server) shutdownServer(*glsp.Context) error {
	s.mu.Lock()
	s.shutdown = true
	s.mu.Unlock()
	s.stopWork()
	return nil
}

// stopWork cancels every document's runs and timers and waits for them.
func (s *server) stopWork() {
	s.mu.Lock()
	for _, d := range s.docs {
		s.stopModel(d)
	}
	s.mu.Unlock()
	s.work.Wait()
}

// notify sends a notification; a failure (the client is gone) is logged.
func (s *server) notify(method string, params any) {
	if err := s.conn.Notify(s.ctx, method, params); err != nil {
		s.logf("%s: %v", method, err)
	}
}

// showOnce shows a message unless the same one was shown already.
func (s *server) showOnce(typ protocol.MessageType, msg string) {
	s.mu.Lock()
	seen := s.shown[msg]
	s.shown[msg] = true
	s.mu.Unlock()
	if !seen {
		s.notify(string(protocol.ServerWindowShowMessage), protocol.ShowMessageParams{Type: typ, Message: msg})
	}
}

func (s *server) logf(format string, args ...any) {
	fmt.Fprintf(s.opts.Log, "vectorlint lsp: "+format+"\n", args...)
}
