package report

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/rules"
)

// The fixture: three linted documents and one skipped file, built so that every output format
// meets its hard cases. Positions are computed from the texts, never typed by hand.

const naivePath = "docs/naïve notes.md"

// naiveText has frontmatter (positions count it), a heading with an emoji, a line where accents
// and an emoji come before the findings (so code points, UTF-8 bytes and UTF-16 units all
// differ), and a sentence broken over two lines.
const naiveText = "---\ntitle: Notes\n---\n# Café guide 🚀\n\n" +
	"Le café 👋 naïve façade — in order to succeed, utilize the \"tools\".\n" +
	"This sentence spans\ntwo lines on purpose.\n"

const cleanPath = "docs/clean.md"
const cleanText = "All good here.\n"

const setupPath = "guide/setup, part 1: install.md"
const setupText = "Install the tool.\n"

// fixtureDocs maps each linted path to its text, for tests that check positions against it.
var fixtureDocs = map[string]string{naivePath: naiveText, cleanPath: cleanText, setupPath: setupText, fixesPath: fixesText}

// positionAt is the finding.Position of a byte offset in text.
func positionAt(text string, offset int) finding.Position {
	lineStart := strings.LastIndexByte(text[:offset], '\n') + 1
	return finding.Position{
		Line:       strings.Count(text[:offset], "\n") + 1,
		Column:     utf8.RuneCountInString(text[lineStart:offset]) + 1,
		ByteColumn: offset - lineStart + 1,
		Offset:     offset,
	}
}

// findingAt builds a finding on the first occurrence of match in text.
func findingAt(t testing.TB, text, match string, f finding.Finding) finding.Finding {
	t.Helper()
	i := strings.Index(text, match)
	if i < 0 {
		t.Fatalf("fixture: %q not in the document", match)
	}
	f.Match = match
	f.Start = positionAt(text, i)
	f.End = positionAt(text, i+len(match))
	return f
}

// withFix gives f the fix lint makes for an exactly located quote: text replaces the match.
func withFix(f finding.Finding, text string) finding.Finding {
	f.Edits = []finding.TextEdit{{Start: f.Start, End: f.End, NewText: text}}
	return f
}

func intp(n int) *int           { return &n }
func floatp(f float64) *float64 { return &f }
func semi(rule string, score float64, violations, words int, strictness float64) finding.Score {
	return finding.Score{Rule: rule, Type: finding.SemiObjective, Score: finding.Rounded1(score),
		Violations: intp(violations), Words: intp(words), Strictness: floatp(strictness)}
}

