package node

import (
	"encoding/json"
	"fmt"
	"sort"

	"gopkg.in/yaml.v3"
)

// FromAny converts an already decoded value (from yaml.v3, encoding/json or Go code, or a
// *Node) to a node. Map keys of a Go map have no order; they are sorted so results are
// deterministic.
func FromAny(v any) (*Node, error) { return fromAny(v, 0) }

func fromAny(v any, depth int) (*Node, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nesting deeper than %d levels", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		return &Node{Kind: NullKind}, nil
	case *Node:
		return x, nil
	case yaml.Node:
		budget := maxNodes
		return fromYAML(&x, 0, &budget)
	case *yaml.Node:
		budget := maxNodes
		return fromYAML(x, 0, &budget)
	case bool:
		return &Node{Kind: BoolKind, Bool: x}, nil
	case string:
		return &Node{Kind: StringKind, Str: x}, nil
	case float64:
		return &Node{Kind: NumberKind, Num: x}, nil
	case float32:
		return &Node{Kind: NumberKind, Num: float64(x)}, nil
	case int:
		return &Node{Kind: NumberKind, Num: float64(x)}, nil
	case int64:
		return &Node{Kind: NumberKind, Num: float64(x)}, nil
	case int32:
		return &Node{Kind: NumberKind, Num: float64(x)}, nil
	case uint64:
		return &Node{Kind: NumberKind, Num: float64(x)}, nil
	case uint:
		return &Node{Kind: NumberKind, Num: float64(x)}, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, fmt.Errorf("invalid number %s", x)
		}
		return &Node{Kind: NumberKind, Num: f}, nil
	case []any:
		n := &Node{Kind: ListKind, Items: make([]*Node, 0, len(x))}
		for _, item := range x {
			c, err := fromAny(item, depth+1)
			if err != nil {
				return nil, err
			}
			n.Items = append(n.Items, c)
		}
		return n, nil
	case []string:
		n := &Node{Kind: ListKind}
		for _, s := range x {
			n.Items = append(n.Items, &Node{Kind: StringKind, Str: s})
		}
		return n, nil
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		n := &Node{Kind: MapKind}
		for _, k := range keys {
			c, err := fromAny(x[k], depth+1)
			if err != nil {
				return nil, err
			}
			n.Keys = append(n.Keys, &Node{Kind: StringKind, Str: k})
			n.Vals = append(n.Vals, c)
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
				return nil, fmt.Errorf("mapping keys must be strings, found %s", kn.Describe())
			}
			m[ks] = val
		}
		return fromAny(m, depth)
	}
	return nil, fmt.Errorf("unsupported value of Go type %T", v)
}
