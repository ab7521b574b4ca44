package scoring

import (
	"math"
	"testing"
)

func TestCosine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 0}, []float64{1, 0}, 1},
		{[]float64{1, 0}, []float64{0, 1}, 0},
		{[]float64{1, 2, 3}, []float64{-1, -2, -3}, -1},
		{[]float64{0.6, 0.8}, []float64{0.8, 0.6}, 0.96},
		{[]float64{3, 4}, []float64{6, 8}, 1}, // length does not matter
		{[]float64{1, 1}, []float64{1, 0}, 1 / math.Sqrt2},
	}
	for _, tt := range tests {
		got, err := Cosine(tt.a, tt.b)
		if err != nil || !closeTo(got, tt.want) {
			t.Errorf("Cosine(%v, %v) = %v, %v; want %v", tt.a, tt.b, got, err, tt.want)
		}
	}
	errs := []struct {
		a, b []float64
		want string
	}{
		{[]float64{1}, []float64{1, 2}, "cosine: expected vectors of the same length, found 1 and 2"},
		{nil, nil, "cosine: expected non-empty vectors, found empty ones"},
		{[]float64{0, 0}, []float64{1, 2}, "cosine: expected non-zero vectors, found a zero vector"},
		{[]float64{math.NaN(), 1}, []float64{1, 2}, "cosine: expected finite vector components, found NaN or infinity"},
		{[]float64{math.Inf(1), 1}, []float64{1, 2}, "cosine: expected finite vector components, found NaN or infinity"},
	}
	for _, tt := range errs {
		_, err := Cosine(tt.a, tt.b)
		if err == nil || err.Error() != tt.want {
			t.Errorf("Cosine(%v, %v) error = %v; want %q", tt.a, tt.b, err, tt.want)
		}
	}
}
