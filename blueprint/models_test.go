package blueprint

import (
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/points"
)

func TestIsCollection(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"CORE": true, "OPEN_SOURCE_CORE": true, "GPT4O_SNAPSHOTS": true, "core": false, "openai:gpt-4o": false,
		"CORE:X": false, "123": false, "": false, "Core": false,
	} {
		if got := isCollection(id); got != want {
			t.Errorf("IsCollection(%q) = %v, want %v", id, got, want)
		}
	}
}

func TestCollections(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "models"), 0o755)
	os.WriteFile(filepath.Join(dir, "models", "CORE.json"), []byte(`["a:1", " b : 2 ", "a:1"]`), 0o644)
	os.WriteFile(filepath.Join(dir, "models", "QUICK.json"), []byte(`["a:1"]`), 0o644)
	os.WriteFile(filepath.Join(dir, "models", "notes.json"), []byte(`{}`), 0o644) // not a collection name
	colls, err := LoadCollections(dir)
	if err != nil {
		t.Fatal(err)
	}
	models := []Model{{ID: "QUICK"}, {ID: "CORE"}, {ID: "c:3"}, {ID: "x:custom", Custom: &CustomModel{ID: "x:custom"}}}
	got, err := ResolveModels(models, colls)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range got {
		ids = append(ids, m.ID)
	}
	if want := []string{"a:1", "b:2", "c:3", "x:custom"}; !reflect.DeepEqual(ids, want) {
		t.Errorf("resolved %v, want %v", ids, want)
	}
	_, err = ResolveModels([]Model{{ID: "CORE"}, {ID: "FRONTIER"}, {ID: "LLAMAS"}}, colls)
	want := `model collections "FRONTIER", "LLAMAS" not found (defined: CORE, QUICK); pass --collections DIR with NAME.json files, or list model ids`
	if err == nil || err.Error() != want {
		t.Errorf("error %v\nwant %s", err, want)
	}
	os.WriteFile(filepath.Join(dir, "models", "BAD.json"), []byte(`{"not": "a list"}`), 0o644)
	if _, err := LoadCollections(filepath.Join(dir, "models")); err == nil || !strings.Contains(err.Error(), "BAD.json: expected a JSON list of model ids") {
		t.Errorf("bad collection: %v", err)
	}
	if _, err := LoadCollections(filepath.Join(dir, "nope")); err == nil {
		t.Error("a missing folder loads")
	}
}

