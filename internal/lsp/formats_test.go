package lsp

import (
	"os"
	"path/filepath"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestServerFormats: the editor server lints a document of each format (spec/linter.md §14):
// the model's findings at their place, a quick fix that edits exactly the quote, nothing found
// in code, markup or URLs (the checklist's "utilize" is in each), and a title found in the
// format's own syntax or front matter (only the plain text page has none).
func TestServerFormats(t *testing.T) {
	t.Parallel()
	dir := project(t)
	if err := os.WriteFile(filepath.Join(dir, "vectorlint.ini"), []byte("RulesPath = rules\n[**/*]\nRunRules = Acme\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	var log syncBuffer
	c := start(t, options(t, srv, &log))
	c.call("initialize", map[string]any{"processId": nil, "rootUri": pathURI(dir), "capabilities": map[string]any{}}, nil)
	c.notify("initialized", map[string]any{})

	tests := []struct {
		name, language, text, want string
	}{
		{"a.adoc", "asciidoc", "= Install the CLI\n:url: https://utilize.example\n\nIn order to start, run `utilize`.\n\n----\nutilize in order to\n----\n",
			"3:0-3:11 1 Acme.Wordiness: Wordy: use \"to\"."},
		{"a.rst", "restructuredtext", "Install the CLI\n===============\n\nWe work in order to ship.\n\n.. code-block:: sh\n\n   utilize in order to\n\n.. utilize\n",
			"3:8-3:19 1 Acme.Wordiness: Wordy: use \"to\"."},
		{"a.html", "html", "<h1 title=\"utilize\">Install the CLI</h1>\n<p>Le café — in order to start.</p>\n<pre>utilize in order to</pre>\n<script>utilize()</script>\n",
			"1:13-1:24 1 Acme.Wordiness: Wordy: use \"to\"."},
		{"a.mdx", "mdx", "---\ntitle: Install the CLI\n---\nimport X from 'utilize';\n\n<X a=\"utilize\">In order to start.</X>\n",
			"5:15-5:26 1 Acme.Wordiness: Wordy: use \"to\"."},
		{"a.txt", "plaintext", "In order to start, see https://utilize.example.\n",
			"0:0-0:0 2 Acme.Title: target not found\n\nSuggestion: Add a title.\n0:0-0:11 1 Acme.Wordiness: Wordy: use \"to\"."},
	}
	for _, tt := range tests {
		uri := pathURI(filepath.Join(dir, "docs", tt.name))
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": tt.language, "version": 1, "text": tt.text}})
		ds := c.wait(uri, "the model's finding", func(ds []protocol.Diagnostic) bool { return has(ds, "Acme.Wordiness") })
		if got := show(ds); got != tt.want {
			t.Errorf("%s: diagnostics\n%s\nwant\n%s", tt.name, got, tt.want)
			continue
		}
		// The quick fix replaces exactly the quote.
		var w protocol.Diagnostic
		for _, d := range ds {
			if d.Code != nil && d.Code.Value == "Acme.Wordiness" {
				w = d
			}
		}
		var actions []struct {
			Kind string
			Edit struct {
				Changes map[string][]protocol.TextEdit
			}
		}
		c.call("textDocument/codeAction", map[string]any{"textDocument": map[string]any{"uri": uri},
			"range": w.Range, "context": map[string]any{"diagnostics": []any{}}}, &actions)
		if len(actions) == 0 || actions[0].Kind != "quickfix" {
			t.Fatalf("%s: code actions %+v", tt.name, actions)
		}
		edits := actions[0].Edit.Changes[uri]
		if len(edits) != 1 || edits[0].Range != w.Range {
			t.Fatalf("%s: edits %+v for the finding at %+v", tt.name, edits, w.Range)
		}
		l := finding.NewLineIndex(tt.text)
		if quote := tt.text[protocolOffset(l, edits[0].Range.Start):protocolOffset(l, edits[0].Range.End)]; quote != "in order to" && quote != "In order to" {
			t.Errorf("%s: the fix replaces %q", tt.name, quote)
		}
	}
}
