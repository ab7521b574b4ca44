package scoring

import (
	"errors"
	"fmt"
	"math"
)

// Cosine returns the cosine similarity of two vectors, from −1 to 1. Vectors of different
// lengths, empty or zero vectors and non-finite components are errors.
func Cosine(a, b []float64) (float64, error) {
	if len(a) != len(b) {
		return 0, fmt.Errorf("cosine: expected vectors of the same length, found %d and %d", len(a), len(b))
	}
	if len(a) == 0 {
		return 0, errors.New("cosine: expected non-empty vectors, found empty ones")
	}
	var dot, na, nb float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
	}
	if math.IsNaN(dot+na+nb) || math.IsInf(dot+na+nb, 0) {
		return 0, errors.New("cosine: expected finite vector components, found NaN or infinity")
	}
	if na == 0 || nb == 0 {
		return 0, errors.New("cosine: expected non-zero vectors, found a zero vector")
	}
	c := dot / (math.Sqrt(na) * math.Sqrt(nb))
	return min(max(c, -1), 1), nil // rounding can push |c| a hair past 1
}
