package blueprint

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vectorlint/vectorlint/internal/errwriter"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/safetext"
)

// TableOptions adjust WriteTableWith.
type TableOptions struct {
	// GitHubActions (the command sets it when GITHUB_ACTIONS=true) makes the table unable to
	// hold a line a GitHub runner would act on as a workflow command: the blueprint's ids and
	// titles and the models' error messages are untrusted text (see internal/safetext).
	GitHubActions bool
}

// WriteTable writes the `line` output of a run: a table of prompts × models with each cell's
// score (avgCoverageExtent), the per-model averages, and every failure.
//
// A cell shows "—" when the prompt × model has no result (see the failures), "n/a" when no
// point could be evaluated, and a trailing "*" when some points were not evaluated.
//
// The text comes from the blueprint, the models and HTTP bodies: control, bidi and invisible
// characters are shown as escapes (\x1b, \u202e) so nothing in it can act on a terminal.
func (r *Result) WriteTable(w io.Writer) error { return r.WriteTableWith(w, TableOptions{}) }

// WriteTableWith is WriteTable with options.
func (r *Result) WriteTableWith(w io.Writer, opts TableOptions) error {
	safe := safetext.NewHumanWriter(w, opts.GitHubActions)
	err := r.writeTable(safe, opts)
	if ferr := safe.Flush(); err == nil {
		err = ferr
	}
	return err
}

// writeTable writes the table to w, which escapes everything written to it; the cells and the
// header fields are escaped here already, on one line, since the escapes are wider than the
// characters they show and the columns must be measured on what is printed.
func (r *Result) writeTable(w io.Writer, opts TableOptions) error {
	cell := func(s string) string {
		return safetext.Human(strings.Join(strings.Fields(s), " "), opts.GitHubActions)
	}
	ew := errwriter.New(w)
	title := r.ConfigTitle
	if title == "" || title == r.ConfigID {
		fmt.Fprintf(ew, "Blueprint %s\n", cell(r.ConfigID))
	} else {
		fmt.Fprintf(ew, "Blueprint %s (%s)\n", cell(title), cell(r.ConfigID))
	}
	fmt.Fprintf(ew, "Run %s at %s: %d prompt%s × %d model%s\n\n", cell(r.RunLabel), cell(r.Timestamp),
		len(r.PromptIDs), node.Plural(len(r.PromptIDs)), len(r.EffectiveModels), node.Plural(len(r.EffectiveModels)))

	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "PROMPT")
	for _, m := range r.EffectiveModels {
		fmt.Fprint(tw, "\t"+cell(m))
	}
	fmt.Fprintln(tw)
	partial := false
	coverage := slices.Contains(r.EvalMethodsUsed, "llm-coverage")
	for _, p := range r.PromptIDs {
		fmt.Fprint(tw, cell(p))
		for _, m := range r.EffectiveModels {
			cell := "—"
			if _, failed := r.Errors[p][m]; !coverage && !failed {
				cell = "·"
			}
			if c := r.EvaluationResults.LLMCoverageScores[p][m]; c != nil {
				cell = "n/a"
				if c.AvgCoverageExtent != nil {
					cell = strconv.FormatFloat(*c.AvgCoverageExtent, 'f', 2, 64)
				}
				if c.NotEvaluatedCount > 0 {
					cell += "*"
					partial = true
				}
			}
			fmt.Fprint(tw, "\t"+cell)
		}
		fmt.Fprintln(tw)
	}
	fmt.Fprint(tw, "AVERAGE")
	for _, m := range r.EffectiveModels {
		cell := "n/a"
		if avg := r.EvaluationResults.PerModelScores[m].Rounded(); avg != nil {
			cell = strconv.FormatFloat(*avg, 'f', 2, 64)
		}
		fmt.Fprint(tw, "\t"+cell)
	}
	fmt.Fprintln(tw)
	if err := tw.Flush(); err != nil {
		return err
	}
	if ag := r.EvaluationResults.JudgeAgreement; ag != nil {
		fmt.Fprintf(ew, "\n%s\n", agreementSentence(ag))
	}
	if partial {
		fmt.Fprintln(ew, "\n* some points were not evaluated; the score covers the evaluated points only.")
	}
	if !coverage {
		if len(r.EvalMethodsUsed) > 0 {
			fmt.Fprintln(ew, "\n· llm-coverage was not run (--eval-method): the result holds the responses and their similarity scores.")
		} else {
			fmt.Fprintln(ew, "\n· no evaluation was run (--eval-method): the result holds the responses.")
		}
	}
	if f := r.Failures(); len(f) > 0 {
		fmt.Fprintf(ew, "\n%d failure%s:\n", len(f), node.Plural(len(f)))
		for _, line := range f {
			fmt.Fprintf(ew, "  %s\n", line)
		}
	}
	if stops := r.Stops(); len(stops) > 0 {
		fmt.Fprintf(ew, "\n%d model endpoint%s could not be used:\n", len(stops), node.Plural(len(stops)))
		for _, s := range stops {
			fmt.Fprintf(ew, "  %s\n", s)
		}
	}
	if n := r.Notes(); len(n) > 0 {
		fmt.Fprintf(ew, "\n%d warning%s:\n", len(n), node.Plural(len(n)))
		for _, line := range n {
			fmt.Fprintf(ew, "  %s\n", line)
		}
	}
	return ew.Err()
}

