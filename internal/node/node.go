package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/vectorlint/vectorlint/internal/yamlerr"
)

// kind is the type of a decoded YAML/JSON value.
type kind uint8

const (
	nullKind kind = iota
	boolKind
	numberKind
	stringKind
	listKind
	mapKind
)

// node is one decoded YAML or JSON value with the line it starts on. Parsing works on nodes
// rather than on map[string]any so every error can name its line and map keys keep their order.
type node struct {
	kind kind
	line int
	b    bool
	num  float64
	str  string
	list []*node
	keys []*node // mapKind: key nodes (always stringKind), parallel to vals
	vals []*node
}

// Limits that keep hostile input (alias bombs, absurd nesting) from exhausting memory or stack.
const (
	maxNodes = 2_000_000
	maxDepth = 500
)

// get returns the value under key in a mapping, or nil.
func (n *node) get(key string) *node {
	if n == nil || n.kind != mapKind {
		return nil
	}
	for i, k := range n.keys {
		if k.str == key {
			return n.vals[i]
		}
	}
	return nil
}

// keyLine returns the line of key in a mapping (the mapping's line when absent).
func (n *node) keyLine(key string) int {
	for i, k := range n.keys {
		if k.str == key {
			return n.keys[i].line
		}
	}
	return n.line
}

// describe says what a value is, for "expected X, found Y" messages.
func (n *node) describe() string {
	if n == nil {
		return "nothing"
	}
	switch n.kind {
	case nullKind:
		return "null"
	case boolKind:
		return strconv.FormatBool(n.b)
	case numberKind:
		return "the number " + formatJSNumber(n.num)
	case stringKind:
		return "the string " + quoteShort(n.str)
	case listKind:
		return fmt.Sprintf("a list of %d item%s", len(n.list), plural(len(n.list)))
	default:
		names := make([]string, 0, len(n.keys))
		for _, k := range n.keys {
			names = append(names, k.str)
		}
		if len(names) == 0 {
			return "an empty mapping"
		}
		return "a mapping with keys " + strings.Join(quoteAll(names), ", ")
	}
}

// toAny converts the value to plain Go values: nil, bool, float64, string, []any, map[string]any.
func (n *node) toAny() any {
	if n == nil {
		return nil
	}
	switch n.kind {
	case boolKind:
		return n.b
	case numberKind:
		return n.num
	case stringKind:
		return n.str
	case listKind:
		out := make([]any, len(n.list))
		for i, item := range n.list {
			out[i] = item.toAny()
		}
		return out
	case mapKind:
		out := make(map[string]any, len(n.keys))
		for i, k := range n.keys {
			out[k.str] = n.vals[i].toAny()
		}
		return out
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// quoteShort quotes s for a message, shortened to keep messages readable.
func quoteShort(s string) string {
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

// decodeYAML parses every document of a YAML stream. Empty documents are dropped.
func decodeYAML(data []byte) ([]*node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var docs []*node
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
		if n.kind == nullKind {
			continue
		}
		docs = append(docs, n)
	}
	return docs, nil
}

// fromYAML converts a yaml.v3 node, resolving aliases and merge keys.
func fromYAML(y *yaml.Node, depth int, budget *int) (*node, error) {
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
			return &node{kind: nullKind, line: y.Line}, nil
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
		c.line = y.Line
		return &c, nil
	case yaml.ScalarNode:
		return yamlScalar(y)
	case yaml.SequenceNode:
		n := &node{kind: listKind, line: y.Line, list: make([]*node, 0, len(y.Content))}
		for _, c := range y.Content {
			item, err := fromYAML(c, depth+1, budget)
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, item)
		}
		return n, nil
	case yaml.MappingNode:
		return yamlMapping(y, depth, budget)
	}
	return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("unsupported YAML node kind %d", y.Kind)}
}

