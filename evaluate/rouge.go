package evaluate

import "strings"

// RougeL returns the ROUGE-L F-measure of response against groundTruth, as Google's
// rouge-score package computes it (RougeScorer(["rougeL"]) without stemming): both texts are
// lower-cased and tokenised into runs of ASCII letters and digits (everything else separates
// tokens, so text in other scripts yields no tokens); the longest common subsequence of the token
// lists gives precision LCS/len(response tokens) and recall LCS/len(ground-truth tokens), and the
// score is their harmonic mean. Either text without tokens scores 0.
func RougeL(response, groundTruth string) float64 {
	pred := rougeTokens(response)
	target := rougeTokens(groundTruth)
	if len(pred) == 0 || len(target) == 0 {
		return 0
	}
	lcs := lcsLength(target, pred)
	precision := float64(lcs) / float64(len(pred))
	recall := float64(lcs) / float64(len(target))
	if precision+recall > 0 {
		return 2 * precision * recall / (precision + recall)
	}
	return 0
}

// rougeTokens is rouge-score's tokenize: lower case, then the maximal runs of [a-z0-9].
func rougeTokens(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// lcsLength returns the length of the longest common subsequence of a and b by dynamic
// programming over two rows, so memory grows with the shorter text only.
func lcsLength(a, b []string) int {
	if len(b) > len(a) {
		a, b = b, a
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			if a[i-1] == b[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