// fixture returns the hand-built finding.Result every golden file prints.
func fixture(t testing.TB) finding.Result {
	t.Helper()
	naive := finding.FileResult{
		Path: naivePath,
		Findings: []finding.Finding{
			findingAt(t, naiveText, "Café guide 🚀", finding.Finding{
				Rule: "Acme.Headline.ValueCommunication", Severity: finding.SeverityError,
				Message: `Headline states no benefit: say what readers gain, e.g. "50% faster"`,
			}),
			withFix(findingAt(t, naiveText, "in order to", finding.Finding{
				Rule: "Acme.Wordiness", Severity: finding.SeverityError,
				Message:    `Wordy: "in order to" adds 100% more words, use "to"`,
				Suggestion: `Replace "in order to" with "to".`,
				Analysis:   "Three words where one does.",
			}), "to"),
			withFix(findingAt(t, naiveText, "utilize", finding.Finding{
				Rule: "Acme.Jargon", Severity: finding.SeverityWarning,
				Message: "Prefer plain words <use> & avoid jargon",
			}), "use"),
			findingAt(t, naiveText, "spans\ntwo lines", finding.Finding{
				// A suggestion: every format maps it (SARIF note, rdjson INFO, GitHub notice).
				Rule: "Acme.Flow", Severity: finding.SeveritySuggestion,
				Message:    "This sentence breaks\nacross lines, which reads badly.",
				Suggestion: "Join the lines: one sentence, one line.",
			}),
		},
		Scores: []finding.Score{
			semi("Acme.Flow", 9, 1, 100, 10),
			{Rule: "Acme.Headline", Type: finding.Subjective, Score: 2, Criteria: []finding.CriterionScore{
				{ID: "ValueCommunication", Name: "Value Communication", Rating: 1, Score: 1, Weight: 12},
				{ID: "Clarity", Name: "Clarity", Rating: 2, Score: 4, Weight: 2},
				{ID: "Tone", Name: "Tone", Rating: 4, Score: 10, Weight: 1},
			}},
			semi("Acme.Jargon", 9, 1, 100, 10),
			semi("Acme.Passive", 10, 0, 100, 10),
			// 1 violation in 31 words at strictness 5: 100 − 3.2258 × 5 = 83.87 → 8.4.
			semi("Acme.Wordiness", (100-100.0/31*5)/10, 1, 31, 5),
		},
		Unverified: []finding.Unverified{{Rule: "Acme.Jargon", Message: `Avoid "leverage"`,
			Quote: "leverage synergies", Line: 6}},
		Errors: []finding.RuleError{{Rule: "Acme.Tone",
			Message: `LLM call failed after 4 attempts: 503 Service Unavailable <html> & "retry"`}},
		// Two quotes the model copied from code (skipped scopes, spec/linter.md §9).
		Ignored: 2,
	}
	clean := finding.FileResult{
		Path:   cleanPath,
		Scores: []finding.Score{semi("Acme.Passive", 10, 0, 3, 10), semi("Acme.Wordiness", 10, 0, 3, 10)},
	}
	intro := finding.Finding{Rule: "Acme.Intro", Severity: finding.SeverityError, Message: "target not found",
		Suggestion: "Add the required section.", Start: positionAt(setupText, 0), End: positionAt(setupText, 0)}
	setup := finding.FileResult{
		Path:     setupPath,
		Findings: []finding.Finding{intro},
		Scores: []finding.Score{
			{Rule: "Acme.Checklist", Type: finding.SemiObjective, Score: 7.5, Coverage: floatp(0.75)},
			{Rule: "Acme.Intro", Type: finding.SemiObjective, Score: 0},
		},
	}
	r := finding.Result{
		Version: "1.2.3",
		Files:   []finding.FileResult{clean, naive, setup},
		Totals: finding.Totals{
			Skipped: []finding.Skipped{{Path: "drafts/wip.md", Reason: "no section of vectorlint.ini matches"}},
			Usage:   finding.Usage{Calls: 7, CachedCalls: 2, InputTokens: 12345, OutputTokens: 678, Cost: floatp(0.0123)},
		},
	}
	for _, fr := range r.Files {
		r.Summary.Add(fr)
	}
	return r
}

// cleanFixture is a run with nothing to report: one clean file, no usage cost.
func cleanFixture() finding.Result {
	return finding.Result{
		Version: "1.2.3",
		Files: []finding.FileResult{{Path: cleanPath,
			Scores: []finding.Score{semi("Acme.Passive", 10, 0, 3, 10)}}},
		Totals: finding.Totals{
			Summary: finding.Summary{Files: 1},
			Usage:   finding.Usage{Calls: 1, InputTokens: 100, OutputTokens: 20},
		},
	}
}

// stoppedFixture is a run whose model server refused every connection: the deterministic
// finding is kept, the rule runs that needed the model are counted per file and under the one
// run error, and no file lists them.
func stoppedFixture() finding.Result {
	return finding.Result{
		Version: "1.2.3",
		Files: []finding.FileResult{
			{Path: "docs/a.md", Findings: []finding.Finding{{Rule: "Acme.Intro", Severity: finding.SeverityWarning, Message: "target not found",
				Start: finding.Position{Line: 1, Column: 1, ByteColumn: 1}, End: finding.Position{Line: 1, Column: 1, ByteColumn: 1}}},
				Scores: []finding.Score{{Rule: "Acme.Intro", Type: finding.SemiObjective}}, NotRun: 2},
			{Path: "docs/b.md", Scores: []finding.Score{}, NotRun: 3},
		},
		Totals: finding.Totals{
			RunErrors: []finding.RunError{{Cause: "connection refused to 127.0.0.1:9",
				Message: "llm: cannot connect to 127.0.0.1:9 (openai): connection refused (4 attempts); is a server running there? Check --base-url, OPENAI_BASE_URL or BaseURL in vectorlint.ini",
				NotRun:  5}},
			Summary: finding.Summary{Files: 2, Warnings: 1, NotRun: 5},
		},
	}
}

