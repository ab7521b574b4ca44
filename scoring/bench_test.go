package scoring

import "testing"

// BenchmarkScoreDensity scores one semi-objective rule on one file, as the linter does per rule
// and file.
func BenchmarkScoreDensity(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ScoreDensity(i%7, 500, 10); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAggregateRatings aggregates a criterion's ratings over the 40 chunks of a
// 20,000-word document.
func BenchmarkAggregateRatings(b *testing.B) {
	chunks := make([]ChunkRating, 40)
	for i := range chunks {
		chunks[i] = ChunkRating{Rating: 1 + i%4, Words: 400 + i}
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := AggregateRatings(chunks); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCoverage aggregates a blueprint prompt of 12 points: required points, two should
// paths and a should_not path.
func BenchmarkCoverage(b *testing.B) {
	var points []CoveragePoint
	for i := range 12 {
		p := CoveragePoint{Score: float64(i%5) / 4, Weight: 1 + float64(i%3), Evaluated: true}
		switch {
		case i >= 9:
			p.Block, p.Path = CoverageShouldNot, 1
		case i >= 5:
			p.Path = 1 + i%2
		}
		points = append(points, p)
	}
	b.ReportAllocs()
	for b.Loop() {
		if s := Coverage(points); !s.OK {
			b.Fatal("no score")
		}
	}
}
