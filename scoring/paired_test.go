package scoring

import (
	"math"
	"testing"
)

// TestStudentTQuantile checks t quantiles against t tables. The expected values were computed
// once with python3, independently of this code: Simpson integration of the t density
// (substituting x = tan u, 20,000 intervals) and bisection; they match the printed tables and,
// for df 1 and 2, the closed forms tan(π(p − ½)) and (2p − 1)/√(2p(1 − p)).
func TestStudentTQuantile(t *testing.T) {
	t.Parallel()
	tests := []struct {
		p, df, want float64
	}{
		{0.975, 1, 12.7062047362},
		{0.975, 2, 4.3026527297},
		{0.975, 3, 3.1824463053},
		{0.975, 5, 2.5705818356},
		{0.975, 10, 2.2281388520},
		{0.975, 30, 2.0422724563},
		{0.975, 100, 1.9839715185},
		{0.995, 4, 4.6040948714},
		{0.9, 7, 1.4149239277},
		{0.025, 10, -2.2281388520},
		{0.5, 3, 0},
	}
	for _, tt := range tests {
		got := StudentTQuantile(tt.p, tt.df)
		if math.Abs(got-tt.want) > 1e-8 {
			t.Errorf("t(%v, %v) = %.10f, want %.10f", tt.p, tt.df, got, tt.want)
		}
		if tt.p != 0.5 {
			if back := StudentTCDF(got, tt.df); math.Abs(back-tt.p) > 1e-12 {
				t.Errorf("CDF(t(%v, %v)) = %v", tt.p, tt.df, back)
			}
		}
	}
	for _, bad := range [][2]float64{{0, 5}, {1, 5}, {0.975, 0}, {0.975, -1}, {math.NaN(), 3}, {0.975, math.Inf(1)}} {
		if got := StudentTQuantile(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("t(%v, %v) = %v, want NaN", bad[0], bad[1], got)
		}
	}
	if StudentTCDF(math.Inf(1), 3) != 1 || StudentTCDF(math.Inf(-1), 3) != 0 || StudentTCDF(0, 3) != 0.5 {
		t.Error("CDF at ±∞ or 0")
	}
}

// TestRegularizedIncompleteBeta checks identities with closed forms: I_x(1, 1) = x,
// I_x(a, 1) = x^a, I_x(1, b) = 1 − (1 − x)^b, I_½(a, a) = ½, and symmetry.
func TestRegularizedIncompleteBeta(t *testing.T) {
	t.Parallel()
	for _, x := range []float64{0, 0.01, 0.2, 0.5, 0.77, 0.999, 1} {
		for _, c := range []struct {
			a, b, want float64
		}{
			{1, 1, x},
			{3.5, 1, math.Pow(x, 3.5)},
			{1, 2.5, 1 - math.Pow(1-x, 2.5)},
		} {
			if got := RegularizedIncompleteBeta(c.a, c.b, x); math.Abs(got-c.want) > 1e-13 {
				t.Errorf("I_%v(%v, %v) = %v, want %v", x, c.a, c.b, got, c.want)
			}
		}
		if a, b := RegularizedIncompleteBeta(2.5, 7, x), 1-RegularizedIncompleteBeta(7, 2.5, 1-x); math.Abs(a-b) > 1e-13 {
			t.Errorf("symmetry at %v: %v, %v", x, a, b)
		}
	}
	for _, a := range []float64{0.5, 1, 4, 50} {
		if got := RegularizedIncompleteBeta(a, a, 0.5); math.Abs(got-0.5) > 1e-13 {
			t.Errorf("I_½(%v, %v) = %v", a, a, got)
		}
	}
	if !math.IsNaN(RegularizedIncompleteBeta(0, 1, 0.5)) || !math.IsNaN(RegularizedIncompleteBeta(1, 1, 1.5)) {
		t.Error("out of domain: not NaN")
	}
}

