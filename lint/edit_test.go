package lint

import (
	"context"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
)

// applyEdits applies a finding's edits to src (they never overlap), for checking bytes.
func applyEdits(src []byte, edits []finding.TextEdit) string {
	out := string(src)
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		out = out[:e.Start.Offset] + e.NewText + out[e.End.Offset:]
	}
	return out
}

// TestFixOnlyWhenExact: a model's fix becomes an edit only when its quote was found exactly
// (on the hinted line or elsewhere); a case-folded, whitespace-normalised or fuzzy match keeps
// the finding but not the fix, which was written for words the document does not contain as
// quoted. The edit replaces exactly the match's bytes, in the file's coordinates.
func TestFixOnlyWhenExact(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		src    string
		v      Violation
		method document.LocateMethod
		// fix and fixed are the kept fix and the file after its edit ("" when none).
		fix, fixed string
		edits      string // the JSON of the edits
	}{
		{"exact on the line", "---\nt: x\n---\nWe act in order to win.\n", Violation{QuotedText: "in order to", Line: 4, Fix: "to"},
			document.LocatedOnLine, "to", "---\nt: x\n---\nWe act to win.\n", `[{"offset":20,"endOffset":31,"newText":"to"}]`},
		{"exact elsewhere", "One.\nWe act in order to win.\n", Violation{QuotedText: "in order to", Line: 1, Fix: "to"},
			document.LocatedExact, "to", "One.\nWe act to win.\n", `[{"offset":12,"endOffset":23,"newText":"to"}]`},
		{"multi-byte text before and in the match", "Le café 👋 naïve — utilisez « ça ».\n",
			Violation{QuotedText: "« ça »", Line: 1, Fix: "“ça”"}, document.LocatedOnLine, "“ça”",
			"Le café 👋 naïve — utilisez “ça”.\n", `[{"offset":34,"endOffset":43,"newText":"“ça”"}]`},
		{"case-folded: no fix", "We act In Order To win.\n", Violation{QuotedText: "in order to", Line: 1, Fix: "to"},
			document.LocatedCaseInsensitive, "", "", "null"},
		{"whitespace-normalised: no fix", "We act in order\nto win.\n", Violation{QuotedText: "in order to", Line: 1, Fix: "to"},
			document.LocatedNormalized, "", "", "null"},
		{"fuzzy: no fix", "We act in ordr to win today.\n", Violation{QuotedText: "in order to win", Line: 1, Fix: "to win"},
			document.LocatedFuzzy, "", "", "null"},
		{"reordered (token-set fuzzy): no fix", "We act in order to win today.\n", Violation{QuotedText: "to win in order", Line: 1, Fix: "to win"},
			document.LocatedFuzzy, "", "", "null"},
		{"fix equal to the match", "We act in order to win.\n", Violation{QuotedText: "in order to", Line: 1, Fix: "in order to"},
			document.LocatedOnLine, "", "", "null"},
		{"no fix given", "We act in order to win.\n", Violation{QuotedText: "in order to", Line: 1},
			document.LocatedOnLine, "", "", "null"},
		{"a fix that deletes is not expressible (empty fix means none)", "Very very good.\n",
			Violation{QuotedText: "very ", Line: 1, Fix: ""}, document.LocatedOnLine, "", "", "null"},
		{"CRLF file, one-line fix", "first\r\nWe act in order to win.\r\nlast\r\n",
			Violation{QuotedText: "in order to", Line: 2, Fix: "to"}, document.LocatedOnLine, "to",
			"first\r\nWe act to win.\r\nlast\r\n", `[{"offset":14,"endOffset":25,"newText":"to"}]`},
		{"CRLF file, a fix with a line break gets CRLF", "first\r\nOne. Two.\r\nlast\r\n",
			Violation{QuotedText: "One. Two.", Line: 2, Fix: "One.\nTwo."}, document.LocatedOnLine, "One.\r\nTwo.",
			"first\r\nOne.\r\nTwo.\r\nlast\r\n", `[{"offset":7,"endOffset":16,"newText":"One.\r\nTwo."}]`},
		{"CRLF file, last line without a break", "first\r\nOne. Two.",
			Violation{QuotedText: "One. Two.", Line: 2, Fix: "One.\nTwo."}, document.LocatedOnLine, "One.\r\nTwo.",
			"first\r\nOne.\r\nTwo.", `[{"offset":7,"endOffset":16,"newText":"One.\r\nTwo."}]`},
		{"LF file keeps LF", "first\nOne. Two.\n",
			Violation{QuotedText: "One. Two.", Line: 2, Fix: "One.\nTwo."}, document.LocatedOnLine, "One.\nTwo.",
			"first\nOne.\nTwo.\n", `[{"offset":6,"endOffset":15,"newText":"One.\nTwo."}]`},
		{"control characters in the fix: not written into a file", "We act in order to win.\n",
			Violation{QuotedText: "in order to", Line: 1, Fix: "to\x1b[2J"}, document.LocatedOnLine, "", "", "null"},
		{"NUL in the fix", "We act in order to win.\n",
			Violation{QuotedText: "in order to", Line: 1, Fix: "t\x00o"}, document.LocatedOnLine, "", "", "null"},
		{"a tab is text", "We act in order to win.\n",
			Violation{QuotedText: "in order to", Line: 1, Fix: "\tto"}, document.LocatedOnLine, "\tto",
			"We act \tto win.\n", `[{"offset":7,"endOffset":18,"newText":"\tto"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, c := chunkOf(t, tt.src)
			v := tt.v
			if _, m := document.Locate(c, v.Quote()); m != tt.method {
				t.Fatalf("located %v, the test expects %v", m, tt.method)
			}
			props := []proposal{violationProposal("Acme.Words", 0, finding.SeverityWarning, c, &v)}
			locate(doc, props)
			f := props[0].finding
			if !props[0].located {
				t.Fatal("not located")
			}
			if fix, _ := f.Replacement(); fix != tt.fix {
				t.Errorf("Replacement() = %q, want %q", fix, tt.fix)
			}
			b, _ := json.Marshal(f.Edits)
			if string(b) != tt.edits {
				t.Errorf("edits %s, want %s", b, tt.edits)
			}
			if tt.fixed == "" {
				if f.Edits != nil {
					t.Errorf("a fix %+v where none is wanted", f.Edits)
				}
				return
			}
			e := f.Edits[0]
			if e.Start != f.Start || e.End != f.End {
				t.Errorf("edit %+v–%+v, finding %+v–%+v", e.Start, e.End, f.Start, f.End)
			}
			if got := applyEdits(doc.Source, f.Edits); got != tt.fixed {
				t.Errorf("fixed file %q, want %q", got, tt.fixed)
			}
			if f.FixMessage() != finding.ReplaceMessage(f.Match, tt.fix) {
				t.Errorf("message %q", f.FixMessage())
			}
		})
	}
}

func TestReplaceMessage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ old, new, want string }{
		{"in order to", "to", "Replace “in order to” with “to”"},
		{"", "the", "Insert “the”"},
		{"very", "", "Delete “very”"},
		{"one\ntwo", "one two", "Replace “one two” with “one two”"},
		{"a b c d e f g h i j k l m n o p q r s t u v w x y z", "x",
			"Replace “a b c d e f g h i j k l m n o p q r s t…” with “x”"},
	} {
		if got := finding.ReplaceMessage(tt.old, tt.new); got != tt.want {
			t.Errorf("ReplaceMessage(%q, %q) = %q, want %q", tt.old, tt.new, got, tt.want)
		}
	}
}

// TestRunKeepsSource: with KeepSource, each result carries the bytes that were linted and the
// file they came from, and its findings' edits apply to those bytes; the JSON of a finding
// carries "edits" only when it has a fix.
func TestRunKeepsSource(t *testing.T) {
	t.Parallel()
	plan := runPlan(t)
	srv := runServer(t)
	res, err := Run(context.Background(), plan, RunOptions{
		EvalOptions: testClient(t, srv, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 2, KeepSource: true}),
	})
	if err != nil {
		t.Fatal(err)
	}
	a := res.Files[0]
	if a.Path != "docs/a.md" || filepath.Base(a.SourceFile) != "a.md" || !filepath.IsAbs(a.SourceFile) {
		t.Fatalf("path %q, source file %q", a.Path, a.SourceFile)
	}
	words := a.Findings[0]
	if string(a.Source) != "# Start here\n\nIn order to start, utilize the tool.\n" {
		t.Errorf("source %q", a.Source)
	}
	if got := applyEdits(a.Source, words.Edits); got != "# Start here\n\nTo start, utilize the tool.\n" {
		t.Errorf("fixed %q", got)
	}
	b, err := json.Marshal(words)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"rule":"Acme.Words","severity":"error","message":"Say 'to'.","fix":"To","match":"In order to","line":3,"column":1,"endLine":3,"endColumn":12,"offset":14,"endOffset":25,"edits":[{"offset":14,"endOffset":25,"newText":"To"}]}`
	if string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}
	// A deterministic finding without a replacement has no edits, and its JSON is unchanged.
	b, _ = json.Marshal(a.Findings[1])
	if want := `{"rule":"Acme.Plain","severity":"warning","message":"Avoid \"utilize\".","match":"utilize","line":3,"column":20,"endLine":3,"endColumn":27,"offset":33,"endOffset":40,"analysis":"Not met: $not_icontains: \"utilize\""}`; string(b) != want {
		t.Errorf("JSON\n%s\nwant\n%s", b, want)
	}

	// Without KeepSource, nothing is kept.
	res, err = Run(context.Background(), runPlan(t), RunOptions{
		EvalOptions: testClient(t, srv, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 2}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files[0].Source != nil || res.Files[0].SourceFile != "" {
		t.Errorf("kept source %q from %q", res.Files[0].Source, res.Files[0].SourceFile)
	}
}

// chunkOf returns the chunk of a whole document (its body from the first line).
func chunkOf(t testing.TB, src string) (*document.Document, document.Chunk) {
	t.Helper()
	doc, err := document.New("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	return doc, document.Chunk{Text: doc.Body, Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line, Words: document.CountWords(doc.Body)}
}
