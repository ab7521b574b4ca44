package scoring

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// bleuMaxOrder is BLEU-4: n-grams of 1 to 4 tokens, uniformly weighted.
const bleuMaxOrder = 4

// BLEU returns the sentence BLEU-4 of response against the single reference groundTruth, on a
// 0–1 scale: sacreBLEU's sentence_bleu with its defaults (sacrebleu 2.x: tokenizer "13a",
// case-sensitive, smoothing "exp", effective order), divided by 100.
//
// The texts are tokenised like mteval-v13a (punctuation split off, except "." and "," inside
// numbers and "-" after a digit). The score is the brevity penalty exp(1 − r/c) (when the
// response's c tokens are fewer than the reference's r) times the geometric mean of the clipped
// n-gram precisions p1…p4. Smoothing ("exp", method 3 of Chen and Cherry 2014, the NIST
// mteval-v13a smoothing): the k-th order with no matching n-gram gets precision 1/(2^k × total)
// instead of 0. Effective order: orders for which the response has no n-grams at all (it is
// shorter than 4 tokens) are left out of the mean. With no matching n-gram of any order the
// score is 0; so is an empty response. The result is capped at 1, which floating-point error in
// the mean of logarithms can otherwise exceed by a few units in the last place.
func BLEU(response, groundTruth string) float64 {
	hyp := tokenize13a(response)
	ref := tokenize13a(groundTruth)

	var correct, total [bleuMaxOrder]int
	for n := 1; n <= bleuMaxOrder; n++ {
		refCounts := ngramCounts(ref, n)
		for gram, count := range ngramCounts(hyp, n) {
			total[n-1] += count
			correct[n-1] += min(count, refCounts[gram])
		}
	}
	// The geometric mean of four precisions of 100 can come out a hair above 100.
	return min(bleuFromStats(correct, total, len(hyp), len(ref))/100, 1)
}

// bleuFromStats is sacreBLEU's BLEU.compute_bleu with smooth_method "exp" and
// effective_order=True, on the 0–100 scale. The arithmetic follows it operation for operation.
func bleuFromStats(correct, total [bleuMaxOrder]int, sysLen, refLen int) float64 {
	bp := 1.0
	if sysLen < refLen {
		bp = 0
		if sysLen > 0 {
			bp = math.Exp(1 - float64(refLen)/float64(sysLen))
		}
	}
	anyCorrect := false
	for _, c := range correct {
		anyCorrect = anyCorrect || c > 0
	}
	if !anyCorrect {
		return 0
	}
	var precisions [bleuMaxOrder]float64
	smoothMteval := 1.0
	effOrder := bleuMaxOrder
	for n := 1; n <= bleuMaxOrder; n++ {
		if total[n-1] == 0 {
			break
		}
		effOrder = n
		if correct[n-1] == 0 {
			smoothMteval *= 2
			precisions[n-1] = 100. / (smoothMteval * float64(total[n-1]))
		} else {
			precisions[n-1] = 100. * float64(correct[n-1]) / float64(total[n-1])
		}
	}
	sum := 0.0
	for _, p := range precisions[:effOrder] {
		sum += math.Log(p)
	}
	return bp * math.Exp(sum/float64(effOrder))
}

// ngramCounts counts the n-grams of tokens. Tokens hold no white space, so joining them with a
// space is a faithful key.
func ngramCounts(tokens []string, n int) map[string]int {
	counts := make(map[string]int, max(len(tokens)-n+1, 0))
	for i := 0; i+n <= len(tokens); i++ {
		counts[strings.Join(tokens[i:i+n], " ")]++
	}
	return counts
}

// The regular expressions of sacreBLEU's TokenizerRegexp, applied in order.
var (
	// Punctuation and symbols: { | } ~ [ \ ] ^ _ ` space ! " # $ % & ( ) * + : ; < = > ? @ /
	tok13aSymbols = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([\{-\~\[-\x60 -\&\(-\+\:-\@\/])`) })
	// Period and comma unless preceded by a digit.
	tok13aPeriodBefore = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([^0-9])([\.,])`) })
	// Period and comma unless followed by a digit.
	tok13aPeriodAfter = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([\.,])([^0-9])`) })
	// Dash when preceded by a digit.
	tok13aDash = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`([0-9])(-)`) })
)

// tokenize13a is sacreBLEU's Tokenizer13a applied to a segment as BLEU does (after rstrip).
func tokenize13a(s string) []string {
	line := pyRStrip(s)
	line = strings.ReplaceAll(line, "<skipped>", "")
	line = strings.ReplaceAll(line, "-\n", "")
	line = strings.ReplaceAll(line, "\n", " ")
	line = strings.ReplaceAll(line, "&quot;", `"`)
	line = strings.ReplaceAll(line, "&amp;", "&")
	line = strings.ReplaceAll(line, "&lt;", "<")
	line = strings.ReplaceAll(line, "&gt;", ">")
	line = " " + line + " "
	line = tok13aSymbols().ReplaceAllString(line, " ${1} ")
	line = tok13aPeriodBefore().ReplaceAllString(line, "${1} ${2} ")
	line = tok13aPeriodAfter().ReplaceAllString(line, " ${1} ${2}")
	line = tok13aDash().ReplaceAllString(line, "${1} ${2} ")
	return pyFields(line)
}
