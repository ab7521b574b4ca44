package jsjson

import (
	"math"
	"testing"
)

func TestFormatNumber(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0"}, {1, "1"}, {-1, "-1"}, {1.5, "1.5"}, {0.1, "0.1"}, {100, "100"},
		{1e20, "100000000000000000000"}, {1e21, "1e+21"}, {1.5e21, "1.5e+21"},
		{0.000001, "0.000001"}, {1e-7, "1e-7"}, {1.5e-7, "1.5e-7"}, {123456789.125, "123456789.125"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, tt := range tests {
		if got := FormatNumber(tt.in); got != tt.want {
			t.Errorf("FormatNumber(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestCanonical(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   any
		want string
	}{
		{map[string]any{"b": 1.0, "a": []any{true, nil, "x"}}, `{"a":[true,null,"x"],"b":1}`},
		{"<&> \u2028 \"q\" \\ \n\t\x01", `"<&> ` + "\u2028" + ` \"q\" \\ \n\t\u0001"`},
		// UTF-16 order: U+FF5E sorts after U+1F600's high surrogate (0xD83D).
		{map[string]any{"\uff5e": 1.0, "\U0001F600": 2.0, "z": 3.0}, `{"z":3,"` + "\U0001F600" + `":2,"` + "\uff5e" + `":1}`},
		{math.Inf(1), "null"},
	}
	for _, tt := range tests {
		if got := Canonical(tt.in); got != tt.want {
			t.Errorf("Canonical(%#v)\n got %s\nwant %s", tt.in, got, tt.want)
		}
	}
}