func yamlMapping(y *yaml.Node, depth int, budget *int) (*node, error) {
	n := &node{kind: mapKind, line: y.Line}
	seen := map[string]int{}
	var merges []*node
	for i := 0; i+1 < len(y.Content); i += 2 {
		ky, vy := y.Content[i], y.Content[i+1]
		if ky.Kind == yaml.ScalarNode && ky.ShortTag() == "!!merge" {
			v, err := fromYAML(vy, depth+1, budget)
			if err != nil {
				return nil, err
			}
			switch v.kind {
			case mapKind:
				merges = append(merges, v)
			case listKind:
				for _, item := range v.list {
					if item.kind != mapKind {
						return nil, &SyntaxError{Format: "YAML", Line: vy.Line, Reason: "a merge key (<<) needs mappings, found " + item.describe()}
					}
					merges = append(merges, item)
				}
			default:
				return nil, &SyntaxError{Format: "YAML", Line: vy.Line, Reason: "a merge key (<<) needs a mapping, found " + v.describe()}
			}
			continue
		}
		k, err := fromYAML(ky, depth+1, budget)
		if err != nil {
			return nil, err
		}
		key, ok := scalarKey(k)
		if !ok {
			return nil, &SyntaxError{Format: "YAML", Line: ky.Line, Reason: "mapping keys must be strings, found " + k.describe()}
		}
		if first, dup := seen[key]; dup {
			return nil, &SyntaxError{Format: "YAML", Line: ky.Line, Reason: fmt.Sprintf("duplicate key %q (first at line %d)", key, first)}
		}
		seen[key] = ky.Line
		v, err := fromYAML(vy, depth+1, budget)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, &node{kind: stringKind, line: ky.Line, str: key})
		n.vals = append(n.vals, v)
	}
	// Merged keys never override keys written in the mapping itself; earlier merges win.
	for _, m := range merges {
		for i, k := range m.keys {
			if _, dup := seen[k.str]; dup {
				continue
			}
			seen[k.str] = k.line
			n.keys = append(n.keys, k)
			n.vals = append(n.vals, m.vals[i])
		}
	}
	return n, nil
}

// scalarKey converts a scalar mapping key to its string form, as JavaScript would.
func scalarKey(k *node) (string, bool) {
	switch k.kind {
	case stringKind:
		return k.str, true
	case numberKind:
		return formatJSNumber(k.num), true
	case boolKind:
		return strconv.FormatBool(k.b), true
	case nullKind:
		return "null", true
	}
	return "", false
}

func yamlScalar(y *yaml.Node) (*node, error) {
	n := &node{line: y.Line}
	switch y.ShortTag() {
	case "!!null":
		n.kind = nullKind
	case "!!bool":
		var b bool
		if err := y.Decode(&b); err != nil {
			return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("invalid boolean %q", y.Value)}
		}
		n.kind, n.b = boolKind, b
	case "!!int", "!!float":
		var v any
		if err := y.Decode(&v); err != nil {
			return nil, &SyntaxError{Format: "YAML", Line: y.Line, Reason: fmt.Sprintf("invalid number %q", y.Value)}
		}
		n.kind = numberKind
		switch x := v.(type) {
		case int:
			n.num = float64(x)
		case int64:
			n.num = float64(x)
		case uint64:
			n.num = float64(x)
		case float64:
			n.num = x
		default:
			n.kind, n.str = stringKind, y.Value
		}
	case "!!timestamp":
		// Dates stay text: blueprints quote them as data, not as times.
		n.kind, n.str = stringKind, y.Value
	default:
		n.kind, n.str = stringKind, y.Value
	}
	return n, nil
}

// decodeJSON parses one JSON value, keeping lines and key order.
func decodeJSON(data []byte) (*node, error) {
	p := &jsonParser{data: data, dec: json.NewDecoder(bytes.NewReader(data)), budget: maxNodes}
	p.dec.UseNumber()
	tok, err := p.next()
	if err != nil {
		return nil, err
	}
	n, err := p.value(tok, 0)
	if err != nil {
		return nil, err
	}
	if _, err := p.dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &SyntaxError{Format: "JSON", Line: p.lineAt(p.start()), Reason: "unexpected data after the top-level value"}
	}
	return n, nil
}

type jsonParser struct {
	data   []byte
	dec    *json.Decoder
	line   int // line of the token last returned by next
	budget int
}

// start returns the offset where the next token begins.
func (p *jsonParser) start() int {
	off := int(p.dec.InputOffset())
	for off < len(p.data) {
		switch p.data[off] {
		case ' ', '\t', '\r', '\n', ',', ':':
			off++
			continue
		}
		break
	}
	return off
}

func (p *jsonParser) lineAt(off int) int {
	if off > len(p.data) {
		off = len(p.data)
	}
	return bytes.Count(p.data[:off], []byte{'\n'}) + 1
}

func (p *jsonParser) next() (json.Token, error) {
	off := p.start()
	tok, err := p.dec.Token()
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return nil, &SyntaxError{Format: "JSON", Line: p.lineAt(int(se.Offset)), Reason: se.Error()}
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, &SyntaxError{Format: "JSON", Line: p.lineAt(len(p.data)), Reason: "unexpected end of input"}
		}
		return nil, &SyntaxError{Format: "JSON", Line: p.lineAt(off), Reason: err.Error()}
	}
	p.line = p.lineAt(off)
	return tok, nil
}

