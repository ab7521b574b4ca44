package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint/config"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/lint"
)

// document is an open document and what is known about its text.
type document struct {
	uri, path string // path is "" for a URI that is not a file
	version   int32
	text      string
	// gen counts the document's texts: a run's result is kept only when the text it linted
	// is still the document's.
	gen int

	// det is the deterministic checks' result for the current text; model holds the findings
	// only the model's run gave (and the rules that could not run there, and the unverified
	// quotes), kept on the current text's offsets; notes are diagnostics about the run itself
	// (a configuration error).
	det   finding.FileResult
	model finding.FileResult
	notes []protocol.Diagnostic

	timer       *time.Timer        // a model run waiting for the debounce
	cancelModel context.CancelFunc // the model run in flight
}

// stopModel cancels a document's waiting and running model work. A waiting run that is
// stopped will not start, so its place in s.work is given back here. Called with s.mu held.
func (s *server) stopModel(d *document) {
	if d.timer != nil && d.timer.Stop() {
		s.work.Done()
	}
	d.timer = nil
	if d.cancelModel != nil {
		d.cancelModel()
		d.cancelModel = nil
	}
}

func (s *server) didOpen(_ *glsp.Context, p *protocol.DidOpenTextDocumentParams) error {
	td := p.TextDocument
	d := &document{uri: td.URI, path: uriPath(td.URI), version: td.Version, text: td.Text}
	s.mu.Lock()
	if old := s.docs[td.URI]; old != nil {
		s.stopModel(old)
	}
	s.docs[td.URI] = d
	s.mu.Unlock()
	s.checkNow(d, 0)
	s.scheduleModel(d)
	return nil
}

func (s *server) didChange(_ *glsp.Context, p *protocol.DidChangeTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	if d == nil {
		s.mu.Unlock()
		return nil
	}
	s.stopModel(d) // the model's run was for the old text
	old := d.text
	d.text = changed(d.text, p.ContentChanges)
	d.version = p.TextDocument.Version
	d.gen++
	gen := d.gen
	// The findings of earlier runs stay where the text around them did not change, until the
	// runs for this text replace them.
	shift(&d.det, old, d.text)
	shift(&d.model, old, d.text)
	s.mu.Unlock()
	s.publish(d.uri)
	s.checkNow(d, gen)
	return nil
}

func (s *server) didSave(_ *glsp.Context, p *protocol.DidSaveTextDocumentParams) error {
	s.mu.Lock()
	d := s.docs[p.TextDocument.URI]
	s.mu.Unlock()
	if d == nil {
		return nil
	}
	s.scheduleModel(d)
	return nil
}

func (s *server) didClose(_ *glsp.Context, p *protocol.DidCloseTextDocumentParams) error {
	uri := p.TextDocument.URI
	s.mu.Lock()
	d := s.docs[uri]
	if d != nil {
		s.stopModel(d)
		delete(s.docs, uri)
	}
	files := s.dropProblems(uri)
	s.mu.Unlock()
	s.publish(uri)
	for _, f := range files {
		s.publish(f)
	}
	return nil
}

// checkNow runs the deterministic checks on the document's text of generation gen, in the
// background, and publishes them if the text is still that one.
func (s *server) checkNow(d *document, gen int) {
	s.mu.Lock()
	text, path := d.text, d.path
	if path == "" || s.shutdown || s.closed {
		s.mu.Unlock()
		return
	}
	s.work.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.work.Done()
		out := s.lint(s.ctx, path, text, false, nil)
		s.mu.Lock()
		current := d.gen == gen && s.docs[d.uri] == d
		if current {
			d.det, d.notes = out.file, out.notes
		}
		files := s.setProblems(d.uri, out.problems, current)
		s.mu.Unlock()
		if !current {
			return
		}
		s.announce(d.uri, files, out)
	}()
}

// scheduleModel starts a model run after the debounce, unless another save comes first.
func (s *server) scheduleModel(d *document) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if d.path == "" || s.shutdown || s.closed || s.opts.Model == nil {
		return
	}
	if d.timer != nil && d.timer.Stop() {
		s.work.Done() // the waiting run will not start
	}
	d.timer = nil
	gen := d.gen
	s.work.Add(1)
	var timer *time.Timer // set before the function can take s.mu
	timer = time.AfterFunc(s.opts.Debounce, func() {
		defer s.work.Done()
		s.mu.Lock()
		if d.timer != timer || d.gen != gen || s.docs[d.uri] != d || s.shutdown {
			s.mu.Unlock() // replaced by a later save, or the text changed
			return
		}
		d.timer = nil
		if d.cancelModel != nil {
			d.cancelModel() // an older save's run
		}
		ctx, cancel := context.WithCancel(s.ctx)
		d.cancelModel = cancel
		text, path := d.text, d.path
		s.work.Add(1)
		s.mu.Unlock()
		go s.modelRun(ctx, cancel, d, gen, path, text)
	})
	d.timer = timer
}

