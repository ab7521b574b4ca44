package rules

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
)

// TestParseExamples: the `examples` field of a subjective rule, every form, parsed into the
// stripped texts, their spans and ranges; the body (what the model gets) holds none of it.
func TestParseExamples(t *testing.T) {
	t.Parallel()
	src := `---
id: Headline
name: Headline
examples:
  - text: "# {==Everything you need to know==} about deploys"
    score: [0, 4]
    criteria: {Clarity: [1, 2]}
  - text: "# Deploy a static site to Acme Cloud"   # must not be found
    score: [7.5, 10]
    criteria:
      Specificity: [3, 4]
      Clarity: [4, 4]
  - file: examples/long-page.md
  - text: |
      # Ship faster

      {==Unlock==} the {==power==} of deploys.
type: subjective
criteria:
  - {id: Clarity, name: Clarity, weight: 2}
  - {id: Specificity, name: Specificity}
---
Rate the headline.
`
	r, ps := Parse("headline.md", []byte(src))
	if len(ps) != 0 {
		t.Fatalf("problems:\n%v", ps)
	}
	want := []*Example{
		{Index: 0, Line: 5, Text: "# Everything you need to know about deploys", Spans: []Span{{2, 29}},
			Score: &Range{0, 4}, Criteria: []CriterionRange{{"Clarity", Range{1, 2}}}},
		{Index: 1, Line: 8, Text: "# Deploy a static site to Acme Cloud",
			Score: &Range{7.5, 10}, Criteria: []CriterionRange{{"Specificity", Range{3, 4}}, {"Clarity", Range{4, 4}}}},
		{Index: 2, Line: 13, File: "examples/long-page.md"},
		{Index: 3, Line: 14, Text: "# Ship faster\n\nUnlock the power of deploys.\n", Spans: []Span{{15, 21}, {26, 31}}},
	}
	if !reflect.DeepEqual(r.Examples, want) {
		t.Errorf("examples:\n%s\nwant:\n%s", dumpExamples(r.Examples), dumpExamples(want))
	}
	if got := r.Examples[3].Text[15:21] + "," + r.Examples[3].Text[26:31]; got != "Unlock,power" {
		t.Errorf("spans mark %q", got)
	}
	if !r.Examples[0].MustFind() || r.Examples[1].MustFind() || r.Examples[0].Marked() != "# {==Everything you need to know==} about deploys" {
		t.Errorf("MustFind %v %v, Marked %q", r.Examples[0].MustFind(), r.Examples[1].MustFind(), r.Examples[0].Marked())
	}
	if r.Body != "Rate the headline.\n" || r.Type != finding.Subjective || len(r.Criteria) != 2 {
		t.Errorf("rule: body %q, type %s, %d criteria", r.Body, r.Type, len(r.Criteria))
	}
}

func dumpExamples(exs []*Example) string {
	var b strings.Builder
	for _, e := range exs {
		score := "none"
		if e.Score != nil {
			score = fmt.Sprint(*e.Score)
		}
		fmt.Fprintf(&b, "{index %d line %d file %q path %q text %q spans %v score %s criteria %v}\n",
			e.Index, e.Line, e.File, e.Path, e.Text, e.Spans, score, e.Criteria)
	}
	return b.String()
}

