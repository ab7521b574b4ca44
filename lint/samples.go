package lint

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
)

// Samples and majority (docs/configuration.md, "Samples"): a rule that takes N samples makes
// each model evaluation of a chunk N distinct requests (sample i is llm.Request.Sample
// FirstSample×N+i, so the repeats of `vectorlint test` never share a sample's cache entry), sent
// in turn to the models of EvalOptions.Models when there are any. A violation is kept when a
// strict majority of the samples report it, located spans that overlap counting as one
// (vote); a subjective criterion's rating on a chunk is the median of its samples' ratings, the
// lower of the two middle ones for an even count (medianRating). Samples apply to the
// evaluation calls of semi-objective and subjective rules (and of technical-accuracy rules,
// which are evaluated by one of those kinds); a checklist's judged points and a
// technical-accuracy rule's claim checks are made once.

// samples is the number of samples the rule's model evaluation takes (1 when it takes one, or
// its kind takes no samples).
func (pr *PlannedRule) samples() int {
	if !sampledKind(pr.Kind) {
		return 1
	}
	return max(1, pr.Samples)
}

// sampledKind says whether a kind's model evaluation takes samples.
func sampledKind(k Kind) bool {
	if ta, ok := k.(technicalAccuracy); ok {
		k = ta.base
	}
	switch k.(type) {
	case semiObjective, subjective:
		return true
	}
	return false
}

// sampleRequest is the endpoint and the sample number of sample i of n of a model evaluation:
// the i-th model of opts.Models in turn (opts.Endpoint's model when there are none), and
// FirstSample×n+i. One sample without Models is exactly a run without samples.
func sampleRequest(opts EvalOptions, n, i int) (llm.Endpoint, int) {
	ep := opts.Endpoint
	if len(opts.Models) > 0 {
		ep.Model = opts.Models[i%len(opts.Models)]
	}
	return ep, opts.FirstSample*n + i
}

// sampled makes the samples of a chunk's model evaluation in turn, one call each (one makes a
// call of sample j.sample): a reply holding each sample's reply, or the first failure. A rule
// that takes one sample makes one call, as without samples. Only a technical-accuracy rule's
// samples are made here, after its claim checks; those of the other kinds are work items of
// their own (fileRun.workItems), made at once and settled as this does (fileRun.settle).
func (e *evaluator) sampled(ctx context.Context, j job, one func(job) reply) reply {
	n := j.rule.samples()
	j.samples = n
	if n == 1 {
		return one(j)
	}
	out := reply{samples: make([]reply, 0, n)}
	label := j.label
	for i := range n {
		j.sample, j.label = i, sampleLabel(label, i, n)
		r := one(j)
		if r.err != nil || r.interrupted {
			return r
		}
		out.samples = append(out.samples, r)
	}
	return out
}

// sampleLabel names sample i of n of a call labelled label: "docs/a.md Acme.Tone sample 2/3".
func sampleLabel(label string, i, n int) string {
	return fmt.Sprintf("%s sample %d/%d", label, i+1, n)
}

// sampleReplies are the replies of a chunk's samples: the reply itself when it took one.
func (r *reply) sampleReplies() []reply {
	if r.samples == nil {
		return []reply{*r}
	}
	return r.samples
}

// vote keeps, of a rule's violations reported by n samples, those a strict majority of the
// samples reported: violations of the same rule (or criterion) whose located spans overlap,
// or, not located, whose quotes are the same (trimmed, ignoring case), are one violation, and
// the samples that reported it vote for it. Of the violations kept, the most confident of
// each stays (the first on a tie), its finding carrying the votes; the others, and every
// violation without a majority, are left out. Other proposals stay as they are. With one
// sample props are returned unchanged.
func vote(props []proposal, n int) []proposal {
	if n <= 1 {
		return props
	}
	parent := make([]int, len(props))
	for i := range parent {
		parent[i] = i
	}
	root := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	voter := func(p *proposal) bool { return p.violation != nil && !p.merged }
	fold := func(p *proposal) string { return strings.ToLower(strings.TrimSpace(p.violation.QuotedText)) }
	for i := range props {
		p := &props[i]
		if !voter(p) {
			continue
		}
		for j := range i {
			q := &props[j]
			if !voter(q) || q.rule != p.rule || q.group != p.group || q.located != p.located {
				continue
			}
			same := p.located && spansOverlap(p.span.Start, p.span.End, q.span.Start, q.span.End) ||
				!p.located && fold(p) == fold(q)
			if same {
				parent[root(i)] = root(j)
			}
		}
	}
	voters := map[int][]int{} // root → the samples that reported it
	best := map[int]int{}     // root → its most confident violation
	for i := range props {
		p := &props[i]
		if !voter(p) {
			continue
		}
		r := root(i)
		if !slices.Contains(voters[r], p.sample) {
			voters[r] = append(voters[r], p.sample)
		}
		if b, ok := best[r]; !ok || p.violation.Confidence > props[b].violation.Confidence {
			best[r] = i
		}
	}
	out := props[:0:0]
	for i := range props {
		p := props[i]
		if voter(&p) {
			r := root(i)
			k := len(voters[r])
			if best[r] != i || 2*k <= n {
				continue
			}
			if p.located {
				p.finding.Votes = &finding.Votes{For: k, Of: n}
			}
		}
		out = append(out, p)
	}
	return out
}

// spansOverlap reports whether the byte ranges [as, ae) and [bs, be) share text, or are the
// same (empty) place.
func spansOverlap(as, ae, bs, be int) bool {
	return as < be && bs < ae || as == bs && ae == be
}

// medianRating is the median of a criterion's ratings by the samples of one chunk: the middle
// one, or the lower of the two middle ones for an even count (a criterion the samples split
// on is rated the worse way, so a doubtful passage is still reported). 0 for none.
func medianRating(ratings []int) int {
	if len(ratings) == 0 {
		return 0
	}
	s := slices.Clone(ratings)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}
