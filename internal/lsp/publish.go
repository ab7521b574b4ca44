package lsp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/tliron/glsp"
	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/fix"
	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/rules"
)

// source is the diagnostics' source.
const source = "vectorlint"

// publish sends a URI's whole set of diagnostics: its document's (when open) and the problems
// other documents' runs found in it, each once. It replaces what the client showed before.
func (s *server) publish(uri string) {
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return
	}
	diags := []protocol.Diagnostic{}
	var version *protocol.UInteger
	if d := s.docs[uri]; d != nil {
		diags = append(diags, d.diagnostics()...)
		v := protocol.UInteger(d.version)
		version = &v
	}
	seen := map[string]bool{}
	docs := make([]string, 0, len(s.problems))
	for doc := range s.problems {
		docs = append(docs, doc)
	}
	slices.Sort(docs)
	for _, doc := range docs {
		for _, p := range s.problems[doc][uri] {
			k := fmt.Sprintf("%v %s", p.Range, p.Message)
			if !seen[k] {
				seen[k] = true
				diags = append(diags, p)
			}
		}
	}
	s.mu.Unlock()
	s.notify(string(protocol.ServerTextDocumentPublishDiagnostics),
		protocol.PublishDiagnosticsParams{URI: uri, Version: version, Diagnostics: diags})
}

// diagnostics are the document's diagnostics: its run notes, then its findings (the
// deterministic checks' and the model's) by position, the rules that could not run and the
// unverified quotes. Called with s.mu held.
func (d *document) diagnostics() []protocol.Diagnostic {
	l := finding.NewLineIndex(d.text)
	out := slices.Clone(d.notes)
	findings := append(slices.Clone(d.det.Findings), d.model.Findings...)
	slices.SortStableFunc(findings, func(a, b finding.Finding) int {
		if a.Start.Offset != b.Start.Offset {
			return a.Start.Offset - b.Start.Offset
		}
		return strings.Compare(a.Rule, b.Rule)
	})
	for _, f := range findings {
		out = append(out, findingDiagnostic(l, f))
	}
	for _, e := range append(slices.Clone(d.det.Errors), d.model.Errors...) {
		sev, code, src := protocol.DiagnosticSeverityWarning, protocol.IntegerOrString{Value: e.Rule}, source
		out = append(out, protocol.Diagnostic{Range: protocolRange(l, 0, 0), Severity: &sev, Code: &code, Source: &src,
			Message: e.Rule + " could not run: " + e.Message})
	}
	for _, u := range d.model.Unverified {
		sev, code, src := protocol.DiagnosticSeverityInformation, protocol.IntegerOrString{Value: u.Rule}, source
		line := max(u.Line, 1) - 1
		out = append(out, protocol.Diagnostic{
			Range:    protocol.Range{Start: protocol.Position{Line: protocol.UInteger(line)}, End: protocol.Position{Line: protocol.UInteger(line)}},
			Severity: &sev, Code: &code, Source: &src,
			Message: fmt.Sprintf("Unverified (the quoted text is not in the document; not counted): %s (quote: %q)", u.Message, u.Quote)})
	}
	return out
}

// findingDiagnostic is a finding as a diagnostic: its range, severity, the rule as code, the
// message with the suggestion after a blank line.
func findingDiagnostic(l finding.LineIndex, f finding.Finding) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityWarning
	switch f.Severity {
	case finding.SeverityError:
		sev = protocol.DiagnosticSeverityError
	case finding.SeveritySuggestion:
		sev = protocol.DiagnosticSeverityInformation
	}
	msg := f.Message
	if f.Suggestion != "" {
		msg += "\n\nSuggestion: " + f.Suggestion
	}
	code, src := protocol.IntegerOrString{Value: f.Rule}, source
	return protocol.Diagnostic{Range: protocolRange(l, f.Start.Offset, f.End.Offset), Severity: &sev, Code: &code, Source: &src, Message: msg}
}

// note is a diagnostic on the document's first character.
func note(sev protocol.DiagnosticSeverity, msg string) protocol.Diagnostic {
	src := source
	return protocol.Diagnostic{Severity: &sev, Source: &src, Message: msg}
}

// problemDiagnostic is a configuration or rule problem on its line of the file at fault (the
// whole line, or its start when the file cannot be read). The file is read through the
// project's root (nil: not read), so a link there that leads out of it is not.
func problemDiagnostic(root *tree.Root, p finding.Problem) protocol.Diagnostic {
	sev := protocol.DiagnosticSeverityError
	if p.Level != finding.LevelError {
		sev = protocol.DiagnosticSeverityWarning
	}
	msg := p.Error()
	prefix := p.File
	if p.Line > 0 {
		prefix += fmt.Sprintf(":%d", p.Line)
	}
	msg = strings.TrimPrefix(msg, prefix+": ")
	line := max(p.Line, 1) - 1
	r := protocol.Range{Start: protocol.Position{Line: protocol.UInteger(line)}, End: protocol.Position{Line: protocol.UInteger(line)}}
	if data, err := readProblemFile(root, p.File); err == nil {
		x := finding.NewLineIndex(string(data))
		if line < x.Lines() {
			r.End.Character = protocolPosition(x, x.UTF16Offset(line+1, math.MaxInt)).Character // the line's end
		}
	}
	src := source
	return protocol.Diagnostic{Range: r, Severity: &sev, Source: &src, Message: msg}
}

