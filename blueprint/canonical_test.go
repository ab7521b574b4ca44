package blueprint

import (
	"reflect"
	"strconv"
	"testing"
)

// The golden ids of spec §2: values the original Weval produces.
func TestPromptHashIDGolden(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, src, wantID, wantCanonical string
	}{
		{
			name:   "prompt and ideal (YAML)",
			file:   "a.yml",
			src:    "prompt: \"This prompt needs an ID.\"\nideal: \"An ideal response.\"\n",
			wantID: "hash-d35001ad5740",
			wantCanonical: `{"idealResponse":"An ideal response.","messages":[{"content":"This prompt needs an ID.","role":"user"}],` +
				`"render_as":"markdown"}`,
		},
		{
			name:          "prompt only (YAML)",
			file:          "b.yml",
			src:           "- prompt: \"What is 2+2?\"\n",
			wantID:        "hash-44517203095f",
			wantCanonical: `{"messages":[{"content":"What is 2+2?","role":"user"}],"render_as":"markdown"}`,
		},
		{
			name:          "promptText (JSON)",
			file:          "c.json",
			src:           `{"title": "T", "prompts": [{"promptText": "What is 2+2?"}]}`,
			wantID:        "hash-44517203095f",
			wantCanonical: `{"messages":[{"content":"What is 2+2?","role":"user"}],"render_as":"markdown"}`,
		},
		{
			name:          "idealResponse alias (JSON)",
			file:          "d.json",
			src:           `{"prompts": [{"promptText": "This prompt needs an ID.", "idealResponse": "An ideal response."}]}`,
			wantID:        "hash-d35001ad5740",
			wantCanonical: `{"idealResponse":"An ideal response.","messages":[{"content":"This prompt needs an ID.","role":"user"}],"render_as":"markdown"}`,
		},
		// Issue 20: the ids below are the ones weval-org/app's own parser gives
		// (src/lib/blueprint-parser.ts, parseAndNormalizeBlueprint, run under Node with its
		// js-yaml and json-stable-stringify) for the inputs of its tests.
		{
			// src/lib/__tests__/blueprint-parser.test.ts, "should not treat lone $ as a function".
			name:          "lone $ is a text point (YAML)",
			file:          "e.yml",
			src:           "models:\n  - openai:gpt-4o-mini\n---\n- prompt: \"Test\"\n  should:\n    - \"$\"\n",
			wantID:        "hash-04fee1b09792",
			wantCanonical: `{"messages":[{"content":"Test","role":"user"}],"points":[{"multiplier":1,"text":"$"}],"render_as":"markdown"}`,
		},
		{
			// The same test's "$" beside a zero-argument call ("should parse string starting with $
			// as zero-arg function call"): the call has no fnArgs.
			name:          "lone $ and $is_json (JSON)",
			file:          "f.json",
			src:           `{"prompts": [{"promptText": "Test", "points": ["$", "$is_json"]}]}`,
			wantID:        "hash-ca8781b5f798",
			wantCanonical: `{"messages":[{"content":"Test","role":"user"}],"points":[{"multiplier":1,"text":"$"},{"fn":"is_json","multiplier":1}],"render_as":"markdown"}`,
		},
		// A prompt's own temperature is kept and hashed: src/lib/blueprint-parser.ts, "Normalize
		// temperature at prompt level" (Weval's tests have no case of it).
		{
			name:          "prompt temperature (YAML)",
			file:          "g.yml",
			src:           "- prompt: \"What is 2+2?\"\n  temperature: 0.7\n",
			wantID:        "hash-718b3925498f",
			wantCanonical: `{"messages":[{"content":"What is 2+2?","role":"user"}],"render_as":"markdown","temperature":0.7}`,
		},
		{
			name:          "prompt temperature 1.0 is the number 1 (JSON)",
			file:          "h.json",
			src:           `{"prompts": [{"promptText": "What is 2+2?", "temperature": 1.0}]}`,
			wantID:        "hash-6ace8798125f",
			wantCanonical: `{"messages":[{"content":"What is 2+2?","role":"user"}],"render_as":"markdown","temperature":1}`,
		},
		{
			name:          "prompt temperature 0 is hashed too (YAML)",
			file:          "i.yml",
			src:           "- prompt: \"What is 2+2?\"\n  temperature: 0\n",
			wantID:        "hash-13547286bf05",
			wantCanonical: `{"messages":[{"content":"What is 2+2?","role":"user"}],"render_as":"markdown","temperature":0}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := mustParse(t, tt.file, tt.src)
			p := bp.Prompts[0]
			if got := canonicalPromptJSON(p); got != tt.wantCanonical {
				t.Errorf("canonical JSON\n got %s\nwant %s", got, tt.wantCanonical)
			}
			if p.ID != tt.wantID || !p.HashedID {
				t.Errorf("id = %q (hashed %v), want %q", p.ID, p.HashedID, tt.wantID)
			}
		})
	}
}

func TestCanonicalPromptWithPoints(t *testing.T) {
	t.Parallel()
	src := `
- prompt: "Q"
  weight: 2
  should:
    - "Text point"
    - "Cited": "Source 1"
    - $contains: "x"
    - $is_json
    - fn: $match
      arg: "^a"
      weight: 1.5
      citation: "Rule 5"
    - - $icontains: "y"
      - "Path text"
  should_not:
    - $contains: "bad"
`
	bp := mustParse(t, "p.yml", src)
	want := `{"messages":[{"content":"Q","role":"user"}],` +
		`"points":[{"multiplier":1,"text":"Text point"},{"citation":"Source 1","multiplier":1,"text":"Cited"},` +
		`{"fn":"contains","fnArgs":"x","multiplier":1},{"fn":"is_json","multiplier":1},` +
		`{"citation":"Rule 5","fn":"matches","fnArgs":"^a","multiplier":1.5},` +
		`[{"fn":"icontains","fnArgs":"y","multiplier":1},{"multiplier":1,"text":"Path text"}]],` +
		`"render_as":"markdown","should_not":[{"fn":"contains","fnArgs":"bad","multiplier":1}],"weight":2}`
	if got := canonicalPromptJSON(bp.Prompts[0]); got != want {
		t.Errorf("canonical JSON\n got %s\nwant %s", got, want)
	}
}

func mustParse(t testing.TB, file, src string) *Blueprint {
	t.Helper()
	bp, err := Parse([]byte(src), ParseOptions{File: file})
	if err != nil {
		t.Fatalf("Parse(%s): %v", file, err)
	}
	return bp
}

// TestHeaderNoCacheIsCopiedIntoPrompts: the header's noCache is each prompt's default and part
// of its hashed id. Reproduces weval-org/app src/lib/__tests__/blueprint-parser.test.ts,
// "noCache Normalization" (its two tests, with the ids removed so they are hashed); the ids are
// those src/lib/blueprint-parser.ts gives the same input.
func TestHeaderNoCacheIsCopiedIntoPrompts(t *testing.T) {
	t.Parallel()
	prompts := `- prompt: "Inherits global noCache=true"
- prompt: "Overrides global with noCache=false"
  noCache: false
- prompt: "Explicitly sets noCache=true"
  noCache: true
`
	tests := []struct {
		name, src   string
		wantNoCache []string
		wantIDs     []string
		wantFirst   string // the first prompt's canonical JSON
	}{
		{
			name:        "global noCache with prompt-level overrides",
			src:         "noCache: true\n---\n" + prompts,
			wantNoCache: []string{"true", "false", "true"},
			wantIDs:     []string{"hash-dfa2ee7f60d0", "hash-de2266996e7e", "hash-97d0be4a3aca"},
			wantFirst:   `{"messages":[{"content":"Inherits global noCache=true","role":"user"}],"noCache":true,"render_as":"markdown"}`,
		},
		{
			name:        "header noCache false is copied too",
			src:         "noCache: false\n---\n" + prompts,
			wantNoCache: []string{"false", "false", "true"},
			wantIDs:     []string{"hash-623598e95248", "hash-de2266996e7e", "hash-97d0be4a3aca"},
			wantFirst:   `{"messages":[{"content":"Inherits global noCache=true","role":"user"}],"noCache":false,"render_as":"markdown"}`,
		},
		{
			name:        "no header noCache",
			src:         prompts,
			wantNoCache: []string{"unset", "false", "true"},
			wantIDs:     []string{"hash-c47055c1c509", "hash-de2266996e7e", "hash-97d0be4a3aca"},
			wantFirst:   `{"messages":[{"content":"Inherits global noCache=true","role":"user"}],"render_as":"markdown"}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := mustParse(t, "nocache.yml", tt.src)
			var noCache, ids []string
			for _, p := range bp.Prompts {
				ids = append(ids, p.ID)
				if p.NoCache == nil {
					noCache = append(noCache, "unset")
				} else {
					noCache = append(noCache, strconv.FormatBool(*p.NoCache))
				}
			}
			if !reflect.DeepEqual(noCache, tt.wantNoCache) || !reflect.DeepEqual(ids, tt.wantIDs) {
				t.Errorf("noCache %q ids %q\nwant    %q ids %q", noCache, ids, tt.wantNoCache, tt.wantIDs)
			}
			if got := canonicalPromptJSON(bp.Prompts[0]); got != tt.wantFirst {
				t.Errorf("canonical JSON\n got %s\nwant %s", got, tt.wantFirst)
			}
		})
	}
}
