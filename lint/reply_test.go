package lint

import (
	"fmt"
	"strings"
	"testing"
)

func TestParseViolationsReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, js string
		want     string // the violations, one per line, or the error
	}{
		{"empty", `{"violations": []}`, ""},
		{"full", `{"violations":[{"line":3,"quoted_text":"in order to","context_before":"We ","context_after":" win","description":"d","analysis":"a","message":"Say 'to'.","suggestion":"s","fix":"to","confidence":0.9}]}`,
			`3 "in order to" ctx("We ", " win") msg="Say 'to'." sugg="s" fix="to" analysis="a" conf=0.9`},
		{"defaults", `{"violations":[{"quoted_text":"x","message":"m"}]}`, `0 "x" ctx("", "") msg="m" sugg="" fix="" analysis="" conf=1`},
		{"lenient types", `{"violations":[{"quoted_text":"x","message":"m","line":"12","confidence":"0.5","fix":null,"suggestion":7}]}`,
			`12 "x" ctx("", "") msg="m" sugg="" fix="" analysis="" conf=0.5`},
		{"float line", `{"violations":[{"quoted_text":"x","message":"m","line":4.0}]}`, `4 "x" ctx("", "") msg="m" sugg="" fix="" analysis="" conf=1`},
		{"unusable line ignored", `{"violations":[{"quoted_text":"x","message":"m","line":-3},{"quoted_text":"y","message":"m","line":"two"}]}`,
			"0 \"x\" ctx(\"\", \"\") msg=\"m\" sugg=\"\" fix=\"\" analysis=\"\" conf=1\n0 \"y\" ctx(\"\", \"\") msg=\"m\" sugg=\"\" fix=\"\" analysis=\"\" conf=1"},
		{"null confidence", `{"violations":[{"quoted_text":"x","message":"m","confidence":null}]}`, `0 "x" ctx("", "") msg="m" sugg="" fix="" analysis="" conf=1`},
		{"unknown fields", `{"violations":[{"quoted_text":"x","message":"m","extra":{"a":1}}],"notes":"hi"}`, `0 "x" ctx("", "") msg="m" sugg="" fix="" analysis="" conf=1`},
		{"missing quote", `{"violations":[{"message":"m","line":2}]}`,
			`error: violations[0].quoted_text: expected the exact words of the text that break the rule, found no quoted_text (fields: "line", "message")`},
		// An empty or null quote is kept: it becomes an unverified quote, as in the original
		// (tests/findings/finding-evidence-verifier.test.ts).
		{"empty quote", `{"violations":[{"quoted_text":"  ","message":"m"},{"quoted_text":null,"message":"n"}]}`,
			`0 "  " ctx("", "") msg="m" sugg="" fix="" analysis="" conf=1` + "\n" + `0 "" ctx("", "") msg="n" sugg="" fix="" analysis="" conf=1`},
		{"quote not a string", `{"violations":[{"quoted_text":["a"],"message":"m"}]}`,
			`error: violations[0].quoted_text: expected the exact words of the text that break the rule, found an array ["a"]`},
		{"missing message", `{"violations":[{"quoted_text":"x"},{"quoted_text":"y","message":"m"}]}`,
			`error: violations[0].message: expected a sentence saying what is wrong, found no message (fields: "quoted_text")`},
		{"second bad", `{"violations":[{"quoted_text":"x","message":"m"},{"quoted_text":"y","message":null}]}`,
			`error: violations[1].message: expected a sentence saying what is wrong, found null`},
		{"confidence out of range", `{"violations":[{"quoted_text":"x","message":"m","confidence":85}]}`,
			`error: violations[0].confidence: expected a number from 0 to 1, found 85`},
		{"confidence not a number", `{"violations":[{"quoted_text":"x","message":"m","confidence":"high"}]}`,
			`error: violations[0].confidence: expected a number from 0 to 1, found a string "high"`},
		{"no violations field", `{"criteria":[]}`, `error: violations: expected a "violations" array, found no such field (fields: "criteria")`},
		{"violations not an array", `{"violations":{"quoted_text":"x"}}`, `error: violations: expected an array, found an object {"quoted_text":"x"}`},
		{"violations null", `{"violations":null}`, `error: violations: expected an array, found null`},
		{"item not an object", `{"violations":["in order to"]}`, `error: violations[0]: expected an object, found a string "in order to"`},
		{"top level array", `[{"quoted_text":"x","message":"m"}]`, `error: expected a JSON object, found an array [{"quoted_text":"x","message":"m"}]`},
		{"not JSON", `nope`, `error: expected a JSON object, found text that is not JSON: "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs, err := parseViolationsReply(tt.js)
			var got string
			if err != nil {
				got = "error: " + err.Error()
			} else {
				var lines []string
				for _, v := range vs {
					lines = append(lines, fmt.Sprintf("%d %q ctx(%q, %q) msg=%q sugg=%q fix=%q analysis=%q conf=%g",
						v.Line, v.QuotedText, v.ContextBefore, v.ContextAfter, v.Message, v.Suggestion, v.Fix, v.Analysis, v.Confidence))
				}
				got = strings.Join(lines, "\n")
			}
			if got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestParseCriteriaReply(t *testing.T) {
	t.Parallel()
	r := mustRule(t, subjectiveRuleSrc) // criteria Value (Value Communication) and Tone
	tests := []struct {
		name, js string
		want     string
		warnings string
	}{
		{"by id", `{"criteria":[{"id":"Tone","name":"Tone","score":4,"summary":"s","reasoning":"r","violations":[]},{"id":"Value","name":"x","score":1,"violations":[{"quoted_text":"q","message":"m"}]}]}`,
			"Value 1 \"\" \"\" [q]\nTone 4 \"s\" \"r\" []", ""},
		{"by name, any case", `{"criteria":[{"name":"value communication","score":2},{"id":"wrong","name":"TONE","score":"3"}]}`,
			"Value 2 \"\" \"\" []\nTone 3 \"\" \"\" []", ""},
		{"id in another case", `{"criteria":[{"id":"value","score":2},{"id":"tone","score":3.0}]}`, "Value 2 \"\" \"\" []\nTone 3 \"\" \"\" []", ""},
		{"extra criterion warns", `{"criteria":[{"id":"Value","score":2},{"id":"Tone","score":3},{"id":"Clarity","name":"Clarity","score":4}]}`,
			"Value 2 \"\" \"\" []\nTone 3 \"\" \"\" []", `the reply rates a criterion the rule does not have ("Clarity"); ignored`},
		{"missing criterion", `{"criteria":[{"id":"Value","score":2}]}`,
			`error: criteria: expected a rating for every criterion (Value, Tone), found none for "Tone"`, ""},
		{"none rated", `{"criteria":[]}`, `error: criteria: expected a rating for every criterion (Value, Tone), found none for "Value", "Tone"`, ""},
		{"rated twice", `{"criteria":[{"id":"Value","score":2},{"name":"Value Communication","score":3},{"id":"Tone","score":3}]}`,
			`error: criteria[1]: expected one rating per criterion, found criterion "Value" rated twice`, ""},
		{"rating 0", `{"criteria":[{"id":"Value","score":0},{"id":"Tone","score":3}]}`, `error: criteria[0].score: expected an integer from 1 to 4, found 0`, ""},
		{"rating 5", `{"criteria":[{"id":"Value","score":2},{"id":"Tone","score":5}]}`, `error: criteria[1].score: expected an integer from 1 to 4, found 5`, ""},
		{"rating 2.5", `{"criteria":[{"id":"Value","score":2.5},{"id":"Tone","score":3}]}`, `error: criteria[0].score: expected an integer from 1 to 4, found 2.5`, ""},
		{"no score", `{"criteria":[{"id":"Value"},{"id":"Tone","score":3}]}`, `error: criteria[0].score: expected an integer from 1 to 4, found no score`, ""},
		{"bad violation", `{"criteria":[{"id":"Value","score":2,"violations":[{"quoted_text":"q"}]},{"id":"Tone","score":3}]}`,
			`error: criteria[0].violations[0].message: expected a sentence saying what is wrong, found no message (fields: "quoted_text")`, ""},
		{"null violations", `{"criteria":[{"id":"Value","score":2,"violations":null},{"id":"Tone","score":3}]}`, "Value 2 \"\" \"\" []\nTone 3 \"\" \"\" []", ""},
		{"no criteria field", `{"violations":[]}`, `error: criteria: expected a "criteria" array, found no such field (fields: "violations")`, ""},
		{"criteria not an array", `{"criteria":"Value: 4"}`, `error: criteria: expected an array, found a string "Value: 4"`, ""},
		{"entry not an object", `{"criteria":[4]}`, `error: criteria[0]: expected an object, found 4`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rs, warnings, err := parseCriteriaReply(tt.js, r.Criteria)
			var got string
			if err != nil {
				got = "error: " + err.Error()
			} else {
				var lines []string
				for _, c := range rs {
					var quotes []string
					for _, v := range c.Violations {
						quotes = append(quotes, v.QuotedText)
					}
					lines = append(lines, fmt.Sprintf("%s %d %q %q [%s]", c.Criterion.ID, c.Rating, c.Summary, c.Reasoning, strings.Join(quotes, ",")))
				}
				got = strings.Join(lines, "\n")
			}
			if got != tt.want || strings.Join(warnings, "\n") != tt.warnings {
				t.Errorf("got\n%s\nwarnings %q\nwant\n%s\nwarnings %q", got, warnings, tt.want, tt.warnings)
			}
		})
	}
}

func TestParseClaimsReply(t *testing.T) {
	t.Parallel()
	var many []string
	for i := range 12 {
		many = append(many, fmt.Sprintf(`{"claim":"c%d"}`, i))
	}
	tests := []struct{ js, want string }{
		{`{"claims":[]}`, ""},
		{`{"claims":[{"claim":" Go 1.0 was released in 2012. ","quoted_text":"Go 1.0","line":3}]}`, `"Go 1.0 was released in 2012." "Go 1.0" 3`},
		{`{"claims":[` + strings.Join(many, ",") + `]}`, `"c0" "" 0|"c1" "" 0|"c2" "" 0|"c3" "" 0|"c4" "" 0|"c5" "" 0|"c6" "" 0|"c7" "" 0|"c8" "" 0|"c9" "" 0`},
		{`{"claims":[{"quoted_text":"x"}]}`, `error: claims[0].claim: expected the claim as a sentence, found no claim (fields: "quoted_text")`},
		{`{"facts":[]}`, `error: claims: expected a "claims" array, found no such field (fields: "facts")`},
	}
	for _, tt := range tests {
		cs, err := parseClaimsReply(tt.js)
		var got string
		if err != nil {
			got = "error: " + err.Error()
		} else {
			var parts []string
			for _, c := range cs {
				parts = append(parts, fmt.Sprintf("%q %q %d", c.Claim, c.QuotedText, c.Line))
			}
			got = strings.Join(parts, "|")
		}
		if got != tt.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tt.js, got, tt.want)
		}
	}
}

// FuzzParseReplies feeds arbitrary text to the reply parsers: they may reject it, never panic,
// and what they accept keeps the contract.
func FuzzParseReplies(f *testing.F) {
	for _, s := range []string{
		`{"violations":[{"line":3,"quoted_text":"in order to","message":"m","confidence":0.9}]}`,
		`{"violations":[{"quoted_text":"x","message":"m","line":"12","confidence":"0.5"}]}`,
		`{"criteria":[{"id":"Value","score":2,"violations":[{"quoted_text":"q","message":"m"}]},{"name":"tone","score":"3"}]}`,
		`{"claims":[{"claim":"c","quoted_text":"q","line":1}]}`,
		`{"violations":null}`, `[]`, `null`, `{"criteria":[{"id":"Value","score":1e400}]}`, `{"violations":[{"quoted_text":"x","message":"m","line":1e308}]}`,
		`{"rules":[{"rule":"A","violations":[{"quoted_text":"x","message":"m","line":2}]},{"rule":"B","violations":[]}]}`,
		`{"rules":[{"rule":"A","violations":[]},{"rule":"A","violations":[{"quoted_text":"y","message":"m"}]},{"rule":"Z","violations":[]}]}`,
		`{"rules":[{"rule":null,"violations":[]}]}`, `{"rules":null}`,
	} {
		f.Add(s)
	}
	r := mustRule(f, subjectiveRuleSrc)
	f.Fuzz(func(t *testing.T, js string) {
		if vs, err := parseViolationsReply(js); err == nil {
			for _, v := range vs {
				// An empty quote is allowed (the violation is listed as unverified); a missing
				// message, a confidence outside 0–1 or a negative line never is.
				if strings.TrimSpace(v.Message) == "" || v.Confidence < 0 || v.Confidence > 1 || v.Line < 0 {
					t.Errorf("accepted a violation that breaks the contract: %+v", v)
				}
			}
		}
		if rs, _, err := parseCriteriaReply(js, r.Criteria); err == nil {
			if len(rs) != len(r.Criteria) {
				t.Errorf("%d ratings for %d criteria", len(rs), len(r.Criteria))
			}
			for i, c := range rs {
				if c.Criterion != r.Criteria[i] || c.Rating < 1 || c.Rating > 4 {
					t.Errorf("rating %d: %+v", i, c)
				}
			}
		}
		// The grouped reply (RulesPerCall): one list of violations per rule asked about, a rule
		// found only when the reply has an entry for it, one warning per entry dropped.
		ids := []string{"A", "B"}
		if gr, err := parseGroupReply(js, ids); err == nil {
			if len(gr.violations) != len(ids) || len(gr.found) != len(ids) {
				t.Errorf("%d lists and %d found for %d rules", len(gr.violations), len(gr.found), len(ids))
			}
			for k := range ids {
				if !gr.found[k] && len(gr.violations[k]) > 0 {
					t.Errorf("rule %s not found but has violations", ids[k])
				}
				for _, v := range gr.violations[k] {
					if strings.TrimSpace(v.Message) == "" || v.Confidence < 0 || v.Confidence > 1 || v.Line < 0 {
						t.Errorf("accepted a violation that breaks the contract: %+v", v)
					}
				}
			}
		}
		if cs, err := parseClaimsReply(js); err == nil && len(cs) > MaxClaims {
			t.Errorf("%d claims, more than %d", len(cs), MaxClaims)
		}
	})
}