// TestExampleProblems: every problem of every example is reported at once, each with the rule
// file, the example's line, the example's index in the field, and the reason.
func TestExampleProblems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string
		// kept is how many examples are well-formed but for an unknown field.
		kept int
	}{
		{"semi-objective", `---
id: Wordiness
name: Wordiness
examples:
  - text: "We met {==in order to plan."
  - text: "We met in order to==} plan."
  - text: "We {==met {==in==} order==} to plan."
  - text: "We met {== ==} to plan."
  - {}
  - text: a
    file: examples/a.md
  - text: ""
  - text: [a, b]
  - file: /etc/passwd
  - file: ..\other.md
  - text: We met to plan.
    score: [7, 10]
  - text: We met to plan.
    criteria: {Clarity: [1, 2]}
  - text: We met to plan.
    scor: [1, 2]
  - We met to plan.
---
Body.
`, []string{
			`w.md:5: examples[0].text: markers out of place in the text, line 1, column 8: "{==" is never closed by "==}"`,
			`w.md:6: examples[1].text: markers out of place in the text, line 1, column 19: "==}" closes no "{=="`,
			`w.md:7: examples[2].text: markers out of place in the text, line 1, column 11: "{==" inside a marked span (spans cannot nest)`,
			`w.md:8: examples[3].text: markers out of place in the text, line 1, column 8: an empty span: mark at least one word between "{==" and "==}"`,
			`w.md:9: examples[4]: expected text (the example itself) or file (a file of the pack), found neither`,
			`w.md:10: examples[5]: expected either text or file, found both`,
			`w.md:12: examples[6].text: expected a non-empty string (quote a text that starts with {==), found ""`,
			`w.md:13: examples[7].text: expected a non-empty string (quote a text that starts with {==), found a list`,
			`w.md:14: examples[8].file: expected a path relative to the rule file's folder, inside the pack (examples/page.md), found "/etc/passwd"`,
			`w.md:15: examples[9].file: expected a path relative to the rule file's folder, inside the pack (examples/page.md), found "..\\other.md"`,
			`w.md:17: examples[10].score: score and criteria ranges apply only to subjective rules (expected no score on a semi-objective rule (mark the spans to find with {==…==}), found [7, 10])`,
			`w.md:19: examples[11].criteria: score and criteria ranges apply only to subjective rules (expected no criteria on a semi-objective rule (mark the spans to find with {==…==}), found a mapping)`,
			`w.md:21: examples[12].scor: unknown field (did you mean "score"?)`,
			`w.md:22: examples[13]: expected a mapping with text or file (and score, criteria for a subjective rule), found "We met to plan."`,
		}, 1},
		{"subjective", `---
id: Headline
name: Headline
type: subjective
criteria:
  - {id: Clarity, name: Clarity}
  - {id: Specificity, name: Specificity}
examples:
  - text: "# Ship it"
    score: [8, 3]
  - text: "# Ship it"
    score: [0, 11]
  - text: "# Ship it"
    score: [5]
  - text: "# Ship it"
    score: ["low", 4]
  - text: "# Ship it"
    score: 7
  - text: "# Ship it"
    criteria:
      Clarty: [1, 2]
      Tone: [1, 2]
      Specificity: [0, 4]
      Clarity: [2, 5]
  - text: "# Ship it"
    criteria:
      Clarity: [1, 2]
      Clarity: [3, 4]
  - text: "# Ship it"
    criteria: [Clarity]
---
Body.
`, []string{
			`w.md:10: examples[0].score: expected a score range [lo, hi] with 0 ≤ lo ≤ hi ≤ 10, found [8, 3]`,
			`w.md:12: examples[1].score: expected a score range [lo, hi] with 0 ≤ lo ≤ hi ≤ 10, found [0, 11]`,
			`w.md:14: examples[2].score: expected a score range [lo, hi] with 0 ≤ lo ≤ hi ≤ 10, found [5]`,
			`w.md:16: examples[3].score: expected a score range [lo, hi] with 0 ≤ lo ≤ hi ≤ 10, found ["low", 4]`,
			`w.md:18: examples[4].score: expected a score range [lo, hi] with 0 ≤ lo ≤ hi ≤ 10, found 7`,
			`w.md:21: examples[5].criteria.Clarty: not a criterion of the rule (did you mean "Clarity"?)`,
			`w.md:22: examples[5].criteria.Tone: not a criterion of the rule (its criteria: Clarity, Specificity)`,
			`w.md:23: examples[5].criteria.Specificity: expected a rating range [lo, hi] with 1 ≤ lo ≤ hi ≤ 4, found [0, 4]`,
			`w.md:24: examples[5].criteria.Clarity: expected a rating range [lo, hi] with 1 ≤ lo ≤ hi ≤ 4, found [2, 5]`,
			`w.md:28: examples[6].criteria.Clarity: given twice (first on line 27)`,
			`w.md:30: examples[7].criteria: expected a mapping of criterion ids to rating ranges ({Clarity: [3, 4]}), found a list`,
		}, 0},
		{"not a list", "---\nid: A\nname: A\nexamples: {text: a}\n---\nBody.\n", []string{
			`w.md:4: examples: expected a non-empty list of examples ({text: ...} or {file: ...}), found a mapping`,
		}, 0},
		{"empty list", "---\nid: A\nname: A\nexamples: []\n---\nBody.\n", []string{
			`w.md:4: examples: expected a non-empty list of examples ({text: ...} or {file: ...}), found an empty list`,
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, ps := Parse("w.md", []byte(tt.src))
			var got []string
			for _, p := range ps {
				got = append(got, p.Error())
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if r == nil || len(r.Examples) != tt.kept || !ps.HasErrors() {
				t.Errorf("%d examples kept, want %d: an example with a problem is left out", len(r.Examples), tt.kept)
			}
		})
	}
}