// TestPairedTest checks small paired examples against figures computed once with python3:
// statistics.mean and statistics.stdev for the mean and the spread, t(0.975, n − 1) as in
// TestStudentTQuantile, and the sign-flip p-value by enumerating every sign pattern with
// itertools.product over the differences in integer hundredths:
//
//	d = [...]; m = statistics.mean(d); s = statistics.stdev(d)
//	half = t(0.975, len(d) - 1) * s / math.sqrt(len(d))
//	u = [round(x * 100) for x in d]
//	p = sum(abs(sum(a * b for a, b in zip(signs, u))) >= abs(sum(u))
//	        for signs in itertools.product((1, -1), repeat=len(d))) / 2 ** len(d)
func TestPairedTest(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name            string
		diffs           []float64
		mean, low, high float64
		p               float64
	}{
		{"six prompts, mostly worse", []float64{-0.2, -0.1, 0.05, -0.3, -0.15, 0.0},
			-0.116666666667, -0.252148225208, 0.018814891874, 8.0 / 64},
		{"one prompt fell a lot, the others held", []float64{-0.67, 0, 0, 0, 0},
			-0.134, -0.506043644097, 0.238043644097, 1},
		{"the same difference twice", []float64{0.1, 0.1}, 0.1, 0.1, 0.1, 0.5},
		{"eight prompts, consistently worse", []float64{-0.25, -0.5, -0.1, -0.33, -0.2, -0.4, -0.05, 0.1},
			-0.21625, -0.380376624525, -0.052123375475, 8.0 / 256},
		{"no change at all", []float64{0, 0, 0, 0}, 0, 0, 0, 1},
	}
	for _, tt := range tests {
		r := PairedTest(tt.diffs)
		near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
		if !r.Enough || !r.Exact || r.N != len(tt.diffs) || r.Flips != 1<<len(tt.diffs) || !near(r.Mean, tt.mean) || !near(r.Low, tt.low) ||
			!near(r.High, tt.high) || r.PValue != tt.p {
			t.Errorf("%s: %+v; want mean %v, interval [%v, %v], p %v", tt.name, r, tt.mean, tt.low, tt.high, tt.p)
		}
		if want := 2 / float64(r.Flips); r.MinPValue != want {
			t.Errorf("%s: smallest p %v, want %v", tt.name, r.MinPValue, want)
		}
	}
}

// TestPairedTestTooFew: no pair or one pair is not enough: no interval, no p-value, and no NaN
// anywhere.
func TestPairedTestTooFew(t *testing.T) {
	t.Parallel()
	for _, diffs := range [][]float64{nil, {}, {-0.3}} {
		r := PairedTest(diffs)
		for _, v := range []float64{r.Mean, r.Low, r.High, r.PValue, r.MinPValue} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Errorf("%v: %+v holds NaN or Inf", diffs, r)
			}
		}
		if r.Enough || r.N != len(diffs) || r.PValue != 0 || r.Flips != 0 {
			t.Errorf("%v: %+v", diffs, r)
		}
	}
	if r := PairedTest([]float64{-0.3}); r.Mean != -0.3 || r.Low != -0.3 || r.High != -0.3 {
		t.Errorf("one pair: %+v", r)
	}
}

// boundaryDiffs are n differences in hundredths, mostly negative, none zero.
func boundaryDiffs(n int) []float64 {
	d := make([]float64, n)
	for i := range d {
		d[i] = float64((i*37)%11-7) / 100
		if d[i] == 0 {
			d[i] = 0.03
		}
	}
	return d
}

// TestPairedTestExactOrSampled: up to 20 pairs every sign pattern is counted; from 21 on,
// 100,000 patterns are drawn from the fixed seed, so the p-value is the same on every run and
// close to the exact one (counted here over all 2^21 patterns).
func TestPairedTestExactOrSampled(t *testing.T) {
	t.Parallel()
	r20 := PairedTest(boundaryDiffs(20))
	if !r20.Exact || r20.Flips != 1<<20 || r20.MinPValue != 2.0/(1<<20) {
		t.Errorf("20 pairs: %+v", r20)
	}
	d21 := boundaryDiffs(21)
	r21 := PairedTest(d21)
	if r21.Exact || r21.Flips != SignFlipSamples || r21.MinPValue != 1.0/(SignFlipSamples+1) {
		t.Errorf("21 pairs: %+v", r21)
	}
	units := make([]int64, len(d21))
	for i, d := range d21 {
		units[i] = int64(math.Round(d * 1e9))
	}
	exact := float64(exactSignFlips(units)) / (1 << 21)
	// The sampled estimate's standard error is √(p(1 − p)/100,000), about 0.00046 here.
	if math.Abs(r21.PValue-exact) > 0.002 || exact < 0.001 || exact > 0.5 {
		t.Errorf("21 pairs: sampled p %v, exact %v", r21.PValue, exact)
	}
	if again := PairedTest(d21); again != r21 {
		t.Errorf("the sampled p-value changed between two runs: %v, %v", r21.PValue, again.PValue)
	}
	// Order does not matter to the exact test; the sampled one draws its signs by position.
	rev := make([]float64, 20)
	for i, d := range boundaryDiffs(20) {
		rev[19-i] = d
	}
	if PairedTest(rev).PValue != r20.PValue {
		t.Error("the exact p-value depends on the order of the pairs")
	}
}
