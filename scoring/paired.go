package scoring

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// Paired comparisons of two runs (docs/blueprints.md, "Reading the statistics"): the change of
// each prompt's score from a base run to a new run is a paired difference; PairedTest gives
// their mean, a 95 % confidence interval from Student's t, and the two-sided p-value of the
// paired sign-flip permutation test.

// ExactSignFlipLimit is the largest number of pairs whose 2^n sign flips PairedTest enumerates;
// above it, the p-value is estimated from SignFlipSamples random flips.
const ExactSignFlipLimit = 20

// SignFlipSamples is the number of random sign flips of the sampled test.
const SignFlipSamples = 100_000

// SignFlipSeed1 and SignFlipSeed2 seed the PCG generator (math/rand/v2) of the sampled test,
// afresh for each test, so the same differences always give the same p-value.
const (
	SignFlipSeed1 = 0x7665_6374_6f72 // "vector"
	SignFlipSeed2 = 0x6c69_6e74      // "lint"
)

// MinPairs is the fewest pairs a paired test needs: with one difference there is no spread to
// build an interval from, and the sign-flip p-value is always 1.
const MinPairs = 2

// PairedResult is what PairedTest finds about paired differences (new − base).
type PairedResult struct {
	// N counts the pairs.
	N int
	// Mean is the mean difference (0 with no pair).
	Mean float64
	// Enough reports whether there are at least MinPairs pairs: only then do Low, High and
	// PValue mean anything (they are 0, never NaN, otherwise).
	Enough bool
	// Low and High bound the 95 % confidence interval of the mean: Mean ∓ t(0.975, N−1) × s/√N,
	// s the sample standard deviation. When every difference is the same, both are Mean.
	Low, High float64
	// PValue is the two-sided p-value of the sign-flip test: the share of sign patterns whose
	// |sum| is at least the observed |sum|.
	PValue float64
	// Exact reports that every one of the 2^N sign patterns was counted (N ≤
	// ExactSignFlipLimit); otherwise Flips random patterns were drawn and PValue is
	// (count + 1) / (Flips + 1), the observed pattern counted once.
	Exact bool
	// Flips is the number of sign patterns counted: 2^N, or SignFlipSamples.
	Flips int
	// MinPValue is the smallest p-value N pairs can give: 2 / 2^N exactly (the observed signs
	// and their mirror), 1 / (Flips + 1) sampled. A test with MinPValue above a significance
	// level can never find a difference at that level.
	MinPValue float64
}

// PairedTest compares paired differences (each prompt's new score minus its base score). Each
// difference is taken to the nearest 10⁻⁹ for the permutation test, so sums compare exactly
// (scores are written with 2 decimals; a tie is a tie).
func PairedTest(diffs []float64) PairedResult {
	n := len(diffs)
	r := PairedResult{N: n}
	if n == 0 {
		return r
	}
	sum := 0.0
	for _, d := range diffs {
		sum += d
	}
	r.Mean = sum / float64(n)
	if n < MinPairs {
		r.Low, r.High = r.Mean, r.Mean
		return r
	}
	r.Enough = true
	ss := 0.0
	for _, d := range diffs {
		ss += (d - r.Mean) * (d - r.Mean)
	}
	half := StudentTQuantile(0.975, float64(n-1)) * math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
	r.Low, r.High = r.Mean-half, r.Mean+half

	units := make([]int64, n)
	for i, d := range diffs {
		units[i] = int64(math.Round(d * 1e9))
	}
	if n <= ExactSignFlipLimit {
		r.Exact = true
		r.Flips = 1 << n
		r.PValue = float64(exactSignFlips(units)) / float64(r.Flips)
		r.MinPValue = 2 / float64(r.Flips)
	} else {
		r.Flips = SignFlipSamples
		r.PValue = float64(sampledSignFlips(units, SignFlipSamples)+1) / float64(SignFlipSamples+1)
		r.MinPValue = 1 / float64(SignFlipSamples+1)
	}
	return r
}

