package rubric

import (
	"encoding/json"
	"testing"

	"gopkg.in/yaml.v3"
)

func TestNormaliseFn(t *testing.T) {
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
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("errors = %v\nwant %s", errs, want)
	}
}

func TestParseLineOffset(t *testing.T) {
	var n yaml.Node
	if err := yaml.Unmarshal([]byte("should:\n  - ok\n  - 5\n"), &n); err != nil {
		t.Fatal(err)
	}
	list := n.Content[0].Content[1] // the value of should
	_, errs := Parse(list, Options{File: "rule.md", Owner: "Pack.Rule", OwnerKind: "rule", LineOffset: 1})
	want := `rule.md:4: error: rule "Pack.Rule": expected a point (a string, {$function: argument}, {"criterion": "citation"} or {text|fn, weight, citation}), found the number 5`
	if len(errs) != 1 || errs[0].Error() != want {
		t.Errorf("errors = %v\nwant %s", errs, want)
	}
}
