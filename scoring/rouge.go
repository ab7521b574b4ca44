package scoring

import (
	"context"
	"strings"
)

// RougeL returns the ROUGE-L F-measure of response against groundTruth, as Google's
// rouge-score package computes it (RougeScorer(["rougeL"]) without stemming): both texts are
// lower-cased as Python's str.lower() does and tokenised into runs of ASCII letters and digits
// (everything else separates tokens, so text in other scripts yields no tokens); the longest
// common subsequence of the token lists gives precision LCS/len(response tokens) and recall
// LCS/len(ground-truth tokens), and the score is their harmonic mean. Either text without tokens
// scores 0.
//
// The subsequence takes time proportional to the product of the token counts (seconds for two
// texts of 30,000 tokens each); [RougeLContext] stops it when its context ends.
func RougeL(response, groundTruth string) float64 {
	v, _ := RougeLContext(context.Background(), response, groundTruth)
	return v
}

// RougeLContext is [RougeL] that gives up with ctx's error when ctx ends (the evaluate
// package's RunRougeLScoreEvaluator uses it).
func RougeLContext(ctx context.Context, response, groundTruth string) (float64, error) {
	pred := rougeTokens(response)
	target := rougeTokens(groundTruth)
	if len(pred) == 0 || len(target) == 0 {
		return 0, nil
	}
	lcs, err := lcsLength(ctx, target, pred)
	if err != nil {
		return 0, err
	}
	precision := float64(lcs) / float64(len(pred))
	recall := float64(lcs) / float64(len(target))
	if precision+recall > 0 {
		return 2 * precision * recall / (precision + recall), nil
	}
	return 0, nil
}

// rougeTokens is rouge-score's tokenize: lower case (Python's str.lower(), so "İ" becomes "i"
// and U+0307, which separates tokens), then the maximal runs of [a-z0-9].
func rougeTokens(s string) []string {
	return strings.FieldsFunc(pyLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
}

// lcsLength returns the length of the longest common subsequence of a and b by dynamic
// programming over two rows of the table, so memory grows with the shorter text only. Tokens are
// numbered first so the inner loop compares integers. It checks ctx every 256 rows.
func lcsLength(ctx context.Context, a, b []string) (int, error) {
	if len(b) > len(a) {
		a, b = b, a
	}
	ids := make(map[string]int32, len(b))
	bi := make([]int32, len(b))
	for j, tok := range b {
		id, ok := ids[tok]
		if !ok {
			id = int32(len(ids))
			ids[tok] = id
		}
		bi[j] = id
	}
	ai := make([]int32, len(a))
	for i, tok := range a {
		id, ok := ids[tok]
		if !ok {
			id = -1 // in a only: never equal to a token of b
		}
		ai[i] = id
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := 1; i <= len(ai); i++ {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
		}
		x := ai[i-1]
		for j := 1; j <= len(bi); j++ {
			if x == bi[j-1] {
				cur[j] = prev[j-1] + 1
			} else {
				cur[j] = max(prev[j], cur[j-1])
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)], nil
}
