package rubric

import (
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestNormaliseFn(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"contain": "contains", "contains": "contains", "contain_any_of": "contains_any_of", "contain_at_least_n_of": "contains_at_least_n_of",
		"icontain": "icontains", "icontain_all_of": "icontains_all_of", "match": "matches", "match_all_of": "matches_all_of",
		"imatch": "imatches", "imatch_all_of": "imatches_all_of", "imatch_at_least_n_of": "imatches_at_least_n_of",
		"start_with": "starts_with", "istart_with": "istarts_with", "end_with": "ends_with", "iend_with": "iends_with",
		"not_contain": "not_contains", "not_match": "not_matches", "not_imatch": "not_imatches", "not_start_with": "not_starts_with",
		"not_icontain_word": "not_icontains_word", "expr": "js", "external": "call", "$js": "js", "contains_word": "contains_word",
		"word_count_between": "word_count_between", "tool_called": "tool_called",
	}
	for in, want := range tests {
		if got := normaliseFn(in); got != want {
			t.Errorf("normaliseFn(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	var raw any
	if err := json.Unmarshal([]byte(`["Is clear", {"$icontains": "thanks"}, {"$ref": "short"}, [{"$contains": "a"}, "b"]]`), &raw); err != nil {
		t.Fatal(err)
	}
	r, errs := Parse(raw, Options{File: "rule.md", Owner: "Pack.Rule", Defs: map[string]any{"short": "r.length < 10"}})
	if errs != nil {
		t.Fatalf("errors: %v", errs)
	}
	if len(r.Should) != 4 || r.Should[2].Point.Fn != "js" || !r.Should[3].IsPath() {
		t.Errorf("rubric = %+v", r.Should)
	}
	_, errs = Parse([]any{map[string]any{"weight": 2.0}}, Options{File: "rule.md", Owner: "Pack.Rule"})
	want := `rule.md: error: prompt "Pack.Rule": expected a point ({$function: argument}, {"criterion": "citation"} or an object with text, point or fn), found a mapping with keys "weight"`
	if len(errs) != 1 || errs[0].Labeled() != want {
		t.Errorf("errors = %v\nwant %s", errs, want)
	}
}

func TestParseLineOffset(t *testing.T) {
	t.Parallel()
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("should:\n  - ok\n  - 5\n"), &n); err != nil {
		t.Fatal(err)
	}
	list := n.Content[0].Content[1] // the value of should
	_, errs := Parse(list, Options{File: "rule.md", Owner: "Pack.Rule", OwnerKind: "rule", LineOffset: 1})
	want := `rule.md:4: error: rule "Pack.Rule": expected a point (a string, {$function: argument}, {"criterion": "citation"} or {text|fn, weight, citation}), found the number 5`
	if len(errs) != 1 || errs[0].Labeled() != want {
		t.Errorf("errors = %v\nwant %s", errs, want)
	}
}

// TestParseDollarString: a string starting with "$" is a zero-argument function only when a
// name follows; a lone "$" is a text point. Reproduces weval-org/app
// src/lib/__tests__/blueprint-parser.test.ts, "Zero-Arg Function Syntax" ("should parse string
// starting with $ as zero-arg function call", "should not treat lone $ as a function").
func TestParseDollarString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in             string
		wantText       string
		wantFn         string
		wantNoWarnings bool
	}{
		{in: "$", wantText: "$", wantNoWarnings: true},
		{in: "$is_json", wantFn: "is_json", wantNoWarnings: true},
		{in: "$factcheck", wantFn: "factcheck", wantNoWarnings: true},
		{in: "$$", wantFn: "$"}, // a name follows: the unknown function "$" (Weval too calls it a function)
		{in: "costs $5", wantText: "costs $5", wantNoWarnings: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, errs := Parse([]any{tt.in}, Options{File: "b.yml", Owner: "p"})
			if errs != nil {
				t.Fatalf("errors: %v", errs)
			}
			if len(r.Should) != 1 || r.Should[0].Point == nil {
				t.Fatalf("rubric = %+v", r.Should)
			}
			pt := r.Should[0].Point
			if pt.Text != tt.wantText || pt.Fn != tt.wantFn || pt.HasArgs || pt.Multiplier != 1 {
				t.Errorf("point = text %q fn %q (args %v, multiplier %v), want text %q fn %q", pt.Text, pt.Fn, pt.HasArgs, pt.Multiplier, tt.wantText, tt.wantFn)
			}
			if tt.wantNoWarnings && len(r.Warnings) != 0 {
				t.Errorf("warnings: %v", r.Warnings)
			}
			if pt.IsFunction() != (tt.wantFn != "") {
				t.Errorf("IsFunction() = %v", pt.IsFunction())
			}
		})
	}
}