// modelRun lints the text with the model and the deterministic checks alone, and keeps as the
// model's the findings only the first gave, if the text is still the document's.
func (s *server) modelRun(ctx context.Context, cancel context.CancelFunc, d *document, gen int, path, text string) {
	defer s.work.Done()
	defer cancel()
	progress := s.startProgress(ctx, filepath.Base(path))
	full := s.lint(ctx, path, text, true, progress)
	progress.finish(ctx, full)
	det := s.lint(ctx, path, text, false, nil)
	s.mu.Lock()
	current := ctx.Err() == nil && d.gen == gen && s.docs[d.uri] == d
	if current {
		d.det, d.model, d.notes = det.file, minus(full.file, det.file), full.notes
		d.cancelModel = nil
	}
	files := s.setProblems(d.uri, full.problems, current)
	s.mu.Unlock()
	if !current {
		return
	}
	s.announce(d.uri, files, full)
}

// runView is what the editor shows of one run: the document's result (its path aside),
// or what kept the run from running, as diagnostics and messages.
type runView struct {
	file finding.FileResult
	// notes are diagnostics for the document about the run (a configuration error, the model
	// not set up); problems the diagnostics of the files at fault, by URI.
	notes    []protocol.Diagnostic
	problems map[string][]protocol.Diagnostic
	// messages are shown to the user (window/showMessage), each once.
	messages []message
}

type message struct {
	typ  protocol.MessageType
	text string
}

// lint runs the linter on text as the document at path, as `vectorlint --stdin-filename path -`
// would from the project's folder: with the model when withModel is set (Options.Model), else
// the deterministic checks alone.
func (s *server) lint(ctx context.Context, path, text string, withModel bool, progress lint.Progress) runView {
	var out runView
	proj, err := s.opts.Project(filepath.Dir(path))
	// The project's root handle (every file it reads goes through it) is released with the run.
	if proj != nil { // also with problems: its root is open
		defer proj.Close()
	}
	var notFound *config.NotFoundError
	switch {
	case errors.As(err, &notFound):
		return out // not in a project: nothing to say
	case err != nil:
		s.failed(&out, proj, err)
		return out
	}
	var (
		eval   lint.EvalOptions
		search bool
		model  bool // the model is set up: its run errors are worth saying
	)
	if withModel && s.opts.Model != nil {
		m, err := s.opts.Model(proj)
		model = err == nil
		if err != nil {
			out.notes = append(out.notes, note(protocol.DiagnosticSeverityWarning, "vectorlint cannot call the model, only the deterministic checks run: "+err.Error()))
			out.messages = append(out.messages, message{protocol.MessageTypeError, "vectorlint: " + err.Error()})
		} else {
			eval, search = m.Eval, m.SearchModel
			if m.Close != nil {
				defer m.Close()
			}
		}
	}
	if eval.JSTimeout == 0 {
		eval.JSTimeout = s.opts.JSTimeout
	}
	eval.Warn = func(msg string) { s.logf("warning: %s", msg) }
	plan, err := lint.BuildPlan(proj.Config, proj.Packs, lint.PlanInput{Dir: proj.Config.Dir, Paths: []string{"-"},
		Stdin: strings.NewReader(text), StdinFilename: path, SearchModel: search, Lazy: true, Root: proj.Root})
	if err != nil {
		s.failed(&out, proj, err)
		return out
	}
	ropts := lint.RunOptions{EvalOptions: eval}
	if progress != nil {
		ropts.Progress = progress
	}
	res, err := lint.Run(ctx, plan, ropts)
	if err != nil || len(res.Files) == 0 {
		return out // cancelled, or a document no section lints
	}
	fr := res.Files[0]
	out.file = finding.FileResult{Findings: fr.Findings, Errors: fr.Errors, Unverified: fr.Unverified}
	if model {
		for _, re := range res.RunErrors {
			out.messages = append(out.messages, message{protocol.MessageTypeWarning, "vectorlint: " + re.Message})
		}
	}
	return out
}

// failed records a configuration or rule error: a diagnostic on the document, one on each
// file at fault (at its line, read through the project's root when there is one), and a
// message.
func (s *server) failed(out *runView, proj *config.Project, err error) {
	ps, ok := config.IsProblems(err)
	if !ok {
		out.notes = append(out.notes, note(protocol.DiagnosticSeverityError, "vectorlint cannot lint this file: "+err.Error()))
		out.messages = append(out.messages, message{protocol.MessageTypeError, "vectorlint: " + err.Error()})
		return
	}
	var errs finding.Problems
	for _, p := range ps {
		if p.Level == finding.LevelError {
			errs = append(errs, p)
		}
	}
	if len(errs) == 0 {
		errs = ps
	}
	out.problems = map[string][]protocol.Diagnostic{}
	for _, p := range errs {
		if p.File == "" {
			continue
		}
		uri := pathURI(p.File)
		var root *tree.Root
		if proj != nil {
			root = proj.Root
		}
		out.problems[uri] = append(out.problems[uri], problemDiagnostic(root, p))
	}
	first := errs[0].Error()
	summary := first
	if len(errs) > 1 {
		summary += fmt.Sprintf(" (and %d more)", len(errs)-1)
	}
	out.notes = append(out.notes, note(protocol.DiagnosticSeverityError, "vectorlint cannot lint this file: the configuration or a rule has errors: "+summary))
	out.messages = append(out.messages, message{protocol.MessageTypeError, "vectorlint: " + summary})
}