// TestLoadCollectionsFor: a run reads only the collections it names (spec §2; Weval's
// resolveModelCollections in src/cli/commands/run-config.ts reads models/<NAME>.json for each
// placeholder and nothing else), so a broken collection elsewhere in the folder does not matter.
func TestLoadCollectionsFor(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "models"), 0o755)
	os.WriteFile(filepath.Join(dir, "models", "CORE.json"), []byte(`["a:1", " b : 2 "]`), 0o644)
	os.WriteFile(filepath.Join(dir, "models", "BROKEN.json"), []byte(`{"not": "a list"}`), 0o644)
	tests := []struct {
		name   string
		dir    string
		models []Model
		want   Collections
		err    string
	}{
		{name: "only the named collection is read", dir: dir, models: []Model{{ID: "CORE"}, {ID: "c:3"}, {ID: "CORE"}},
			want: Collections{"CORE": {"a:1", "b:2"}}},
		{name: "the models folder given directly", dir: filepath.Join(dir, "models"), models: []Model{{ID: "CORE"}},
			want: Collections{"CORE": {"a:1", "b:2"}}},
		{name: "no placeholder reads nothing", dir: dir, models: []Model{{ID: "c:3"}, {ID: "X", Custom: &CustomModel{ID: "X"}}}, want: Collections{}},
		{name: "a named broken collection", dir: dir, models: []Model{{ID: "BROKEN"}},
			err: filepath.Join(dir, "models", "BROKEN.json") + ": expected a JSON list of model ids: json: cannot unmarshal object into Go value of type []string"},
		{name: "a named collection without its file", dir: dir, models: []Model{{ID: "CORE"}, {ID: "FRONTIER"}},
			err: `model collection "FRONTIER" not found (defined: BROKEN, CORE); pass --collections DIR with NAME.json files, or list model ids`},
		{name: "no such folder", dir: filepath.Join(dir, "nope"), models: []Model{{ID: "CORE"}},
			err: "model collections: open " + filepath.Join(dir, "nope") + ": no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := LoadCollectionsFor(nil, tt.dir, tt.models)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("error %v\nwant  %s", err, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
	// LoadCollections (every file) fails on the broken one: the run must not use it.
	if _, err := LoadCollections(dir); err == nil {
		t.Error("LoadCollections read past the broken collection")
	}
}

func TestCustomModels(t *testing.T) {
	t.Parallel()
	bp := mustParse(t, "c.yml", `
models:
  - openai:gpt-4o-mini
  - id: 'local:llama'
    url: 'http://localhost:11434/v1/chat/completions'
    modelName: 'llama3:instruct'
    inherit: openai
    format: completions
    promptFormat: raw
    headers: {Authorization: 'Bearer ${KEY}'}
    parameters: {max_tokens: 150, stream: null}
    parameterMapping: {temperature: heat}
    reasoningEffort: high
    thinkingBudget: 1024
---
- {id: a, prompt: x}
`)
	cm := bp.Models[1].Custom
	want := &CustomModel{ID: "local:llama", URL: "http://localhost:11434/v1/chat/completions", ModelName: "llama3:instruct", Inherit: "openai",
		Format: "completions", PromptFormat: "raw", Headers: map[string]string{"Authorization": "Bearer ${KEY}"},
		Parameters: map[string]any{"max_tokens": 150.0, "stream": nil}, ParameterMapping: map[string]string{"temperature": "heat"},
		ReasoningEffort: "high", ThinkingBudget: ptr(1024.0),
		Lines: points.FieldLines{Object: 4, URL: 5, Headers: map[string]int{"Authorization": 10}}}
	if !reflect.DeepEqual(cm, want) {
		t.Errorf("custom model\n got %+v\nwant %+v", cm, want)
	}
	b, err := jsjson.Marshal(bp.Models)
	if err != nil {
		t.Fatal(err)
	}
	// null parameters survive (they remove a parameter from the request).
	if !strings.Contains(string(b), `"parameters":{"max_tokens":150,"stream":null}`) || !strings.HasPrefix(string(b), `["openai:gpt-4o-mini",{`) {
		t.Errorf("models JSON = %s", b)
	}
}

func ptr[T any](v T) *T { return &v }

func TestYAMLAnchorsAndMergeKeys(t *testing.T) {
	t.Parallel()
	bp := mustParse(t, "a.yml", `
title: T
---
- id: a
  prompt: &q "Shared question"
  should: &pts
    - $contains: x
- id: b
  prompt: *q
  should: *pts
- &base {id: c, prompt: "Base", render_as: html}
- <<: *base
  id: d
`)
	var got []string
	for _, p := range bp.Prompts {
		got = append(got, p.ID+":"+p.Messages[0].Text()+":"+p.RenderAs+":"+strconv.Itoa(len(p.Should)))
	}
	want := []string{"a:Shared question:markdown:1", "b:Shared question:markdown:1", "c:Base:html:0", "d:Base:html:0"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	// Numeric and boolean keys become strings, as in JavaScript.
	bp = mustParse(t, "k.yml", "- id: p\n  prompt: x\n  should:\n    - 1: \"cited\"\n    - true: \"also\"\n")
	if bp.Prompts[0].Should[0].Point.Text != "1" || bp.Prompts[0].Should[1].Point.Text != "true" {
		t.Errorf("points = %+v %+v", bp.Prompts[0].Should[0].Point, bp.Prompts[0].Should[1].Point)
	}
}

func TestParseFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "x.weval.yml")
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("- {id: a, prompt: q}\n"), 0o644)
	bp, err := ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(bp.ID, "__sub__x") || bp.File != path {
		t.Errorf("id %q file %q", bp.ID, bp.File)
	}
	if _, err := ParseFile(filepath.Join(dir, "missing.yml")); !os.IsNotExist(err) {
		t.Errorf("missing file: %v", err)
	}
}
