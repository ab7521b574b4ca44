package evaluate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Result values of the verdict key, e.g. "f1_result".
const (
	Pass = "pass"
	Fail = "fail"
)

// Field is one key and value of a [Result].
type Field struct {
	Key   string
	Value any
}

// Result is what an evaluation returns: an ordered map from snake_case keys to values holding
// the evaluator's inputs, the metric values and the "<metric>_result" verdict, "pass" or "fail",
// in that order. It serialises to a JSON object with its keys in insertion order, e.g.
//
//	{"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.667, "f1_result": "pass"}
//
// The zero value is an empty result ready to use. A Result returned by an evaluator also knows
// its score and verdict: see [Result.Score], [Result.Passed] and [Result.Err].
type Result struct {
	fields []Field
	// scoreKey and resultKey are set by the evaluator that produced the result.
	scoreKey, resultKey string
	// failure is the assertion error of a failed evaluation.
	failure *AssertionError
}

// Set sets key to value: a new key goes last, an existing key keeps its place.
func (r *Result) Set(key string, value any) {
	for i := range r.fields {
		if r.fields[i].Key == key {
			r.fields[i].Value = value
			return
		}
	}
	r.fields = append(r.fields, Field{Key: key, Value: value})
}

// Get returns the value of key and whether the result has it.
func (r Result) Get(key string) (any, bool) {
	for _, f := range r.fields {
		if f.Key == key {
			return f.Value, true
		}
	}
	return nil, false
}

// Len returns the number of keys.
func (r Result) Len() int {
	return len(r.fields)
}

// Keys returns the keys in order.
func (r Result) Keys() []string {
	keys := make([]string, len(r.fields))
	for i, f := range r.fields {
		keys[i] = f.Key
	}
	return keys
}

// Fields returns a copy of the keys and values in order.
func (r Result) Fields() []Field {
	return append([]Field(nil), r.fields...)
}

// Score returns the metric value of an evaluator's result (e.g. the value of "f1_score"), as
// recorded and compared with the threshold. It returns false for a result no evaluator made.
func (r Result) Score() (float64, bool) {
	v, ok := r.Get(r.scoreKey)
	if !ok {
		return 0, false
	}
	f, ok := v.(float64)
	return f, ok
}

// Passed reports whether the evaluation passed: its verdict key holds "pass".
func (r Result) Passed() bool {
	v, ok := r.Get(r.resultKey)
	return ok && r.resultKey != "" && v == Pass
}

// Err returns the [*AssertionError] of a failed evaluation, saying which metric failed, its
// value and the threshold; nil when the evaluation passed or no evaluator made the result.
func (r Result) Err() error {
	if r.failure == nil {
		return nil
	}
	return r.failure
}

// MarshalJSON writes the result as a compact JSON object with its keys in order. It does not
// HTML-escape strings ("<" stays "<"); json.Marshal escapes any marshaler's output again, a
// json.Encoder with SetEscapeHTML(false) does not. A value JSON cannot hold, such as NaN, is an
// error.
func (r Result) MarshalJSON() ([]byte, error) {
	return r.appendJSON(nil, ",", ":")
}

// String returns the result as one line of JSON in the style of the spec and the evaluator
// guidelines, with a space after each comma and colon:
//
//	{"response": "the cat sat", "ground_truth": "the cat sat on the mat", "threshold": 0.5, "f1_score": 0.667, "f1_result": "pass"}
//
// It is what "vectorlint evaluate" prints. A value JSON cannot hold is shown as
// %!v(error text), following package fmt.
func (r Result) String() string {
	b, err := r.appendJSON(nil, ", ", ": ")
	if err != nil {
		return "%!v(" + err.Error() + ")"
	}
	return string(b)
}

func (r Result) appendJSON(b []byte, comma, colon string) ([]byte, error) {
	b = append(b, '{')
	for i, f := range r.fields {
		if i > 0 {
			b = append(b, comma...)
		}
		k, err := encodeJSON(f.Key)
		if err != nil {
			return nil, err
		}
		b = append(b, k...)
		b = append(b, colon...)
		v, err := encodeJSON(f.Value)
		if err != nil {
			return nil, fmt.Errorf("result key %q: %w", f.Key, err)
		}
		if comma != "," {
			v = spaceJSON(v)
		}
		b = append(b, v...)
	}
	return append(b, '}'), nil
}

// spaceJSON adds a space after every comma and colon of compact JSON outside strings, so nested
// lists and objects read like the top level: [{"name": "Tone", "weight": 1}].
func spaceJSON(compact []byte) []byte {
	if !bytes.ContainsAny(compact, ",:") {
		return compact
	}
	out := make([]byte, 0, len(compact)+len(compact)/8)
	inString, escaped := false, false
	for _, c := range compact {
		out = append(out, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}

// encodeJSON encodes v compactly without HTML escaping.
func encodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Line returns the result as one logfmt line: key=value pairs in order, separated by spaces.
// Strings that are empty or hold spaces, quotes, "=", control or other non-graphic characters
// are quoted with Go escapes, so the line never breaks; numbers are written as in JSON; lists
// and objects as quoted compact JSON:
//
//	response="the cat sat" ground_truth="the cat sat on the mat" threshold=0.5 f1_score=0.667 f1_result=pass
//
// It is what "vectorlint evaluate --output line" prints.
func (r Result) Line() string {
	var sb strings.Builder
	for i, f := range r.fields {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(logfmtString(f.Key))
		sb.WriteByte('=')
		switch v := f.Value.(type) {
		case string:
			sb.WriteString(logfmtString(v))
		default:
			b, err := encodeJSON(v)
			if err != nil {
				sb.WriteString(strconv.Quote("%!v(" + err.Error() + ")"))
				continue
			}
			if len(b) > 0 && (b[0] == '"' || b[0] == '[' || b[0] == '{') {
				sb.WriteString(logfmtString(string(b)))
			} else {
				sb.Write(b)
			}
		}
	}
	return sb.String()
}

// logfmtString writes s bare when it is safe to, quoted otherwise.
func logfmtString(s string) string {
	if s == "" || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, c := range s {
		if c == '"' || c == '=' || c == '\\' || unicode.IsSpace(c) || !unicode.IsGraphic(c) {
			return strconv.Quote(s)
		}
	}
	return s
}
