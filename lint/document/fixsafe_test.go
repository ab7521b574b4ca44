package document

import (
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/controls"
)

// TestUnsafeFix: each rule on its own, on a document as the pipeline reads it (every scope
// skipped) and a chunk of its whole body.
func TestUnsafeFix(t *testing.T) {
	t.Parallel()
	const src = "---\nt: x\n---\nSee `code` and <b>bold</b> here.\n\n<!-- vectorlint-disable-next-line Acme -->\nLast words.\n\n```\nx\n```\nTail `<!-- vectorlint-enable -->` x.\n"
	doc, err := New("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.SkipScopes(DefaultScopeSettings()); err != nil {
		t.Fatal(err)
	}
	c := Chunk{Text: doc.Prose(), Offset: doc.BodyOffset, Line: 4}
	at := func(s string) Span {
		i := strings.Index(src, s)
		if i < 0 {
			t.Fatalf("%q not in the document", s)
		}
		return Span{i, i + len(s)}
	}
	insert := func(s string, k int) Span { i := at(s).Start + k; return Span{i, i} }
	for _, tt := range []struct {
		name string
		span Span
		text string
		want string
	}{
		{"prose", at("here"), "there", ""},
		{"an insertion at a code span's end", insert("` and", 1), "!", ""},
		{"an insertion inside a code span", insert("code", 2), "x", "it reaches into a code span on line 4, which the model was not sent"},
		{"across HTML", at("<b>bold"), "bold", "it reaches into HTML markup on line 4, which the model was not sent"},
		{"outside the chunk", Span{2, 5}, "y", "it reaches outside the text the model was sent"},
		{"CRLF is a line break", at("Last words."), "Last\r\nwords.", ""},
		{"a lone CR", at("Last words."), "Last\rwords.", "its text holds U+000D, a control, bidi-override or invisible character"},
		{"a C1 control", at("Tail"), "T\u0085ail", "its text holds U+0085, a control, bidi-override or invisible character"},
		{"a zero-width space", at("Tail"), "Ta\u200bil", "its text holds U+200B, a control, bidi-override or invisible character"},
		{"a bidi isolate", at("Tail"), "\u2066Tail", "its text holds U+2066, a control, bidi-override or invisible character"},
		{"not UTF-8", at("Tail"), "T\xffail", "its text is not UTF-8"},
		{"emoji with a joiner are text", at("Tail"), "Tail 👩\u200d💻", ""},
		{"a control comment's names changed", at("Acme -->"), "Other -->", "it changes the control comment vectorlint-disable-next-line on line 6"},
		{"a comment inserted", insert("Last", 0), "<!-- vectorlint-enable -->", "it adds a control comment, vectorlint-enable"},
		{"the words of a comment are text", at("Last words."), "See vectorlint-disable.", ""},
		{"an HTML comment opened: the code after it is HTML now", at("Last words."), "<!-- vectorlint",
			"it turns the code example on line 12 into a control comment, vectorlint-enable"},
		{"a comment's start that the text after it completes", at("Last words."), "<!-- vectorlint-disable",
			"it writes a control comment, vectorlint-disable"},
		{"a comment written as a code example (package fix reads comments as text)", at("here"), "`<!-- vectorlint-disable -->`",
			"it adds a control comment, vectorlint-disable"},
		{"a fence that swallows a comment", insert("See", 0), "```\n", "it turns the control comment vectorlint-disable-next-line on line 6 into a code example"},
		{"a code span opened up", at("Tail `"), "Tail ", "it turns the code example on line 12 into a control comment, vectorlint-enable"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := doc.unsafeFix(c, tt.span, tt.text); got != tt.want {
				t.Errorf("unsafeFix(%d–%d, %q) = %q, want %q", tt.span.Start, tt.span.End, tt.text, got, tt.want)
			}
		})
	}
}