// TestLoadPacksExamples loads a pack whose rules name example files: the files below an
// examples folder are examples, never rules; a file example is read through the project root,
// inside its pack, relative to its rule's folder; each bad one is an error naming the rule
// file, the example's line, its index and why, and leaves its rule out of the pack.
func TestLoadPacksExamples(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := "---\nid: Good\nname: Good\nexamples:\n  - file: examples/long.md\n  - file: shared.txt\n  - text: We met to plan.\n---\nBody.\n"
	writeFiles(t, dir, map[string]string{
		"Acme/good.md":                good,
		"Acme/examples/long.md":       "# Notes\n\nWe met {==in order to==} plan.\n",
		"Acme/examples/not-a-rule.md": "no frontmatter: loaded as a rule, this would be an error\n",
		"Acme/examples/deep/x.md":     "also not a rule\n",
		"Acme/Sub/examples/y.md":      "nor this\n",
		"Acme/Sub/nested.md":          "---\nid: Nested\nname: Nested\nexamples:\n  - file: examples/y.md\n  - file: ../examples/long.md\n---\nBody.\n",
		"Acme/shared.txt":             "It is {==important to note==} that.\n",
		"Acme/bad.md": "---\nid: Bad\nname: Bad\nexamples:\n" +
			"  - file: ../../Other/examples/o.md\n" +
			"  - file: examples/missing.md\n" +
			"  - file: notes.md\n" +
			"  - file: examples/deep\n" +
			"  - file: examples/latin1.txt\n" +
			"  - file: examples/unclosed.md\n" +
			"  - file: ./\n" +
			"---\nBody.\n",
		"Acme/notes.md":              "---\nid: Notes\nname: Notes\n---\nA rule, not an example.\n",
		"Acme/examples/latin1.txt":   "ok\ncaf\xe9\n",
		"Acme/examples/unclosed.md":  "line one\nline {==two\n",
		"Other/examples/o.md":        "outside the pack\n",
		"Other/rule.md":              rule("Other"),
		"examples/rule.md":           rule("TopLevel"), // a pack named "examples" is still a pack
		"examples/examples/never.md": "never a rule\n",
	})
	packs, problems, err := LoadPacks(dir)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range packs {
		for _, r := range p.Rules {
			ids = append(ids, r.FullID())
		}
	}
	if want := []string{"Acme.Nested", "Acme.Good", "Acme.Notes", "Other.Other", "examples.TopLevel"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("rules %v, want %v", ids, want)
	}
	var got []string
	for _, p := range problems {
		got = append(got, strings.ReplaceAll(p.Error(), dir+string(filepath.Separator), ""))
	}
	want := []string{
		`Acme/bad.md:5: examples[0].file: expected a file inside the pack, found "../../Other/examples/o.md", outside it`,
		`Acme/bad.md:6: examples[1].file: expected an existing file inside the pack, found "examples/missing.md", which does not exist`,
		`Acme/bad.md:7: examples[2].file: expected a file below a folder named examples (a .md file elsewhere in the pack is loaded as a rule), found "notes.md"`,
		`Acme/bad.md:8: examples[3].file: cannot read the example file "examples/deep": is a directory`,
		`Acme/bad.md:9: examples[4].file: expected UTF-8 text, found bytes that are not UTF-8 at line 2, column 4 of "examples/latin1.txt"`,
		`Acme/bad.md:10: examples[5].file: markers out of place in examples/unclosed.md, line 2, column 6: "{==" is never closed by "==}"`,
		`Acme/bad.md:11: examples[6].file: cannot read the example file "./": is a directory`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	g := packs[0].Rule("Good")
	wantGood := []*Example{
		{Index: 0, Line: 5, File: "examples/long.md", Path: filepath.Join(dir, "Acme", "examples", "long.md"),
			Text: "# Notes\n\nWe met in order to plan.\n", Spans: []Span{{16, 27}}},
		{Index: 1, Line: 6, File: "shared.txt", Path: filepath.Join(dir, "Acme", "shared.txt"),
			Text: "It is important to note that.\n", Spans: []Span{{6, 23}}},
		{Index: 2, Line: 7, Text: "We met to plan."},
	}
	if !reflect.DeepEqual(g.Examples, wantGood) {
		t.Errorf("examples of Good:\n%s\nwant:\n%s", dumpExamples(g.Examples), dumpExamples(wantGood))
	}
	n := packs[0].Rule("Nested")
	if len(n.Examples) != 2 || n.Examples[0].Text != "nor this\n" || n.Examples[0].Path != filepath.Join(dir, "Acme", "Sub", "examples", "y.md") ||
		n.Examples[1].Path != filepath.Join(dir, "Acme", "examples", "long.md") {
		t.Errorf("examples of Nested: %s", dumpExamples(n.Examples))
	}
}

// TestParseLeavesExampleFilesUnread: Parse alone reads no file; the rule loader does.
func TestParseLeavesExampleFilesUnread(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "x.md"), []byte("{==a==}"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, ps := Parse(filepath.Join(dir, "r.md"), []byte("---\nid: A\nname: A\nexamples: [{file: x.md}, {file: y.md}]\n---\n"))
	if len(ps) != 0 || len(r.Examples) != 2 || r.Examples[0].Text != "" || r.Examples[0].Path != "" || r.Examples[0].Spans != nil {
		t.Errorf("problems %v, examples %s", ps, dumpExamples(r.Examples))
	}
}
