package scoring

import (
	"math"
	"sort"
)

// CoverageBlock says which rubric block a point belongs to.
type CoverageBlock int

// Rubric blocks.
const (
	// CoverageShould points say what a good response does.
	CoverageShould CoverageBlock = iota
	// CoverageShouldNot points say what a good response avoids; their scores are inverted.
	CoverageShouldNot
)

// CoveragePoint is one assessed rubric point, as the aggregation sees it.
type CoveragePoint struct {
	// Score is the point's contribution in [0, 1] with inversion already applied: for a
	// should_not point it is 1 − (how far the response meets the point). A point whose
	// evaluation failed contributes 0 (an error never passes).
	Score float64
	// Weight is the point's multiplier (> 0).
	Weight float64
	// Block is the block the point was written in.
	Block CoverageBlock
	// Path is 0 for a required point, or n ≥ 1 for the n-th alternative path of its block (any
	// numbering works; points with the same Block and Path form one path).
	Path int
	// Evaluated is false for a point that could not be evaluated (an LLM-judged point without
	// a judge, or whose judges all failed): it is left out of every mean.
	Evaluated bool
}

// CoverageScore is the aggregate of a prompt's points (spec/blueprints.md §4).
type CoverageScore struct {
	// Score is the final coverage in [0, 1], valid when OK.
	Score float64
	// OK is false when no point could be evaluated: there is no score (not 0).
	OK bool
	// Required is the weighted mean of the required points (should and inverted should_not
	// points outside paths); nil when there are none.
	Required *float64
	// BestShouldPath is the score of the `should` path block (its best path), nil when absent;
	// BestShouldPathIndex is that path's Path number.
	BestShouldPath      *float64
	BestShouldPathIndex int
	// ShouldNotPaths is the score of the `should_not` path block, 1 − (the highest mean with
	// which a failure path is met), nil when absent; WorstShouldNotPathIndex is that path.
	ShouldNotPaths          *float64
	WorstShouldNotPathIndex int
}

// Coverage aggregates point scores as the seed's formula, with the corrections of the spec:
//
//   - required points (not in a path; inverted should_not points included) → weighted mean;
//   - each `should` path → weighted mean; the block scores its best path;
//   - `should_not` paths mean "fails if it meets any path": the block scores
//     1 − (highest mean met), i.e. the lowest mean of the inverted scores;
//   - the final score is the plain mean of the parts present.
//
// Points not evaluated are left out; a path with no evaluated point is not a candidate.
// The blocks keep their paths apart (the original merged `should` path 0 with `should_not`
// path 0).
func Coverage(points []CoveragePoint) CoverageScore {
	type group struct{ sum, weight float64 }
	var required group
	should := map[int]*group{}
	shouldNot := map[int]*group{}
	for _, p := range points {
		if !p.Evaluated || p.Weight <= 0 || math.IsNaN(p.Score) {
			continue
		}
		g := &required
		if p.Path != 0 {
			m := should
			if p.Block == CoverageShouldNot {
				m = shouldNot
			}
			if m[p.Path] == nil {
				m[p.Path] = &group{}
			}
			g = m[p.Path]
		}
		g.sum += p.Score * p.Weight
		g.weight += p.Weight
	}
	var out CoverageScore
	var parts []float64
	if required.weight > 0 {
		v := required.sum / required.weight
		out.Required = &v
		parts = append(parts, v)
	}
	// Iterate in path order so ties pick the first path.
	best := func(m map[int]*group, better func(a, b float64) bool) (*float64, int) {
		var found *float64
		idx := 0
		for _, k := range coveragePaths(m) {
			v := m[k].sum / m[k].weight
			if found == nil || better(v, *found) {
				vv := v
				found, idx = &vv, k
			}
		}
		return found, idx
	}
	if v, i := best(should, func(a, b float64) bool { return a > b }); v != nil {
		out.BestShouldPath, out.BestShouldPathIndex = v, i
		parts = append(parts, *v)
	}
	if v, i := best(shouldNot, func(a, b float64) bool { return a < b }); v != nil {
		out.ShouldNotPaths, out.WorstShouldNotPathIndex = v, i
		parts = append(parts, *v)
	}
	if len(parts) == 0 {
		return out
	}
	sum := 0.0
	for _, v := range parts {
		sum += v
	}
	out.Score, out.OK = sum/float64(len(parts)), true
	return out
}

func coveragePaths[T any](m map[int]T) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// CoverageAverage returns Σ wᵢxᵢ / Σ wᵢ over the pairs, and false when the weights sum to 0.
// It is the per-model average of prompt scores weighted by prompt weight.
func CoverageAverage(values, weights []float64) (float64, bool) {
	var sum, total float64
	for i, v := range values {
		w := 1.0
		if i < len(weights) {
			w = weights[i]
		}
		sum += v * w
		total += w
	}
	if total <= 0 {
		return 0, false
	}
	return sum / total, true
}
