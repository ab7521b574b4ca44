package blueprint

import (
	"crypto/sha256"
	"encoding/hex"
	"math"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// canonicalJSON writes v as json-stable-stringify does in the original: object keys sorted by
// UTF-16 code units, no whitespace, JavaScript number formatting, JSON.stringify's string
// escapes (no HTML escaping, U+2028/U+2029 written as is) and nil map values written as null.
// v holds plain decoded values: nil, bool, float64, string, []any, map[string]any.
func canonicalJSON(v any) string {
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
		b.WriteString(formatJSNumber(x))
	case int:
		b.WriteString(formatJSNumber(float64(x)))
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

// canonicalPrompt is the prompt as the original hashed it: the normalised prompt without id,
// absent fields left out.
func canonicalPrompt(p *Prompt) map[string]any {
	m := map[string]any{}
	msgs := make([]any, len(p.Messages))
	for i, msg := range p.Messages {
		var content any
		if msg.Content != nil {
			content = *msg.Content
		}
		msgs[i] = map[string]any{"role": msg.Role, "content": content}
	}
	m["messages"] = msgs
	if p.Description != "" {
		m["description"] = p.Description
	}
	if p.Ideal != nil {
		m["idealResponse"] = *p.Ideal
	}
	if p.System != nil {
		m["system"] = *p.System
	}
	if p.Citation != nil {
		m["citation"] = p.Citation
	}
	if p.Weight != nil {
		m["weight"] = *p.Weight
	}
	if p.Should != nil {
		m["points"] = canonicalEntries(p.Should)
	}
	if p.ShouldNot != nil {
		m["should_not"] = canonicalEntries(p.ShouldNot)
	}
	if p.RequiredTools != nil {
		m["requiredTools"] = p.RequiredTools
	}
	if p.ProhibitedTools != nil {
		m["prohibitedTools"] = p.ProhibitedTools
	}
	if p.MaxCalls != nil {
		m["maxCalls"] = float64(*p.MaxCalls)
	}
	m["render_as"] = p.RenderAs
	if p.NoCache != nil {
		m["noCache"] = *p.NoCache
	}
	return m
}

func canonicalEntries(entries []Entry) []any {
	out := make([]any, len(entries))
	for i, e := range entries {
		if e.Point != nil {
			out[i] = canonicalPoint(e.Point)
			continue
		}
		path := make([]any, len(e.Path))
		for j, p := range e.Path {
			path[j] = canonicalPoint(p)
		}
		out[i] = path
	}
	return out
}

func canonicalPoint(p *Point) map[string]any {
	m := map[string]any{"multiplier": p.Multiplier}
	if p.IsFunction() {
		m["fn"] = p.Fn
		if p.HasArgs {
			m["fnArgs"] = p.Args
		}
	} else {
		m["text"] = p.Text
	}
	if p.Citation != nil {
		m["citation"] = p.Citation
	}
	return m
}

// PromptHashID returns the id the original gives a prompt without one: "hash-" and the first
// 12 hex digits of SHA-256 over the canonical JSON of the normalised prompt without its id.
func PromptHashID(p *Prompt) string {
	return hashID(CanonicalPromptJSON(p))
}

// CanonicalPromptJSON returns the canonical JSON string that PromptHashID hashes.
func CanonicalPromptJSON(p *Prompt) string {
	return canonicalJSON(canonicalPrompt(p))
}

func hashID(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "hash-" + hex.EncodeToString(sum[:])[:12]
}
