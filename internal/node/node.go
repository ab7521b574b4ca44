// Package node decodes YAML and JSON into a tree of values that remember the line each starts
// on and the order of mapping keys, so parsers of blueprints and rubrics can name the line of
// every problem. Hostile input (alias bombs, absurd nesting) is bounded.
package node

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/yamlerr"
)

// Kind is the type of a decoded YAML/JSON value.
type Kind uint8

// The kinds of values.
const (
	NullKind Kind = iota
	BoolKind
	NumberKind
	StringKind
	ListKind
	MapKind
)

// Node is one decoded YAML or JSON value with the line it starts on. Parsing works on nodes
// rather than on map[string]any so every error can name its line and map keys keep their order.
type Node struct {
	Kind Kind
	// Line is 1-based; 0 for a value built from Go values (FromAny).
	Line int
	// Bool, Num and Str hold a BoolKind, NumberKind or StringKind value.
	Bool bool
	Num  float64
	Str  string
	// Items are a ListKind value's items.
	Items []*Node
	// Keys are a MapKind value's key nodes (always StringKind), parallel to Vals.
	Keys []*Node
	Vals []*Node
}

// Limits that keep hostile input (alias bombs, absurd nesting) from exhausting memory or stack.
const (
	maxNodes = 2_000_000
	maxDepth = 500
)

// Get returns the value under key in a mapping, or nil.
func (n *Node) Get(key string) *Node {
	if n == nil || n.Kind != MapKind {
		return nil
	}
	for i, k := range n.Keys {
		if k.Str == key {
			return n.Vals[i]
		}
	}
	return nil
}

// KeyLine returns the line of key in a mapping (the mapping's line when absent).
func (n *Node) KeyLine(key string) int {
	for i, k := range n.Keys {
		if k.Str == key {
			return n.Keys[i].Line
		}
	}
	return n.Line
}

// Describe says what a value is, for "expected X, found Y" messages.
func (n *Node) Describe() string {
	if n == nil {
		return "nothing"
	}
	switch n.Kind {
	case NullKind:
		return "null"
	case BoolKind:
		return strconv.FormatBool(n.Bool)
	case NumberKind:
		return "the number " + jsjson.FormatNumber(n.Num)
	case StringKind:
		return "the string " + QuoteShort(n.Str)
	case ListKind:
		return fmt.Sprintf("a list of %d item%s", len(n.Items), Plural(len(n.Items)))
	default:
		names := make([]string, 0, len(n.Keys))
		for _, k := range n.Keys {
			names = append(names, k.Str)
		}
		if len(names) == 0 {
			return "an empty mapping"
		}
		return "a mapping with keys " + strings.Join(quoteAll(names), ", ")
	}
}

// ToAny converts the value to plain Go values: nil, bool, float64, string, []any, map[string]any.
func (n *Node) ToAny() any {
	if n == nil {
		return nil
	}
	switch n.Kind {
	case BoolKind:
		return n.Bool
	case NumberKind:
		return n.Num
	case StringKind:
		return n.Str
	case ListKind:
		out := make([]any, len(n.Items))
		for i, item := range n.Items {
			out[i] = item.ToAny()
		}
		return out
	case MapKind:
		out := make(map[string]any, len(n.Keys))
		for i, k := range n.Keys {
			out[k.Str] = n.Vals[i].ToAny()
		}
		return out
	}
	return nil
}

// Plural returns "s" unless n is 1, for messages such as "3 items".
func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// QuoteShort quotes s for a message, shortened to keep messages readable.
func QuoteShort(s string) string {
	const max = 60
	r := []rune(s)
	if len(r) > max {
		return strconv.Quote(string(r[:max])) + "…"
	}
	return strconv.Quote(s)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}

// SyntaxError reports a file that is not valid YAML or JSON.
type SyntaxError struct {
	// Format is "YAML" or "JSON".
	Format string
	// Line is the 1-based line of the problem, 0 when the parser did not say.
	Line int
	// Reason is the parser's description.
	Reason string
}

// Error is "invalid YAML: reason" (the line is reported separately).
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid %s: %s", e.Format, e.Reason)
}

// DecodeYAML parses every document of a YAML stream. Empty documents are dropped.
func DecodeYAML(data []byte) ([]*Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*Node
	budget := maxNodes
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			line, msg := yamlerr.Split(err, data)
			return nil, &SyntaxError{Format: "YAML", Line: line, Reason: msg}
		}
		if len(doc.Content) == 0 {
			continue
		}
		n, err := fromYAML(doc.Content[0], 0, &budget)
		if err != nil {
			return nil, err
		}
		if n.Kind == NullKind {
			continue
		}
		docs = append(docs, n)
	}
	return docs, nil
}

