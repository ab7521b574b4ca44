package points

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// Judge approaches (spec §5): what a judge is shown besides the response and the criterion.
const (
	// ApproachStandard shows the response and the criterion.
	ApproachStandard = "standard"
	// ApproachPromptAware adds the conversation that led to the response.
	ApproachPromptAware = "prompt-aware"
	// ApproachHolistic also lists the rubric's other criteria (and the blueprint's
	// description), so the judge scores one criterion without double-counting the others.
	ApproachHolistic = "holistic"
)

// JudgeClass is one class of a judge's classification scale.
type JudgeClass struct {
	// Name is the label the judge replies with, e.g. "CLASS_FULLY_PRESENT".
	Name  string
	Score float64
	// Meaning is what the class says, shown to the judge.
	Meaning string
}

// JudgeScale returns the classes judges are asked to choose from: the 5-point scale, or the
// 9-point one with evaluationConfig.llm-coverage.useExperimentalScale.
func JudgeScale(experimental bool) []JudgeClass {
	if experimental {
		return []JudgeClass{
			{"CLASS_UTTERLY_UNMET", 0, "the criterion is not met at all"},
			{"CLASS_TRACE", 0.125, "there is only a trace of the criterion"},
			{"CLASS_SLIGHT", 0.25, "the criterion is slightly met"},
			{"CLASS_PARTIAL", 0.375, "the criterion is partially met, less than half"},
			{"CLASS_MODERATE", 0.5, "the criterion is moderately met, about half"},
			{"CLASS_SUBSTANTIAL", 0.625, "the criterion is substantially met, more than half"},
			{"CLASS_MAJOR", 0.75, "the criterion is mostly met"},
			{"CLASS_VERY_NEARLY", 0.875, "the criterion is very nearly met in full"},
			{"CLASS_EXACT", 1, "the criterion is met exactly and fully"},
		}
	}
	return []JudgeClass{
		{"CLASS_ABSENT", 0, "the criterion is not met at all"},
		{"CLASS_SLIGHTLY_PRESENT", 0.25, "the criterion is slightly met"},
		{"CLASS_PARTIALLY_PRESENT", 0.5, "the criterion is partially met"},
		{"CLASS_MOSTLY_PRESENT", 0.75, "the criterion is mostly met"},
		{"CLASS_FULLY_PRESENT", 1, "the criterion is fully met"},
	}
}

// classScore returns the score of a class label. The 5-point labels (the default ones and the
// original Weval's) are accepted on both scales, since their scores are on both; the 9-point
// labels only on the 9-point scale.
func classScore(label string, experimental bool) (float64, bool) {
	switch label {
	case "CLASS_ABSENT", "CLASS_UNMET":
		return 0, true
	case "CLASS_SLIGHTLY_PRESENT", "CLASS_PARTIALLY_MET":
		return 0.25, true
	case "CLASS_PARTIALLY_PRESENT", "CLASS_MODERATELY_MET":
		return 0.5, true
	case "CLASS_MOSTLY_PRESENT", "CLASS_MAJORLY_MET":
		return 0.75, true
	case "CLASS_FULLY_PRESENT", "CLASS_EXACTLY_MET":
		return 1, true
	}
	if !experimental {
		return 0, false
	}
	for _, c := range JudgeScale(true) {
		if c.Name == label {
			return c.Score, true
		}
	}
	return 0, false
}

var (
	classificationRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<classification>(.*?)</classification>`) })
	reflectionRe     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)<reflection>(.*?)</reflection>`) })
)

// normaliseLabel reads a class label leniently: surrounding space, quotes, backticks, stars
// and a final full stop are dropped, case is ignored, spaces and hyphens become "_", and a
// missing "CLASS_" prefix is added.
func normaliseLabel(s string) string {
	s = strings.Trim(strings.TrimSpace(s), "`'\"*. \t\r\n")
	s = strings.ToUpper(s)
	s = strings.NewReplacer(" ", "_", "-", "_").Replace(s)
	if !strings.HasPrefix(s, "CLASS_") {
		s = "CLASS_" + s
	}
	return s
}

// ParseJudgeReply reads a judge's reply: the last <classification> (a reasoning model may
// quote the format before answering) and the last <reflection>, which may be missing. The
// error says what was expected and what was found; it is quoted back to the judge when it is
// asked again.
func ParseJudgeReply(reply string, experimental bool) (score float64, reflection string, err error) {
	ms := classificationRe().FindAllStringSubmatch(reply, -1)
	if len(ms) == 0 {
		return 0, "", fmt.Errorf("expected the reply to hold <classification>CLASS_…</classification>, found %q", shorten(reply, 100))
	}
	raw := ms[len(ms)-1][1]
	label := normaliseLabel(raw)
	score, ok := classScore(label, experimental)
	if !ok {
		names := make([]string, 0, 9)
		for _, c := range JudgeScale(experimental) {
			names = append(names, c.Name)
		}
		return 0, "", fmt.Errorf("expected the classification to be one of %s, found %q", strings.Join(names, ", "), shorten(raw, 60))
	}
	if rs := reflectionRe().FindAllStringSubmatch(reply, -1); len(rs) > 0 {
		reflection = strings.TrimSpace(rs[len(rs)-1][1])
	}
	return score, reflection, nil
}

