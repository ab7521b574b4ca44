package node

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// DecodeJSON parses one JSON value, keeping lines and key order.
func DecodeJSON(data []byte) (*Node, error) {
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

func (p *jsonParser) value(tok json.Token, depth int) (*Node, error) {
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
		return &Node{Kind: NullKind, Line: line}, nil
	case bool:
		return &Node{Kind: BoolKind, Line: line, Bool: t}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			return nil, &SyntaxError{Format: "JSON", Line: line, Reason: fmt.Sprintf("invalid number %s", t)}
		}
		return &Node{Kind: NumberKind, Line: line, Num: f}, nil
	case string:
		return &Node{Kind: StringKind, Line: line, Str: t}, nil
	case json.Delim:
		switch t {
		case '[':
			n := &Node{Kind: ListKind, Line: line}
			for p.dec.More() {
				tok, err := p.next()
				if err != nil {
					return nil, err
				}
				item, err := p.value(tok, depth+1)
				if err != nil {
					return nil, err
				}
				n.Items = append(n.Items, item)
			}
			if _, err := p.next(); err != nil { // ']'
				return nil, err
			}
			return n, nil
		case '{':
			n := &Node{Kind: MapKind, Line: line}
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
				n.Keys = append(n.Keys, &Node{Kind: StringKind, Line: kline, Str: key})
				n.Vals = append(n.Vals, v)
			}
			if _, err := p.next(); err != nil { // '}'
				return nil, err
			}
			return n, nil
		}
	}
	return nil, &SyntaxError{Format: "JSON", Line: line, Reason: fmt.Sprintf("unexpected token %v", tok)}
}
