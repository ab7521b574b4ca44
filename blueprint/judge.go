package blueprint

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/scoring"
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

// DefaultJudgeMaxTokens bounds a judge's reply: a reflection of a sentence or two and a class
// name, with room for models that think aloud first.
const DefaultJudgeMaxTokens = 1000

// DefaultJudges returns the judges used when neither the blueprint's evaluationConfig nor
// --judge names any (the format documentation's defaults).
func DefaultJudges() []JudgeSpec {
	return []JudgeSpec{
		{ID: "holistic-qwen3-30b-a3b-instruct-2507", Model: "openrouter:qwen/qwen3-30b-a3b-instruct-2507", Approach: ApproachHolistic},
		{ID: "holistic-openai-gpt-oss-120b", Model: "openrouter:openai/gpt-oss-120b", Approach: ApproachHolistic},
	}
}

// BackupJudge returns the judge asked when every default judge failed on a point. It is never
// used with judges the blueprint or the command chose.
func BackupJudge() JudgeSpec {
	return JudgeSpec{ID: "backup-claude-3-5-haiku", Model: "anthropic:claude-3.5-haiku", Approach: ApproachHolistic}
}

// JudgeName names a judge in results: "id(model)", or "approach(model)" without an id.
func JudgeName(j JudgeSpec) string {
	name := j.ID
	if name == "" {
		name = j.Approach
	}
	return name + "(" + j.Model + ")"
}

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
	var s *Subject
	if req.Subject != nil {
		s = req.Subject
	} else {
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

// JudgeOptions control NewLLMJudge.
type JudgeOptions struct {
	// Client makes the calls (cache, retries, limits, usage).
	Client *llm.Client
	// LookupEnv reads the judges' provider keys and base URL overrides (each value knowing its
	// source, for the client's trust rule).
	LookupEnv llm.Vars
	// Judges replace every other judge configuration (the command's --judge). When empty, the
	// blueprint's evaluationConfig.llm-coverage.judges (or legacy judgeModels) are used, else
	// DefaultJudges with BackupJudge.
	Judges []JudgeSpec
	// ProviderConcurrency limits the calls in flight to one provider
	// (DefaultProviderConcurrency when 0).
	ProviderConcurrency int
	// MaxTokens of a judge's reply (DefaultJudgeMaxTokens when 0).
	MaxTokens int
}

// LLMJudge is the Judge of blueprint runs: every configured judge model classifies each text
// point in parallel, and the point scores the mean of the judges that answered (the
// consensus, rounded to 2 decimals). A judge whose reply cannot be parsed is asked once more,
// with the problem quoted; then it counts as failed. When every default judge fails, the
// backup judge is asked. When every judge fails, the point is not evaluated.
type LLMJudge struct {
	client       *llm.Client
	judges       []judgeTarget
	backup       *judgeTarget
	experimental bool
	maxTokens    int
}

type judgeTarget struct {
	spec JudgeSpec
	ep   llm.Endpoint
	err  error
}

// JudgesOf returns the judges a blueprint configures: evaluationConfig.llm-coverage.judges,
// else its legacy judgeModels (each a holistic judge); custom reports whether there were any
// (if not, the defaults apply, with the backup judge).
func JudgesOf(bp *Blueprint) (judges []JudgeSpec, custom bool) {
	if bp.Evaluation != nil && bp.Evaluation.LLMCoverage != nil {
		lc := bp.Evaluation.LLMCoverage
		if len(lc.Judges) > 0 {
			return append([]JudgeSpec(nil), lc.Judges...), true
		}
		for _, m := range lc.JudgeModels {
			judges = append(judges, JudgeSpec{Model: normaliseModelID(m), Approach: ApproachHolistic})
		}
		if len(judges) > 0 {
			return judges, true
		}
	}
	return DefaultJudges(), false
}

// NewLLMJudge builds the judge of a blueprint run. Judges whose model cannot be reached (an
// unknown provider, a key that is not set, an endpoint the client's trust rule refuses) are
// kept and fail on every point with that error; Unavailable lists them so the command can warn
// once (or stop, for a refused endpoint).
func NewLLMJudge(bp *Blueprint, opts JudgeOptions) (*LLMJudge, error) {
	if opts.Client == nil {
		return nil, errors.New("blueprint: NewLLMJudge needs JudgeOptions.Client")
	}
	if opts.ProviderConcurrency <= 0 {
		opts.ProviderConcurrency = DefaultProviderConcurrency
	}
	if opts.MaxTokens <= 0 {
		opts.MaxTokens = DefaultJudgeMaxTokens
	}
	specs, custom := opts.Judges, len(opts.Judges) > 0
	if !custom {
		specs, custom = JudgesOf(bp)
	}
	j := &LLMJudge{client: opts.Client, maxTokens: opts.MaxTokens}
	if bp.Evaluation != nil && bp.Evaluation.LLMCoverage != nil {
		j.experimental = bp.Evaluation.LLMCoverage.UseExperimentalScale
	}
	resolve := func(spec JudgeSpec) judgeTarget {
		if spec.Approach == "" {
			spec.Approach = ApproachHolistic
		}
		ep, err := llm.ModelEndpoint(opts.LookupEnv, spec.Model)
		if err == nil {
			err = opts.Client.CheckTrust(ep)
		}
		if err != nil {
			return judgeTarget{spec: spec, err: err}
		}
		ep.MaxConcurrency = opts.ProviderConcurrency
		ep.SettingNames.Model = "the judge id " + spec.Model + " (--judge, or the blueprint's judges)"
		return judgeTarget{spec: spec, ep: ep}
	}
	for _, s := range specs {
		j.judges = append(j.judges, resolve(s))
	}
	if !custom {
		b := resolve(BackupJudge())
		j.backup = &b
	}
	return j, nil
}

// Judges returns the configured judges, in order.
func (j *LLMJudge) Judges() []JudgeSpec {
	out := make([]JudgeSpec, len(j.judges))
	for i, t := range j.judges {
		out[i] = t.spec
	}
	return out
}

// Backup returns the backup judge, or nil when the judges were chosen by the blueprint or the
// command.
func (j *LLMJudge) Backup() *JudgeSpec {
	if j.backup == nil {
		return nil
	}
	s := j.backup.spec
	return &s
}

// Experimental reports whether the 9-point scale is used.
func (j *LLMJudge) Experimental() bool { return j.experimental }

// Unavailable returns, for each judge (backup included) whose model cannot be called, why.
func (j *LLMJudge) Unavailable() []error {
	var out []error
	all := j.judges
	if j.backup != nil {
		all = append(all[:len(all):len(all)], *j.backup)
	}
	for _, t := range all {
		if t.err != nil {
			out = append(out, fmt.Errorf("judge %s cannot be used: %w", JudgeName(t.spec), t.err))
		}
	}
	return out
}

// judgement is one judge's answer (or failure) on one point.
type judgement struct {
	name       string
	score      float64
	reflection string
	err        error
}

// JudgeText asks every judge about one criterion and returns their consensus.
func (j *LLMJudge) JudgeText(ctx context.Context, req JudgeRequest) (JudgeResult, error) {
	got := make([]judgement, len(j.judges))
	var wg sync.WaitGroup
	for i, t := range j.judges {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = j.ask(ctx, t, req)
		}()
	}
	wg.Wait()
	var ok, failed []judgement
	for _, g := range got {
		if g.err != nil {
			failed = append(failed, g)
		} else {
			ok = append(ok, g)
		}
	}
	warning := ""
	if len(ok) == 0 && j.backup != nil && ctx.Err() == nil {
		b := j.ask(ctx, *j.backup, req)
		if b.err == nil {
			ok = append(ok, b)
			warning = fmt.Sprintf("every configured judge failed (%s); the backup judge %s scored this point", describeFailures(failed), b.name)
		} else {
			failed = append(failed, b)
		}
	}
	if len(ok) == 0 {
		if err := ctx.Err(); err != nil {
			return JudgeResult{}, err
		}
		return JudgeResult{}, &judgesFailedError{msg: fmt.Sprintf("all %d judges failed: %s", len(failed), describeFailures(failed)),
			errs: judgementErrors(failed)}
	}
	if warning == "" && len(failed) > 0 {
		warning = fmt.Sprintf("%d of %d judges failed (%s); the score is the consensus of the others", len(failed), len(got), describeFailures(failed))
	}
	sum := 0.0
	res := JudgeResult{Warning: warning}
	if len(failed) > 0 {
		res.stopped = onlyRunWide(&judgesFailedError{errs: judgementErrors(failed)})
	}
	names := make([]string, len(ok))
	scores := make([]string, len(ok))
	for i, g := range ok {
		sum += g.score
		names[i] = g.name
		scores[i] = formatJSNumber(g.score)
		res.Individual = append(res.Individual, IndividualJudgement{JudgeModelID: g.name, CoverageExtent: g.score, Reflection: g.reflection})
	}
	res.Score = scoring.Round(sum/float64(len(ok)), 2)
	res.JudgeModelID = "consensus(" + strings.Join(names, ", ") + ")"
	if len(ok) == 1 {
		res.Reflection = ok[0].reflection
	} else {
		res.Reflection = fmt.Sprintf("Consensus of %d judges: %s → %s. Each judge's reflection is in individualJudgements.",
			len(ok), strings.Join(scores, ", "), strconv.FormatFloat(res.Score, 'f', 2, 64))
	}
	return res, nil
}

