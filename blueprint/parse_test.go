package blueprint

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsjson"
)

// summary is a compact view of a parsed blueprint for comparisons.
type summary struct {
	Title   string
	Models  []string
	Prompts []string // id: rendered messages
}

func summarize(bp *Blueprint) summary {
	s := summary{Title: bp.Title}
	for _, m := range bp.Models {
		s.Models = append(s.Models, m.ID)
	}
	for _, p := range bp.Prompts {
		var parts []string
		for _, m := range p.Messages {
			c := "null"
			if m.Content != nil {
				c = *m.Content
			}
			parts = append(parts, m.Role+"="+c)
		}
		s.Prompts = append(s.Prompts, p.ID+": "+strings.Join(parts, " | "))
	}
	return s
}

func TestStructures(t *testing.T) {
	t.Parallel()
	header := summary{Title: "T", Models: []string{"openai:gpt-4o-mini"}, Prompts: []string{"p1: user=A", "p2: user=B"}}
	noHeader := summary{Models: []string{"CORE"}, Prompts: []string{"p1: user=A", "p2: user=B"}}
	tests := []struct {
		name, file, src string
		want            summary
	}{
		{"header + prompts list", "s.yml", "title: T\nmodels: [openai:gpt-4o-mini]\n---\n- id: p1\n  prompt: A\n- id: p2\n  prompt: B\n", header},
		{"header + one document per prompt", "s.yml", "title: T\nmodels: [openai:gpt-4o-mini]\n---\nid: p1\nprompt: A\n---\nid: p2\nprompt: B\n", header},
		{"stream of prompt documents", "s.yml", "id: p1\nprompt: A\n---\nid: p2\nprompt: B\n", noHeader},
		{"empty documents are ignored", "s.yml", "---\n---\nid: p1\nprompt: A\n---\n\n---\nid: p2\nprompt: B\n---\n", noHeader},
		{"list of prompts", "s.yml", "- id: p1\n  prompt: A\n- id: p2\n  prompt: B\n", noHeader},
		{"single document with prompts", "s.yml", "title: T\nmodels: [openai:gpt-4o-mini]\nprompts:\n  - id: p1\n    prompt: A\n  - id: p2\n    prompt: B\n", header},
		{"JSON with prompts", "s.json", `{"title": "T", "models": ["openai:gpt-4o-mini"], "prompts": [{"id": "p1", "promptText": "A"}, {"id": "p2", "prompt": "B"}]}`, header},
		{"JSON list of prompts", "s.json", `[{"id": "p1", "prompt": "A"}, {"id": "p2", "prompt": "B"}]`, noHeader},
		{"header with prompt-like key is a prompt", "s.yml", "id: p1\nprompt: A\nshould: [x]\n---\nid: p2\nprompt: B\n", noHeader},
		{"configTitle alias", "s.yml", "configTitle: T\nmodels: [openai:gpt-4o-mini]\n---\n- {id: p1, prompt: A}\n- {id: p2, prompt: B}\n", header},
		{"model ids tolerate spaces around the colon", "s.yml", "title: T\nmodels: [' openai : gpt-4o-mini ']\n---\n- {id: p1, prompt: A}\n- {id: p2, prompt: B}\n", header},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := summarize(mustParse(t, tt.file, tt.src))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestHeaderFields(t *testing.T) {
	t.Parallel()
	src := `
configId: ignored
title: T
description: D
author: {name: Ada, url: "https://example.org"}
citations: ["Paper A", {name: "Paper B", url: "https://b.example"}]
tags: [x, y]
systemPrompt: "Be brief."
temperatures: [0, 0.5]
render_as: html
noCache: true
evaluationConfig:
  llm-coverage:
    judges:
      - {id: j1, model: "openai:gpt-4o", approach: holistic}
    useExperimentalScale: true
point_defs:
  ok: "return true;"
tools:
  - name: calc
    description: "Evaluate"
    schema: {type: object}
toolUse: {enabled: true, mode: trace-only, maxSteps: 3, outputFormat: json-line}
externalServices:
  checker: {url: "http://localhost:1/check", method: POST, timeout_ms: 500, max_retries: 0, headers: {X-Key: "${KEY}"}}
context: {corpus: [1, 2]}
---
- id: p
  prompt: Q
`
	bp := mustParse(t, "dir/h.yml", src)
	if bp.ID != "dir__h" || bp.Title != "T" || bp.Description != "D" || *bp.System != "Be brief." || bp.RenderAs != "html" || !*bp.NoCache {
		t.Errorf("header = %+v", bp)
	}
	if !reflect.DeepEqual(bp.References, []Reference{{Title: "Paper A"}, {Title: "Paper B", URL: "https://b.example"}}) {
		t.Errorf("references = %+v", bp.References)
	}
	if !reflect.DeepEqual(bp.Temperatures, []float64{0, 0.5}) || !reflect.DeepEqual(bp.Tags, []string{"x", "y"}) {
		t.Errorf("temperatures %v tags %v", bp.Temperatures, bp.Tags)
	}
	lc := bp.Evaluation.LLMCoverage
	if !lc.UseExperimentalScale || !reflect.DeepEqual(lc.Judges, []JudgeSpec{{ID: "j1", Model: "openai:gpt-4o", Approach: "holistic"}}) {
		t.Errorf("llm-coverage = %+v", lc)
	}
	if bp.ToolUse.Mode != "trace-only" || *bp.ToolUse.MaxSteps != 3 || bp.Tools[0].Name != "calc" {
		t.Errorf("tools %+v toolUse %+v", bp.Tools, bp.ToolUse)
	}
	svc := bp.Services["checker"]
	if svc.URL != "http://localhost:1/check" || svc.TimeoutMS != 500 || *svc.MaxRetries != 0 || svc.Headers["X-Key"] != "${KEY}" {
		t.Errorf("service = %+v", svc)
	}
	if bp.Prompts[0].RenderAs != "html" {
		t.Errorf("prompt render_as = %q, want the header's html", bp.Prompts[0].RenderAs)
	}
	wantWarn := []string{`dir/h.yml:2: warning: "configId" is ignored: the blueprint id comes from the file path ("dir__h"); remove it`}
	if got := diagStrings(bp.Warnings); !reflect.DeepEqual(got, wantWarn) {
		t.Errorf("warnings\n got %q\nwant %q", got, wantWarn)
	}
}

func TestPromptFields(t *testing.T) {
	t.Parallel()
	src := `
- id: full
  description: "About"
  promptText: "Q"
  idealResponse: "I"
  systemPrompt: "S"
  reference: {title: "Ref", url: "https://r.example"}
  importance: 3
  expectations: ["E"]
  should_not: ["N"]
  requiredTools: [a]
  prohibitedTools: [b]
  maxCalls: 4
  render_as: plaintext
  noCache: true
  tags: [t]
- id: ai-alias
  messages:
    - system: "Sys"
    - user: "Hi"
    - ai: "Hello"
    - role: user
      content: "More"
    - assistant: null
    - user: "Last"
`
	bp := mustParse(t, "p.yml", src)
	p := bp.Prompts[0]
	if p.Description != "About" || *p.Ideal != "I" || *p.System != "S" || *p.Weight != 3 || p.RenderAs != "plaintext" || !*p.NoCache {
		t.Errorf("prompt = %+v", p)
	}
	if !reflect.DeepEqual(p.Citation, map[string]any{"title": "Ref", "url": "https://r.example"}) {
		t.Errorf("citation = %#v", p.Citation)
	}
	if len(p.Should) != 1 || p.Should[0].Point.Text != "E" || len(p.ShouldNot) != 1 || p.ShouldNot[0].Point.Text != "N" {
		t.Errorf("rubric = %+v / %+v", p.Should, p.ShouldNot)
	}
	if !reflect.DeepEqual(p.RequiredTools, []string{"a"}) || !reflect.DeepEqual(p.ProhibitedTools, []string{"b"}) || *p.MaxCalls != 4 {
		t.Errorf("tools = %v %v %v", p.RequiredTools, p.ProhibitedTools, p.MaxCalls)
	}
	got := summarize(bp).Prompts[1]
	want := "ai-alias: system=Sys | user=Hi | assistant=Hello | user=More | assistant=null | user=Last"
	if got != want {
		t.Errorf("messages\n got %s\nwant %s", got, want)
	}
	if n := bp.Prompts[1].generatedTurnCount(); n != 2 {
		t.Errorf("GeneratedTurns = %d, want 2", n)
	}
}

func TestPointForms(t *testing.T) {
	t.Parallel()
	src := `
point_defs:
  jsdef: "return r.length > 3;"
  objdef: {$icontains: "needle", weight: 2, citation: "Def cite"}
  fulldef: {fn: "matches", arg: "^x", weight: 3}
---
- id: p
  prompt: Q
  should:
    - "Plain text"
    - "$is_json"
    - $contains: "a"
    - $contain_any_of: ["a", "b"]
    - "Criterion": "Citation"
    - ? |
        Multi-line
        criterion
      : "Block citation"
    - text: "Full text"
      weight: 2.5
      citation: {title: "T"}
    - point: "rubric.Point alias"
      multiplier: 0.5
    - fn: $imatch
      fnArgs: "x"
    - fn: not_start_with
      arg: "Sorry"
    - {$expr: "r.length > 0", weight: 3}
    - $external: {url: "http://localhost:1"}
    - $ref: jsdef
    - {$ref: jsdef, weight: 4, citation: "Ref cite"}
    - $ref: objdef
    - {$ref: objdef, weight: 5}
    - fn: ref
      arg: fulldef
    - - "Path A1"
      - $contains: "A2"
    - - "Path B1"
      - $ends_with: "."
`
	bp := mustParse(t, "p.yml", src)
	var got []string
	for _, e := range bp.Prompts[0].Should {
		b, err := jsjson.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(b))
	}
	want := []string{
		`{"text":"Plain text","multiplier":1}`,
		`{"fn":"is_json","multiplier":1}`,
		`{"fn":"contains","fnArgs":"a","multiplier":1}`,
		`{"fn":"contains_any_of","fnArgs":["a","b"],"multiplier":1}`,
		`{"text":"Criterion","multiplier":1,"citation":"Citation"}`,
		`{"text":"Multi-line\ncriterion\n","multiplier":1,"citation":"Block citation"}`,
		`{"text":"Full text","multiplier":2.5,"citation":{"title":"T"}}`,
		`{"text":"rubric.Point alias","multiplier":0.5}`,
		`{"fn":"imatches","fnArgs":"x","multiplier":1}`,
		`{"fn":"not_starts_with","fnArgs":"Sorry","multiplier":1}`,
		`{"fn":"js","fnArgs":"r.length > 0","multiplier":3}`,
		`{"fn":"call","fnArgs":{"url":"http://localhost:1"},"multiplier":1}`,
		`{"fn":"js","fnArgs":"return r.length > 3;","multiplier":1}`,
		`{"fn":"js","fnArgs":"return r.length > 3;","multiplier":4,"citation":"Ref cite"}`,
		`{"fn":"icontains","fnArgs":"needle","multiplier":2,"citation":"Def cite"}`,
		`{"fn":"icontains","fnArgs":"needle","multiplier":5,"citation":"Def cite"}`,
		`{"fn":"matches","fnArgs":"^x","multiplier":3}`,
		`[{"text":"Path A1","multiplier":1},{"fn":"contains","fnArgs":"A2","multiplier":1}]`,
		`[{"text":"Path B1","multiplier":1},{"fn":"ends_with","fnArgs":".","multiplier":1}]`,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("points\n got %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
	}
	if len(bp.Warnings) != 0 {
		t.Errorf("unexpected warnings: %q", diagStrings(bp.Warnings))
	}
	for _, pt := range bp.Prompts[0].Rubric().Points() {
		if pt.IsFunction() && pt.Err() != nil {
			t.Errorf("%s: %v", pt.KeyPointText(), pt.Err())
		}
	}
}

func TestIDFromPath(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"subdir/my-test.yml":          "subdir__my-test",
		"my-test.yaml":                "my-test",
		"a/b/c.json":                  "a__b__c",
		"x.civic.yml":                 "x",
		"x.weval.yaml":                "x",
		"./local.yml":                 "local",
		"../up/there.yml":             "up__there",
		"/abs/path.yml":               "abs__path",
		`win\style\path.yml`:          "win__style__path",
		"blueprints/compass/bold.yml": "blueprints__compass__bold",
		"noext":                       "noext",
	}
	for in, want := range tests {
		if got := idFromPath(in); got != want {
			t.Errorf("IDFromPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func diagStrings(ds finding.Problems) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Labeled())
	}
	return out
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, src string
		want            []string
	}{
		{"YAML syntax", "bad.yml", "title: x\nfoo: bar: baz\n",
			[]string{`bad.yml:2: error: invalid YAML: mapping values are not allowed in this context`}},
		{"JSON syntax", "bad.json", "{\n  \"prompts\": [\n    {\"prompt\": \"x\",}\n  ]\n}",
			[]string{`bad.json:3: error: invalid JSON: invalid character '}' looking for beginning of object key string`}},
		{"JSON trailing data", "bad.json", "{\"prompts\": []}\n{}", []string{`bad.json:2: error: invalid JSON: unexpected data after the top-level value`}},
		{"duplicate key", "dup.yml", "- id: a\n  prompt: x\n  prompt: y\n",
			[]string{`dup.yml:3: error: invalid YAML: duplicate key "prompt" (first at line 2)`}},
		{"empty file", "e.yml", "# nothing\n", []string{`e.yml: error: expected a blueprint (a header and prompts), found an empty file`}},
		{"no prompt or messages", "n.yml", "- id: a\n  should: [x]\n", []string{`n.yml:1: error: prompt "a": expected prompt (or promptText) or messages, found neither`}},
		{"weight out of range", "w.yml", "- id: a\n  prompt: x\n  should:\n    - text: t\n      weight: 11\n",
			[]string{`w.yml:5: error: prompt "a": expected point weight to be a number between 0.1 and 10, found the number 11`}},
		{"prompt weight", "w.yml", "- id: a\n  prompt: x\n  importance: 0\n",
			[]string{`w.yml:3: error: prompt "a": expected importance to be a number between 0.1 and 10, found the number 0`}},
		{"bad role", "r.yml", "- id: a\n  messages:\n    - bot: hi\n",
			[]string{`r.yml:3: error: prompt "a": message 1: expected the role user, assistant, ai or system, found "bot"`}},
		{"empty content", "c.yml", "- id: a\n  messages:\n    - user: \"\"\n",
			[]string{`c.yml:3: error: prompt "a": message 1 (user): expected non-empty content, found an empty string`}},
		{"null user content", "c.yml", "- id: a\n  messages:\n    - user: null\n",
			[]string{`c.yml:3: error: prompt "a": message 1 (user): expected the content to be a string, found null`}},
		{"ends with authored assistant", "c.yml", "- id: a\n  messages:\n    - user: hi\n    - assistant: hello\n",
			[]string{`c.yml:4: error: prompt "a": expected the last message to be from the user (or assistant: null, a turn to generate), found an authored assistant message`}},
		{"render_as", "c.yml", "- id: a\n  prompt: x\n  render_as: pdf\n",
			[]string{`c.yml:3: error: prompt "a": expected render_as to be "markdown", "html" or "plaintext", found the string "pdf"`}},
		{"toolUse mode", "t.yml", "title: t\ntoolUse: {mode: auto}\n---\n- {id: a, prompt: x}\n",
			[]string{`t.yml:2: error: expected toolUse.mode to be "trace-only" (tools are never executed; models emit TOOL_CALL lines), found the string "auto"`}},
		{"unknown ref", "r.yml", "point_defs: {a: 'return 1'}\n---\n- id: p\n  prompt: x\n  should:\n    - $ref: b\n",
			[]string{`r.yml:6: error: prompt "p": $ref "b" is not defined in point_defs (defined: a)`}},
		{"text and fn", "b.yml", "- id: p\n  prompt: x\n  should:\n    - {text: t, fn: contains}\n",
			[]string{`b.yml:4: error: prompt "p": a point cannot have both text and fn, found a mapping with keys "text", "fn"`}},
		{"two functions", "b.yml", "- id: p\n  prompt: x\n  should:\n    - {$contains: a, $icontains: b}\n",
			[]string{`b.yml:4: error: prompt "p": expected one $function per point, found $contains and $icontains`}},
		{"number point", "b.yml", "- id: p\n  prompt: x\n  should:\n    - 42\n",
			[]string{`b.yml:4: error: prompt "p": expected a point (a string, {$function: argument}, {"criterion": "citation"} or {text|fn, weight, citation}), found the number 42`}},
		{"nested path", "b.yml", "- id: p\n  prompt: x\n  should:\n    - - - deep\n",
			[]string{`b.yml:4: error: prompt "p": should item 1: expected an alternative path to be a list of points, found a nested list inside it (paths cannot nest)`}},
		// Weval: "Prompt temperature must be a number" (src/lib/blueprint-parser.ts).
		{"prompt temperature", "t.yml", "- id: a\n  prompt: x\n  temperature: hot\n",
			[]string{`t.yml:3: error: prompt "a": expected temperature to be a number from 0 to 2, found the string "hot"`}},
		{"null prompt temperature", "t.yml", "- id: a\n  prompt: x\n  temperature: null\n",
			[]string{`t.yml:3: error: prompt "a": expected temperature to be a number from 0 to 2, found null`}},
		{"unnamed prompt", "u.yml", "- prompt: 5\n", []string{`u.yml:1: error: prompt "#1": expected prompt to be a string, found the number 5`}},
		{"custom model", "m.yml", "models:\n  - {id: 'x:y', url: 'http://h', inherit: openai}\n---\n- {id: a, prompt: x}\n",
			[]string{`m.yml:2: error: custom model: expected "modelName" to be a non-empty string, found nothing`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.src), ParseOptions{File: tt.file})
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse: got %v, want a *ParseError", err)
			}
			if got := diagStrings(pe.Errors()); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("errors\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestParseWarnings(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      []string
	}{
		{"single point paths", "- id: p\n  prompt: x\n  should:\n    - - $contains: a\n    - - $contains: b\n", []string{
			`w.yml:4: warning: prompt "p": should item 1 is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting ("- - x" → "- x")`,
			`w.yml:5: warning: prompt "p": should item 2 is an alternative path with a single point: nested lists are OR-alternatives and only the best path counts; if the point is simply required, remove the extra nesting ("- - x" → "- x")`,
		}},
		{"quoted function", "- id: p\n  prompt: x\n  should:\n    - \"$icontains: 'war'\"\n", []string{
			`w.yml:4: warning: prompt "p": "$icontains: 'war'" is a quoted function call: the quotes make it one string, which names a function "icontains: 'war'" that does not exist (the point scores 0); write it as a mapping without the outer quotes`,
		}},
		{"unknown function", "- id: p\n  prompt: x\n  should:\n    - $contians: a\n", []string{
			`w.yml:4: warning: prompt "p": unknown point function "$contians" (did you mean $contains?)`,
		}},
		{"bad regex", "- id: p\n  prompt: x\n  should:\n    - $matches: \"(unclosed\"\n", []string{
			`w.yml:4: warning: prompt "p": $matches: invalid regular expression /(unclosed/: missing closing )`,
		}},
		{"bad arguments", "- id: p\n  prompt: x\n  should:\n    - $word_count_between: 10\n", []string{
			`w.yml:4: warning: prompt "p": $word_count_between: expected [min, max] with 0 ≤ min ≤ max, found the number 10`,
		}},
		{"should and expect", "- id: p\n  prompt: x\n  should: [a]\n  expect: [b]\n", []string{
			`w.yml:4: warning: prompt "p": both "should" and "expect" are given; only "should" is used`,
		}},
		{"messages and prompt", "- id: p\n  prompt: x\n  messages: [{user: y}]\n", []string{
			`w.yml:2: warning: prompt "p": both messages and prompt are given; prompt is ignored`,
		}},
		{"unknown fields", "title: t\nmodle: x\n---\n- id: p\n  prompt: x\n  shuld: [a]\n", []string{
			`w.yml:2: warning: unknown header field "modle" (ignored)`,
			`w.yml:6: warning: prompt "p": unknown prompt field "shuld" (ignored)`,
		}},
		{"duplicate id", "- {id: p, prompt: x}\n- {id: p, prompt: y}\n", []string{
			`w.yml:2: warning: prompt "p": duplicate prompt id (first used at line 1); this prompt is renamed "p-2" so both are scored; give it an id of its own`,
		}},
		{"consecutive user turns", "- id: p\n  messages:\n    - user: a\n    - user: b\n", []string{
			`w.yml:4: warning: prompt "p": messages 1 and 2 are both "user": user and assistant turns should alternate (system messages aside); they are sent as written, and some providers merge or reject consecutive turns`,
		}},
		{"no prompts", "title: t\nmodels: [a:b]\n", []string{
			`w.yml:1: warning: the blueprint has no prompts (expected prompt documents after the header, or a prompts list)`,
		}},
		{"prompt temperature under the header's", "temperatures: [0, 0.7]\n---\n- id: p\n  prompt: x\n  temperature: 1.0\n", []string{
			`w.yml:5: warning: prompt "p": temperature 1 is not used: the header's temperature(s) apply to every prompt, as in Weval; remove one or the other`,
		}},
		{"empty path", "- id: p\n  prompt: x\n  should:\n    - []\n    - a\n", []string{
			`w.yml:4: warning: prompt "p": should item 1 is an empty list (ignored)`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bp := mustParse(t, "w.yml", tt.src)
			if got := diagStrings(bp.Warnings); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("warnings\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestHashedPromptWarningsNameTheHash(t *testing.T) {
	t.Parallel()
	bp := mustParse(t, "h.yml", "- prompt: \"What is 2+2?\"\n  should:\n    - $nope: 1\n")
	want := []string{`h.yml:3: warning: prompt "` + bp.Prompts[0].ID + `": unknown point function "$nope"`}
	if got := diagStrings(bp.Warnings); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
