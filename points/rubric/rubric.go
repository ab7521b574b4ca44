package rubric

import (
	"bytes"
	"fmt"
	"strconv"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/redact"
)

// Entry is one item of a rubric block: a single point, or an alternative path (a nested list
// in the blueprint) whose points are scored together against the block's other paths.
type Entry struct {
	Point *Point
	Path  []*Point
}

// IsPath reports whether the entry is an alternative path.
func (e Entry) IsPath() bool { return e.Point == nil }

// MarshalJSON writes a point as an object and a path as a list.
func (e Entry) MarshalJSON() ([]byte, error) {
	if e.Point != nil {
		return jsjson.Marshal(e.Point)
	}
	if e.Path == nil {
		return []byte("[]"), nil
	}
	return jsjson.Marshal(e.Path)
}

// Rubric is a list of points to score a text against: the `should` block and the `should_not`
// block, whose points are inverted. The engine (package points) scores it; a rubric whose
// functions it prepared (points.Prepare) is scored without compiling anything again, and is
// safe for concurrent scoring.
type Rubric struct {
	Should    []Entry
	ShouldNot []Entry
	// Warnings are the authoring mistakes found by Parse.
	Warnings finding.Problems
}

// Points returns every point of the rubric, paths flattened, in order.
func (r Rubric) Points() []*Point {
	var out []*Point
	for _, block := range [][]Entry{r.Should, r.ShouldNot} {
		for _, e := range block {
			if e.Point != nil {
				out = append(out, e.Point)
			} else {
				out = append(out, e.Path...)
			}
		}
	}
	return out
}

// Point is one rubric point: LLM-judged text, or a deterministic function call.
type Point struct {
	// Text is the criterion of an LLM-judged point ("" for a function point).
	Text string `json:"text,omitempty"`
	// Fn is the normalised function name of a function point (without "$").
	Fn string `json:"fn,omitempty"`
	// Args is the function's argument as decoded (nil, bool, float64, string, []any,
	// map[string]any); HasArgs tells an absent argument from an explicit null.
	Args    any  `json:"-"`
	HasArgs bool `json:"-"`
	// Multiplier is the point's weight (default 1).
	Multiplier float64 `json:"multiplier"`
	// Citation is a string or object, as written.
	Citation any `json:"citation,omitempty"`

	// Line is where the point is written (0 when unknown).
	Line int `json:"-"`
	// Source names where an implicit point comes from ("requiredTools", "prohibitedTools",
	// "maxCalls"); "" for points written in a rubric.
	Source string `json:"-"`
	// Written is the function name as the author wrote it, before normalisation.
	Written string `json:"-"`

	// Compiled is the point's function as the engine (package points) compiled it when it
	// prepared the point, so scoring does not compile it again; nil for a text point and for a
	// function point not prepared (the engine then compiles it when it scores it). The rubric
	// package only carries it.
	Compiled any `json:"-"`

	// err is why the parser found the function point unusable.
	err error
}

// IsFunction reports whether the point is a deterministic function call.
func (p *Point) IsFunction() bool { return p.Fn != "" }

// Err returns why the parser found that a function point cannot be evaluated (an unknown
// function, bad arguments, a regex that does not compile; with Options.Prepare, whatever it
// reported, such as a script that does not compile), or nil. The engine reports the rest when
// it prepares or scores the point.
func (p *Point) Err() error { return p.err }

// Name returns the function's name as written (without "$"), else its canonical name.
func (p *Point) Name() string {
	if p.Written != "" {
		return p.Written
	}
	return p.Fn
}

// MarshalJSON writes Weval's canonical point form: {text, multiplier, citation?} or
// {fn, fnArgs?, multiplier, citation?}.
func (p *Point) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	field := func(key string, v any) error {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		enc, err := jsjson.Marshal(v)
		if err != nil {
			return fmt.Errorf("point %s: %w", key, err)
		}
		b.WriteString(strconv.Quote(key))
		b.WriteByte(':')
		b.Write(enc)
		return nil
	}
	var err error
	if p.IsFunction() {
		err = field("fn", p.Fn)
		if err == nil && p.HasArgs {
			err = field("fnArgs", p.displayArgs())
		}
	} else {
		err = field("text", p.Text)
	}
	if err == nil {
		err = field("multiplier", p.Multiplier)
	}
	if err == nil && p.Citation != nil {
		err = field("citation", p.Citation)
	}
	if err != nil {
		return nil, err
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// KeyPointText is how the point is shown in results: the criterion of a text point, or
// "Function: name(args)" for a function point (Weval's form).
func (p *Point) KeyPointText() string {
	if !p.IsFunction() {
		return p.Text
	}
	args := "undefined"
	if p.HasArgs {
		args = jsjson.Canonical(p.displayArgs())
	}
	s := "Function: " + p.Fn + "(" + args + ")"
	if p.Source != "" {
		s = p.Source + ": " + s
	}
	return s
}

// displayArgs returns the point's arguments as they may be shown: a $call's inline url and
// headers with their credentials redacted; other arguments as they are.
func (p *Point) displayArgs() any {
	spec, ok := p.Args.(map[string]any)
	if p.Fn != "call" || !ok {
		return p.Args
	}
	out := make(map[string]any, len(spec))
	for k, v := range spec {
		out[k] = v
	}
	if u, ok := spec["url"].(string); ok {
		out["url"] = redact.URL(u)
	}
	if h, ok := spec["headers"].(map[string]any); ok {
		strs := map[string]string{}
		safe := make(map[string]any, len(h))
		for k, v := range h {
			if s, ok := v.(string); ok {
				strs[k] = s
			} else {
				safe[k] = v
			}
		}
		for k, v := range redact.Headers(strs) {
			safe[k] = v
		}
		out["headers"] = safe
	}
	return out
}
