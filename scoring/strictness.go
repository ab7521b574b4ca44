package scoring

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Strictness is how many points a semi-objective rule loses per 1% of violation density: a
// positive number, usually one of the presets.
type Strictness float64

// Strictness presets (spec/linter.md §4): the names users may write instead of numbers.
const (
	Lenient  Strictness = 5  // lose 5 points (0.5 on the 0–10 scale) per 1% density
	Standard Strictness = 10 // the default
	Strict   Strictness = 20
)

// ParseStrictness reads a strictness as written in a rule's frontmatter or in vectorlint.ini:
// "lenient", "standard" or "strict" (any case), or a positive finite number such as "10" or
// "7.5". Surrounding white space is ignored. Anything else is an error saying what was expected
// and what was found.
func ParseStrictness(s string) (Strictness, error) {
	t := strings.TrimSpace(s)
	switch strings.ToLower(t) {
	case "lenient":
		return Lenient, nil
	case "standard":
		return Standard, nil
	case "strict":
		return Strict, nil
	}
	v, err := strconv.ParseFloat(t, 64)
	// Go also parses hexadecimal floats ("0x1p4") and digit separators ("1_0"): no way to write
	// a strictness in a rule or config, so they are rejected rather than read as 16 or 10.
	if err != nil || !Strictness(v).Valid() || strings.ContainsAny(t, "xX_") {
		return 0, fmt.Errorf("strictness: expected a positive number or \"lenient\", \"standard\" or \"strict\", found %q", s)
	}
	return Strictness(v), nil
}

// Valid reports whether s is usable: a positive finite number.
func (s Strictness) Valid() bool {
	v := float64(s)
	return v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v)
}

// String returns the number, e.g. "10" or "7.5".
func (s Strictness) String() string {
	return strconv.FormatFloat(float64(s), 'f', -1, 64)
}

// UnmarshalText parses a strictness with [ParseStrictness], so configuration decoders (YAML,
// ini) accept both names and numbers.
func (s *Strictness) UnmarshalText(b []byte) error {
	v, err := ParseStrictness(string(b))
	if err != nil {
		return err
	}
	*s = v
	return nil
}
