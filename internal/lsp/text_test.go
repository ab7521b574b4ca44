package lsp

import (
	"fmt"
	"strings"
	"testing"

	protocol "github.com/tliron/glsp/protocol_3_16"

	"github.com/vectorlint/vectorlint/finding"
)

func TestPositions(t *testing.T) {
	t.Parallel()
	const text = "a👋b\r\nçx\rlast"
	l := finding.NewLineIndex(text)
	for _, tt := range []struct {
		offset     int
		line, char int
	}{
		{0, 0, 0}, {1, 0, 1}, {5, 0, 3}, {6, 0, 4}, // 👋 is two UTF-16 units
		{8, 1, 0}, {10, 1, 1}, {11, 1, 2}, // ç is one unit, two bytes
		{12, 2, 0}, {16, 2, 4}, {99, 2, 4},
	} {
		p := protocolPosition(l, tt.offset)
		if int(p.Line) != tt.line || int(p.Character) != tt.char {
			t.Errorf("position(%d) = %d:%d, want %d:%d", tt.offset, p.Line, p.Character, tt.line, tt.char)
		}
		if tt.offset <= len(text) && protocolOffset(l, p) != tt.offset {
			t.Errorf("offset(%d:%d) = %d, want %d", p.Line, p.Character, protocolOffset(l, p), tt.offset)
		}
	}
	// Past the line's end is its end; past the last line, the text's end.
	if got := protocolOffset(l, protocol.Position{Line: 0, Character: 40}); got != 6 {
		t.Errorf("past the line's end: %d", got)
	}
	if got := protocolOffset(l, protocol.Position{Line: 9}); got != len(text) {
		t.Errorf("past the last line: %d", got)
	}
}

func TestChanged(t *testing.T) {
	t.Parallel()
	r := func(l1, c1, l2, c2 int) *protocol.Range {
		return &protocol.Range{Start: protocol.Position{Line: protocol.UInteger(l1), Character: protocol.UInteger(c1)},
			End: protocol.Position{Line: protocol.UInteger(l2), Character: protocol.UInteger(c2)}}
	}
	got := changed("one 👋 two\nthree\n", []any{
		protocol.TextDocumentContentChangeEvent{Range: r(0, 4, 0, 6), Text: "🙂🙂"}, // the emoji is two units
		protocol.TextDocumentContentChangeEvent{Range: r(1, 0, 1, 5), Text: "3"},
		protocol.TextDocumentContentChangeEvent{Range: r(2, 0, 2, 0), Text: "four\n"},
	})
	if got != "one 🙂🙂 two\n3\nfour\n" {
		t.Errorf("incremental: %q", got)
	}
	if got := changed("old", []any{protocol.TextDocumentContentChangeEventWhole{Text: "new"}}); got != "new" {
		t.Errorf("whole: %q", got)
	}
}

func TestURIs(t *testing.T) {
	t.Parallel()
	if got := pathURI("/tmp/a b/naïve.md"); got != "file:///tmp/a%20b/na%C3%AFve.md" {
		t.Errorf("pathURI: %s", got)
	}
	if got := uriPath("file:///tmp/a%20b/na%C3%AFve.md"); got != "/tmp/a b/naïve.md" {
		t.Errorf("uriPath: %s", got)
	}
	if got := uriPath("untitled:Untitled-1"); got != "" {
		t.Errorf("untitled: %q", got)
	}
}

// TestShift: after a change, findings before it stay, findings after it move with their fixes,
// findings it touches go; the lines and columns of those that moved are the new text's.
func TestShift(t *testing.T) {
	t.Parallel()
	const old = "aa in order to bb. cc utilize dd. ee very ff.\n"
	at := func(text, s, fix string) finding.Finding {
		x := finding.NewLineIndex(text)
		i := strings.Index(text, s)
		f := finding.Finding{Rule: s, Start: x.Position(i), End: x.Position(i + len(s))}
		if fix != "" {
			f.Edits = []finding.TextEdit{{Start: f.Start, End: f.End, NewText: fix}}
		}
		return f
	}
	for _, tt := range []struct {
		name, text string
		want       []string
	}{
		{"an edit between two findings", "aa in order to bb. CHANGED utilize dd. ee very ff.\n", []string{"in order to", "utilize", "very"}},
		{"an edit inside one", "aa in order to bb. cc utilise dd. ee very ff.\n", []string{"in order to", "very"}},
		{"an edit touching one's end", "aa in order tox bb. cc utilize dd. ee very ff.\n", []string{"utilize", "very"}},
		{"text added at the start", "NEW aa in order to bb. cc utilize dd. ee very ff.\n", []string{"in order to", "utilize", "very"}},
		{"lines added before", "aa in order to bb.\n\nNew lines, é👋.\ncc utilize dd. ee very ff.\n", []string{"in order to", "utilize", "very"}},
		{"everything replaced", "x\n", nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := finding.FileResult{Findings: []finding.Finding{at(old, "in order to", "to"), at(old, "utilize", "use"), at(old, "very", "")}}
			shift(&r, old, tt.text)
			x := finding.NewLineIndex(tt.text)
			var got []string
			for _, f := range r.Findings {
				match := tt.text[f.Start.Offset:f.End.Offset]
				if match != f.Rule {
					t.Errorf("%s moved to %q", f.Rule, match)
				}
				if f.Start != x.Position(f.Start.Offset) || f.End != x.Position(f.End.Offset) {
					t.Errorf("%s at %+v–%+v, want %+v–%+v", f.Rule, f.Start, f.End, x.Position(f.Start.Offset), x.Position(f.End.Offset))
				}
				for _, e := range f.Edits {
					if tt.text[e.Start.Offset:e.End.Offset] != f.Rule {
						t.Errorf("%s's edit moved to %q", f.Rule, tt.text[e.Start.Offset:e.End.Offset])
					}
					if e.Start != f.Start || e.End != f.End {
						t.Errorf("%s's edit at %+v–%+v, the finding at %+v–%+v", f.Rule, e.Start, e.End, f.Start, f.End)
					}
				}
				got = append(got, match)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("kept %q, want %q", got, tt.want)
			}
		})
	}
}

// TestFindingSeverity: each severity is the diagnostic severity an editor shows for it —
// error, warning, and information for a suggestion (Vale's lowest level).
func TestFindingSeverity(t *testing.T) {
	t.Parallel()
	l := finding.NewLineIndex("Some text.\n")
	for sev, want := range map[finding.Severity]protocol.DiagnosticSeverity{
		finding.SeverityError:      protocol.DiagnosticSeverityError,
		finding.SeverityWarning:    protocol.DiagnosticSeverityWarning,
		finding.SeveritySuggestion: protocol.DiagnosticSeverityInformation,
	} {
		d := findingDiagnostic(l, finding.Finding{Rule: "A.B", Severity: sev, Message: "m"})
		if d.Severity == nil || *d.Severity != want {
			t.Errorf("%s: severity %v, want %v", sev, d.Severity, want)
		}
	}
}
