package scoring

// Alpha is Krippendorff's alpha of some reliability data, with the counts it was computed from.
type Alpha struct {
	// Value is alpha: 1 is perfect agreement, 0 agreement no better than chance, below 0
	// systematic disagreement. It is meaningful only when Defined.
	Value float64
	// Defined is false when no unit has two values (there is nothing to compare) or when every
	// pairable value is the same: the expected disagreement is then 0 and alpha is 0/0.
	Defined bool
	// Units counts the pairable units (those with two values or more), Values the values in
	// them (Krippendorff's n), and Pairs the pairs of values within a unit, Σ m(m−1)/2.
	Units, Values, Pairs int
	// Variance is the population variance of the pairable values: a run where every judge gives
	// nearly the same score everywhere has a tiny expected disagreement, and alpha is unstable.
	Variance float64
}

// KrippendorffAlphaInterval returns Krippendorff's alpha with the interval metric,
// δ²(c, k) = (c − k)², of reliability data given unit by unit: units[u] holds the values the
// coders (judges) assigned to unit u (a point), in any order; a coder who gave no value is
// simply absent, so missing data needs no marker. Units with fewer than two values cannot be
// paired and are left out, as the coefficient prescribes.
//
// With n the number of pairable values and m_u the number of values in unit u,
//
//	D_o = 1/n · Σ_u 1/(m_u − 1) · Σ_{i≠j in u} (v_ui − v_uj)²     observed disagreement
//	D_e = 1/(n(n − 1)) · Σ_{i≠j} (v_i − v_j)²                   expected disagreement
//	α   = 1 − D_o / D_e
//
// (Krippendorff, K., 2011, "Computing Krippendorff's Alpha-Reliability", Annenberg School for
// Communication, University of Pennsylvania, section E, written with the values instead of the
// coincidence matrix, which sums the same pairs). For the interval metric the sums of squared
// differences are 2m times the sum of squared deviations from the mean, which this computes in
// one pass per unit.
func KrippendorffAlphaInterval(units [][]float64) Alpha {
	var a Alpha
	observed := 0.0 // Σ_u 1/(m_u−1) · Σ_{i≠j in u} δ²
	sum := 0.0
	for _, u := range units {
		m := len(u)
		if m < 2 {
			continue
		}
		a.Units++
		a.Values += m
		a.Pairs += m * (m - 1) / 2
		mean := 0.0
		for _, v := range u {
			mean += v
		}
		mean /= float64(m)
		ss := 0.0
		for _, v := range u {
			ss += (v - mean) * (v - mean)
			sum += v
		}
		observed += 2 * float64(m) * ss / float64(m-1)
	}
	if a.Units == 0 {
		return a
	}
	n := float64(a.Values)
	mean := sum / n
	// Σ (v − mean)² over every pairable value, recomputed from the values for accuracy.
	ssTotal := 0.0
	for _, u := range units {
		if len(u) < 2 {
			continue
		}
		for _, v := range u {
			ssTotal += (v - mean) * (v - mean)
		}
	}
	a.Variance = ssTotal / n
	dObserved := observed / n
	dExpected := 2 * n * ssTotal / (n * (n - 1))
	if dExpected == 0 {
		return a
	}
	a.Value, a.Defined = 1-dObserved/dExpected, true
	return a
}