// TestUnsafeFixOtherFormats: a model's fix may not write or remove a control comment in the
// document's own syntax either: the line comments of AsciiDoc ("// vectorlint-…") and
// reStructuredText (".. vectorlint-…"), and the HTML comment of an HTML page.
func TestUnsafeFixOtherFormats(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, path, src, span, text, want string
	}{
		{"AsciiDoc: a comment inserted", "a.adoc", "= T\n\nWe act in order to win.\n", "in order to", "to\n// vectorlint-disable\n",
			"it adds a control comment, vectorlint-disable"},
		{"AsciiDoc: a comment removed", "a.adoc", "= T\n\nFirst words.\n// vectorlint-disable-next-line\nWe act.\n", "words.\n// vectorlint-disable-next-line", "words.",
			"it removes the control comment vectorlint-disable-next-line on line 4"},
		{"reStructuredText: a comment inserted", "a.rst", "Title\n=====\n\nWe act in order to win.\n", "in order to", "to\n\n.. vectorlint-disable\n\n",
			"it adds a control comment, vectorlint-disable"},
		{"HTML: a comment inserted", "a.html", "<p>We act in order to win.</p>\n", "in order to", "to <!-- vectorlint-disable -->",
			"it adds a control comment, vectorlint-disable"},
		{"AsciiDoc: prose", "a.adoc", "= T\n\nWe act in order to win.\n", "in order to", "to", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := New(tt.path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.SkipScopes(DefaultScopeSettings()); err != nil {
				t.Fatal(err)
			}
			i := strings.Index(tt.src, tt.span)
			if i < 0 {
				t.Fatalf("%q not in the document", tt.span)
			}
			c := Chunk{Text: doc.Prose(), Offset: doc.BodyOffset, Line: 1}
			if got := doc.unsafeFix(c, Span{i, i + len(tt.span)}, tt.text); got != tt.want {
				t.Errorf("unsafeFix = %q, want %q", got, tt.want)
			}
		})
	}
}

// FuzzUnsafeFix: whatever the document and the edit, the check never panics, and a fix it
// keeps writes only text FixableText accepts, touches no skipped scope, and leaves the control
// comments, read as text, as they were (what package fix checks again when it applies fixes).
func FuzzUnsafeFix(f *testing.F) {
	f.Add("# T\n\nIn order to win.\n", 6, 17, "To win.")
	f.Add("A `x` b <!-- vectorlint-disable --> c.\n", 0, 1, "<!-- vectorlint-enable -->")
	f.Add("---\nt: x\n---\nA b.\n\n```\n<!-- vectorlint-disable -->\n```\n", 14, 15, "```\n")
	f.Add("{/* vectorlint-disable */}\nA b.\n", 27, 28, "\u202e")
	f.Fuzz(func(t *testing.T, src string, start, end int, text string) {
		doc, err := New("doc.md", []byte(src))
		if err != nil {
			return
		}
		if err := doc.SkipScopes(DefaultScopeSettings()); err != nil {
			return
		}
		c := Chunk{Text: doc.Prose(), Offset: doc.BodyOffset}
		if start < 0 || end > len(src) || start > end {
			return
		}
		span := Span{start, end}
		if doc.unsafeFix(c, span, text) != "" {
			return
		}
		if !finding.FixableText(text) {
			t.Fatalf("kept a fix writing %q", text)
		}
		for _, sc := range doc.skipped {
			if sc.Start < end && start < sc.End {
				t.Fatalf("kept a fix of [%d, %d) across the skipped scope %+v", start, end, sc)
			}
		}
		fixed := src[:start] + text + src[end:]
		b, a := controls.Find(src), controls.Find(fixed)
		if len(a) != len(b) {
			t.Fatalf("kept a fix that changes the control comments %+v into %+v", b, a)
		}
		for i := range a {
			if fixed[a[i].Start:a[i].End] != src[b[i].Start:b[i].End] {
				t.Fatalf("kept a fix that changes the control comments %+v into %+v", b, a)
			}
		}
	})
}
