package rules

import (
	"strings"

	"github.com/vectorlint/vectorlint/finding"
)

// Describe describes every rule of packs, and every criterion of each, by the id findings
// carry ("Pack.Rule", "Pack.Rule.Criterion"), for the output formats that carry rule metadata
// (report.Options.Rules).
func Describe(packs []*Pack) map[string]finding.RuleInfo {
	out := map[string]finding.RuleInfo{}
	for _, p := range packs {
		for _, r := range p.Rules {
			body := strings.TrimSpace(r.Body)
			para := firstParagraph(body)
			info := finding.RuleInfo{Name: r.Name, Summary: firstSentence(para), Description: para, Help: body}
			if info.Summary == "" { // a rule with no instructions of its own
				info.Summary, info.Description, info.Help = r.Name, r.Name, r.Name
			}
			out[r.FullID()] = info
			for _, c := range r.Criteria {
				out[r.CriterionID(c)] = finding.RuleInfo{Name: c.Name, Summary: c.Name + ": a criterion of " + r.Name,
					Description: info.Description, Help: body}
			}
		}
	}
	return out
}

// firstParagraph is the first paragraph of a Markdown body that is not a heading, its lines
// joined by spaces.
func firstParagraph(body string) string {
	var lines []string
	for _, l := range strings.Split(body, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "" && len(lines) > 0:
			return strings.Join(lines, " ")
		case l == "", strings.HasPrefix(l, "#") && len(lines) == 0:
		default:
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, " ")
}

// firstSentence is the text up to the first ". ", "? " or "! " (the whole text when there is
// none).
func firstSentence(s string) string {
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '?' || s[i] == '!') && s[i+1] == ' ' {
			return s[:i+1]
		}
	}
	return s
}
