package document

import (
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/finding"
)

// LocateMethod says how a violation's quote was found in the text (spec/linter.md §6 order).
type LocateMethod int

// Locate methods, from the most to the least exact.
const (
	// NotLocated: the quote is not in the text; the violation is unverified.
	NotLocated LocateMethod = iota
	// LocatedOnLine: the exact quote on the line the model gave.
	LocatedOnLine
	// LocatedExact: the exact quote elsewhere in the evaluated text.
	LocatedExact
	// LocatedCaseInsensitive: the quote, ignoring case.
	LocatedCaseInsensitive
	// LocatedNormalized: the quote ignoring case, runs of white space, typographic quotes and
	// dashes, and the Markdown markup characters ` and *.
	LocatedNormalized
	// LocatedFuzzy: the most similar passage (similarity ≥ fuzzySimilarity) within two lines
	// of the line the model gave.
	LocatedFuzzy
)

// String names the method.
func (m LocateMethod) String() string {
	switch m {
	case LocatedOnLine:
		return "exact on the line"
	case LocatedExact:
		return "exact"
	case LocatedCaseInsensitive:
		return "case-insensitive"
	case LocatedNormalized:
		return "normalised"
	case LocatedFuzzy:
		return "fuzzy"
	}
	return "not located"
}

// fuzzySimilarity is the least similarity of a fuzzy match, from 0 to 1: 0.8, the 80 of 100 the
// original VectorLint's fuzzy matching asks of fuzzball's scores (src/output/location.ts).
const fuzzySimilarity = 0.8

// Limits that keep fuzzy matching cheap on hostile input: longer quotes or windows are not
// matched fuzzily (the exact and normalised steps still apply).
const (
	maxFuzzyQuote  = 300  // code points of the processed quote
	maxFuzzyWindow = 6000 // code points of the five-line window
)

// Span is a located quote: byte offsets into the document's Source, end exclusive.
type Span struct {
	Start, End int
}

// Quote is what a model quoted of a passage: the text, its line hint (0 when it gave none) and
// the words it saw before and after it.
type Quote struct {
	Text          string
	Line          int
	Before, After string
}

// Locate finds a violation's quoted text in the chunk the model evaluated, trying in order
// (spec/linter.md §6): the exact quote on the hinted line; the exact quote anywhere in the
// chunk (context_before and context_after pick among repeats, then the nearest to the hinted
// line); ignoring case; ignoring white space, typographic punctuation and markup; a fuzzy match
// within the hinted line ±2. It returns NotLocated when none succeeds.
func Locate(c Chunk, v Quote) (Span, LocateMethod) {
	quotes := quoteCandidates(v.Text)
	if len(quotes) == 0 {
		return Span{}, NotLocated
	}
	text := c.Text
	lines := finding.NewLineIndex(text)
	hint := -1 // 0-based line index in the chunk
	if v.Line > 0 && v.Line-c.Line >= 0 && v.Line-c.Line < lines.Lines() {
		hint = v.Line - c.Line
	}
	p := picker{text: text, lines: lines, hint: hint, before: v.Before, after: v.After}
	abs := func(s Span, m LocateMethod) (Span, LocateMethod) {
		return Span{Start: c.Offset + s.Start, End: c.Offset + s.End}, m
	}

	if hint >= 0 {
		lo, hi := lines.LineStart(hint+1), lines.LineEnd(hint+1)
		for _, q := range quotes {
			var on []Span
			for _, s := range exactAll(text, q) {
				if s.Start >= lo && s.Start < hi {
					on = append(on, s)
				}
			}
			if len(on) > 0 {
				return abs(p.pick(on), LocatedOnLine)
			}
		}
	}
	for _, q := range quotes {
		if spans := exactAll(text, q); len(spans) > 0 {
			return abs(p.pick(spans), LocatedExact)
		}
	}
	for _, q := range quotes {
		if spans := foldAll(text, q); len(spans) > 0 {
			return abs(p.pick(spans), LocatedCaseInsensitive)
		}
	}
	nt := normalize(text)
	for _, q := range quotes {
		nq := normalize(q)
		if len(nq.runes) == 0 {
			continue
		}
		if spans := nt.findAll(nq.runes); len(spans) > 0 {
			return abs(balanceMarkup(text, p.pick(spans)), LocatedNormalized)
		}
	}
	if hint >= 0 {
		first := max(0, hint-2)
		lo := lines.LineStart(first + 1)
		hi := lines.LineEnd(min(lines.Lines(), hint+3))
		if s, ok := fuzzyLocate(text[lo:hi], quotes, hint-first); ok {
			return abs(Span{Start: lo + s.Start, End: lo + s.End}, LocatedFuzzy)
		}
	}
	return Span{}, NotLocated
}

