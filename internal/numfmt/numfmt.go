// Package numfmt writes counts for people: thousands separated by commas ("4,000") and a count
// with its noun ("1 word", "2 words").
package numfmt

import "fmt"

// Thousands formats n with comma separators ("4,000").
func Thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Count is "1 word", "2 words", "1,000 words".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return Thousands(int64(n)) + " " + noun + "s"
}
