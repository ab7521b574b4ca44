package jsjson

import (
	"math"
	"math/big"
)

// Round returns x rounded to the given number of decimal places (0 to 15). It rounds the exact
// binary value of x and breaks exact ties away from zero, as JavaScript's toFixed does: the
// result is the float64 nearest to the decimal toFixed would print, so formatting it with
// strconv or fmt at the same precision prints that decimal. Round(9.25, 1) is 9.3,
// Round(0.6666, 3) is 0.667, Round(2.675, 2) is 2.67 (the float64 nearest to 2.675 is slightly
// below it). NaN and infinities are returned unchanged; decimals outside 0–15 are clamped to
// that range. Package scoring's Round is this one.
func Round(x float64, decimals int) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 {
		return x
	}
	decimals = min(max(decimals, 0), 15)
	scale := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(decimals)), nil)
	// x × 10^decimals exactly, as a fraction num/den.
	exact := new(big.Rat).SetFloat64(x)
	exact.Mul(exact, new(big.Rat).SetInt(scale))
	num, den := exact.Num(), exact.Denom()
	quo, rem := new(big.Int).QuoRem(num, den, new(big.Int)) // truncates toward zero
	// Round away from zero when the remainder is at least half of the denominator.
	twice := new(big.Int).Abs(rem)
	twice.Lsh(twice, 1)
	if twice.Cmp(den) >= 0 {
		if num.Sign() < 0 {
			quo.Sub(quo, big.NewInt(1))
		} else {
			quo.Add(quo, big.NewInt(1))
		}
	}
	f, _ := new(big.Rat).SetFrac(quo, scale).Float64()
	if f == 0 && math.Signbit(x) {
		return math.Copysign(0, -1)
	}
	return f
}