// lineNumberPrefix matches the "N<TAB>" prefixes of the numbered text, which models sometimes
// copy into their quotes.
var lineNumberPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^[0-9]+\t`) })

// quoteCandidates returns the forms of a quote to look for, in order: as given (trimmed);
// without copied line-number prefixes; without surrounding quotation marks.
func quoteCandidates(q string) []string {
	// A quote is searched for byte by byte: a stray byte of a broken UTF-8 sequence would match
	// inside a character of the document and give a span that cuts it.
	q = strings.TrimSpace(strings.ToValidUTF8(q, "\uFFFD"))
	if q == "" {
		return nil
	}
	out := []string{q}
	add := func(s string) {
		s = strings.TrimSpace(s)
		if s == "" {
			return
		}
		for _, o := range out {
			if o == s {
				return
			}
		}
		out = append(out, s)
	}
	unprefixed := lineNumberPrefix().ReplaceAllString(q, "")
	add(unprefixed)
	for _, pair := range [][2]string{{`"`, `"`}, {"'", "'"}, {"“", "”"}, {"‘", "’"}, {"`", "`"}} {
		for _, s := range []string{q, unprefixed} {
			if len(s) > len(pair[0])+len(pair[1]) && strings.HasPrefix(s, pair[0]) && strings.HasSuffix(s, pair[1]) {
				add(s[len(pair[0]) : len(s)-len(pair[1])])
			}
		}
	}
	return out
}

// exactAll returns every occurrence of q in text, overlapping ones included.
func exactAll(text, q string) []Span {
	var out []Span
	for from := 0; from <= len(text)-len(q); {
		i := strings.Index(text[from:], q)
		if i < 0 {
			break
		}
		start := from + i
		out = append(out, Span{Start: start, End: start + len(q)})
		_, size := utf8.DecodeRuneInString(text[start:])
		from = start + max(size, 1)
	}
	return out
}

// foldAll returns every occurrence of q in text under Unicode simple case folding.
func foldAll(text, q string) []Span {
	first, _ := utf8.DecodeRuneInString(q)
	var out []Span
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if foldEqual(r, first) {
			if n := foldPrefix(text[i:], q); n >= 0 {
				out = append(out, Span{Start: i, End: i + n})
			}
		}
		i += size
	}
	return out
}

// foldPrefix returns the byte length of the prefix of s that equals q under case folding, or -1.
func foldPrefix(s, q string) int {
	n := 0
	for _, qr := range q {
		if n >= len(s) {
			return -1
		}
		r, size := utf8.DecodeRuneInString(s[n:])
		if !foldEqual(r, qr) {
			return -1
		}
		n += size
	}
	return n
}

// foldEqual reports whether two runes are equal under Unicode simple case folding.
func foldEqual(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// normText is a text normalised for matching, with each normalised rune's byte span in the
// original.
type normText struct {
	runes      []rune
	start, end []int
}

// normalize lower-cases s, turns every run of white space into one space (dropping it at the
// ends), maps typographic quotes, apostrophes and dashes to their ASCII forms and "…" to "...",
// and drops the Markdown markup a rendered text does not show: the characters `, *, [ and ],
// and the label of a reference link ("[text][label]" reads "text"). A model may quote a link
// as it renders ("Node.js-based API, this") where it was shown "[Node.js-based API], this".
func normalize(s string) normText {
	var n normText
	emit := func(r rune, start, end int) {
		n.runes = append(n.runes, r)
		n.start = append(n.start, start)
		n.end = append(n.end, end)
	}
	pendingSpace := -1 // offset of a space run not yet emitted
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			if pendingSpace < 0 {
				pendingSpace = i
			}
			i += size
			continue
		}
		switch r {
		case '[':
			i += max(referenceLabel(s, i), size)
			continue
		case '`', '*', ']':
			i += size
			continue
		}
		if pendingSpace >= 0 && len(n.runes) > 0 {
			emit(' ', pendingSpace, i)
		}
		pendingSpace = -1
		switch r {
		case '‘', '’', '‚', '‛', '′':
			r = '\''
		case '“', '”', '„', '‟', '″':
			r = '"'
		case '‐', '‑', '‒', '–', '—', '―', '−':
			r = '-'
		case '…':
			emit('.', i, i+size)
			emit('.', i, i+size)
			r = '.'
		}
		emit(unicode.ToLower(r), i, i+size)
		i += size
	}
	return n
}

// referenceLabel returns the length of the reference label "[label]" at s[i:], right after a
// link's text ("[text][label]", "[text][]"), or 0 when there is none there.
func referenceLabel(s string, i int) int {
	if i == 0 || s[i-1] != ']' {
		return 0
	}
	end := strings.IndexAny(s[i+1:], "[]\n\r")
	if end < 0 || s[i+1+end] != ']' {
		return 0
	}
	return end + 2
}