func (p *jsonParser) value(tok json.Token, depth int) (*node, error) {
	line := p.line
	if depth > maxDepth {
		return nil, &SyntaxError{Format: "JSON", Line: line, Reason: fmt.Sprintf("nesting deeper than %d levels", maxDepth)}
	}
	p.budget--
	if p.budget < 0 {
		return nil, &SyntaxError{Format: "JSON", Line: line, Reason: fmt.Sprintf("more than %d values", maxNodes)}
	}
	switch t := tok.(type) {
	case nil:
		return &node{kind: nullKind, line: line}, nil
	case bool:
		return &node{kind: boolKind, line: line, b: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, &SyntaxError{Format: "JSON", Line: line, Reason: fmt.Sprintf("invalid number %s", t)}
		}
		return &node{kind: numberKind, line: line, num: f}, nil
	case string:
		return &node{kind: stringKind, line: line, str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &node{kind: listKind, line: line}
			for p.dec.More() {
				tok, err := p.next()
				if err != nil {
					return nil, err
				}
				item, err := p.value(tok, depth+1)
				if err != nil {
					return nil, err
				}
				n.list = append(n.list, item)
			}
			if _, err := p.next(); err != nil { // ']'
				return nil, err
			}
			return n, nil
		case '{':
			n := &node{kind: mapKind, line: line}
			seen := map[string]int{}
			for p.dec.More() {
				ktok, err := p.next()
				if err != nil {
					return nil, err
				}
				key, _ := ktok.(string)
				kline := p.line
				if first, dup := seen[key]; dup {
					return nil, &SyntaxError{Format: "JSON", Line: kline, Reason: fmt.Sprintf("duplicate key %q (first at line %d)", key, first)}
				}
				seen[key] = kline
				vtok, err := p.next()
				if err != nil {
					return nil, err
				}
				v, err := p.value(vtok, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, &node{kind: stringKind, line: kline, str: key})
				n.vals = append(n.vals, v)
			}
			if _, err := p.next(); err != nil { // '}'
				return nil, err
			}
			return n, nil
		}
	}
	return nil, &SyntaxError{Format: "JSON", Line: line, Reason: fmt.Sprintf("unexpected token %v", tok)}
}

// fromAny converts an already decoded value (from yaml.v3, encoding/json or Go code) to a node.
// Map keys of a Go map have no order; they are sorted so results are deterministic.
func fromAny(v any, depth int) (*node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		return &node{kind: nullKind}, nil
	case *node:
		return x, nil
	case yaml.Node:
		budget := maxNodes
		return fromYAML(&x, 0, &budget)
	case *yaml.Node:
		budget := maxNodes
		return fromYAML(x, 0, &budget)
	case bool:
		return &node{kind: boolKind, b: x}, nil
	case string:
		return &node{kind: stringKind, str: x}, nil
	case float64:
		return &node{kind: numberKind, num: x}, nil
	case float32:
		return &node{kind: numberKind, num: float64(x)}, nil
	case int:
		return &node{kind: numberKind, num: float64(x)}, nil
	case int64:
		return &node{kind: numberKind, num: float64(x)}, nil
	case int32:
		return &node{kind: numberKind, num: float64(x)}, nil
	case uint64:
		return &node{kind: numberKind, num: float64(x)}, nil
	case uint:
		return &node{kind: numberKind, num: float64(x)}, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid number %s", x)
		}
		return &node{kind: numberKind, num: f}, nil
	case []any:
		n := &node{kind: listKind, list: make([]*node, 0, len(x))}
		for _, item := range x {
			c, err := fromAny(item, depth+1)
			if err != nil {
				return nil, err
			}
			n.list = append(n.list, c)
		}
		return n, nil
	case []string:
		n := &node{kind: listKind}
		for _, s := range x {
			n.list = append(n.list, &node{kind: stringKind, str: s})
		}
		return n, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		n := &node{kind: mapKind}
		for _, k := range keys {
			c, err := fromAny(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			n.keys = append(n.keys, &node{kind: stringKind, str: k})
			n.vals = append(n.vals, c)
		}
		return n, nil
	case map[any]any:
		m := make(map[string]any, len(x))
		for k, val := range x {
			kn, err := fromAny(k, depth+1)
			if err != nil {
				return nil, err
			}
			ks, ok := scalarKey(kn)
			if !ok {
				return nil, fmt.Errorf("mapping keys must be strings, found %s", kn.describe())
			}
			m[ks] = val
		}
		return fromAny(m, depth)
	}
	return nil, fmt.Errorf("unsupported value of Go type %T", v)
}

// formatJSNumber formats a number as JavaScript's Number.prototype.toString does (and so as
// JSON.stringify writes it): integers without a fraction, exponents only outside [1e-6, 1e21).
func formatJSNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes "1e+21" and "1.5e-07"; JavaScript writes "1e+21" and "1.5e-7".
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + digits
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