func TestFixturePositions(t *testing.T) {
	t.Parallel()
	r := fixture(t)
	f := r.Files[1].Findings
	// "in order to" is on line 6 (which starts at byte 41) after "Le café 👋 naïve façade — ":
	// 25 code points, 33 bytes (é ï ç: 2 bytes each, — 3, 👋 4), 26 UTF-16 units.
	want := finding.Position{Line: 6, Column: 26, ByteColumn: 34, Offset: 41 + 33}
	if f[1].Start != want {
		t.Errorf("start of %q = %+v, want %+v", f[1].Match, f[1].Start, want)
	}
	if f[3].Start.Line != 7 || f[3].End.Line != 8 {
		t.Errorf("multi-line finding spans lines %d–%d, want 7–8", f[3].Start.Line, f[3].End.Line)
	}
	if r.Summary != (finding.Summary{Files: 3, Errors: 3, Warnings: 1, Suggestions: 1, Unverified: 1, OperationalErrors: 1, Ignored: 2}) {
		t.Errorf("summary = %+v", r.Summary)
	}
}

// fixesPath and fixesText are the document of fixesFixture: accents and an emoji before the
// edits, so code points, UTF-8 bytes and UTF-16 units differ.
const fixesPath = "docs/fix me.md"
const fixesText = "# Café 👋\n\nWe act in order to win, say \"tools\".\nIt ends here\n"

// fixesFixture is a run whose findings show every shape of fix: a model's fix of its match (one
// edit), a fix of two edits inside the match (straight quotes made curly), an insertion (an
// empty edit at the end of the match), and a finding without a fix.
func fixesFixture(t testing.TB) finding.Result {
	t.Helper()
	quotes := findingAt(t, fixesText, `"tools"`, finding.Finding{Rule: "Acme.Quotes", Severity: finding.SeverityWarning,
		Message: "Use typographic quotes."})
	open, closing := quotes.Start.Offset, quotes.End.Offset-1
	quotes.Edits = []finding.TextEdit{
		{Start: positionAt(fixesText, open), End: positionAt(fixesText, open+1), NewText: "“"},
		{Start: positionAt(fixesText, closing), End: positionAt(fixesText, closing+1), NewText: "”"},
	}
	period := findingAt(t, fixesText, "It ends here", finding.Finding{Rule: "Acme.Period", Severity: finding.SeverityError,
		Message: "End the sentence with a period."})
	period.Edits = []finding.TextEdit{{Start: period.End, End: period.End, NewText: "."}}
	fr := finding.FileResult{
		Path: fixesPath,
		Findings: []finding.Finding{
			findingAt(t, fixesText, "Café 👋", finding.Finding{Rule: "Acme.Headline", Severity: finding.SeverityWarning,
				Message: "Say what the page is for."}),
			withFix(findingAt(t, fixesText, "in order to", finding.Finding{Rule: "Acme.Wordiness", Severity: finding.SeverityError,
				Message: `Wordy: use "to"`, Suggestion: `Replace "in order to" with "to".`}), "to"),
			quotes,
			period,
		},
		Scores: []finding.Score{semi("Acme.Wordiness", 8.6, 1, 14, 10)},
	}
	r := finding.Result{Version: "1.2.3", Files: []finding.FileResult{fr},
		Totals: finding.Totals{Usage: finding.Usage{Calls: 1, InputTokens: 100, OutputTokens: 20}}}
	r.Summary.Add(fr)
	return r
}

// fixtureRules describes some of the fixture's rules from rule files: a body that opens with a
// heading and has two sentences, a subjective rule with criteria, a rule with no body. The
// other rules of the fixture are left undescribed (generic descriptors).
func fixtureRules(t testing.TB) map[string]finding.RuleInfo {
	t.Helper()
	files := map[string]string{
		"wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n# Wordiness\n\n" +
			"Flag phrases that have a shorter equivalent. Say \"to\", not \"in order to\".\n" +
			"Keep technical terms.\n\n## Examples\n\n- *in order to* → *to*\n",
		"headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\ncriteria:\n" +
			"  - {id: ValueCommunication, name: Value Communication, weight: 12}\n---\n" +
			"Rate the headline: does it promise the reader something?\n\n# Value Communication <weight=12>\n",
		"flow.md": "---\nid: Flow\nname: Flow & Rhythm\n---\n",
	}
	pack := &rules.Pack{Name: "Acme"}
	for name, src := range files {
		r, ps := rules.Parse(name, []byte(src))
		if len(ps) != 0 {
			t.Fatalf("%s: %v", name, ps)
		}
		r.Pack = "Acme"
		pack.Rules = append(pack.Rules, r)
	}
	return rules.Describe([]*rules.Pack{pack})
}
