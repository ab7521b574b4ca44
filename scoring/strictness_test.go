package scoring_test

import (
	"testing"

	"github.com/vectorlint/vectorlint/scoring"
)

func TestParseStrictness(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want scoring.Strictness
	}{
		{"lenient", scoring.Lenient},
		{"standard", scoring.Standard},
		{"strict", scoring.Strict},
		{"Strict", 20},
		{"  STANDARD\t", 10},
		{"5", 5},
		{"7.5", 7.5},
		{" 20 ", 20},
		{"1e1", 10},
		{"0.001", 0.001},
	}
	for _, tt := range tests {
		got, err := scoring.ParseStrictness(tt.in)
		if err != nil {
			t.Errorf("ParseStrictness(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("ParseStrictness(%q) = %v; want %v", tt.in, got, tt.want)
		}
	}
}

func TestParseStrictnessErrors(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", " ", "0", "-5", "very strict", "NaN", "Inf", "+Inf", "infinity", "0x10", "1_0", "1e400", "10%"} {
		_, err := scoring.ParseStrictness(in)
		want := `strictness: expected a positive number or "lenient", "standard" or "strict", found "` + in + `"`
		if err == nil || err.Error() != want {
			t.Errorf("ParseStrictness(%q) error = %v; want %s", in, err, want)
		}
	}
}

func TestStrictnessText(t *testing.T) {
	t.Parallel()
	var s scoring.Strictness
	if err := s.UnmarshalText([]byte("lenient")); err != nil || s != 5 {
		t.Errorf("UnmarshalText(lenient) = %v, %v", s, err)
	}
	if err := s.UnmarshalText([]byte("nope")); err == nil || s != 5 {
		t.Errorf("UnmarshalText(nope) = %v, %v; want an error and s unchanged", s, err)
	}
	if got := scoring.Strictness(7.5).String(); got != "7.5" {
		t.Errorf("String() = %q", got)
	}
	if got := scoring.Strict.String(); got != "20" {
		t.Errorf("String() = %q", got)
	}
}

func FuzzParseStrictness(f *testing.F) {
	for _, s := range []string{"lenient", "Standard", " strict ", "10", "7.5", "0", "-1", "1e308", "1e309", "0x1p4", "NaN", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		s, err := scoring.ParseStrictness(in)
		if err != nil {
			return
		}
		if !s.Valid() {
			t.Fatalf("ParseStrictness(%q) = %v, which is not a valid strictness", in, s)
		}
		// A parsed strictness written back as a number parses to itself.
		again, err := scoring.ParseStrictness(s.String())
		if err != nil || again != s {
			t.Fatalf("round trip of %q: %v, %v", in, again, err)
		}
	})
}