// fromYAML converts a yaml.v3 node, resolving aliases and merge keys.
func fromYAML(y *yaml.Node, depth int, budget *int) (*Node, error) {
	if depth > maxDepth {
		return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}
	}
	*budget--
	if *budget < 0 {
		return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("more than %d values (alias expansion?)", maxNodes)}
	}
	switch y.Kind {
	case yaml.DocumentNode:
		if len(y.Content) == 0 {
			return &Node{Kind: NullKind, Line: y.Line}, nil
		}
		return fromYAML(y.Content[0], depth+1, budget)
	case yaml.AliasNode:
		if y.Alias == nil {
			return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: "alias to an unknown anchor"}
		}
		n, err := fromYAML(y.Alias, depth+1, budget)
		if err != nil {
			return nil, err
		}
		c := *n
		c.Line = y.Line
		return &c, nil
	case yaml.ScalarNode:
		return yamlScalar(y)
	case yaml.SequenceNode:
		n := &Node{Kind: ListKind, Line: y.Line, Items: make([]*Node, 0, len(y.Content))}
		for _, c := range y.Content {
			item, err := fromYAML(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, item)
		}
		return n, nil
	case yaml.MappingNode:
		return yamlMapping(y, depth, budget)
	}
	return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("unsupported YAML node kind %d", y.Kind)}
}

func yamlMapping(y *yaml.Node, depth int, budget *int) (*Node, error) {
	n := &Node{Kind: MapKind, Line: y.Line}
	seen := map[string]int{}
	var merges []*Node
	for i := 0; i+1 < len(y.Content); i += 2 {
		ky, vy := y.Content[i], y.Content[i+1]
		if ky.Kind == yaml.ScalarNode && ky.ShortTag() == "!!merge" {
			v, err := fromYAML(vy, depth+1, budget)
			if err != nil {
				return nil, err
			}
			switch v.Kind {
			case MapKind:
				merges = append(merges, v)
			case ListKind:
				for _, item := range v.Items {
					if item.Kind != MapKind {
						return nil, &SyntaxError{Format: "YAML", Line: vy.Line, Reason: "a merge key (<<) needs mappings, found " + item.Describe()}
					}
					merges = append(merges, item)
				}
			default:
				return nil, &SyntaxError{Format: "YAML", Line: vy.Line, Reason: "a merge key (<<) needs a mapping, found " + v.Describe()}
			}
			continue
		}
		k, err := fromYAML(ky, depth+1, budget)
		if err != nil {
			return nil, err
		}
		key, ok := scalarKey(k)
		if !ok {
			return nil, &SyntaxError{Format: "YAML", Line: ky.Line, Reason: "mapping keys must be strings, found " + k.Describe()}
		}
		if first, dup := seen[key]; dup {
			return nil, &SyntaxError{Format: "YAML", Line: ky.Line, Reason: fmt.Sprintf("duplicate key %q (first at line %d)", key, first)}
		}
		seen[key] = ky.Line
		v, err := fromYAML(vy, depth+1, budget)
		if err != nil {
			return nil, err
		}
		n.Keys = append(n.Keys, &Node{Kind: StringKind, Line: ky.Line, Str: key})
		n.Vals = append(n.Vals, v)
	}
	// Merged keys never override keys written in the mapping itself; earlier merges win.
	for _, m := range merges {
		for i, k := range m.Keys {
			if _, dup := seen[k.Str]; dup {
				continue
			}
			seen[k.Str] = k.Line
			n.Keys = append(n.Keys, k)
			n.Vals = append(n.Vals, m.Vals[i])
		}
	}
	return n, nil
}

// scalarKey converts a scalar mapping key to its string form, as JavaScript would.
func scalarKey(k *Node) (string, bool) {
	switch k.Kind {
	case StringKind:
		return k.Str, true
	case NumberKind:
		return jsjson.FormatNumber(k.Num), true
	case BoolKind:
		return strconv.FormatBool(k.Bool), true
	case NullKind:
		return "null", true
	}
	return "", false
}

func yamlScalar(y *yaml.Node) (*Node, error) {
	n := &Node{Line: y.Line}
	switch y.ShortTag() {
	case "!!null":
		n.Kind = NullKind
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("invalid boolean %q", y.Value)}
		}
		n.Kind, n.Bool = BoolKind, b
	case "!!int", "!!float":
		var v any
		if err := y.Decode(&v); err != nil {
			return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("invalid number %q", y.Value)}
		}
		n.Kind = NumberKind
		switch x := v.(type) {
		case int:
			n.Num = float64(x)
		case int64:
			n.Num = float64(x)
		case uint64:
			n.Num = float64(x)
		case float64:
			n.Num = x
		default:
			n.Kind, n.Str = StringKind, y.Value
		}
	case "!!timestamp":
		// Dates stay text: blueprints quote them as data, not as times.
		n.Kind, n.Str = StringKind, y.Value
	default:
		n.Kind, n.Str = StringKind, y.Value
	}
	return n, nil
}

// Pick returns the value of the first of keys present in a mapping, with that key, and the
// later keys present too: aliases of one field given twice, which callers warn about.
func (n *Node) Pick(keys ...string) (v *Node, key string, ignored []string) {
	for _, k := range keys {
		val := n.Get(k)
		if val == nil {
			continue
		}
		if v == nil {
			v, key = val, k
			continue
		}
		ignored = append(ignored, k)
	}
	return v, key, ignored
}
