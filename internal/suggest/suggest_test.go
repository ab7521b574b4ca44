package suggest

import "testing"

func TestDistance(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"kitten", "sitting", 3}, {"café", "cafe", 1}, {"😀a", "a", 1},
	}
	for _, tc := range tests {
		if got := Distance(tc.a, tc.b); got != tc.want {
			t.Errorf("Distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

func TestClosest(t *testing.T) {
	t.Parallel()
	keys := []string{"RulesPath", "Concurrency", "DefaultSeverity", "Model"}
	tests := []struct {
		in      string
		maxDist int
		want    string
	}{
		{"rulespath", 2, "RulesPath"}, // case is ignored
		{"Concurency", 2, "Concurrency"},
		{"Modle", 2, "Model"},
		{"Temperature", 2, ""},
		{"icontain", 3, ""},
	}
	for _, tc := range tests {
		if got := Closest(tc.in, keys, tc.maxDist); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := Closest("ab", []string{"ac", "aa"}, 1); got != "aa" {
		t.Errorf("tie: got %q, want the alphabetically first %q", got, "aa")
	}
}