// announce publishes a run's diagnostics for the document and for the rule and config files
// its problems name, then shows its messages.
func (s *server) announce(uri protocol.DocumentUri, files []protocol.DocumentUri, out runView) {
	s.publish(uri)
	for _, f := range files {
		s.publish(f)
	}
	s.showMessages(out)
}

// showMessages shows a run's messages, each once.
func (s *server) showMessages(out runView) {
	for _, m := range out.messages {
		s.showOnce(m.typ, m.text)
	}
}

// setProblems records the problem diagnostics a document's run met (when current), replacing
// its earlier ones, and returns the URIs whose diagnostics changed. Called with s.mu held.
func (s *server) setProblems(doc string, problems map[string][]protocol.Diagnostic, current bool) []string {
	if !current {
		return nil
	}
	old := s.problems[doc]
	var touched []string
	for uri := range old {
		touched = append(touched, uri)
	}
	for uri := range problems {
		if _, ok := old[uri]; !ok {
			touched = append(touched, uri)
		}
	}
	if len(problems) == 0 {
		delete(s.problems, doc)
	} else {
		s.problems[doc] = problems
	}
	return touched
}

// dropProblems forgets a closed document's problems and returns the URIs they were on. Called
// with s.mu held.
func (s *server) dropProblems(doc string) []string {
	var out []string
	for uri := range s.problems[doc] {
		out = append(out, uri)
	}
	delete(s.problems, doc)
	return out
}

// minus is the part of r that other does not have: the findings (by rule, place and message),
// rule errors and unverified quotes only a model run gave.
func minus(r, other finding.FileResult) finding.FileResult {
	type key struct {
		rule, message string
		start, end    int
	}
	seen := map[key]bool{}
	for _, f := range other.Findings {
		seen[key{f.Rule, f.Message, f.Start.Offset, f.End.Offset}] = true
	}
	var out finding.FileResult
	for _, f := range r.Findings {
		if !seen[key{f.Rule, f.Message, f.Start.Offset, f.End.Offset}] {
			out.Findings = append(out.Findings, f)
		}
	}
	errs := map[finding.RuleError]bool{}
	for _, e := range other.Errors {
		errs[e] = true
	}
	for _, e := range r.Errors {
		if !errs[e] {
			out.Errors = append(out.Errors, e)
		}
	}
	out.Unverified = r.Unverified
	return out
}

// shift moves r's findings from old to text: those before the changed part stay, those after
// it move with it, those that touch it (or their fix's edits) are dropped: their words changed.
// The positions of the findings that moved, and of their edits, are computed again from their
// offsets in text (their lines and columns change with the text before them). Rule errors
// stay; unverified quotes, placed by line, are dropped when lines were added or removed before
// them.
func shift(r *finding.FileResult, old, text string) {
	if old == text {
		return
	}
	prefix := 0
	for prefix < len(old) && prefix < len(text) && old[prefix] == text[prefix] {
		prefix++
	}
	suffix := 0
	for suffix < len(old)-prefix && suffix < len(text)-prefix && old[len(old)-1-suffix] == text[len(text)-1-suffix] {
		suffix++
	}
	oldEnd := len(old) - suffix // the changed part is old[prefix:oldEnd]
	delta := len(text) - len(old)
	var lines finding.LineIndex
	indexed := false
	move := func(p finding.Position) finding.Position {
		if !indexed {
			lines, indexed = finding.NewLineIndex(text), true
		}
		return lines.Position(p.Offset + delta)
	}
	kept := r.Findings[:0]
	for _, f := range r.Findings {
		lo, hi := f.Start.Offset, f.End.Offset
		for _, e := range f.Edits {
			lo, hi = min(lo, e.Start.Offset), max(hi, e.End.Offset)
		}
		switch {
		case hi < prefix:
			kept = append(kept, f)
		case lo > oldEnd:
			f.Start, f.End = move(f.Start), move(f.End)
			if len(f.Edits) > 0 {
				moved := make([]finding.TextEdit, len(f.Edits))
				for i, e := range f.Edits {
					moved[i] = finding.TextEdit{Start: move(e.Start), End: move(e.End), NewText: e.NewText}
				}
				f.Edits = moved
			}
			kept = append(kept, f)
		}
	}
	r.Findings = kept
	if strings.Count(old[prefix:oldEnd], "\n") != strings.Count(text[prefix:len(text)-suffix], "\n") {
		r.Unverified = nil
	}
}