// judgesFailedError is a point every judge failed on: its text lists them, and it unwraps to
// each judge's error (so errors.As finds an llm.StopError among them).
type judgesFailedError struct {
	msg  string
	errs []error
}

func (e *judgesFailedError) Error() string   { return e.msg }
func (e *judgesFailedError) Unwrap() []error { return e.errs }

// judgementErrors are the errors of failed judgements.
func judgementErrors(failed []judgement) []error {
	out := make([]error, len(failed))
	for i, f := range failed {
		out[i] = f.err
	}
	return out
}

// runWide returns the failure behind err that is a fact about the whole run rather than about
// one prompt or point: a stopped endpoint (llm.StopError: refused, DNS, TLS, 401, 403, 404) or
// a model that is not configured (llm.NotConfiguredError: a key not set). Else nil.
func runWide(err error) error {
	var se *llm.StopError
	if errors.As(err, &se) {
		return se
	}
	var nc *llm.NotConfiguredError
	if errors.As(err, &nc) {
		return nc
	}
	return nil
}

// onlyRunWide returns the run-wide failures behind err when every failure err stands for is
// one (one judge's error, or all judges' through a *judgesFailedError), else nil: such
// failures are the run's, reported once each, not the point's.
func onlyRunWide(err error) []error {
	errs := []error{err}
	var jf *judgesFailedError
	if errors.As(err, &jf) {
		errs = jf.errs
	}
	var out []error
	for _, e := range errs {
		rw := runWide(e)
		if rw == nil {
			return nil
		}
		out = append(out, rw)
	}
	return out
}