// codeAction offers the fixes of the document's findings in the requested range, one quick fix
// each, and all of them at once (source.fixAll.vectorlint: the fixes that do not overlap, the
// first by position winning, as vectorlint --fix applies them). A model's fix that is not safe
// to make was never made a fix (docs/security.md, "What a model may change"), and each fix
// offered is one package fix would apply to the current text.
func (s *server) codeAction(_ *glsp.Context, p *protocol.CodeActionParams) (any, error) {
	uri := p.TextDocument.URI
	s.mu.Lock()
	d := s.docs[uri]
	if d == nil {
		s.mu.Unlock()
		return []protocol.CodeAction{}, nil
	}
	text := d.text
	findings := append(slices.Clone(d.det.Findings), d.model.Findings...)
	s.mu.Unlock()
	l := finding.NewLineIndex(text)
	want := func(kind protocol.CodeActionKind) bool {
		if len(p.Context.Only) == 0 {
			return true
		}
		for _, o := range p.Context.Only {
			if kind == o || strings.HasPrefix(kind, o+".") {
				return true
			}
		}
		return false
	}
	lo, hi := protocolOffset(l, p.Range.Start), protocolOffset(l, p.Range.End)
	actions := []protocol.CodeAction{}
	var all []finding.Finding
	for _, f := range findings {
		if len(f.Edits) == 0 {
			continue
		}
		// Each fix is offered only when vectorlint --fix would apply it to the text as it is
		// now: the fixes of a model run moved with an edit of the document since are checked
		// against its control comments again (a fix that would complete one another fix began
		// is not offered).
		if len(fix.Apply([]byte(text), fix.Fixes([]finding.Finding{f})).Applied) == 0 {
			continue
		}
		all = append(all, f)
		if f.End.Offset < lo || f.Start.Offset > hi || !want(kindQuickFix) {
			continue
		}
		kind, preferred := kindQuickFix, true
		actions = append(actions, protocol.CodeAction{
			Title:       f.FixMessage() + " (" + f.Rule + ")",
			Kind:        &kind,
			Diagnostics: []protocol.Diagnostic{findingDiagnostic(l, f)},
			IsPreferred: &preferred,
			Edit:        &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{uri: textEdits(l, f.Edits)}},
		})
	}
	if len(all) > 0 && want(kindFixAll) {
		r := fix.Apply([]byte(text), fix.Fixes(all))
		var edits []finding.TextEdit
		for _, f := range r.Applied {
			edits = append(edits, f.Edits...)
		}
		slices.SortFunc(edits, func(a, b finding.TextEdit) int { return a.Start.Offset - b.Start.Offset })
		kind := kindFixAll
		actions = append(actions, protocol.CodeAction{
			Title: fmt.Sprintf("Apply all vectorlint fixes (%d)", len(r.Applied)),
			Kind:  &kind,
			Edit:  &protocol.WorkspaceEdit{Changes: map[protocol.DocumentUri][]protocol.TextEdit{uri: textEdits(l, edits)}},
		})
	}
	return actions, nil
}

// textEdits are edits as LSP text edits.
func textEdits(l finding.LineIndex, edits []finding.TextEdit) []protocol.TextEdit {
	out := make([]protocol.TextEdit, len(edits))
	for i, e := range edits {
		out[i] = protocol.TextEdit{Range: protocolRange(l, e.Start.Offset, e.End.Offset), NewText: e.NewText}
	}
	return out
}

// workProgress reports a model run as LSP work-done progress ($/progress), when the client
// takes it. It implements lint.Progress; its zero value reports nothing.
type workProgress struct {
	s     *server
	token *protocol.ProgressToken
	title string
}

// startProgress asks the client for a progress token (window/workDoneProgress/create) for a
// model run on the file named name.
func (s *server) startProgress(ctx context.Context, name string) *workProgress {
	p := &workProgress{s: s, title: "vectorlint: " + name}
	s.mu.Lock()
	ok := s.progress
	s.tokens++
	token := protocol.ProgressToken{Value: fmt.Sprintf("vectorlint-%d", s.tokens)}
	s.mu.Unlock()
	if !ok {
		return p
	}
	cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if err := s.conn.Call(cctx, string(protocol.ServerWindowWorkDoneProgressCreate),
		protocol.WorkDoneProgressCreateParams{Token: token}, nil); err != nil {
		s.logf("%s: %v", protocol.ServerWindowWorkDoneProgressCreate, err)
		return p
	}
	p.token = &token
	return p
}

// Start begins the progress.
func (p *workProgress) Start(time.Duration) {
	if p.token == nil {
		return
	}
	msg := "checking with the model"
	p.s.notify(string(protocol.MethodProgress), protocol.ProgressParams{Token: *p.token,
		Value: protocol.WorkDoneProgressBegin{Kind: "begin", Title: p.title, Message: &msg}})
}

// Advance is told of the file's result; the end says it.
func (p *workProgress) Advance(int) {}

// Stop does nothing: finish ends the progress with the result.
func (p *workProgress) Stop() {}

// finish ends the progress, saying what the run found.
func (p *workProgress) finish(ctx context.Context, out runView) {
	if p.token == nil {
		return
	}
	msg := fmt.Sprintf("%d findings", len(out.file.Findings))
	if len(out.file.Findings) == 1 {
		msg = "1 finding"
	}
	if ctx.Err() != nil {
		msg = "cancelled: the document changed"
	}
	p.s.notify(string(protocol.MethodProgress), protocol.ProgressParams{Token: *p.token,
		Value: protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg}})
}

var _ lint.Progress = (*workProgress)(nil)

// readProblemFile reads the file a problem names through root ("no root" when root is nil).
func readProblemFile(root *tree.Root, path string) ([]byte, error) {
	if root == nil {
		return nil, errors.New("no project root")
	}
	return root.ReadFile(path, rules.MaxFileSize)
}
