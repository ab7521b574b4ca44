package scoring_test

import (
	"math"
	"math/big"
	"strconv"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/scoring"
)

func TestRound(t *testing.T) {
	t.Parallel()
	tests := []struct {
		x        float64
		decimals int
		want     float64
	}{
		// Exact binary ties go away from zero, as JavaScript's toFixed does.
		{9.25, 1, 9.3},
		{9.75, 1, 9.8},
		{0.25, 1, 0.3},
		{-9.25, 1, -9.3},
		{2.5, 0, 3},
		{-2.5, 0, -3},
		{0.125, 2, 0.13},
		// Not ties: the float64 nearest to the decimal lies below or above it.
		{0.15, 1, 0.1},   // 0.1499999999999999944…
		{0.35, 1, 0.3},   // 0.3499999999999999778…
		{0.05, 1, 0.1},   // 0.0500000000000000027…
		{1.005, 2, 1},    // 1.0049999999999998934…
		{2.675, 2, 2.67}, // 2.6749999999999998223…
		{3.548387096774194, 1, 3.5},
		{6.774193548387097, 1, 6.8},
		{2.0 / 3, 3, 0.667},
		{1.0 / 3, 3, 0.333},
		{0.9995, 3, 1}, // 0.99950000000000005507…
		{10, 1, 10},
		{0, 1, 0},
		{1e-20, 3, 0},
		{123456789.987654321, 2, 123456789.99},
		// decimals are clamped to 0–15.
		{2.5, -1, 3},
		{0.1234567890123456789, 20, 0.123456789012346},
	}
	for _, tt := range tests {
		if got := scoring.Round(tt.x, tt.decimals); got != tt.want {
			t.Errorf("Round(%v, %d) = %v; want %v", tt.x, tt.decimals, got, tt.want)
		}
	}
}

func TestRoundSpecialValues(t *testing.T) {
	t.Parallel()
	if got := scoring.Round(math.NaN(), 1); !math.IsNaN(got) {
		t.Errorf("Round(NaN) = %v", got)
	}
	if got := scoring.Round(math.Inf(-1), 1); !math.IsInf(got, -1) {
		t.Errorf("Round(-Inf) = %v", got)
	}
	if got := scoring.Round(-0.01, 1); got != 0 || !math.Signbit(got) {
		t.Errorf("Round(-0.01, 1) = %v; want -0", got)
	}
}

func TestRound1(t *testing.T) {
	t.Parallel()
	if got := scoring.Round1(8.285714285714286); got != 8.3 {
		t.Errorf("Round1(8.2857…) = %v; want 8.3", got)
	}
}

// roundOracle rounds x the slow, obvious way: it writes the exact decimal expansion of x (every
// float64 has a finite one) and rounds the digit string half away from zero.
func roundOracle(x float64, decimals int) float64 {
	s := strconv.FormatFloat(math.Abs(x), 'f', 1100, 64)
	dot := strings.IndexByte(s, '.')
	kept, rest := s[:dot+1+decimals], s[dot+1+decimals:]
	n, _ := new(big.Int).SetString(strings.Replace(kept, ".", "", 1), 10)
	if rest[0] >= '5' {
		n.Add(n, big.NewInt(1))
	}
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	f, _ := new(big.Rat).SetFrac(n, scale).Float64()
	return math.Copysign(f, x)
}

func FuzzRound(f *testing.F) {
	for _, x := range []float64{9.25, 0.15, 2.675, 1.005, -0.35, 123.4567, 1e-300, 1e300, 5e-324} {
		f.Add(x, uint8(1))
		f.Add(x, uint8(3))
	}
	f.Fuzz(func(t *testing.T, x float64, d uint8) {
		decimals := int(d % 16)
		got := scoring.Round(x, decimals)
		if math.IsNaN(x) || math.IsInf(x, 0) {
			if !math.IsNaN(got) && got != x {
				t.Fatalf("Round(%v, %d) = %v", x, decimals, got)
			}
			return
		}
		if want := roundOracle(x, decimals); got != want {
			t.Fatalf("Round(%v, %d) = %v; oracle %v", x, decimals, got, want)
		}
	})
}
