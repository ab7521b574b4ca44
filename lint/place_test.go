package lint

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/document"
)

// TestLocateAcrossMarkup: a quote that crosses link or emphasis markup, copied as the model saw
// it ("[Node.js-based API], this") or as the text reads rendered ("Node.js-based API, this"),
// is located from its first character to its last in the file, with the markup it opens or
// closes: not a column after the "[", not without the final "." (issue 32). Such a match holds
// text the model was not shown (a link destination, a code span), so its fix is no edit; a quote
// inside the link text is exact and keeps it.
func TestLocateAcrossMarkup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, quote string
		line        int
		want        string // "LINE:COL-LINE:COL \"match\"", then " fix" when the fix is an edit
	}{
		{"the issue's quote, as shown", "[Node.js-based API], this is how", 3,
			`3:9-3:72 "[Node.js-based API](https://nodejs.org/api/x.html), this is how"`},
		{"the issue's quote, rendered", "Node.js-based API, this is how", 3,
			`3:9-3:72 "[Node.js-based API](https://nodejs.org/api/x.html), this is how"`},
		// Exact in the file, so the fix is an edit that keeps the link's destination.
		{"link at the end, as shown", "Use the [Node.js-based API]", 3, `3:1-3:28 "Use the [Node.js-based API]" fix`},
		{"link at the end, rendered", "Use the Node.js-based API", 3, `3:1-3:28 "Use the [Node.js-based API]"`},
		{"inside the link text: exact", "Node.js-based API", 3, `3:10-3:27 "Node.js-based API" fix`},
		{"reference link and emphasis, rendered", "the reference for all", 4,
			`4:5-4:35 "[the reference][ref] for *all*"`},
		{"reference link, as shown", "See [the reference][ref] for *all* the", 4,
			`4:1-4:39 "See [the reference][ref] for *all* the" fix`},
		{"a code span shown as a placeholder, ending in a period", "for *all* the `…` here.", 4,
			"4:26-4:53 \"for *all* the `flags` here.\""},
		{"emphasis and placeholder rendered", "for all the … here.", 4,
			"4:26-4:53 \"for *all* the `flags` here.\""},
		{"link at the start of the line, rendered", "Start here to learn", 5,
			`5:1-5:41 "[Start here](https://a.example) to learn"`},
		{"link at the start of the line, as shown", "[Start here] to learn", 5,
			`5:1-5:41 "[Start here](https://a.example) to learn"`},
		{"a period right after the link, rendered", "Read the guide.", 6,
			`6:1-6:37 "Read the [guide](https://g.example)."`},
		{"a period right after the link, as shown", "Read the [guide].", 6,
			`6:1-6:37 "Read the [guide](https://g.example)."`},
		{"only the link and the period", "guide.", 6, `6:10-6:37 "[guide](https://g.example)."`},
		{"a link in strong emphasis, rendered", "Call the API now.", 7,
			`7:1-7:45 "Call **[the API](https://api.example)** now."`},
		{"ending at a link in strong emphasis", "Call the API", 7,
			`7:1-7:40 "Call **[the API](https://api.example)**"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := locateStageIn(t, markupDoc, Violation{QuotedText: tt.quote, Line: tt.line, Fix: "X"}, document.DefaultScopeSettings()); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	// Nothing skipped: the model saw the markup, and a quote that drops some of it is placed
	// with the markup it opens or closes.
	raw := document.ScopeSettings{}
	for _, tt := range []struct{ quote, want string }{
		{"run acme deploy now", "1:1-1:26 \"Run `acme deploy` **now**\""},
		{"Use the [Node.js-based API](https://nodejs.org/api/x.html), this", `1:1-1:65 "Use the [Node.js-based API](https://nodejs.org/api/x.html), this" fix`},
	} {
		src := "Run `acme deploy` **now**.\n"
		if strings.HasPrefix(tt.quote, "Use") {
			src = "Use the [Node.js-based API](https://nodejs.org/api/x.html), this is how it works.\n"
		}
		if got := locateStageIn(t, src, Violation{QuotedText: tt.quote, Line: 1, Fix: "X"}, raw); got != tt.want {
			t.Errorf("nothing skipped, %q: got  %s\nwant %s", tt.quote, got, tt.want)
		}
	}
}

// locateStageIn runs the locate stage on one violation of a document whose skipped scopes are s,
// reported on the whole document's prose as the pipeline's chunks are, and describes the
// finding.
func locateStageIn(t *testing.T, src string, v Violation, s document.ScopeSettings) string {
	t.Helper()
	doc, err := document.New("doc.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.SkipScopes(s); err != nil {
		t.Fatal(err)
	}
	c := document.Chunk{Text: doc.Prose(), Offset: doc.BodyOffset, Line: doc.Position(doc.BodyOffset).Line}
	props := []proposal{violationProposal("Acme.Rule", 0, finding.SeverityWarning, c, &v)}
	locate(doc, props)
	p := props[0]
	if !p.located {
		return "not located"
	}
	f := p.finding
	got := fmt.Sprintf("%d:%d-%d:%d %q", f.Start.Line, f.Start.Column, f.End.Line, f.End.Column, f.Match)
	if f.Edits != nil {
		got += " fix"
	}
	return got
}

// markupDoc has links of every form, emphasis and a code span: with the default skipped scopes
// the model is shown it without link destinations and with "`…`" for the code span
// ("Use the [Node.js-based API], this is how it works.").
const markupDoc = "# Links\n\n" +
	"Use the [Node.js-based API](https://nodejs.org/api/x.html), this is how it works.\n" +
	"See [the reference][ref] for *all* the `flags` here.\n" +
	"[Start here](https://a.example) to learn more.\n" +
	"Read the [guide](https://g.example).\n" +
	"Call **[the API](https://api.example)** now.\n" +
	"\n[ref]: https://r.example\n"
