package testutil

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// WordyPhrases are the phrases WordyModel reports, with their shorter forms (those of the
// bundled example's Wordiness rule).
var WordyPhrases = [][2]string{
	{"in order to", "to"},
	{"due to the fact that", "because"},
	{"has the ability to", "can"},
	{"at this point in time", "now"},
	{"gathers together", "gathers"},
}

// WordyModel answers like a model that reads the text it gets: a semi-objective rule's call
// lists every phrase of WordyPhrases in the numbered text (any case), quoting the text's own
// words on their line, with the shorter form as the fix in the text's case; a subjective rule's
// call rates each of criteria 4. Texts without such phrases get no violation, so a second run
// over fixed files reports nothing. It is a reply for llmtest.Server.SetDefault or On.
func WordyModel(criteria ...string) llmtest.Reply {
	return llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.System(), `"criteria"`) && len(criteria) > 0 {
			var rated []any
			for _, id := range criteria {
				rated = append(rated, map[string]any{"id": id, "score": 4, "summary": "Clear.", "reasoning": "Clear.", "violations": []any{}})
			}
			return llmtest.JSON(map[string]any{"criteria": rated})
		}
		violations := []any{}
		for _, line := range strings.Split(r.LastUser(), "\n") {
			num, text, ok := strings.Cut(line, "\t")
			n, err := strconv.Atoi(num)
			if !ok || err != nil {
				continue
			}
			lower := strings.ToLower(text)
			for _, p := range WordyPhrases {
				for from := 0; ; {
					i := strings.Index(lower[from:], p[0])
					if i < 0 {
						break
					}
					i += from
					quote := text[i : i+len(p[0])]
					violations = append(violations, map[string]any{"quoted_text": quote, "line": n,
						"message": "Wordy: use \"" + p[1] + "\".", "fix": sameCase(quote, p[1]), "confidence": 0.9})
					from = i + len(p[0])
				}
			}
		}
		return llmtest.JSON(map[string]any{"violations": violations})
	})
}

// sameCase gives s the case of model's first letter.
func sameCase(model, s string) string {
	m, _ := utf8.DecodeRuneInString(model)
	r, size := utf8.DecodeRuneInString(s)
	if unicode.IsUpper(m) {
		return string(unicode.ToUpper(r)) + s[size:]
	}
	return s
}