// describeFailures lists the judges' errors, naming together the judges that failed the same
// way (a key that is not set fails every judge of that provider alike).
func describeFailures(failed []judgement) string {
	var texts []string
	names := map[string][]string{}
	for _, f := range failed {
		t := f.err.Error()
		if names[t] == nil {
			texts = append(texts, t)
		}
		names[t] = append(names[t], f.name)
	}
	parts := make([]string, len(texts))
	for i, t := range texts {
		parts[i] = strings.Join(names[t], ", ") + ": " + t
	}
	return strings.Join(parts, "; ")
}

// ask sends one judge its prompt; an unparseable reply is retried once (llm.CompleteChecked).
func (j *LLMJudge) ask(ctx context.Context, t judgeTarget, req JudgeRequest) judgement {
	g := judgement{name: JudgeName(t.spec)}
	if t.err != nil {
		g.err = t.err
		return g
	}
	system, user := JudgePrompt(t.spec.Approach, req, j.experimental)
	zero := 0.0
	label := "judge " + g.name
	if req.Subject != nil {
		label += " " + req.Subject.PromptID + " × " + req.Subject.ModelID
	}
	check := func(content string) error {
		_, _, err := ParseJudgeReply(content, j.experimental)
		return err
	}
	resp, err := j.client.CompleteChecked(ctx, llm.Request{Endpoint: t.ep,
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		Temperature: &zero, MaxTokens: j.maxTokens, Label: label}, check)
	if err != nil {
		g.err = err
		return g
	}
	g.score, g.reflection, g.err = ParseJudgeReply(resp.Content, j.experimental)
	return g
}
