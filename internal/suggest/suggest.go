// Package suggest finds the known name closest to a misspelt one, for "did you mean" hints in
// error messages about config keys, frontmatter fields and point-function names.
package suggest

import "strings"

// Closest returns the name in known nearest to s by case-insensitive edit distance, if that
// distance is at most maxDist; otherwise "". Ties go to the alphabetically first name, so the
// hint does not depend on the order of known (which may come from a map).
func Closest(s string, known []string, maxDist int) string {
	best, bestDist := "", maxDist+1
	ls := strings.ToLower(s)
	for _, k := range known {
		d := Distance(ls, strings.ToLower(k))
		if d < bestDist || (d == bestDist && k < best) {
			best, bestDist = k, d
		}
	}
	return best
}

// Distance is the Levenshtein edit distance between a and b, counted in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
