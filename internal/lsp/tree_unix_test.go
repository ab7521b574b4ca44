//go:build unix

package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestServerConfinedProject: the editor server reads a project's configuration and rules
// through its root (spec/trust.md §6). A vectorlint.ini committed as a link to a key file
// outside, or a RulesPath leading out, is an error on the document (and on the configuration's
// line) that quotes nothing of the file outside, and nothing of it reaches the model.
func TestServerConfinedProject(t *testing.T) {
	t.Parallel()
	const mark = "CANARY-LSP-51d2"
	outside := t.TempDir()
	writeFile := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(filepath.Join(outside, "id_rsa"), "-----BEGIN OPENSSH PRIVATE KEY-----\n"+mark+"\n-----END OPENSSH PRIVATE KEY-----\n")
	writeFile(filepath.Join(outside, "rules", "Stolen", "r.md"), "---\nid: Stolen\nname: Stolen\n---\nFlag "+mark+".\n")

	linked := project(t)
	if err := os.Remove(filepath.Join(linked, "vectorlint.ini")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "id_rsa"), filepath.Join(linked, "vectorlint.ini")); err != nil {
		t.Fatal(err)
	}
	rulesOut := project(t)
	writeFile(filepath.Join(rulesOut, "vectorlint.ini"), "RulesPath = "+filepath.Join(outside, "rules")+"\n[**/*.md]\nRunRules = Stolen\n")

	srv := llmtest.Start(t)
	srv.SetDefault(testutil.WordyModel())
	var log syncBuffer
	c := start(t, options(t, srv, &log))
	c.call("initialize", map[string]any{"processId": nil, "capabilities": map[string]any{}}, nil)
	c.notify("initialized", map[string]any{})
	for _, tt := range []struct{ dir, want string }{
		{linked, "vectorlint cannot lint this file: cannot read the configuration: open " + filepath.Join(linked, "vectorlint.ini") +
			": a symbolic link leading outside the project root " + linked},
		{rulesOut, "vectorlint cannot lint this file: the configuration or a rule has errors: " + filepath.Join(rulesOut, "vectorlint.ini") +
			":1: RulesPath: rule packs are read from inside the project only"},
	} {
		uri := pathURI(filepath.Join(tt.dir, "docs", "a.md"))
		c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "markdown", "version": 1,
			"text": "In order to start.\n"}})
		ds := c.wait(uri, "the refusal", func(ds []protocol.Diagnostic) bool { return len(ds) == 1 })
		if !strings.HasPrefix(ds[0].Message, tt.want) {
			t.Errorf("diagnostic %s\nwant %s", show(ds), tt.want)
		}
	}
	// The configuration's own line is marked, its length read through the root.
	cfg := c.wait(pathURI(filepath.Join(rulesOut, "vectorlint.ini")), "the RulesPath problem", func(ds []protocol.Diagnostic) bool { return len(ds) == 1 })
	if want := len("RulesPath = " + filepath.Join(outside, "rules")); cfg[0].Range.End.Character != protocol.UInteger(want) {
		t.Errorf("the configuration's diagnostic: %s (want the line's %d characters)", show(cfg), want)
	}
	c.mu.Lock()
	sent, _ := json.Marshal(map[string]any{"diags": c.diags, "messages": c.messages})
	c.mu.Unlock()
	if strings.Contains(string(sent)+log.String(), mark) {
		t.Errorf("the file outside is quoted:\n%s\n%s", sent, log.String())
	}
	for _, req := range srv.Requests() {
		if strings.Contains(string(req.Body), mark) {
			t.Error("the file outside reached the model")
		}
	}
}