// Stop is a model endpoint that could not be used during a run, with what that kept from being
// done: its calls were stopped (llm.StopError: refused, DNS, TLS, 401, 403, 404), or it is not
// configured (llm.NotConfiguredError: a key not set). The table names it once instead of once
// per prompt, model and point.
type Stop struct {
	Err error
	// Responses counts the prompt × model pairs not generated.
	Responses int
	// Points counts the points not judged; Partial the points judged by fewer judges than
	// configured (the other judges' consensus scored them).
	Points, Partial int
}

// String reads like "llm: cannot connect to …; … (2 responses not generated, 4 points not
// judged)".
func (s Stop) String() string {
	var parts []string
	if s.Responses > 0 {
		parts = append(parts, fmt.Sprintf("%d response%s not generated", s.Responses, node.Plural(s.Responses)))
	}
	if s.Points > 0 {
		parts = append(parts, fmt.Sprintf("%d point%s not judged", s.Points, node.Plural(s.Points)))
	}
	if s.Partial > 0 {
		parts = append(parts, fmt.Sprintf("%d point%s judged by fewer judges", s.Partial, node.Plural(s.Partial)))
	}
	return s.Err.Error() + " (" + strings.Join(parts, ", ") + ")"
}

// Stops lists the endpoints that could not be used during the run, in the order of the table
// (prompts, then models), each cause once, with what it kept from being done. Failures and
// Notes leave out what they count.
func (r *Result) Stops() []Stop {
	var out []Stop
	index := map[string]int{} // by message: two models of one provider without a key are one cause
	at := func(err error) *Stop {
		i, ok := index[err.Error()]
		if !ok {
			i = len(out)
			index[err.Error()] = i
			out = append(out, Stop{Err: err})
		}
		return &out[i]
	}
	for _, p := range r.PromptIDs {
		for _, m := range r.EffectiveModels {
			if se := r.stopped[p][m]; se != nil {
				at(se).Responses++
				continue
			}
			c := r.EvaluationResults.LLMCoverageScores[p][m]
			if c == nil {
				continue
			}
			for _, a := range c.PointAssessments {
				// Each cause counts a point once, however many of its judges it failed.
				seen := map[string]bool{}
				for _, err := range a.Stops() {
					if !seen[err.Error()] {
						seen[err.Error()] = true
						at(err).Points++
					}
				}
				for _, err := range a.PartialStops() {
					if !seen[err.Error()] {
						seen[err.Error()] = true
						at(err).Partial++
					}
				}
			}
		}
	}
	return out
}

// Notes lists, one line each, points that were scored despite a partial failure: some of
// their judges failed (see PointAssessment.Warning). Judges whose endpoint was stopped are
// left to Stops.
func (r *Result) Notes() []string {
	var out []string
	for _, p := range r.PromptIDs {
		for _, m := range r.EffectiveModels {
			c := r.EvaluationResults.LLMCoverageScores[p][m]
			if c == nil {
				continue
			}
			for _, a := range c.PointAssessments {
				if a.Warning != "" && a.PartialStops() == nil {
					out = append(out, fmt.Sprintf("%s × %s: %s: %s", p, m, shorten(a.KeyPointText, 80), a.Warning))
				}
			}
		}
	}
	return out
}

// Failures lists, one line each, what could not be done: prompt × model pairs without a
// result, points whose evaluation failed, and points not evaluated. What a stopped endpoint
// kept from being done is left to Stops.
func (r *Result) Failures() []string {
	var out []string
	for _, p := range r.PromptIDs {
		for _, m := range r.EffectiveModels {
			if msg, ok := r.Errors[p][m]; ok {
				if r.stopped[p][m] == nil {
					out = append(out, fmt.Sprintf("%s × %s: %s", p, m, msg))
				}
				continue
			}
			c := r.EvaluationResults.LLMCoverageScores[p][m]
			if c == nil {
				continue
			}
			noJudge := 0
			for _, a := range c.PointAssessments {
				switch {
				case a.NotEvaluated && a.Error == "":
					noJudge++
				case a.Stops() != nil: // reported by Stops
				case a.Error != "":
					out = append(out, fmt.Sprintf("%s × %s: %s: %s", p, m, shorten(a.KeyPointText, 80), a.Error))
				}
			}
			if noJudge > 0 {
				out = append(out, fmt.Sprintf("%s × %s: %d LLM-judged point%s not evaluated (no judge configured)", p, m, noJudge, node.Plural(noJudge)))
			}
		}
	}
	return append(out, r.evalErrors...)
}

// shorten puts s on one line (runs of white space become one space) and cuts it to n
// characters, for one-line messages.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
