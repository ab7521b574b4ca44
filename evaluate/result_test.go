package evaluate

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestResultOrderedMap(t *testing.T) {
	t.Parallel()
	var r Result
	r.Set("response", "the cat sat")
	r.Set("ground_truth", "the cat sat on the mat")
	r.Set("threshold", 0.5)
	r.Set("response", "replaced keeps its place")
	if got, want := r.Keys(), []string{"response", "ground_truth", "threshold"}; !slices.Equal(got, want) {
		t.Errorf("Keys() = %q; want %q", got, want)
	}
	if r.Len() != 3 {
		t.Errorf("Len() = %d", r.Len())
	}
	if v, ok := r.Get("response"); !ok || v != "replaced keeps its place" {
		t.Errorf("Get(response) = %v, %v", v, ok)
	}
	if _, ok := r.Get("missing"); ok {
		t.Error("Get(missing) found a value")
	}
	fields := r.Fields()
	fields[0].Value = "changed"
	if v, _ := r.Get("response"); v != "replaced keeps its place" {
		t.Error("Fields() did not return a copy")
	}
	// A result no evaluator made has no score and no verdict.
	if _, ok := r.Score(); ok {
		t.Error("Score() of a hand-made result reported a score")
	}
	if r.Passed() || r.Err() != nil {
		t.Errorf("hand-made result: Passed() = %v, Err() = %v", r.Passed(), r.Err())
	}
}

func TestResultJSON(t *testing.T) {
	t.Parallel()
	var r Result
	r.Set("response", "say \"hi\" <b>&</b>\nbye")
	r.Set("count", 3)
	r.Set("ratio", 0.667)
	r.Set("whole", 10.0)
	r.Set("list", []int{1, 2})
	r.Set("nothing", nil)

	wantCompact := `{"response":"say \"hi\" <b>&</b>\nbye","count":3,"ratio":0.667,"whole":10,"list":[1,2],"nothing":null}`
	b, err := r.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != wantCompact {
		t.Errorf("MarshalJSON =\n%s\nwant\n%s", b, wantCompact)
	}
	// json.Marshal HTML-escapes whatever a Marshaler returns; the JSON is the same.
	b, err = json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"response":"say \"hi\" \u003cb\u003e\u0026\u003c/b\u003e\nbye","count":3,"ratio":0.667,"whole":10,"list":[1,2],"nothing":null}`; string(b) != want {
		t.Errorf("json.Marshal =\n%s\nwant\n%s", b, want)
	}
	wantSpaced := `{"response": "say \"hi\" <b>&</b>\nbye", "count": 3, "ratio": 0.667, "whole": 10, "list": [1, 2], "nothing": null}`
	if got := r.String(); got != wantSpaced {
		t.Errorf("String() =\n%s\nwant\n%s", got, wantSpaced)
	}
	// Valid JSON with the keys in order.
	dec := json.NewDecoder(strings.NewReader(r.String()))
	var keys []string
	tok, _ := dec.Token()
	for dec.More() && tok != nil {
		k, _ := dec.Token()
		keys = append(keys, k.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(keys, r.Keys()) {
		t.Errorf("decoded keys %q; want %q", keys, r.Keys())
	}
	if got := (Result{}).String(); got != "{}" {
		t.Errorf("empty result String() = %q", got)
	}
}

func TestResultStringNested(t *testing.T) {
	t.Parallel()
	var r Result
	r.Set("criteria", []map[string]any{{"name": "a, b: \"c\\\", d"}, {"x": []int{1, 2}}})
	want := `{"criteria": [{"name": "a, b: \"c\\\", d"}, {"x": [1, 2]}]}`
	if got := r.String(); got != want {
		t.Errorf("String() =\n%s\nwant\n%s", got, want)
	}
}

func TestResultJSONError(t *testing.T) {
	t.Parallel()
	var r Result
	r.Set("score", math.NaN())
	if _, err := json.Marshal(r); err == nil {
		t.Error("json.Marshal of NaN succeeded")
	}
	want := `%!v(result key "score": json: unsupported value: NaN)`
	if got := r.String(); got != want {
		t.Errorf("String() = %q; want %q", got, want)
	}
	if got := r.Line(); got != `score="%!v(json: unsupported value: NaN)"` {
		t.Errorf("Line() = %q", got)
	}
}

func TestResultLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		fields []Field
		want   string
	}{
		{"spec example", []Field{{"response", "the cat sat"}, {"ground_truth", "the cat sat on the mat"}, {"threshold", 0.5}, {"f1_score", 0.667}, {"f1_result", "pass"}},
			`response="the cat sat" ground_truth="the cat sat on the mat" threshold=0.5 f1_score=0.667 f1_result=pass`},
		{"bare words", []Field{{"a", "café"}, {"b", "x-y.z"}}, `a=café b=x-y.z`},
		{"quoted", []Field{{"empty", ""}, {"eq", "a=b"}, {"quote", `say "hi"`}, {"nl", "line\nbreak"}, {"tab", "a\tb"}, {"nbsp", "a\u00a0b"}, {"bs", `a\b`}},
			`empty="" eq="a=b" quote="say \"hi\"" nl="line\nbreak" tab="a\tb" nbsp="a\u00a0b" bs="a\\b"`},
		{"control and invalid UTF-8", []Field{{"ctl", "a\x00b"}, {"bad", "\xff"}}, `ctl="a\x00b" bad="\xff"`},
		{"numbers and values", []Field{{"i", 3}, {"f", 10.0}, {"neg", -0.25}, {"t", true}, {"nil", nil}}, `i=3 f=10 neg=-0.25 t=true nil=null`},
		{"lists and objects", []Field{{"list", []string{"a b", "c"}}, {"obj", map[string]int{"x": 1}}}, `list="[\"a b\",\"c\"]" obj="{\"x\":1}"`},
		{"odd key", []Field{{"my key", "v"}}, `"my key"=v`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r Result
			for _, f := range tt.fields {
				r.Set(f.Key, f.Value)
			}
			if got := r.Line(); got != tt.want {
				t.Errorf("Line() =\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}