// balanceMarkup widens a span found ignoring markup (normalize) over the markup next to it that
// it opens or closes, so that the finding holds whole links, emphasis and code spans: the "["
// before "Node.js-based API], this", the "*" after "for *all", the "**" after "Call **[the API]".
// Only markup right at the span's ends is taken; a span that is balanced stays as it is.
func balanceMarkup(text string, s Span) Span {
	for {
		m := scanMarkup(text, s)
		switch {
		case m.closeBrackets > 0 && s.Start > 0 && text[s.Start-1] == '[':
			s.Start--
		case m.openBrackets > 0 && s.End < len(text) && text[s.End] == ']':
			s.End++
		case m.closeRun != 0 && s.Start > 0 && text[s.Start-1] == m.closeRun:
			for s.Start > 0 && text[s.Start-1] == m.closeRun {
				s.Start--
			}
		case m.openRun != 0 && s.End < len(text) && text[s.End] == m.openRun:
			for s.End < len(text) && text[s.End] == m.openRun {
				s.End++
			}
		default:
			return s
		}
	}
}

// spanMarkup is what a span leaves open or closes of the markup around it.
type spanMarkup struct {
	openBrackets, closeBrackets int  // "[" not closed in the span, "]" not opened in it
	openRun, closeRun           byte // '*' or '`' when a run of it opens and is not closed, or the reverse
}

// scanMarkup reads the brackets and the runs of * and ` in text[s.Start:s.End]. A run opens when
// the character after it is not white space and closes when the one before it is not (both:
// it closes what is open, else opens); the characters around the span count.
func scanMarkup(text string, s Span) spanMarkup {
	var m spanMarkup
	var depth [2]int // of the runs of * and of `
	run := func(c byte) *int {
		if c == '*' {
			return &depth[0]
		}
		return &depth[1]
	}
	for i := s.Start; i < s.End; {
		c := text[i]
		switch c {
		case '[':
			m.openBrackets++
		case ']':
			if m.openBrackets > 0 {
				m.openBrackets--
			} else {
				m.closeBrackets++
			}
		case '*', '`':
			j := i
			for j < s.End && text[j] == c {
				j++
			}
			before, _ := utf8.DecodeLastRuneInString(text[:i])
			after, _ := utf8.DecodeRuneInString(text[j:])
			opens := j < len(text) && !unicode.IsSpace(after)
			closes := i > 0 && !unicode.IsSpace(before)
			d := run(c)
			switch {
			case closes && (*d > 0 || !opens):
				if *d > 0 {
					*d--
				} else if m.closeRun == 0 {
					m.closeRun = c
				}
			case opens:
				*d++
			}
			i = j
			continue
		}
		i++
	}
	for _, c := range []byte{'*', '`'} {
		if *run(c) > 0 && m.openRun == 0 {
			m.openRun = c
		}
	}
	return m
}

// findAll returns the original spans of every occurrence of q in the normalised text.
func (n normText) findAll(q []rune) []Span {
	var out []Span
	for i := 0; i+len(q) <= len(n.runes); i++ {
		match := true
		for j, r := range q {
			if n.runes[i+j] != r {
				match = false
				break
			}
		}
		if match {
			out = append(out, Span{Start: n.start[i], End: n.end[i+len(q)-1]})
		}
	}
	return out
}

