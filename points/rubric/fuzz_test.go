package rubric

import (
	"strings"
	"testing"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/testutil"
)

// FuzzParse fuzzes the point syntax as a rule's `should` list is read — without the engine,
// so with the parser's own Check — from YAML with line numbers: no panic; every error is a
// problem naming the file and a line inside it (after LineOffset); every point of an
// accepted list has a weight in range and a line inside the file; a function point the parser
// found unusable says why, and only function points do. The engine's FuzzParsePoints (package
// points) scores what parses. The seeds are the should lists of the real Weval blueprints.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"- plain criterion\n- $contains: x\n- - $matches: \"^a\"\n  - z\n",
		"- {$icontains_word: ΣΑΣ, weight: 2, citation: src}\n- \"$is_json\"\n- {fn: word_count_between, arg: [1, 3]}\n",
		"- {$ref: short}\n- {$ref: obj, weight: 0.5}\n- {text: t, weight: 11}\n- {\"$icontains: 'x'\": 1}\n",
		"- $js: \"((\"\n- $imatches_all_of: [\"(?i)x\", \"(\"]\n- $word_count_between: [.inf, 1]\n- $nope: 1\n",
		"- []\n- [[]]\n- ~\n- {}\n- {a: b, c: d}\n- {$contains: a, $matches: b}\n",
	} {
		f.Add([]byte(s))
	}
	for _, sf := range testutil.SharedFiles(f, "corpus/weval-configs/blueprints", 8<<10, ".yml") {
		var doc []map[string]any
		if yaml.Unmarshal(sf.Data, &doc) != nil {
			continue
		}
		for _, p := range doc[:min(2, len(doc))] {
			if b, err := yaml.Marshal(p["should"]); err == nil {
				f.Add(b)
			}
		}
	}
	defs := map[string]any{"short": "r.length < 10", "obj": map[string]any{"$contains": "x", "weight": 3.0}}
	f.Fuzz(func(t *testing.T, data []byte) {
		var root yaml.Node
		if err := yaml.Unmarshal(data, &root); err != nil || len(root.Content) == 0 {
			return
		}
		if v := root.Content[0]; v.Kind == yaml.ScalarNode && v.Value == "" {
			return // an empty document: yaml.v3 puts its null on the line after the file's end
		}
		const offset = 1
		lines := strings.Count(strings.ReplaceAll(string(data), "\r\n", "\n"), "\n") + strings.Count(strings.ReplaceAll(string(data), "\r\n", ""), "\r") + 1 + offset
		r, errs := Parse(root.Content[0], Options{File: "rule.md", Owner: "P.R", OwnerKind: "rule", Defs: defs, LineOffset: offset})
		for _, d := range errs {
			if d.File != "rule.md" || d.Line < 0 || d.Line > lines || d.Message == "" || d.Level != finding.LevelError {
				t.Fatalf("error %v is not a problem naming rule.md and a line of %d", d.Labeled(), lines)
			}
		}
		for _, d := range r.Warnings {
			if d.File != "rule.md" || d.Line < 0 || d.Line > lines || d.Level != finding.LevelWarning {
				t.Fatalf("warning %v out of range", d.Labeled())
			}
		}
		for _, pt := range r.Points() {
			if pt.Multiplier < 0.1 || pt.Multiplier > 10 || pt.Line < 0 || pt.Line > lines {
				t.Fatalf("point %+v: multiplier or line out of range", pt)
			}
			if pt.Err() != nil && !pt.IsFunction() {
				t.Fatalf("text point %q with an error %v", pt.Text, pt.Err())
			}
		}
	})
}
