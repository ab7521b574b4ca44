package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Huge inputs through the commands: they are handled without a crash, every part is
// evaluated, and positions stay exact far into the input.

// markRe finds the markers of the huge document in a numbered prompt line ("N\t…MARK-N…").
var markRe = regexp.MustCompile(`(?m)^(\d+)\t.*?(MARK-\d+)`)

// TestLintHugeDocument lints a 10 MB document: it is cut into chunks, every chunk is sent,
// and a violation the model reports on a line of a late chunk lands on that line.
func TestLintHugeDocument(t *testing.T) {
	srv := llmtest.Start(t)
	// The model flags each marker on the line the prompt numbers it with; a marker numbered
	// differently from the line it names means the chunk's line numbers are off.
	var (
		mu          sync.Mutex
		misnumbered []string
	)
	srv.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		var vs []any
		var found [][]string
		for text := r.LastUser(); ; {
			i := strings.Index(text, "MARK-")
			if i < 0 {
				break
			}
			start := strings.LastIndexByte(text[:i], '\n') + 1
			end := i + strings.IndexByte(text[i:], '\n')
			found = append(found, markRe.FindStringSubmatch(text[start:end]))
			text = text[end:]
		}
		for _, m := range found {
			line, _ := strconv.Atoi(m[1])
			if m[2] != fmt.Sprintf("MARK-%d", line) {
				mu.Lock()
				misnumbered = append(misnumbered, m[0])
				mu.Unlock()
			}
			vs = append(vs, map[string]any{"quoted_text": m[2], "line": line, "message": "Marker."})
		}
		if vs == nil {
			vs = []any{}
		}
		return llmtest.JSON(map[string]any{"violations": vs})
	}))
	var doc strings.Builder
	doc.Grow(10<<20 + 30<<10)
	doc.WriteString("# A very long guide\n\n")
	line := 3
	// Prose with an embedded 20 KB image every ten lines, as exported documents have: 10 MB
	// in about 100 chunks of 500 words, so the test stays quick under -race.
	image := "![diagram](data:image/png;base64," + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 20<<10/24) + ")"
	for doc.Len() < 10<<20 {
		switch {
		case line%500 == 0:
			fmt.Fprintf(&doc, "Here is MARK-%d in the text.\n", line)
		case line%40 == 0:
			doc.WriteString("\n") // a paragraph break
		case line%10 == 0:
			doc.WriteString(image + "\n")
		default:
			fmt.Fprintf(&doc, "The quick brown fox jumps over the lazy dog on line %d.\n", line)
		}
		line++
	}
	lines := line - 1
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini":        "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/markers.md": "---\nid: Markers\nname: Markers\n---\nFlag markers.\n",
		"docs/huge.md":          doc.String(),
	})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs")
	if r.code != exitOK {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := decodeJSON(t, r.stdout)
	f := res.Files[0]
	want := lines / 500
	if len(f.Findings) != want {
		t.Errorf("%d findings, want %d (one per marker)", len(f.Findings), want)
	}
	for _, fd := range f.Findings {
		if fd.Match != fmt.Sprintf("MARK-%d", fd.Line) || fd.Column != 9 {
			t.Errorf("finding %q at %d:%d, want it on its own line at column 9", fd.Match, fd.Line, fd.Column)
		}
	}
	if len(misnumbered) > 0 {
		t.Errorf("prompt lines numbered wrongly: %q", misnumbered)
	}
	if len(f.Errors) != 0 || res.Usage.Calls < 100 || res.Usage.Calls != srv.Calls() {
		t.Errorf("errors %v, %d calls (server: %d)", f.Errors, res.Usage.Calls, srv.Calls())
	}
	t.Logf("%d bytes, %d lines, %d calls", doc.Len(), lines, res.Usage.Calls)
}
