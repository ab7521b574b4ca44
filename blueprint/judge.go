package blueprint

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/scoring"
)

// defaultJudgeMaxTokens bounds a judge's reply: a reflection of a sentence or two and a class
// name, with room for models that think aloud first.
const defaultJudgeMaxTokens = 1000

// defaultJudges returns the judges used when neither the blueprint's evaluationConfig nor
// --judge names any (the format documentation's defaults).
func defaultJudges() []JudgeSpec {
	return []JudgeSpec{
		{ID: "holistic-qwen3-30b-a3b-instruct-2507", Model: "openrouter:qwen/qwen3-30b-a3b-instruct-2507", Approach: points.ApproachHolistic},
		{ID: "holistic-openai-gpt-oss-120b", Model: "openrouter:openai/gpt-oss-120b", Approach: points.ApproachHolistic},
	}
}

// backupJudge returns the judge asked when every default judge failed on a point. It is never
// used with judges the blueprint or the command chose.
func backupJudge() JudgeSpec {
	return JudgeSpec{ID: "backup-claude-3-5-haiku", Model: "anthropic:claude-3.5-haiku", Approach: points.ApproachHolistic}
}

// judgeName names a judge in results: "id(model)", or "approach(model)" without an id.
func judgeName(j JudgeSpec) string {
	name := j.ID
	if name == "" {
		name = j.Approach
	}
	return name + "(" + j.Model + ")"
}

// JudgeOptions control NewLLMJudge.
type JudgeOptions struct {
	// Client makes the calls (cache, retries, limits, usage).
	Client *llm.Client
	// LookupEnv reads the judges' provider keys and base URL overrides (each value knowing its
	// source, for the client's trust rule).
	LookupEnv envsource.Vars
	// Judges replace every other judge configuration (the command's --judge). When empty, the
	// blueprint's evaluationConfig.llm-coverage.judges (or legacy judgeModels) are used, else
	// Weval's two default judges with its backup judge (docs/blueprints.md).
	Judges []JudgeSpec
	// ProviderConcurrency limits the calls in flight to one provider
	// (DefaultProviderConcurrency when 0).
	ProviderConcurrency int
	// MaxTokens of a judge's reply (1000 when 0).
	MaxTokens int
	// Batch sends each judge every text point of a response in one call (--judge-batch; also
	// set by the blueprint's evaluationConfig.llm-coverage.judgeBatch). A point missing or
	// unreadable in the reply is judged alone.
	Batch bool
}

// LLMJudge is the Judge of blueprint runs: every configured judge model classifies each text
// point in parallel, and the point scores the mean of the judges that answered (the
// consensus, rounded to 2 decimals). A judge whose reply cannot be parsed is asked once more,
// with the problem quoted; then it counts as failed. When every default judge fails, the
// backup judge is asked. When every judge fails, the point is not evaluated.
//
// With batching (JudgeOptions.Batch) it is a points.BatchJudge: each judge gets every text
// point of a response in one call (JudgeTexts), and only the points its reply misses are asked
// alone.
type LLMJudge struct {
	client       *llm.Client
	judges       []judgeTarget
	backup       *judgeTarget
	experimental bool
	maxTokens    int
	batch        bool
}

type judgeTarget struct {
	spec JudgeSpec
	ep   llm.Endpoint
	err  error
}

// judgesOf returns the judges a blueprint configures: evaluationConfig.llm-coverage.judges,
// else its legacy judgeModels (each a holistic judge); custom reports whether there were any
// (if not, the defaults apply, with the backup judge).
func judgesOf(bp *Blueprint) (judges []JudgeSpec, custom bool) {
	if bp.Evaluation != nil && bp.Evaluation.LLMCoverage != nil {
		lc := bp.Evaluation.LLMCoverage
		if len(lc.Judges) > 0 {
			return append([]JudgeSpec(nil), lc.Judges...), true
		}
		for _, m := range lc.JudgeModels {
			judges = append(judges, JudgeSpec{Model: normaliseModelID(m), Approach: points.ApproachHolistic})
		}
		if len(judges) > 0 {
			return judges, true
		}
	}
	return defaultJudges(), false
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
		opts.MaxTokens = defaultJudgeMaxTokens
	}
	specs, custom := opts.Judges, len(opts.Judges) > 0
	if !custom {
		specs, custom = judgesOf(bp)
	}
	j := &LLMJudge{client: opts.Client, maxTokens: opts.MaxTokens, batch: opts.Batch}
	if bp.Evaluation != nil && bp.Evaluation.LLMCoverage != nil {
		j.experimental = bp.Evaluation.LLMCoverage.UseExperimentalScale
		j.batch = j.batch || bp.Evaluation.LLMCoverage.JudgeBatch
	}
	resolve := func(spec JudgeSpec) judgeTarget {
		if spec.Approach == "" {
			spec.Approach = points.ApproachHolistic
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
		b := resolve(backupJudge())
		j.backup = &b
	}
	return j, nil
}

