package scoring

import (
	"math"
	"testing"
)

func req(score float64) CoveragePoint {
	return CoveragePoint{Score: score, Weight: 1, Evaluated: true}
}

func path(block CoverageBlock, n int, score float64) CoveragePoint {
	return CoveragePoint{Score: score, Weight: 1, Block: block, Path: n, Evaluated: true}
}

func TestCoverageSeedExamples(t *testing.T) {
	t.Parallel()
	// The seed's worked example: required A 1.0, B 0.75, C 0.5; path_3 (0.2, 0.0); path_4 (0, 0).
	got := Coverage([]CoveragePoint{
		req(1), req(0.75), req(0.5),
		path(CoverageShould, 3, 0.2), path(CoverageShould, 3, 0),
		path(CoverageShould, 4, 0), path(CoverageShould, 4, 0),
	})
	if !got.OK || math.Abs(got.Score-0.425) > 1e-15 || *got.Required != 0.75 || *got.BestShouldPath != 0.1 || got.BestShouldPathIndex != 3 {
		t.Errorf("seed example 1: %+v (score %.17g)", got, got.Score)
	}
	// With multipliers: (1.0 × 3 + 0.5 × 1) / (3 + 1).
	got = Coverage([]CoveragePoint{{Score: 1, Weight: 3, Evaluated: true}, {Score: 0.5, Weight: 1, Evaluated: true}})
	if !got.OK || got.Score != 0.875 {
		t.Errorf("seed example 2: %+v", got)
	}
}

func TestCoverage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		points []CoveragePoint
		want   float64
		ok     bool
	}{
		{"no points", nil, 0, false},
		{"only paths", []CoveragePoint{path(CoverageShould, 1, 0.5), path(CoverageShould, 2, 0.9)}, 0.9, true},
		{"inverted should_not joins the required group", []CoveragePoint{req(1), {Score: 0, Weight: 1, Block: CoverageShouldNot, Evaluated: true}}, 0.5, true},
		// should_not paths: "fails if it meets any path" → the block is the lowest inverted mean.
		{"should_not paths", []CoveragePoint{req(1), path(CoverageShouldNot, 1, 0), path(CoverageShouldNot, 1, 0), path(CoverageShouldNot, 2, 1)}, 0.5, true},
		{"should_not paths alone", []CoveragePoint{path(CoverageShouldNot, 1, 0.6), path(CoverageShouldNot, 2, 0.8)}, 0.6, true},
		// The original merged should path 0 and should_not path 0 into one group (mean 0.5,
		// final 0.5); kept apart, the should path scores 1 and the should_not block 0.
		{"blocks keep their paths apart", []CoveragePoint{path(CoverageShould, 1, 1), path(CoverageShouldNot, 1, 0)}, 0.5, true},
		{"three parts", []CoveragePoint{req(0.9), path(CoverageShould, 1, 0.6), path(CoverageShouldNot, 5, 0.3)}, 0.6, true},
		{"not evaluated points are left out", []CoveragePoint{req(1), {Score: 0, Weight: 1}}, 1, true},
		{"a path with nothing evaluated is no candidate", []CoveragePoint{req(0.4), {Score: 0, Weight: 1, Path: 1}, path(CoverageShould, 2, 0.2)}, 0.30000000000000004, true},
		{"nothing evaluated", []CoveragePoint{{Score: 1, Weight: 1}}, 0, false},
		{"weighted paths", []CoveragePoint{{Score: 1, Weight: 3, Path: 1, Evaluated: true}, {Score: 0, Weight: 1, Path: 1, Evaluated: true}, path(CoverageShould, 2, 0.7)}, 0.75, true},
	}
	for _, tt := range tests {
		got := Coverage(tt.points)
		if got.OK != tt.ok || got.Score != tt.want {
			t.Errorf("%s: got %.17g (ok %v), want %v (ok %v)", tt.name, got.Score, got.OK, tt.want, tt.ok)
		}
	}
}

func TestRoundHalfUp(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   float64
		dec  int
		want float64
	}{
		{0.425, 2, 0.42}, // 0.425 is stored as 0.42499999…; JavaScript's toFixed gives 0.42 too
		{0.875, 2, 0.88}, // exact tie: away from zero (Go's strconv would round to even, 0.88 as well)
		{0.125, 2, 0.13}, // exact tie where round-half-even would give 0.12
		{0.375, 2, 0.38},
		{1, 2, 1},
		{0, 2, 0},
		{2.0 / 3, 2, 0.67},
		{0.005, 2, 0.01}, // stored as 0.005000000000000000104…
		{0.015, 2, 0.01}, // stored as 0.01499999999999999944…
		{-0.125, 2, -0.13},
		{0.33333, 4, 0.3333},
	}
	for _, tt := range tests {
		if got := Round(tt.in, tt.dec); got != tt.want {
			t.Errorf("Round(%v, %d) = %v, want %v", tt.in, tt.dec, got, tt.want)
		}
	}
}

func TestWeightedMean(t *testing.T) {
	t.Parallel()
	if got, ok := CoverageAverage([]float64{1, 0.5}, []float64{3, 1}); !ok || got != 0.875 {
		t.Errorf("CoverageAverage = %v %v", got, ok)
	}
	if _, ok := CoverageAverage(nil, nil); ok {
		t.Error("CoverageAverage of nothing should not be ok")
	}
}
