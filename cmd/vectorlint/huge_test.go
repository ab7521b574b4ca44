package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Huge inputs through the commands: they are handled without a crash, every part is
// evaluated, and positions stay exact far into the input.

// markRe finds the markers of the huge document in a numbered prompt line ("N\t…MARK-N…").
var markRe = regexp.MustCompile(`(?m)^(\d+)\t.*?(MARK-\d+)`)

// TestLintHugeDocument lints a 10 MB document (just under document.MaxDocumentSize): it is cut into
// chunks, every chunk is sent, and a violation the model reports on a line of a late chunk
// lands on that line.
func TestLintHugeDocument(t *testing.T) {
	t.Parallel()
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
		// Each chunk is numbered from 1 (spec/linter.md §13): a marker's number in the text
		// and the one it is sent with differ by the same shift in every line of a chunk.
		shift := -1
		for _, m := range found {
			line, _ := strconv.Atoi(m[1])
			mark, _ := strconv.Atoi(strings.TrimPrefix(m[2], "MARK-"))
			if shift < 0 {
				shift = mark - line
			}
			if mark-line != shift || shift < 0 {
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
	doc.Grow(document.MaxDocumentSize)
	doc.WriteString("# A very long guide\n\n")
	line := 3
	// Prose with an embedded 20 KB image every ten lines, as exported documents have: 10 MB
	// in about 60 chunks of at most 1,500 words, so the test stays quick under -race.
	image := "![diagram](data:image/png;base64," + strings.Repeat("iVBORw0KGgoAAAANSUhEUgAA", 20<<10/24) + ")"
	for doc.Len() < document.MaxDocumentSize-len(image)-100 {
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
		"vectorlint.ini":        "RulesPath = rules\nMaxDocumentWords = 10000000\n[**/*.md]\nRunRules = Acme\n", // above the default 50,000: this test is about chunking a huge document
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
	if len(f.Errors) != 0 || res.Usage.Calls < 50 || res.Usage.Calls != srv.Calls() {
		t.Errorf("errors %v, %d calls (server: %d)", f.Errors, res.Usage.Calls, srv.Calls())
	}
	t.Logf("%d bytes, %d lines, %d calls", doc.Len(), lines, res.Usage.Calls)
}

// TestLintHugeReply answers a rule with a 1 MB reply: thousands of violations, most of them
// repeats or quotes not in the text, and a long analysis. The run keeps what it can locate,
// merges the repeats, and lists the rest as unverified.
func TestLintHugeReply(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	var vs []any
	for i := 0; len(vs) < 4000; i++ {
		vs = append(vs, map[string]any{"quoted_text": "In order to", "line": 1, "message": `Say "to".`,
			"analysis": strings.Repeat("Wordy. ", 60)})
		vs = append(vs, map[string]any{"quoted_text": fmt.Sprintf("phrase %d that is not there", i), "line": 1, "message": "Invented."})
	}
	reply := llmtest.JSON(map[string]any{"violations": vs})
	if len(reply.Content) < 1<<20 {
		t.Fatalf("reply of %d bytes, want 1 MB", len(reply.Content))
	}
	srv.On(probeRule, reply)
	scriptFaultDefaults(srv)
	dir := t.TempDir()
	writeTestTree(t, dir, faultProject())
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "docs/a.md")
	if r.code != exitFindings {
		t.Fatalf("exit %d\n%s", r.code, r.stderr)
	}
	res := decodeJSON(t, r.stdout)
	f := res.Files[0]
	if len(f.Findings) != 1 || f.Findings[0].Match != "In order to" || len(f.Unverified) != 2000 || len(f.Errors) != 0 {
		t.Errorf("%d findings %+v, %d unverified, errors %v", len(f.Findings), f.Findings, len(f.Unverified), f.Errors)
	}
	if len(r.stdout) > 1<<20 {
		t.Errorf("output of %d bytes", len(r.stdout))
	}
}

// TestBlueprintHugeFile checks a 100,000-line blueprint: it parses, and a mistake on its
// last prompt is reported with that prompt's line.
func TestBlueprintHugeFile(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("title: Huge\n---\n")
	n, lines := 0, 2
	for ; lines < 100_000-3; n++ {
		fmt.Fprintf(&b, "- id: p%05d\n  prompt: What is %d plus one?\n  should:\n    - $contains: \"%d\"\n", n, n, n+1)
		lines += 4
	}
	b.WriteString("- id: last\n  should:\n    - $contains: x\n")
	dir := writeBlueprintFiles(t, map[string]string{"huge.yml": b.String()})
	code, stdout, stderr := runBlueprintApp(t, dir, nil, "blueprint", "check", "huge.yml")
	want := fmt.Sprintf("huge.yml:%d: error: prompt \"last\": expected prompt (or promptText) or messages, found neither\n", lines+1)
	if code != exitFailure || !strings.HasPrefix(stdout, want) {
		t.Errorf("exit %d\nstdout %s\nstderr %s\nwant %s", code, stdout, stderr, want)
	}
	// Without the mistake, every prompt is there.
	dir = writeBlueprintFiles(t, map[string]string{"huge.yml": b.String()[:strings.LastIndex(b.String(), "- id: last")]})
	code, stdout, stderr = runBlueprintApp(t, dir, nil, "blueprint", "check", "--print", "huge.yml")
	if code != exitOK || strings.Count(stdout, `"id": "p`) != n {
		t.Errorf("exit %d, %d prompts printed, want %d\n%s", code, strings.Count(stdout, `"id": "p`), n, stderr)
	}
}
