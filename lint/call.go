package lint

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/lint/config"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/points"
)

// The call stage (pipeline.go): each chunk of each unit that runs is one job of Evaluate's
// pool; its rule's kind builds the prompt, makes the call and reads the reply into a reply.

// job is one call of the call stage: one chunk of one unit of a rule on a file.
type job struct {
	rule  *PlannedRule
	unit  *Unit
	chunk document.Chunk
	// label names the call in events and --show-prompt.
	label string
	// prompt is what a model call evaluates; a kind may change it (technical accuracy adds
	// the claims and evidence).
	prompt PromptInput
	// samples is the number of samples of the model evaluation the call is one of, sample its
	// index (samples.go); 0 for a call that takes no samples (a claim check), made as a run
	// without samples makes it.
	samples, sample int
}

// reply is what the call stage returns for one chunk: the model's violations (semi-objective),
// its ratings of the unit's criteria (subjective) or a checklist's coverage; err when the call
// failed after its retries, interrupted when the run was stopped first.
type reply struct {
	// raw is the model's reply as it wrote it, kept only for --debug-json (EvalOptions.Debug).
	raw         string
	violations  []Violation
	ratings     []CriterionRating
	warnings    []string
	coverage    *points.CoverageResult
	err         error
	interrupted bool
	// samples are the replies of each sample when the rule takes more than one (samples.go):
	// the fields above are then unset, but for err and interrupted.
	samples []reply
}

// run is the call stage of one work item: the reply of each of its members (of the item's
// sample when it is one sample of several).
func (e *evaluator) run(ctx context.Context, it workItem) []reply {
	if len(it.members) > 1 {
		return e.runGroup(ctx, it)
	}
	return []reply{e.runChunk(ctx, it)}
}

// runChunk is the call stage of a work item of one rule: its kind's call, or, for an item that
// is one sample of several, that sample's call.
func (e *evaluator) runChunk(ctx context.Context, it workItem) reply {
	if ctx.Err() != nil {
		return reply{interrupted: true}
	}
	m := it.members[0]
	pr := m.rule.pr
	chunk := m.unit.chunks[m.chunk]
	j := job{rule: pr, unit: m.unit.unit, chunk: chunk, label: it.label(), prompt: chunkPrompt(pr, m.unit.unit, chunk, e.opts)}
	var res reply
	if it.samples > 0 {
		j.samples, j.sample, j.label = it.samples, it.sample, sampleLabel(j.label, it.sample, it.samples)
		res = pr.Kind.(sampleCaller).callOne(ctx, e, j)
	} else {
		res = pr.Kind.call(ctx, e, j)
	}
	shiftLines(&res, chunk.Line-1)
	return res
}

// shiftLines turns the line hints of a chunk's reply, numbered from 1 within the chunk as the
// model was shown it (chunkPrompt), into the document's line numbers: by the chunk's first line
// less one.
func shiftLines(res *reply, by int) {
	if by == 0 {
		return
	}
	for i := range res.samples {
		shiftLines(&res.samples[i], by)
	}
	for i := range res.violations {
		if res.violations[i].Line > 0 {
			res.violations[i].Line += by
		}
	}
	for i := range res.ratings {
		for k := range res.ratings[i].Violations {
			if res.ratings[i].Violations[k].Line > 0 {
				res.ratings[i].Violations[k].Line += by
			}
		}
	}
}

// complete makes a job's model call with messages and schema; read checks the reply's JSON and
// keeps what it needs (a reply it rejects is retried once, with the problem quoted). It returns
// the accepted reply's text when the run keeps it (EvalOptions.Debug), else "".
func (e *evaluator) complete(ctx context.Context, j job, messages []llm.Message, schema *llm.Schema, read func(js string) error) (string, error) {
	req := llm.Request{Endpoint: e.opts.Endpoint, Messages: messages, Label: j.label, Schema: schema, Sample: e.opts.FirstSample}
	if j.samples > 0 {
		req.Endpoint, req.Sample = sampleRequest(e.opts, j.samples, j.sample)
	}
	resp, err := e.opts.Client.CompleteJSON(ctx, req, read)
	if err != nil || resp == nil || e.opts.Debug == nil {
		return "", err
	}
	return resp.Content, nil
}

// failed is the reply of a chunk whose call failed: interrupted when the run was stopped, else
// an operational error.
func failed(ctx context.Context, err error) reply {
	var apiErr *llm.APIError
	if ctx.Err() != nil || (errors.As(err, &apiErr) && apiErr.Kind == llm.KindCanceled) {
		return reply{interrupted: true}
	}
	return reply{err: err}
}

// label names a call in events and --show-prompt: "docs/a.md Acme.Tone lines 12-40", or for
// several rules in one call "docs/a.md Acme.A+Acme.B lines 12-40" (groupLabel). The lines are
// named when a rule made more than one call on the file.
func (it workItem) label() string {
	ids := make([]string, len(it.members))
	lines := false
	for k, m := range it.members {
		ids[k] = m.rule.pr.ID
		lines = lines || len(m.rule.units) > 1 || len(m.unit.chunks) > 1
	}
	m := it.members[0]
	return groupLabel(it.file.fp.Path, ids, m.unit.chunks[m.chunk], lines)
}

// lineRange is "lines A-B" (or "line A") of a chunk.
func lineRange(c document.Chunk) string {
	last := c.Line + finding.NewLineIndex(c.Text).Lines() - 1
	if last <= c.Line {
		return fmt.Sprintf("line %d", c.Line)
	}
	return fmt.Sprintf("lines %d-%d", c.Line, last)
}

// directiveFor returns the directive as sent for a file: FileTypePlaceholder replaced by the
// file's extension.
func directiveFor(directive, path string) string {
	if directive == "" || !strings.Contains(directive, config.FileTypePlaceholder) {
		return directive
	}
	return strings.ReplaceAll(directive, config.FileTypePlaceholder, filepath.Ext(path))
}
