package jsjson

import (
	"math"
	"strconv"
	"strings"
)

// FormatNumber formats a number as JavaScript's Number.prototype.toString does (and so as
// JSON.stringify writes it): integers without a fraction, exponents only outside [1e-6, 1e21).
func FormatNumber(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	case f == 0:
		return "0"
	}
	abs := math.Abs(f)
	if abs >= 1e21 || abs < 1e-6 {
		s := strconv.FormatFloat(f, 'e', -1, 64)
		// Go writes "1e+21" and "1.5e-07"; JavaScript writes "1e+21" and "1.5e-7".
		mant, exp, _ := strings.Cut(s, "e")
		sign := exp[0]
		digits := strings.TrimLeft(exp[1:], "0")
		return mant + "e" + string(sign) + digits
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}
