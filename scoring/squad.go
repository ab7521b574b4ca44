package scoring

import (
	"strings"
	"unicode/utf8"
)

// ExactMatch returns 1 when response and groundTruth are equal after SQuAD answer
// normalisation, else 0. The normalisation is that of the official SQuAD v2.0 evaluation
// script (normalize_answer): lower case as Python's str.lower() (Unicode's full case mapping,
// with a word-final "Σ" as "ς"); ASCII punctuation removed; the articles "a", "an" and
// "the" removed where they stand as whole words; white space collapsed. So "The Cat sat!" and
// "cat  sat" match.
func ExactMatch(response, groundTruth string) float64 {
	if normalizeAnswer(response) == normalizeAnswer(groundTruth) {
		return 1
	}
	return 0
}

// F1 returns the token-overlap F1 of response against groundTruth, as the official SQuAD v2.0
// evaluation script computes it (compute_f1): both texts are normalised as for [ExactMatch] and
// split on white space; the common tokens are counted with multiplicity; precision is
// common/len(response tokens), recall common/len(ground-truth tokens), and F1 their harmonic
// mean. When either text has no tokens, F1 is 1 if both have none, else 0 (the v2.0 rule for
// unanswerable questions; v1.1 gave 0 for two empty texts).
//
// F1("the cat sat", "the cat sat on the mat") is 2/3: the articles go, leaving 2 tokens against
// 4, precision 1, recall 0.5.
func F1(response, groundTruth string) float64 {
	pred := answerTokens(response)
	gold := answerTokens(groundTruth)
	if len(pred) == 0 || len(gold) == 0 {
		if len(pred) == len(gold) {
			return 1
		}
		return 0
	}
	counts := make(map[string]int, len(gold))
	for _, t := range gold {
		counts[t]++
	}
	same := 0
	for _, t := range pred {
		if counts[t] > 0 {
			counts[t]--
			same++
		}
	}
	if same == 0 {
		return 0
	}
	precision := 1.0 * float64(same) / float64(len(pred))
	recall := 1.0 * float64(same) / float64(len(gold))
	return (2 * precision * recall) / (precision + recall)
}

// answerTokens is SQuAD's get_tokens: the normalised answer split on white space.
func answerTokens(s string) []string {
	return pyFields(normalizeAnswer(s))
}

// asciiPunctuation is Python's string.punctuation.
const asciiPunctuation = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"

// normalizeAnswer is SQuAD's normalize_answer: lower, remove_punc, remove_articles and
// white_space_fix, in that order. Lower case is Python's str.lower() (pyLower: full case
// mapping, so "İ" becomes "i" and U+0307, and a word-final "Σ" becomes "ς").
func normalizeAnswer(s string) string {
	s = pyLower(s)
	s = strings.Map(func(r rune) rune {
		if r < 0x80 && strings.ContainsRune(asciiPunctuation, r) {
			return -1
		}
		return r
	}, s)
	s = removeArticles(s)
	return strings.Join(pyFields(s), " ")
}

// removeArticles replaces every whole-word "a", "an" and "the" with a space, as
// re.sub(r'\b(a|an|the)\b', ' ', text) does: a word is a maximal run of Python word characters,
// so "the" in "the—cat" goes (the dash is no word character) while "then" and "the_cat" stay.
func removeArticles(s string) string {
	var sb strings.Builder
	sb.Grow(len(s))
	start := -1 // start of the current run of word characters
	flush := func(end int) {
		switch s[start:end] {
		case "a", "an", "the":
			sb.WriteByte(' ')
		default:
			sb.WriteString(s[start:end])
		}
		start = -1
	}
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if isPyWordChar(r) {
			if start < 0 {
				start = i
			}
		} else {
			if start >= 0 {
				flush(i)
			}
			sb.WriteString(s[i : i+size]) // the original bytes, even when not valid UTF-8
		}
		i += size
	}
	if start >= 0 {
		flush(len(s))
	}
	return sb.String()
}
