package document

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token-set similarity, as fuzzball (the JavaScript port of Python's fuzzywuzzy that the original
// VectorLint locates quotes with) computes it. The original scores a line against a quote with
// fuzzball's partial_ratio, token_sort_ratio and ratio (src/output/location.ts, threshold 80);
// its token_set_ratio is the member of that family that also forgives words left out, which
// is what models do to quotes besides reordering and rewording them. The numbers here are
// fuzzball's, checked against its own examples in the tests:
//
//   - text is processed as fuzzball's full_process does by default: every character that is not
//     a Unicode letter or number becomes a space, letters are lower-cased, white space runs are
//     one space; tokens are what is left between spaces;
//   - ratio(a, b) is round(100 × (|a| + |b| − d) / (|a| + |b|)), d being the edit distance with
//     substitutions costing 2 (python-Levenshtein's ratio), which is 2 × LCS(a, b) / (|a| + |b|);
//     it is 0 when either string is empty;
//   - token_set_ratio(a, b) takes the sets of tokens of a and b, the sorted intersection S and the
//     sorted differences A−B and B−A, and returns the best of ratio(S, S+(A−B)),
//     ratio(S, S+(B−A)) and ratio(S+(A−B), S+(B−A)).
//
// Lengths count code points (fuzzball counts UTF-16 units, and sorts tokens by them: the two
// differ only for characters outside the Basic Multilingual Plane).

// fuzzToken is a processed token of a text and its byte span there.
type fuzzToken struct {
	text       string
	start, end int
}

// fuzzTokens splits s into fuzzball's processed tokens: runs of letters and numbers, lower-cased.
func fuzzTokens(s string) []fuzzToken {
	var out []fuzzToken
	start := -1
	for i, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, fuzzToken{text: strings.ToLower(s[start:i]), start: start, end: i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, fuzzToken{text: strings.ToLower(s[start:]), start: start, end: len(s)})
	}
	return out
}

// tokenSet returns the distinct texts of tokens, sorted.
func tokenSet(tokens []fuzzToken) []string {
	set := make([]string, len(tokens))
	for i, t := range tokens {
		set[i] = t.text
	}
	slices.Sort(set)
	return slices.Compact(set)
}

// joinTokens is the processed text of tokens: their texts joined by spaces.
func joinTokens(tokens []fuzzToken) string {
	texts := make([]string, len(tokens))
	for i, t := range tokens {
		texts[i] = t.text
	}
	return strings.Join(texts, " ")
}

// sortedJoin is fuzzball's token_sort form of a text: its tokens sorted, joined by spaces.
func sortedJoin(tokens []fuzzToken) string {
	texts := make([]string, len(tokens))
	for i, t := range tokens {
		texts[i] = t.text
	}
	slices.Sort(texts)
	return strings.Join(texts, " ")
}

// joinedLen is the length in code points of the texts joined by single spaces.
func joinedLen(texts []string) int {
	n := 0
	for i, t := range texts {
		if i > 0 {
			n++
		}
		n += utf8.RuneCountInString(t)
	}
	return n
}

// fuzzRatio is fuzzball's ratio of two strings whose longest common subsequence has lcs code
// points and whose lengths add up to lensum: round(100 × 2·lcs / lensum), 0 when either is empty.
func fuzzRatio(lcs, lenA, lenB int) int {
	if lenA == 0 || lenB == 0 {
		return 0
	}
	lensum := lenA + lenB
	d := lensum - 2*lcs // the distance with substitutions costing 2
	return int(math.Floor(100*(float64(lensum-d)/float64(lensum)) + 0.5))
}

// lcsLen is the length of the longest common subsequence of a and b.
func lcsLen(a, b []rune) int {
	var rows lcsRows
	return rows.length(a, b)
}

// lcsRows are the two rows of the table a longest common subsequence is measured with, kept
// so that a caller measuring many pairs (setScorer) allocates them once.
type lcsRows struct{ prev, cur []int }