// abs64 is |x| for the sums of PairedTest (never math.MinInt64: n ≤ a few thousand terms of at
// most 10⁹ each).
func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// exactSignFlips counts the sign patterns of units whose |sum| is at least the observed one,
// visiting all 2^n in Gray-code order so that each step flips one sign.
func exactSignFlips(units []int64) int {
	var s int64
	for _, u := range units {
		s += u
	}
	observed := abs64(s)
	count := 1 // the observed pattern
	negative := uint32(0)
	for k := uint32(1); k < 1<<len(units); k++ {
		j := bits.TrailingZeros32(k)
		if negative&(1<<j) == 0 {
			s -= 2 * units[j]
		} else {
			s += 2 * units[j]
		}
		negative ^= 1 << j
		if abs64(s) >= observed {
			count++
		}
	}
	return count
}

// sampledSignFlips counts, of samples random sign patterns drawn from the fixed seed, those
// whose |sum| is at least the observed one.
func sampledSignFlips(units []int64, samples int) int {
	var observed int64
	for _, u := range units {
		observed += u
	}
	observed = abs64(observed)
	rng := rand.New(rand.NewPCG(SignFlipSeed1, SignFlipSeed2))
	count := 0
	for range samples {
		var s int64
		for i := 0; i < len(units); i += 64 {
			signs := rng.Uint64()
			for j := i; j < len(units) && j < i+64; j++ {
				if signs&(1<<(j-i)) != 0 {
					s -= units[j]
				} else {
					s += units[j]
				}
			}
		}
		if abs64(s) >= observed {
			count++
		}
	}
	return count
}

// StudentTCDF is P(T ≤ t) for Student's t distribution with df degrees of freedom (df > 0),
// from the regularized incomplete beta function: for t ≥ 0 it is 1 − I_x(df/2, 1/2)/2 with
// x = df/(df + t²).
func StudentTCDF(t, df float64) float64 {
	if math.IsNaN(t) || !(df > 0) {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	tail := RegularizedIncompleteBeta(df/2, 0.5, df/(df+t*t)) / 2
	if t >= 0 {
		return 1 - tail
	}
	return tail
}

// StudentTQuantile is the t such that StudentTCDF(t, df) = p, for 0 < p < 1 and df > 0 (NaN
// otherwise): StudentTQuantile(0.975, 10) is the 2.228 of t tables. It inverts StudentTCDF by
// bisection, to the precision of a float64.
func StudentTQuantile(p, df float64) float64 {
	if !(p > 0 && p < 1) || !(df > 0) || math.IsInf(df, 0) {
		return math.NaN()
	}
	if p == 0.5 {
		return 0
	}
	if p < 0.5 {
		return -StudentTQuantile(1-p, df)
	}
	lo, hi := 0.0, 1.0
	for StudentTCDF(hi, df) < p {
		lo, hi = hi, hi*2
		if math.IsInf(hi, 0) {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if StudentTCDF(mid, df) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

// RegularizedIncompleteBeta is I_x(a, b), for a, b > 0 and 0 ≤ x ≤ 1 (NaN otherwise), by the
// continued fraction of Numerical Recipes (§6.4) evaluated with the modified Lentz method, on
// whichever side of the mean converges fast.
func RegularizedIncompleteBeta(a, b, x float64) float64 {
	switch {
	case !(a > 0) || !(b > 0) || !(x >= 0 && x <= 1):
		return math.NaN()
	case x == 0:
		return 0
	case x == 1:
		return 1
	}
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	lab, _ := math.Lgamma(a + b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaContinuedFraction(a, b, x) / a
	}
	return 1 - front*betaContinuedFraction(b, a, 1-x)/b
}

// betaContinuedFraction evaluates the continued fraction of I_x(a, b) (modified Lentz).
func betaContinuedFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	qab, qap, qam := a+b, a+1, a-1
	c, d := 1.0, 1-qab*x/qap
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10_000; m++ {
		fm := float64(m)
		m2 := 2 * fm
		aa := fm * (b - fm) * x / ((qam + m2) * (a + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2))
		d = 1 + aa*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + aa/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 1e-16 {
			break
		}
	}
	return h
}
