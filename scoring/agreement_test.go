package scoring

import (
	"math"
	"testing"
)

// TestKrippendorffAlphaInterval checks the coefficient against published values.
func TestKrippendorffAlphaInterval(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		units [][]float64
		// want is alpha rounded to decimals; defined false means alpha has no value.
		want     float64
		decimals int
		defined  bool
		counts   [3]int // pairable units, values, pairs
	}{
		{
			// Krippendorff (2011), "Computing Krippendorff's Alpha-Reliability", section C: 4
			// observers, 12 units, missing values; α_interval = 0.849 (α_nominal 0.743,
			// α_ordinal 0.815, α_ratio 0.797). Unit 12 has one value and is not pairable.
			name: "Krippendorff 2011, four observers with missing data",
			units: [][]float64{{1, 1, 1}, {2, 2, 3, 2}, {3, 3, 3, 3}, {3, 3, 3, 3}, {2, 2, 2, 2}, {1, 2, 3, 4},
				{4, 4, 4, 4}, {1, 1, 2, 1}, {2, 2, 2, 2}, {5, 5, 5}, {1, 1}, {3}},
			want: 0.849, decimals: 3, defined: true, counts: [3]int{11, 40, 55},
		},
		{
			// The worked example of Wikipedia's "Krippendorff's alpha" (3 coders, 15 units,
			// α_interval = 0.811), also the interval test of the krippendorff Python package
			// (pln-fing-udelar/fast-krippendorff, tests/test_krippendorff.py: 0.810845).
			name: "Wikipedia's example, three coders",
			units: [][]float64{{1}, {}, {2, 2}, {1, 1}, {3, 3}, {3, 3, 4}, {4, 4, 4}, {1, 3}, {2, 2}, {1, 1},
				{1, 1}, {3, 3}, {3, 3}, {}, {3, 4}},
			want: 0.810845, decimals: 6, defined: true, counts: [3]int{12, 26, 16},
		},
		{
			// Krippendorff (2011), section A: binary data, two observers, no missing data;
			// α = 0.095 (for two values every metric gives the same alpha).
			name:  "Krippendorff 2011, binary, two observers",
			units: [][]float64{{0, 1}, {1, 1}, {0, 1}, {0, 0}, {0, 0}, {0, 1}, {0, 0}, {0, 0}, {1, 0}, {0, 0}},
			want:  0.095, decimals: 3, defined: true, counts: [3]int{10, 20, 10},
		},
		{
			name:  "perfect agreement on varied values",
			units: [][]float64{{1, 1, 1}, {0.5, 0.5}, {0, 0, 0}},
			want:  1, decimals: 6, defined: true, counts: [3]int{3, 8, 7},
		},
		{
			// Two judges who always disagree by the whole scale.
			name:  "systematic disagreement",
			units: [][]float64{{0, 1}, {1, 0}, {0, 1}},
			want:  -0.666667, decimals: 6, defined: true, counts: [3]int{3, 6, 3},
		},
		{
			// Every judge gave every point the same score: D_e = 0, alpha is 0/0.
			name:    "no variation",
			units:   [][]float64{{1, 1}, {1, 1, 1}},
			defined: false, counts: [3]int{2, 5, 4},
		},
		{
			name:    "nothing pairable",
			units:   [][]float64{{1}, {}, {0.5}},
			defined: false,
		},
		{name: "no units", defined: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := KrippendorffAlphaInterval(tt.units)
			if a.Defined != tt.defined || [3]int{a.Units, a.Values, a.Pairs} != tt.counts {
				t.Fatalf("defined %v, counts %d %d %d; want %v, %v", a.Defined, a.Units, a.Values, a.Pairs, tt.defined, tt.counts)
			}
			if tt.defined {
				if got := Round(a.Value, tt.decimals); got != tt.want {
					t.Errorf("alpha = %v (%v), want %v", got, a.Value, tt.want)
				}
			}
		})
	}
}

// TestKrippendorffAlphaVariance checks the variance of the pairable values (the unpaired 9 is
// left out), which tells an unstable alpha (judges near-unanimous everywhere) from disagreement.
func TestKrippendorffAlphaVariance(t *testing.T) {
	t.Parallel()
	a := KrippendorffAlphaInterval([][]float64{{0, 1}, {0, 1}, {9}})
	if math.Abs(a.Variance-0.25) > 1e-12 {
		t.Errorf("variance %v, want 0.25", a.Variance)
	}
}