// length is the length of the longest common subsequence of a and b.
func (r *lcsRows) length(a, b []rune) int {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if cap(r.prev) < len(b)+1 {
		r.prev, r.cur = make([]int, len(b)+1), make([]int, len(b)+1)
	}
	prev, cur := r.prev[:len(b)+1], r.cur[:len(b)+1]
	clear(prev)
	clear(cur)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// setRatios holds the three comparisons of token_set_ratio for two token sets A and B: the
// intersection S against S+(A−B) (how much of A is in B), against S+(B−A) (how much of B is
// in A), and S+(A−B) against S+(B−A).
type setRatios struct {
	aInB, bInA, rest int
}

// compareSets computes the three comparisons of token_set_ratio for two sorted sets of tokens.
func compareSets(a, b []string) setRatios {
	var sect, onlyA, onlyB []string
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j == len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i == len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			sect = append(sect, a[i])
			i, j = i+1, j+1
		}
	}
	ls := joinedLen(sect)
	plus := func(rest []string) int { // the length of S and rest joined
		if len(rest) == 0 {
			return ls
		}
		if ls == 0 {
			return joinedLen(rest)
		}
		return ls + 1 + joinedLen(rest)
	}
	withA, withB := plus(onlyA), plus(onlyB)
	var r setRatios
	if ls > 0 {
		// S is a prefix of S+(A−B): their common subsequence is S.
		r.aInB, r.bInA = fuzzRatio(ls, ls, withA), fuzzRatio(ls, ls, withB)
	}
	// S+(A−B) and S+(B−A) share S and the space after it (when both go on): only what follows
	// needs comparing.
	common := ls
	if ls > 0 && len(onlyA) > 0 && len(onlyB) > 0 {
		common++
	}
	restA := []rune(strings.Join(onlyA, " "))
	restB := []rune(strings.Join(onlyB, " "))
	r.rest = fuzzRatio(common+lcsLen(restA, restB), withA, withB)
	return r
}

// tokenSetRatio is fuzzball's token_set_ratio of a and b (default options), from 0 to 100. It is
// symmetric, and 100 whenever one text's words are all among the other's.
func tokenSetRatio(a, b string) int {
	ta, tb := fuzzTokens(a), fuzzTokens(b)
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	r := compareSets(tokenSet(ta), tokenSet(tb))
	return max(r.aInB, r.bInA, r.rest)
}

// quoteSimilarity is token_set_ratio read from the quote's side, from 0 to 100: how much of the
// quote's words a passage holds, in any order, or how close the words that differ are. The
// comparison that rewards a passage for holding nothing but some of the quote's words is left
// out: with it, a single word the quote shares with the text (a "the") would match any quote
// fully.
func quoteSimilarity(quote, passage []string) int {
	r := compareSets(quote, passage)
	return max(r.aInB, r.rest)
}

// tokenTexts returns the texts of tokens.
func tokenTexts(tokens []fuzzToken) []string {
	texts := make([]string, len(tokens))
	for i, t := range tokens {
		texts[i] = t.text
	}
	return texts
}

// setScorer computes quoteSimilarity of a quote against passages of a text (runs of its words)
// one word at a time, without building strings: every word is an id given in sorted order, so
// sorted sets are sorted ids and the three parts of token_set_ratio come out of one merge.
type setScorer struct {
	vocab map[string]int
	texts []string // by id, sorted
	lens  []int    // by id: code points
	words []int    // the text's words' ids

	quote   []int  // the quote's distinct words' ids, sorted
	inQuote []bool // by id
	count   []int  // by id: in the passage
	present []int  // ids with a count, sorted

	restA, restB []rune
	rows         lcsRows
}

// newSetScorer prepares the scoring of passages of a text of words against quotes made of the
// given tokens.
func newSetScorer(words []fuzzToken, quotes ...[]fuzzToken) *setScorer {
	s := &setScorer{vocab: map[string]int{}}
	for _, w := range words {
		s.vocab[w.text] = 0
	}
	for _, q := range quotes {
		for _, t := range q {
			s.vocab[t.text] = 0
		}
	}
	for t := range s.vocab {
		s.texts = append(s.texts, t)
	}
	slices.Sort(s.texts)
	s.lens = make([]int, len(s.texts))
	for id, t := range s.texts {
		s.vocab[t] = id
		s.lens[id] = utf8.RuneCountInString(t)
	}
	s.words = make([]int, len(words))
	for i, w := range words {
		s.words[i] = s.vocab[w.text]
	}
	s.inQuote = make([]bool, len(s.texts))
	s.count = make([]int, len(s.texts))
	return s
}

