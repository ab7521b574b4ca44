package rules

import (
	"strings"
	"testing"
)

// TestRuleBounds checks the range of every number a rule's frontmatter sets (spec/trust.md
// §8): strictness and criterion weights at each end of their range load; past it, including
// values that YAML reads as infinite or that overflow, is an error naming the field, the line,
// the range and the value found.
func TestRuleBounds(t *testing.T) {
	t.Parallel()
	const subjective = "---\nid: A\nname: B\ntype: subjective\ncriteria:\n  - {id: C, name: C, weight: %s}\n  - {id: D, name: D}\n---\nBody.\n"
	const strictness = "---\nid: A\nname: B\nstrictness: %s\n---\nBody.\n"
	const strictErr = `r.md:4: strictness: expected a number greater than 0 and at most 1000, or "lenient", "standard" or "strict", found `
	const weightErr = `r.md:6: criteria[0].weight: expected a number greater than 0 and at most 1000000, found `
	tests := []struct {
		form, value, want string
	}{
		{strictness, "1000", ""},
		{strictness, "0.001", ""},
		{strictness, "strict", ""},
		{strictness, "1000.01", strictErr + "1000.01"},
		{strictness, "1e308", strictErr + "1e308"},
		{strictness, ".inf", strictErr + ".inf"},
		{strictness, ".nan", strictErr + ".nan"},
		{strictness, "0", strictErr + "0"},
		{subjective, "1000000", ""},
		{subjective, "0.0001", ""},
		{subjective, "1000001", weightErr + "1000001"},
		{subjective, "1e308", weightErr + "1e308"},
		{subjective, "1e400", weightErr + `"1e400"`}, // YAML reads a number that overflows as a string
		{subjective, "-.inf", weightErr + "-.inf"},
		{subjective, ".nan", weightErr + ".nan"},
		{subjective, "-1", weightErr + "-1"},
	}
	for _, tt := range tests {
		src := strings.Replace(tt.form, "%s", tt.value, 1)
		r, ps := Parse("r.md", []byte(src))
		got := strings.Join(problemStrings(ps), "\n")
		if got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.value, got, tt.want)
		}
		if tt.want == "" && (r == nil || r.Strictness <= 0) {
			t.Errorf("%s: rule %+v", tt.value, r)
		}
	}
}
