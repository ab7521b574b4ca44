package lint

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/rules"
)

// checkGolden compares got with testdata/name, or rewrites it under -update.
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	testutil.Golden(t, filepath.Join("testdata", name), got)
}

// mustRule parses a rule file of pack Acme.
func mustRule(t testing.TB, src string) *rules.Rule {
	t.Helper()
	r, ps := rules.Parse("rules/Acme/rule.md", []byte(src))
	if ps.HasErrors() || r == nil {
		t.Fatalf("rule: %v", ps)
	}
	r.Pack = "Acme"
	return r
}

const semiRuleSrc = "---\nid: Wordiness\nname: Wordiness\n---\nFlag wordy phrases such as \"in order to\".\n"

const subjectiveRuleSrc = `---
id: Headline
name: Headline "H1"
type: subjective
criteria:
  - {id: Value, name: Value Communication, weight: 12}
  - {id: Tone, name: Tone, weight: 1.5}
---
Rate the headline.

# Value Communication <weight=12>
### Excellent <score=4>
Names a concrete benefit.
`

// TestBuildMessages pins the prompts (they are part of the cache key and the token cost).
func TestBuildMessages(t *testing.T) {
	t.Parallel()
	semi := mustRule(t, semiRuleSrc)
	subj := mustRule(t, subjectiveRuleSrc)
	tests := []struct {
		name string
		in   PromptInput
	}{
		{"semi-objective", PromptInput{Rule: semi, Text: "In order to win,\r\nwe try.\n\nDone.\n", Line: 7}},
		{"subjective-style-guide", PromptInput{Rule: subj, Criteria: subj.Criteria, Text: "Hello world", Line: 1,
			StyleGuide: "  Use sentence case.\n"}},
		{"technical-accuracy", PromptInput{Rule: semi, Text: "Go 1.0 shipped in 2009.", Line: 3,
			Extra: "Claims found in the text, each with the evidence a search returned:\n\n1. Go 1.0 was released in 2009.\nEvidence: 2012."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			for _, m := range BuildMessages(tt.in) {
				b.WriteString("── " + string(m.Role) + "\n" + m.Content + "\n")
			}
			checkGolden(t, "prompts/"+tt.name+".golden", b.String())
		})
	}
}

func TestNumberLines(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text  string
		first int
		want  string
	}{
		{"", 1, ""},
		{"a", 1, "1\ta"},
		{"a\n", 3, "3\ta"},
		{"a\n\nb", 9, "9\ta\n10\t\n11\tb"},
		{"a\r\nb\rc\n\n", 1, "1\ta\n2\tb\n3\tc\n4\t"},
		{"\n", 5, "5\t"},
		{"héllo 👋\n", 1, "1\théllo 👋"},
	}
	for _, tt := range tests {
		if got := NumberLines(tt.text, tt.first); got != tt.want {
			t.Errorf("NumberLines(%q, %d) = %q, want %q", tt.text, tt.first, got, tt.want)
		}
	}
}

// TestSchemas checks that the reply schemas are valid JSON in the shape strict structured
// output needs: every property required, no additional properties.
func TestSchemas(t *testing.T) {
	t.Parallel()
	subj := mustRule(t, subjectiveRuleSrc)
	for _, s := range []struct {
		name   string
		schema any
	}{{"violations", violationsSchema().Schema}, {"criteria", criteriaSchema(subj.Criteria).Schema}, {"claims", claimsSchema().Schema}} {
		raw, _ := s.schema.(json.RawMessage)
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		checkStrict(t, s.name, v)
	}
	if raw := criteriaSchema(subj.Criteria).Schema.(json.RawMessage); !strings.Contains(string(raw), `"enum":["Value","Tone"]`) {
		t.Errorf("criteria schema does not restrict the ids: %s", raw)
	}
}

func checkStrict(t *testing.T, path string, v any) {
	t.Helper()
	obj, ok := v.(map[string]any)
	if !ok {
		return
	}
	if obj["type"] == "object" {
		props, _ := obj["properties"].(map[string]any)
		req, _ := obj["required"].([]any)
		if len(req) != len(props) || obj["additionalProperties"] != false {
			t.Errorf("%s: %d properties, %d required, additionalProperties %v", path, len(props), len(req), obj["additionalProperties"])
		}
		for k, p := range props {
			checkStrict(t, path+"."+k, p)
		}
	}
	if items, ok := obj["items"]; ok {
		checkStrict(t, path+"[]", items)
	}
}

// BenchmarkNumberLines numbers the lines of one 500-word chunk, as every call does.
func BenchmarkNumberLines(b *testing.B) {
	text := testutil.LongText(500)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		NumberLines(text, 1)
	}
}

// TestPromptSharedPrefix checks the layout for provider prompt caching (spec/linter.md §13):
// the calls of two rules of different kinds on one chunk share their first two messages byte
// for byte (instructions, style guide, chunk), the chunk marks the end of the shared prefix, and
// the rule comes last.
func TestPromptSharedPrefix(t *testing.T) {
	t.Parallel()
	semi := mustRule(t, semiRuleSrc)
	subj := mustRule(t, subjectiveRuleSrc)
	text := "In order to win,\nwe try.\n"
	a := BuildMessages(PromptInput{Rule: semi, Text: text, Line: 1, StyleGuide: "Use sentence case.", Directive: "Be kind."})
	b := BuildMessages(PromptInput{Rule: subj, Criteria: subj.Criteria, Text: text, Line: 1, StyleGuide: "Use sentence case.", Directive: "Be kind."})
	if len(a) != 3 || len(b) != 3 {
		t.Fatalf("%d and %d messages, want 3", len(a), len(b))
	}
	for i := range 2 {
		if a[i] != b[i] {
			t.Errorf("message %d differs between the rules:\n%+v\n%+v", i+1, a[i], b[i])
		}
	}
	if a[1].Role != llm.RoleUser || !a[1].SharedPrefix || a[1].Content != "1\tIn order to win,\n2\twe try." {
		t.Errorf("the chunk message is %+v", a[1])
	}
	if a[0].SharedPrefix || a[2].SharedPrefix || !strings.Contains(a[0].Content, "Use sentence case.") || !strings.Contains(a[0].Content, "Be kind.") {
		t.Errorf("the shared instructions are %+v", a[0])
	}
	if !strings.HasPrefix(a[2].Content, instructionsSemiObjective) || !strings.Contains(a[2].Content, "<rule name=\"Wordiness\">") ||
		!strings.HasPrefix(b[2].Content, instructionsSubjective) || !strings.Contains(b[2].Content, "- id: Value; name: Value Communication; weight: 12") {
		t.Errorf("the rule messages are %q and %q", a[2].Content, b[2].Content)
	}
}