// ids returns the distinct ids of tokens (which newSetScorer was given), sorted.
func (s *setScorer) ids(tokens []fuzzToken) []int {
	out := make([]int, len(tokens))
	for i, t := range tokens {
		out[i] = s.vocab[t.text]
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// setQuote makes ids (sorted, distinct) the quote the passages are scored against.
func (s *setScorer) setQuote(ids []int) {
	clear(s.inQuote)
	for _, id := range ids {
		s.inQuote[id] = true
	}
	s.quote = ids
}

// reset empties the passage.
func (s *setScorer) reset() {
	for _, id := range s.present {
		s.count[id] = 0
	}
	s.present = s.present[:0]
}

// add appends the text's word i to the passage.
func (s *setScorer) add(i int) {
	id := s.words[i]
	s.count[id]++
	if s.count[id] == 1 {
		at, _ := slices.BinarySearch(s.present, id)
		s.present = slices.Insert(s.present, at, id)
	}
}

// similarity is quoteSimilarity of the quote and the passage when it is at least floor; below
// floor it is some value below floor (the exact value is not worth computing).
func (s *setScorer) similarity(floor int) int {
	// One merge of the two sorted sets: the intersection's length, and the differences.
	ls, la, lb, na, nb := 0, 0, 0, 0, 0 // lengths joined by spaces (without the first space), counts
	addLen := func(l *int, n *int, id int) {
		if *n > 0 {
			*l++
		}
		*l += s.lens[id]
		*n++
	}
	nsect := 0
	i, j := 0, 0
	for i < len(s.quote) || j < len(s.present) {
		switch {
		case j == len(s.present) || (i < len(s.quote) && s.quote[i] < s.present[j]):
			addLen(&la, &na, s.quote[i])
			i++
		case i == len(s.quote) || s.present[j] < s.quote[i]:
			addLen(&lb, &nb, s.present[j])
			j++
		default:
			addLen(&ls, &nsect, s.quote[i])
			i, j = i+1, j+1
		}
	}
	plus := func(l, n int) int {
		switch {
		case n == 0:
			return ls
		case nsect == 0:
			return l
		}
		return ls + 1 + l
	}
	withA, withB := plus(la, na), plus(lb, nb)
	aInB := 0
	if nsect > 0 {
		aInB = fuzzRatio(ls, ls, withA)
	}
	common := ls
	if nsect > 0 && na > 0 && nb > 0 {
		common++
	}
	// S+(A−B) against S+(B−A): their common subsequence is at most common + the shorter rest.
	if bound := fuzzRatio(common+min(la, lb), withA, withB); bound <= aInB || bound < floor {
		return max(aInB, min(bound, floor-1))
	}
	s.restA, s.restB = s.restA[:0], s.restB[:0]
	for _, id := range s.quote {
		if s.count[id] == 0 {
			s.restA = appendWord(s.restA, s.texts[id])
		}
	}
	for _, id := range s.present {
		if !s.inQuote[id] {
			s.restB = appendWord(s.restB, s.texts[id])
		}
	}
	// A common subsequence has at most as many of each character as the rarer side (all the
	// characters beyond ASCII counted as one, which only loosens the bound).
	if bound := fuzzRatio(common+sharedChars(s.restA, s.restB), withA, withB); bound <= aInB || bound < floor {
		return max(aInB, min(bound, floor-1))
	}
	return max(aInB, fuzzRatio(common+s.rows.length(s.restA, s.restB), withA, withB))
}

// sharedChars bounds the longest common subsequence of a and b: the characters they share,
// counted with multiplicity, every character beyond ASCII taken for one and the same.
func sharedChars(a, b []rune) int {
	var ca, cb [129]int
	for _, r := range a {
		ca[min(r, 128)]++
	}
	for _, r := range b {
		cb[min(r, 128)]++
	}
	n := 0
	for i := range ca {
		n += min(ca[i], cb[i])
	}
	return n
}

// appendWord appends a word to a text of words joined by spaces.
func appendWord(text []rune, word string) []rune {
	if len(text) > 0 {
		text = append(text, ' ')
	}
	for _, r := range word {
		text = append(text, r)
	}
	return text
}
