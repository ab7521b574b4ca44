package yamlerr

import (
	"errors"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestSplit runs real yaml.v3 errors of the parser and of the scanner through Split: every line
// is the 1-based line of the problem or of the construct it is in.
func TestSplit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		line      int
		msg       string
	}{
		{"flow sequence left open on line 1", "a: [1, 2\n", 1, "did not find expected ',' or ']'"},
		{"flow sequence left open on line 3", "x: 1\ny: 2\na: [1, 2\nb: 3\n", 3, "did not find expected ',' or ']'"},
		{"flow mapping left open on line 3", "x: 1\ny: 2\na: {b: 1\nc: 3\n", 3, "did not find expected ',' or '}'"},
		{"bad indentation in a mapping", "x:\n  a: 1\n b: 2\n", 3, "did not find expected key"},
		{"a list item inside a mapping", "x: 1\n- a\n", 2, "did not find expected key"},
		{"a key inside a list", "- a\n- b\nc: 1\n", 3, "did not find expected '-' indicator"},
		{"unclosed quote (scanner)", "x: 1\ny: \"abc\n", 2, "found unexpected end of stream"},
		{"bad character (scanner)", "x: 1\ny: @foo\n", 2, "found character that cannot start any token"},
		{"mapping in a value (scanner)", "x: 1\ny: 2\n  z: 3\n", 3, "mapping values are not allowed in this context"},
		{"no trailing newline", "a: [1, 2", 1, "did not find expected ',' or ']'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var v any
			err := yaml.Unmarshal([]byte(tt.src), &v)
			if err == nil {
				t.Fatal("yaml.v3 accepted the input")
			}
			line, msg := Split(err, []byte(tt.src))
			if line != tt.line || msg != tt.msg {
				t.Errorf("Split(%q) = %d, %q; want %d, %q", err, line, msg, tt.line, tt.msg)
			}
		})
	}
}

func TestSplitWithoutLine(t *testing.T) {
	t.Parallel()
	line, msg := Split(errors.New("yaml: unmarshal errors:\n  line 2: cannot unmarshal"), nil)
	if line != 0 || msg != "unmarshal errors:\n  line 2: cannot unmarshal" {
		t.Errorf("got %d, %q", line, msg)
	}
	if line, msg := Split(errors.New("yaml: line 7: did not find expected key"), nil); line != 8 || msg != "did not find expected key" {
		t.Errorf("without src: %d, %q", line, msg)
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"yaml: line 3: x", "yaml: line 0: did not find expected key", "yaml: line -1: x", "line", "yaml: line 99999999999999999999: x"} {
		f.Add(s, "a\nb\n")
	}
	f.Fuzz(func(t *testing.T, text, src string) {
		line, _ := Split(errors.New(text), []byte(src))
		if line < 0 {
			t.Fatalf("negative line %d", line)
		}
	})
}