// judgeSpecs returns the configured judges, in order.
func (j *LLMJudge) judgeSpecs() []JudgeSpec {
	out := make([]JudgeSpec, len(j.judges))
	for i, t := range j.judges {
		out[i] = t.spec
	}
	return out
}

// backupSpec returns the backup judge, or nil when the judges were chosen by the blueprint or the
// command.
func (j *LLMJudge) backupSpec() *JudgeSpec {
	if j.backup == nil {
		return nil
	}
	s := j.backup.spec
	return &s
}

// isExperimental reports whether the 9-point scale is used.
func (j *LLMJudge) isExperimental() bool { return j.experimental }

// unavailableJudges returns, for each judge (backup included) whose model cannot be called, why.
func (j *LLMJudge) unavailableJudges() []error {
	var out []error
	all := j.judges
	if j.backup != nil {
		all = append(all[:len(all):len(all)], *j.backup)
	}
	for _, t := range all {
		if t.err != nil {
			out = append(out, fmt.Errorf("judge %s cannot be used: %w", judgeName(t.spec), t.err))
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
func (j *LLMJudge) JudgeText(ctx context.Context, req points.JudgeRequest) (points.JudgeResult, error) {
	got := make([]judgement, len(j.judges))
	// Every judge is asked at once; a judge's failure is its judgement's, not the group's.
	var g errgroup.Group
	for i, t := range j.judges {
		g.Go(func() error {
			got[i] = j.ask(ctx, t, req)
			return nil
		})
	}
	_ = g.Wait()
	return j.consensus(ctx, got, req)
}

// consensus is the verdict on one point from every configured judge's judgement (got, in the
// judges' order): the backup judge is asked when every default judge failed.
func (j *LLMJudge) consensus(ctx context.Context, got []judgement, req points.JudgeRequest) (points.JudgeResult, error) {
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
			return points.JudgeResult{}, err
		}
		return points.JudgeResult{}, &points.JudgesError{Msg: fmt.Sprintf("all %d judges failed: %s", len(failed), describeFailures(failed)),
			Errs: judgementErrors(failed)}
	}
	if warning == "" && len(failed) > 0 {
		warning = fmt.Sprintf("%d of %d judges failed (%s); the score is the consensus of the others", len(failed), len(got), describeFailures(failed))
	}
	sum := 0.0
	res := points.JudgeResult{Warning: warning}
	if len(failed) > 0 {
		res.Stopped = points.RunWideFailures(&points.JudgesError{Errs: judgementErrors(failed)})
	}
	names := make([]string, len(ok))
	scores := make([]string, len(ok))
	for i, g := range ok {
		sum += g.score
		names[i] = g.name
		scores[i] = jsjson.FormatNumber(g.score)
		res.Individual = append(res.Individual, points.IndividualJudgement{JudgeModelID: g.name, CoverageExtent: g.score, Reflection: g.reflection})
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

// judgementErrors are the errors of failed judgements.
func judgementErrors(failed []judgement) []error {
	out := make([]error, len(failed))
	for i, f := range failed {
		out[i] = f.err
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
func (j *LLMJudge) ask(ctx context.Context, t judgeTarget, req points.JudgeRequest) judgement {
	g := judgement{name: judgeName(t.spec)}
	if t.err != nil {
		g.err = t.err
		return g
	}
	system, user := points.JudgePrompt(t.spec.Approach, req, j.experimental)
	zero := 0.0
	label := "judge " + g.name
	if req.Subject != nil {
		label += " " + req.Subject.PromptID + " × " + req.Subject.ModelID
	}
	check := func(content string) error {
		_, _, err := points.ParseJudgeReply(content, j.experimental)
		return err
	}
	resp, err := j.client.CompleteChecked(ctx, llm.Request{Endpoint: t.ep,
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		Temperature: &zero, MaxTokens: j.maxTokens, Label: label}, check)
	if err != nil {
		g.err = err
		return g
	}
	g.score, g.reflection, g.err = points.ParseJudgeReply(resp.Content, j.experimental)
	return g
}

// JudgeTexts judges several text points of one response (points.BatchJudge). Without batching
// each point is judged as JudgeText does, all at once. With it, each judge is sent every point
// in one call (points.JudgeBatchPrompt); a point its reply misses, or whose part cannot be read,
// is asked alone (JudgePrompt, with its retry); a call that fails fails that judge on every
// point of it. Each point's verdict is then the consensus of JudgeText, the backup judge asked
// alone where every default judge failed.
func (j *LLMJudge) JudgeTexts(ctx context.Context, reqs []points.JudgeRequest) ([]points.JudgeResult, []error) {
	results := make([]points.JudgeResult, len(reqs))
	errs := make([]error, len(reqs))
	var g errgroup.Group
	if !j.batch || len(reqs) < 2 {
		for i, req := range reqs {
			g.Go(func() error {
				results[i], errs[i] = j.JudgeText(ctx, req)
				return nil
			})
		}
		_ = g.Wait()
		return results, errs
	}
	got := make([][]judgement, len(reqs)) // per point, per judge
	for i := range got {
		got[i] = make([]judgement, len(j.judges))
	}
	for k, t := range j.judges {
		g.Go(func() error {
			for i, jm := range j.askBatch(ctx, t, reqs) {
				got[i][k] = jm
			}
			return nil
		})
	}
	_ = g.Wait()
	for i, req := range reqs {
		g.Go(func() error {
			results[i], errs[i] = j.consensus(ctx, got[i], req)
			return nil
		})
	}
	_ = g.Wait()
	return results, errs
}

// askBatch sends one judge every point of reqs in one call and returns its judgement of each;
// the points its reply misses or garbles are asked alone, at once.
func (j *LLMJudge) askBatch(ctx context.Context, t judgeTarget, reqs []points.JudgeRequest) []judgement {
	out := make([]judgement, len(reqs))
	name := judgeName(t.spec)
	if t.err != nil {
		for i := range out {
			out[i] = judgement{name: name, err: t.err}
		}
		return out
	}
	system, user := points.JudgeBatchPrompt(t.spec.Approach, reqs, j.experimental)
	zero := 0.0
	label := "judge " + name
	if s := reqs[0].Subject; s != nil {
		label += " " + s.PromptID + " × " + s.ModelID
	}
	label += fmt.Sprintf(" (%d points)", len(reqs))
	// A reply with no usable judgement at all is asked again once, with the problem quoted, and
	// is not cached; one that answers some points is kept, and the others are asked alone.
	check := func(content string) error {
		vs := points.ParseJudgeBatchReply(content, len(reqs), j.experimental)
		for _, v := range vs {
			if v.Err == nil {
				return nil
			}
		}
		return fmt.Errorf("expected a <judgement index=\"N\"> with a <classification> for each of the %d criteria, found none usable (%v)", len(reqs), vs[0].Err)
	}
	resp, err := j.client.CompleteChecked(ctx, llm.Request{Endpoint: t.ep,
		Messages:    []llm.Message{{Role: llm.RoleSystem, Content: system}, {Role: llm.RoleUser, Content: user}},
		Temperature: &zero, MaxTokens: j.maxTokens * len(reqs), Label: label}, check)
	var verdicts []points.BatchVerdict
	var re *llm.ReplyError
	switch {
	case err == nil:
		verdicts = points.ParseJudgeBatchReply(resp.Content, len(reqs), j.experimental)
	case errors.As(err, &re):
		verdicts = make([]points.BatchVerdict, len(reqs)) // nothing usable: every point alone
		for i := range verdicts {
			verdicts[i].Err = err
		}
	default:
		for i := range out {
			out[i] = judgement{name: name, err: err}
		}
		return out
	}
	var g errgroup.Group
	for i, v := range verdicts {
		if v.Err == nil {
			out[i] = judgement{name: name, score: v.Score, reflection: v.Reflection}
			continue
		}
		g.Go(func() error {
			out[i] = j.ask(ctx, t, reqs[i])
			return nil
		})
	}
	_ = g.Wait()
	return out
}
