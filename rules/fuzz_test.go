package rules

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// FuzzParse checks that no rule file makes Parse panic, that every problem names the file and a
// line inside it, and that a rule without errors is complete. The seeds are the bundled example
// pack and every Markdown file of the real VectorLint rule packs (rules and their test fixtures).
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"---\n---\n",
		"---\nid: A\nname: B\n---\nbody",
		"---\nid: A\nname: B\ntype: subjective\ncriteria:\n  - {id: C, name: C, weight: 2, target: {regex: '^# (.+)$', group: 1}}\n---\n# C <weight=2>\n### Good <score=3>\n",
		"---\nid: A\nname: B\ntarget:\n  regex: '(unclosed'\n  flags: zz\n---\n",
		"---\nanchor: &a {regex: x}\nid: A\nname: B\ntarget: *a\n---\n",
		"---\nid: A\nname: B\nshould: [a, {$contains: b}]\n---\n",
		"\ufeff---\r\nid: A\r\nname: B\r\n---\r\n",
		"---\nid: [\n---\n",
		"---\nid: A\nname: B\ntype: subjective\ncriteria: [{id: C, name: C}]\nexamples:\n  - {text: 'a {==b==} c', score: [1, 9], criteria: {C: [2, 3]}}\n  - file: examples/x.md\n---\n",
		"---\nid: A\nname: B\nstrictness: 1e308\ntype: subjective\ncriteria:\n  - {id: C, name: C, weight: 1e308}\n  - {id: D, name: D, weight: 1e308}\n---\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	examples, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(f), "examples", "rules", "*", "*.md"))
	for _, path := range examples {
		if data, err := os.ReadFile(path); err == nil {
			f.Add(data)
		}
	}
	for _, sf := range testutil.SharedFiles(f, "corpus/vectorlint-rules", 64<<10, ".md") {
		f.Add(sf.Data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r, ps := Parse("fuzz.md", data)
		lines := textLines(data)
		for _, p := range ps {
			if p.File != "fuzz.md" || !strings.HasPrefix(p.Error(), "fuzz.md") {
				t.Fatalf("problem without the file: %v", p)
			}
			if p.Line < 0 || p.Line > lines {
				t.Fatalf("problem on line %d of a %d-line file: %v", p.Line, lines, p)
			}
			if strings.TrimSpace(strings.TrimPrefix(p.Error(), "fuzz.md")) == ":" {
				t.Fatalf("problem without a message: %+v", p)
			}
		}
		if ps.HasErrors() {
			return
		}
		if r == nil || r.ID == "" || r.Name == "" || r.Strictness <= 0 {
			t.Fatalf("valid rule is incomplete: %+v", r)
		}
		// Every number in its range (spec/trust.md §8), so the weighted sums stay finite.
		if r.Strictness > MaxStrictness {
			t.Fatalf("valid rule with strictness %v", r.Strictness)
		}
		for _, c := range r.Criteria {
			if !ValidWeight(c.Weight) {
				t.Fatalf("valid rule with criterion weight %v", c.Weight)
			}
		}
		if r.Type == finding.Subjective && len(r.Criteria) == 0 {
			t.Fatal("valid subjective rule without criteria")
		}
		for i, ex := range r.Examples {
			if ex.Index < i || (ex.File == "") == (ex.Text == "") || ex.Path != "" {
				t.Fatalf("valid example %d: index %d, file %q, text %q, path %q", i, ex.Index, ex.File, ex.Text, ex.Path)
			}
			at := 0
			for _, sp := range ex.Spans {
				if sp.Start < at || sp.End <= sp.Start || sp.End > len(ex.Text) {
					t.Fatalf("example %d: span %v out of order or range", i, sp)
				}
				at = sp.End
			}
			for _, rg := range append([]*Range{ex.Score}, exampleCriterionRanges(ex)...) {
				if rg != nil && !(rg.Lo <= rg.Hi && rg.Lo >= 0 && rg.Hi <= ExampleScoreMax) {
					t.Fatalf("example %d: range %v", i, *rg)
				}
			}
			if (ex.Score != nil || ex.Criteria != nil) && r.Type != finding.Subjective {
				t.Fatalf("example %d: a range on a %s rule", i, r.Type)
			}
		}
		for _, tg := range append([]*Target{r.Target}, criteriaTargets(r)...) {
			if tg == nil {
				continue
			}
			if _, _, err := tg.Find("# Title\nbody"); err != nil && err == ErrTargetNotCompiled {
				t.Fatal("valid rule with an uncompiled target")
			}
		}
	})
}

func exampleCriterionRanges(ex *Example) []*Range {
	var out []*Range
	for i := range ex.Criteria {
		out = append(out, &ex.Criteria[i].Range)
	}
	return out
}

func criteriaTargets(r *Rule) []*Target {
	var out []*Target
	for _, c := range r.Criteria {
		out = append(out, c.Target)
	}
	return out
}

// textLines counts the lines of data as YAML and ini parsers do: "\n", "\r\n" and a lone "\r"
// each end a line.
func textLines(data []byte) int {
	return strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", ""), "\r") + 1
}