// judgeSystemPrompt is the judges' system message.
const judgeSystemPrompt = `You are an expert examiner. You assess how well one criterion is met by a text, precisely and briefly, and you answer in the XML format you are given and nothing else.

The criterion is an assertion about the text, which it may call "the response". It may be phrased as an instruction ("Should mention the opening times"), a requirement ("Must mention the opening times") or a description ("Mentions the opening times"); all mean the same. Judge only that criterion, only from the text.

Examples:
<TEXT>The people in the room were not happy.</TEXT><CRITERION>The people in the room were happy.</CRITERION>
<reflection>The text says the people were not happy, the opposite of the criterion.</reflection><classification>CLASS_LOWEST</classification>

<TEXT>Handling a colleague who takes credit for your ideas needs assertiveness, empathy and clear communication.</TEXT><CRITERION>Mentions empathy</CRITERION>
<reflection>The text names empathy explicitly.</reflection><classification>CLASS_HIGHEST</classification>`

// JudgePrompt returns the system and user messages a judge with the given approach is sent
// for one criterion (spec §5): the subject in <TEXT> (the transcript, generated turns marked,
// for a multi-turn conversation), the criterion in <CRITERION>, the classes with their
// meanings, and the reply format <reflection>…</reflection><classification>…</classification>.
// prompt-aware adds the conversation that led to the response in <PROMPT>; holistic also
// the blueprint's description and the rubric's criteria in <CRITERIA_LIST>.
func JudgePrompt(approach string, req JudgeRequest, experimental bool) (system, user string) {
	scale := JudgeScale(experimental)
	system = strings.NewReplacer("CLASS_LOWEST", scale[0].Name, "CLASS_HIGHEST", scale[len(scale)-1].Name).Replace(judgeSystemPrompt)

	var b strings.Builder
	writeJudgeContext(&b, approach, req)
	if approach == ApproachHolistic {
		b.WriteString("Carefully assess how well THIS criterion ONLY is met by the text (the other criteria are judged separately):\n")
	} else {
		b.WriteString("Carefully assess how well the following criterion is met by the text:\n")
	}
	b.WriteString("<CRITERION>\n" + req.Criterion + "\n</CRITERION>\n\n")
	b.WriteString("Classify the text into exactly one of these classes:\n")
	for _, c := range scale {
		b.WriteString("- " + c.Name + ": " + c.Meaning + "\n")
	}
	b.WriteString("\nYour reply MUST follow this XML format exactly, with nothing else:\n" +
		"<reflection>One or two sentences of reasoning: how far the criterion is met, if at all.</reflection>\n" +
		"<classification>One class name from the list, e.g. " + scale[len(scale)-1].Name + "</classification>\n")
	return system, b.String()
}

// writeJudgeContext writes what a judge is shown before the criterion: the conversation that
// led to the text (prompt-aware, holistic), the description and the rubric (holistic), and the
// text itself.
func writeJudgeContext(b *strings.Builder, approach string, req JudgeRequest) {
	s := req.Subject
	if s == nil {
		s = &Subject{}
	}
	if approach == ApproachPromptAware || approach == ApproachHolistic {
		if prompt := promptBlock(s); prompt != "" {
			b.WriteString("The conversation that led to the text:\n<PROMPT>\n" + prompt + "\n</PROMPT>\n\n")
		}
	}
	if approach == ApproachHolistic {
		if req.Description != "" {
			b.WriteString("What the evaluation is about:\n<DESCRIPTION>\n" + strings.TrimSpace(req.Description) + "\n</DESCRIPTION>\n\n")
		}
		if len(req.Criteria) > 0 {
			b.WriteString("The text is evaluated against a rubric of several criteria. For context only, the full list is:\n<CRITERIA_LIST>\n")
			for _, c := range req.Criteria {
				b.WriteString("- " + c + "\n")
			}
			b.WriteString("</CRITERIA_LIST>\n\n")
		}
	}
	text, transcript := textBlock(s)
	if transcript {
		b.WriteString("Given the following <TEXT>, a conversation in which the turns marked \"generated\" are the ones being evaluated:\n")
	} else {
		b.WriteString("Given the following <TEXT>:\n")
	}
	b.WriteString("<TEXT>\n" + text + "\n</TEXT>\n\n")
}

// isMultiTurn reports whether a subject's conversation has more than one user message or an
// authored assistant turn, so judges should see the whole transcript.
func isMultiTurn(s *Subject) bool {
	n := 0
	for _, m := range s.Messages {
		if m.Role != "system" {
			n++
		}
	}
	return n > 2
}

// textBlock is what the judge evaluates: the response, or for a multi-turn conversation the
// transcript with the generated turns marked.
func textBlock(s *Subject) (string, bool) {
	if !isMultiTurn(s) {
		return s.Text, false
	}
	var b strings.Builder
	for i, m := range s.Messages {
		if m.Role == "system" {
			continue
		}
		label := strings.ToUpper(m.Role)
		// Marks only when it is known which turns the model generated (Subject.Generated nil
		// means unknown: calling every assistant turn "given" would misinform the judge).
		if m.Role == "assistant" && len(s.Generated) == len(s.Messages) {
			if s.Generated[i] {
				label += " (generated)"
			} else {
				label += " (given in the prompt)"
			}
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString("[" + label + "]\n" + m.Text())
	}
	return b.String(), true
}

// promptBlock is the conversation before the first generated turn.
func promptBlock(s *Subject) string {
	var parts []string
	for i, m := range s.Messages {
		if i < len(s.Generated) && s.Generated[i] {
			break
		}
		parts = append(parts, "["+strings.ToUpper(m.Role)+"]\n"+m.Text())
	}
	if len(parts) == 1 && strings.HasPrefix(parts[0], "[USER]\n") {
		return strings.TrimPrefix(parts[0], "[USER]\n")
	}
	return strings.Join(parts, "\n\n")
}

// shorten puts s on one line (runs of white space become one space) and cuts it to n
// characters, for messages that quote a reply.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	return truncate(s, n)
}
