package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The rule pack of the lint scenarios: two semi-objective rules and one subjective rule with two
// criteria, with bodies of the length of real VectorLint rules (about 120 words).
var benchRules = map[string]string{
	"Wordiness.md": `---
id: Wordiness
name: Wordiness
severity: warning
---

# Wordiness

Flag any instance where a wordy phrase is used in place of a shorter, simpler equivalent (e.g., "in order to" instead of "to", "due to the fact that" instead of "because", "has the ability to" instead of "can", "at this point in time" instead of "at this point"). This includes multi-word phrases that can be reduced to a single word, roundabout constructions that obscure a simpler verb or preposition, and redundant pairs where one word carries the full meaning (e.g., "gather together" instead of "gather"). Do not flag phrases where the longer form is required for clarity or where the substitution would change the meaning.
`,
	"PassiveVoice.md": `---
id: PassiveVoice
name: Passive Voice
severity: warning
---

# Passive Voice

Flag any sentence that uses passive voice in a way that makes the writing less clear, less direct, or more evasive: when the doer is omitted and that omission reduces accountability or clarity ("Mistakes were made"), or when a modal passive weakens an instruction ("The file should be saved before closing"). Do not flag passive voice when the sentence describes a state, condition, or feature rather than an action; when the doer is obvious, irrelevant, or already established in the preceding sentence; or when an active rewrite would be awkward.
`,
	"Tone.md": `---
id: Tone
name: Tone
type: subjective
criteria:
  - {id: Warmth, name: Warmth, weight: 2}
  - {id: Directness, name: Directness, weight: 1}
---

# Tone

Rate how the text speaks to its reader. Warmth: the text addresses the reader as a capable colleague, acknowledges what is hard, and avoids blame. Directness: every sentence moves the reader toward the task, instructions come first, and hedges ("might", "perhaps", "it could be argued") appear only where the uncertainty is real.

- 4: consistently warm and direct.
- 3: warm and direct with a few lapses.
- 2: often cold, vague or roundabout.
- 1: hostile, evasive or padded throughout.
`,
}

// sentences make up the documents: about a third of the paragraphs have a wordy phrase.
var sentences = []string{
	"The release pipeline builds every package, runs the tests and publishes the artifacts.",
	"We act in order to ship the release on time, so the team reviews each change twice.",
	"Configuration lives in a single file at the root of the repository.",
	"Mistakes were made during the migration, and the old tables were dropped too early.",
	"Run the command with the verbose flag to see each request and its reply.",
	"Due to the fact that the cache is shared, two runs never evaluate the same text twice.",
	"The linter reads the rules, plans the calls and streams each file's result as it finishes.",
	"Writers can add their own rules as Markdown files with a short frontmatter header.",
}

// sampleDocument is small document i: a heading and three paragraphs of three sentences (about 130
// words).
func sampleDocument(i int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Document %d\n", i)
	for p := range 3 {
		b.WriteString("\n")
		for s := range 3 {
			b.WriteString(sentences[(i+p*3+s)%len(sentences)])
			b.WriteString("\n")
		}
	}
	return b.String()
}

// longDocument has the given number of words in paragraphs of five lines of about twelve words.
func longDocument(words int) string {
	var b strings.Builder
	b.WriteString("# A long guide\n\n")
	n, line := 4, 0 // the heading's words ("#" counts, as in CountWords)
	for n < words {
		s := sentences[line%len(sentences)]
		w := len(strings.Fields(s))
		if n+w > words {
			s = strings.Join(strings.Fields(s)[:words-n], " ")
			w = words - n
		}
		b.WriteString(s)
		b.WriteString("\n")
		n += w
		line++
		if line%5 == 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}

// writeProject writes a project into dir: vectorlint.ini running the given rules of the pack
// (all three when none are named) on docs/**, and the documents.
func writeProject(dir string, docs map[string]string, rules ...string) error {
	if len(rules) == 0 {
		rules = []string{"Wordiness", "PassiveVoice", "Tone"}
	}
	files := map[string]string{"vectorlint.ini": "RulesPath = rules\n\n[docs/**/*.md]\nRunRules = Bench\n"}
	for _, r := range rules {
		files["rules/Bench/"+r+".md"] = benchRules[r+".md"]
	}
	for name, text := range docs {
		files["docs/"+name] = text
	}
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

var (
	criterionLine = regexp.MustCompile(`(?m)^- id: ([^;\n]+); name: ([^;\n]+);`)
	numberedLine  = regexp.MustCompile(`^(\d+)\t(.*)$`)
)

// modelReply answers like a model would: for a subjective rule, a rating of 3 per criterion
// listed in the system message; for a semi-objective rule, one violation per line of the text
// that says "in order to" or "due to the fact that", quoting it with its line number.
func modelReply(req *llmtest.Request) llmtest.Reply {
	sys := req.System()
	if m := criterionLine.FindAllStringSubmatch(sys, -1); strings.Contains(sys, `"criteria"`) && m != nil {
		var criteria []any
		for _, c := range m {
			criteria = append(criteria, map[string]any{"id": c[1], "name": c[2], "score": 3,
				"summary": "Mostly warm and direct.", "reasoning": "A few sentences hedge.", "violations": []any{}})
		}
		return llmtest.JSON(map[string]any{"criteria": criteria})
	}
	violations := wordyViolations(req)
	if blocks := llmtest.RuleBlocks(sys); len(blocks) > 0 {
		// Several rules in one call (RulesPerCall): each rule answered as alone.
		rules := make([]any, len(blocks))
		for i, bl := range blocks {
			rules[i] = map[string]any{"rule": bl.ID, "violations": violations}
		}
		return llmtest.JSON(map[string]any{"rules": rules})
	}
	return llmtest.JSON(map[string]any{"violations": violations})
}

// wordyViolations is a semi-objective rule's answer: one violation per line of the text that
// says "in order to" or "due to the fact that".
func wordyViolations(req *llmtest.Request) []any {
	violations := []any{}
	for _, l := range strings.Split(req.LastUser(), "\n") {
		m := numberedLine.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, phrase := range []string{"in order to", "due to the fact that"} {
			if strings.Contains(m[2], phrase) {
				violations = append(violations, map[string]any{"quoted_text": phrase, "line": atoi(m[1]),
					"context_before": "", "context_after": "", "analysis": "A wordy phrase.",
					"message": "Use a shorter phrase.", "suggestion": "Shorten it.", "fix": "", "confidence": 0.9})
			}
		}
	}
	return violations
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