// fuzzyLocate finds, in window (the hinted line and two lines either side, hintLine being the
// hinted line's index in it), the passage most like one of the quotes: the run of whole words
// (fuzzball's tokens: letters and numbers) with the highest quote-side token-set similarity
// (quoteSimilarity: the quote's words in any order, some left out or slightly changed), then the
// highest edit similarity to the quote (1 − edit distance ÷ the longer's length, on the words
// in order or sorted, whichever is higher: of two passages holding the quote's words the one
// without extra words wins, and a word that replaces a quoted one counts for something), then
// the shortest, the nearest the hinted line, the first. A passage is a match when its set
// similarity reaches fuzzySimilarity. It is at most twice the quote's length, so the quote's
// words scattered over five lines are not a match.
func fuzzyLocate(window string, quotes []string, hintLine int) (Span, bool) {
	if utf8.RuneCountInString(window) > maxFuzzyWindow {
		return Span{}, false
	}
	words := fuzzTokens(window)
	type quoteForm struct {
		tokens []fuzzToken
		set    []int // the quote's distinct words, as ids in sorted order
		length int   // of the processed quote, in code points
	}
	var forms []quoteForm
	for _, q := range quotes {
		ts := fuzzTokens(q)
		length := joinedLen(tokenTexts(ts))
		if len(ts) == 0 || length > maxFuzzyQuote || slices.ContainsFunc(forms, func(f quoteForm) bool {
			return slices.EqualFunc(f.tokens, ts, func(a, b fuzzToken) bool { return a.text == b.text })
		}) {
			continue
		}
		forms = append(forms, quoteForm{tokens: ts, length: length})
	}
	all := make([][]fuzzToken, len(forms))
	for i, f := range forms {
		all[i] = f.tokens
	}
	sc := newSetScorer(words, all...)
	for i := range forms {
		forms[i].set = sc.ids(forms[i].tokens)
	}
	// First the best set similarity and the passages that have it.
	type cand struct {
		form, i, j int
	}
	var (
		bestSet int
		ties    []cand
	)
	const least = int(fuzzySimilarity * 100) // similarities are whole numbers from 0 to 100
	for f, q := range forms {
		sc.setQuote(q.set)
		for i := range words {
			sc.reset()
			length := -1 // of the passage's words joined by spaces, in code points
			for j := i; j < len(words); j++ {
				length += 1 + utf8.RuneCountInString(words[j].text)
				if length > 2*q.length {
					break
				}
				sc.add(j)
				sim := sc.similarity(max(bestSet, least))
				switch {
				case sim < max(bestSet, least):
				case sim > bestSet:
					bestSet, ties = sim, append(ties[:0], cand{f, i, j})
				default:
					ties = append(ties, cand{f, i, j})
				}
			}
		}
	}
	if len(ties) == 0 {
		return Span{}, false
	}
	// Then, of those, the one nearest the quote as written.
	type ranked struct {
		span       Span
		edit, dist int
	}
	var best *ranked
	for _, c := range ties {
		q := forms[c.form]
		passage := words[c.i : c.j+1]
		r := ranked{span: Span{Start: words[c.i].start, End: words[c.j].end}}
		r.edit = max(editSimilarity(joinTokens(q.tokens), joinTokens(passage)), editSimilarity(sortedJoin(q.tokens), sortedJoin(passage)))
		r.dist = abs(strings.Count(window[:r.span.Start], "\n") - hintLine)
		switch {
		case best == nil, r.edit > best.edit:
		case r.edit < best.edit:
			continue
		case r.span.End-r.span.Start != best.span.End-best.span.Start:
			if r.span.End-r.span.Start > best.span.End-best.span.Start {
				continue
			}
		case r.dist != best.dist:
			if r.dist > best.dist {
				continue
			}
		case r.span.Start >= best.span.Start:
			continue
		}
		best = &r
	}
	return best.span, true
}

// editSimilarity is 1 − the edit distance of a and b ÷ the longer's length in code points, as a
// whole number from 0 to 100.
func editSimilarity(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	longer := max(len(ra), len(rb))
	if longer == 0 {
		return 100
	}
	d := boundedLevenshtein(ra, rb, longer)
	return int(math.Floor(100*(1-float64(d)/float64(longer)) + 0.5))
}

// boundedLevenshtein is the edit distance between a and b, or -1 when it exceeds limit.
func boundedLevenshtein(a, b []rune, limit int) int {
	if d := len(a) - len(b); d > limit || -d > limit {
		return -1
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			rowMin = min(rowMin, cur[j])
		}
		if rowMin > limit {
			return -1
		}
		prev, cur = cur, prev
	}
	if prev[len(b)] > limit {
		return -1
	}
	return prev[len(b)]
}

// picker chooses among several places a quote occurs.
type picker struct {
	text          string
	lines         finding.LineIndex
	hint          int
	before, after string
}

// pick returns the span whose surroundings best match the model's context_before and
// context_after; ties go to the span nearest the hinted line, then to the first.
func (p picker) pick(spans []Span) Span {
	if len(spans) == 1 {
		return spans[0]
	}
	before := normalize(p.before).runes
	after := normalize(p.after).runes
	best, bestScore, bestDist := spans[0], -1, 0
	for _, s := range spans {
		score := 0
		if len(before) > 0 {
			from := runeStartBefore(p.text, s.Start-len(p.before)-16)
			score += commonSuffix(normalize(p.text[from:s.Start]).runes, before)
		}
		if len(after) > 0 {
			to := runeStartBefore(p.text, s.End+len(p.after)+16)
			score += commonPrefix(normalize(p.text[s.End:to]).runes, after)
		}
		dist := 0
		if p.hint >= 0 {
			dist = abs(min(p.lines.Line(s.Start), p.lines.Lines()) - 1 - p.hint)
		}
		if score > bestScore || (score == bestScore && dist < bestDist) {
			best, bestScore, bestDist = s, score, dist
		}
	}
	return best
}

// runeStartBefore clamps i to text and moves it back to the start of a UTF-8 sequence.
func runeStartBefore(text string, i int) int {
	i = max(0, min(i, len(text)))
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

func commonSuffix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}

func commonPrefix(a, b []rune) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
