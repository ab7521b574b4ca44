package points

import (
	"strings"

	"github.com/vectorlint/vectorlint/internal/jsregex"
	"github.com/vectorlint/vectorlint/points/internal/funcarg"
	"github.com/vectorlint/vectorlint/points/rubric"
)

// MaxOccurrences bounds how many places Occurrences reports for one point.
const MaxOccurrences = 100

// Occurrences returns where, in text, a "must not" point finds what it forbids: the byte
// ranges [start, end) of each occurrence that makes a $not_contains, $not_icontains,
// $not_contains_word, $not_matches (their _any_of/_all_of/_at_least_n_of forms and i variants)
// or $not_starts_with / $not_ends_with point fail. The linter uses it to put a checklist
// finding where the problem is instead of at the start of the text.
//
// It reports nothing for other points (an absence has no place) and for points whose
// arguments it cannot read. Case-insensitive forms are located with a case-insensitive
// JavaScript regex, which agrees with the scoring's toLowerCase on all but a few exotic
// characters; scoring never depends on this function.
func Occurrences(p *rubric.Point, text string) [][2]int {
	name, ok := strings.CutPrefix(p.Fn, "not_")
	if !ok || !p.HasArgs {
		return nil
	}
	fold := strings.HasPrefix(name, "i")
	base := name
	if fold {
		base = name[1:]
	}
	var (
		items   []string
		asRegex bool
		word    bool
	)
	switch {
	case base == "contains" || base == "contains_word" || base == "matches" ||
		base == "starts_with" || base == "ends_with":
		s, ok := p.Args.(string)
		if !ok {
			return nil
		}
		items = []string{s}
	case strings.HasPrefix(base, "contains_") || strings.HasPrefix(base, "matches_"):
		items = listItems(p.Args)
	default:
		return nil
	}
	asRegex = strings.HasPrefix(base, "matches")
	word = base == "contains_word"

	var out [][2]int
	add := func(start, end int) bool {
		out = append(out, [2]int{start, end})
		return len(out) < MaxOccurrences
	}
	switch base {
	case "starts_with", "ends_with":
		s := items[0]
		if s == "" || len(s) > len(text) {
			return nil
		}
		if base == "starts_with" {
			if (fold && strings.EqualFold(text[:len(s)], s)) || text[:len(s)] == s {
				return [][2]int{{0, len(s)}}
			}
			return nil
		}
		if (fold && strings.EqualFold(text[len(text)-len(s):], s)) || strings.HasSuffix(text, s) {
			return [][2]int{{len(text) - len(s), len(text)}}
		}
		return nil
	}
	for _, item := range items {
		if item == "" {
			continue
		}
		re, err := occurrenceRegex(item, fold, asRegex, word)
		if err != nil {
			continue
		}
		ms, err := re.FindAllStringMatch(text, MaxOccurrences)
		if err != nil {
			continue
		}
		for _, m := range ms {
			g := m.Groups[0]
			if g.ByteEnd == g.ByteStart {
				continue // an empty match marks no text
			}
			if !add(g.ByteStart, g.ByteEnd) {
				return out
			}
		}
	}
	return out
}

// listItems reads the string items of a list argument: ["a", "b"] or [n, ["a", "b"]].
func listItems(args any) []string {
	list, ok := args.([]any)
	if !ok {
		return nil
	}
	if len(list) == 2 {
		if _, isNum := list[0].(float64); isNum {
			if inner, ok := list[1].([]any); ok {
				list = inner
			}
		}
	}
	var out []string
	for _, it := range list {
		if s, ok := it.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// occurrenceRegex builds the regex that finds one forbidden item.
func occurrenceRegex(item string, fold, asRegex, word bool) (*jsregex.Regexp, error) {
	if asRegex {
		return funcarg.CompileRegex(item, fold)
	}
	pattern := jsregex.QuoteMeta(item)
	if word {
		// The same boundary as $contains_word: no letter, digit, mark or "_" on either side.
		pattern = `(?<![\p{L}\p{N}\p{M}_])` + pattern + `(?![\p{L}\p{N}\p{M}_])`
	}
	flags := "u"
	if fold {
		flags += "i"
	}
	return jsregex.Compile(pattern, flags)
}
