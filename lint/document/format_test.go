package document

import (
	"testing"

	"github.com/vectorlint/vectorlint/internal/scopes"
)

// TestNewDocumentAs: a Format read the document as its format says, whatever its extension:
// a Docusaurus page (.md) read as MDX skips its imports and JSX.
func TestNewDocumentAs(t *testing.T) {
	t.Parallel()
	src := []byte("---\ntitle: Tabs\n---\nimport Tabs from '@theme/Tabs';\n\n<Tabs>\n\nProse.\n\n</Tabs>\n")
	for _, tt := range []struct {
		syn  scopes.Syntax
		want string
	}{
		{scopes.SyntaxMarkdown, "import Tabs from '@theme/Tabs';\n\n\n\nProse.\n\n\n"},
		{scopes.SyntaxMDX, "\n\n\n\nProse.\n\n\n"},
	} {
		doc, err := NewAs("docs/a.md", src, tt.syn)
		if err != nil {
			t.Fatal(err)
		}
		if err := doc.SkipScopes(DefaultScopeSettings()); err != nil {
			t.Fatal(err)
		}
		if got, _ := scopes.Show(doc.Prose(), doc.BodyOffset, doc.skipped); doc.Syntax() != tt.syn || got != tt.want {
			t.Errorf("%v: shown %q, want %q", tt.syn, got, tt.want)
		}
	}
}
