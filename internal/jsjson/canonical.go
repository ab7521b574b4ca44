// Package jsjson writes JSON and numbers as JavaScript does, so results, hashes and messages
// match the original Weval tool byte for byte: Number.prototype.toString for numbers,
// JSON.stringify's escapes, and json-stable-stringify's key order.
package jsjson

import (
	"math"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Canonical writes v as json-stable-stringify does in the original: object keys sorted by
// UTF-16 code units, no whitespace, JavaScript number formatting, JSON.stringify's string
// escapes (no HTML escaping, U+2028/U+2029 written as is) and nil map values written as null.
// v holds plain decoded values: nil, bool, float64, string, []any, map[string]any.
func Canonical(v any) string {
	var b strings.Builder
	writeCanonical(&b, v)
	return b.String()
}

func writeCanonical(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		if x {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			b.WriteString("null") // as JSON.stringify
			return
		}
		b.WriteString(FormatNumber(x))
	case int:
		b.WriteString(FormatNumber(float64(x)))
	case string:
		writeJSString(b, x)
	case []any:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeCanonical(b, item)
		}
		b.WriteByte(']')
	case []string:
		b.WriteByte('[')
		for i, item := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSString(b, item)
		}
		b.WriteByte(']')
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Slice(keys, func(i, j int) bool { return lessUTF16(keys[i], keys[j]) })
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteByte(',')
			}
			writeJSString(b, k)
			b.WriteByte(':')
			writeCanonical(b, x[k])
		}
		b.WriteByte('}')
	default:
		b.WriteString("null")
	}
}

// lessUTF16 compares strings as JavaScript does: by UTF-16 code units.
func lessUTF16(a, b string) bool {
	for a != "" && b != "" {
		ra, na := utf8.DecodeRuneInString(a)
		rb, nb := utf8.DecodeRuneInString(b)
		if ra != rb {
			// Runes below U+10000 are one code unit; above, the first unit is a high surrogate
			// (0xD800–0xDBFF), which sorts below U+E000–U+FFFF.
			ka, kb := utf16Key(ra), utf16Key(rb)
			if ka[0] != kb[0] {
				return ka[0] < kb[0]
			}
			return ka[1] < kb[1]
		}
		a, b = a[na:], b[nb:]
	}
	return a == "" && b != ""
}

func utf16Key(r rune) [2]uint16 {
	if r >= 0x10000 {
		hi, lo := utf16.EncodeRune(r)
		return [2]uint16{uint16(hi), uint16(lo)}
	}
	return [2]uint16{uint16(r), 0}
}

// writeJSString writes s quoted as JSON.stringify does.
func writeJSString(b *strings.Builder, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for _, r := range s {
		switch r {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		default:
			if r < 0x20 {
				b.WriteString(`\u00`)
				b.WriteByte(hex[r>>4])
				b.WriteByte(hex[r&0xF])
				continue
			}
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
}
