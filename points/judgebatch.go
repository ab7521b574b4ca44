package points

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
)

// Batched judging (docs/blueprints.md, "Judging several points in one call"): a judge is sent
// every text point of one response at once, each with its index, and replies with one
// classification per point. A point missing from the reply, or whose part of it cannot be
// read, is judged alone with JudgePrompt.

// BatchJudge is a Judge that can take every text point of one subject in one go. ScoreRubric
// gives it a rubric's text points together (when there are two or more) instead of calling
// JudgeText once per point.
type BatchJudge interface {
	Judge
	// JudgeTexts judges each request, all about the same subject, and returns one result and
	// one error per request, in order (the error nil where the result holds).
	JudgeTexts(ctx context.Context, reqs []JudgeRequest) ([]JudgeResult, []error)
}

// judgeBatchSystemPrompt is the judges' system message when they judge several criteria at once.
const judgeBatchSystemPrompt = `You are an expert examiner. You assess how well each of several criteria is met by a text, precisely and briefly, and you answer in the XML format you are given and nothing else.

Each criterion is an assertion about the text, which it may call "the response". It may be phrased as an instruction ("Should mention the opening times"), a requirement ("Must mention the opening times") or a description ("Mentions the opening times"); all mean the same. Judge each criterion on its own, only from the text: another criterion being met or not does not change it.

Example:
<TEXT>Handling a colleague who takes credit for your ideas needs assertiveness and clear communication.</TEXT>
<CRITERIA>
<criterion index="1">Mentions empathy</criterion>
<criterion index="2">Recommends being assertive</criterion>
</CRITERIA>
<judgement index="1"><reflection>The text does not mention empathy.</reflection><classification>CLASS_LOWEST</classification></judgement>
<judgement index="2"><reflection>The text names assertiveness explicitly.</reflection><classification>CLASS_HIGHEST</classification></judgement>`

// JudgeBatchPrompt returns the system and user messages a judge with the given approach is
// sent for several criteria of one subject (every request's Subject, Description and Criteria
// are the first's): the context of JudgePrompt, then the criteria numbered from 1 in
// <CRITERIA>, the classes, and the reply format, one
// <judgement index="N"><reflection>…</reflection><classification>…</classification></judgement>
// per criterion.
func JudgeBatchPrompt(approach string, reqs []JudgeRequest, experimental bool) (system, user string) {
	scale := JudgeScale(experimental)
	system = strings.NewReplacer("CLASS_LOWEST", scale[0].Name, "CLASS_HIGHEST", scale[len(scale)-1].Name).Replace(judgeBatchSystemPrompt)
	var b strings.Builder
	if len(reqs) > 0 {
		writeJudgeContext(&b, approach, reqs[0])
	}
	if approach == ApproachHolistic {
		b.WriteString("Carefully assess how well EACH of the following criteria is met by the text, each on its own:\n")
	} else {
		b.WriteString("Carefully assess how well each of the following criteria is met by the text, each on its own:\n")
	}
	b.WriteString("<CRITERIA>\n")
	for i, r := range reqs {
		fmt.Fprintf(&b, "<criterion index=\"%d\">%s</criterion>\n", i+1, r.Criterion)
	}
	b.WriteString("</CRITERIA>\n\n")
	b.WriteString("For each criterion, classify the text into exactly one of these classes:\n")
	for _, c := range scale {
		b.WriteString("- " + c.Name + ": " + c.Meaning + "\n")
	}
	fmt.Fprintf(&b, "\nYour reply MUST follow this XML format exactly, with one <judgement> for each of the %d criteria, in order, and nothing else:\n", len(reqs))
	b.WriteString("<judgement index=\"1\"><reflection>One or two sentences of reasoning: how far criterion 1 is met, if at all.</reflection>" +
		"<classification>One class name from the list, e.g. " + scale[len(scale)-1].Name + "</classification></judgement>\n")
	if len(reqs) > 1 {
		b.WriteString("<judgement index=\"2\">…</judgement>\n")
	}
	if len(reqs) > 2 {
		fmt.Fprintf(&b, "… up to <judgement index=\"%d\">…</judgement>\n", len(reqs))
	}
	return system, b.String()
}

// BatchVerdict is one criterion's part of a batched judge reply.
type BatchVerdict struct {
	Score      float64
	Reflection string
	// Err says why the criterion has no verdict: missing from the reply, or its part holds no
	// usable classification (the criterion is then judged alone).
	Err error
}

var judgementRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?is)<judgement\s+index\s*=\s*["']?\s*(\d{1,9})\s*["']?\s*>(.*?)</judgement\s*>`)
})

// ParseJudgeBatchReply reads a batched judge reply to n criteria: a verdict per criterion, in
// order. Each <judgement index="K"> (1 ≤ K ≤ n; the attribute's quotes, case and spacing do not
// matter) is read as ParseJudgeReply reads a whole reply; when an index appears more than once
// the last counts (a reasoning model may quote the format first). A criterion without a
// judgement, or whose judgement has no usable classification, gets an Err. Indices out of range
// are ignored.
func ParseJudgeBatchReply(reply string, n int, experimental bool) []BatchVerdict {
	if n < 0 {
		n = 0
	}
	out := make([]BatchVerdict, n)
	found := make([]string, n)
	seen := make([]bool, n)
	for _, m := range judgementRe().FindAllStringSubmatch(reply, -1) {
		k, err := strconv.Atoi(m[1])
		if err != nil || k < 1 || k > n {
			continue
		}
		found[k-1], seen[k-1] = m[2], true
	}
	for i := range out {
		if !seen[i] {
			out[i].Err = fmt.Errorf("expected <judgement index=\"%d\"> in the reply, found none", i+1)
			continue
		}
		score, reflection, err := ParseJudgeReply(found[i], experimental)
		if err != nil {
			out[i].Err = fmt.Errorf("judgement %d: %w", i+1, err)
			continue
		}
		out[i].Score, out[i].Reflection = score, reflection
	}
	return out
}
