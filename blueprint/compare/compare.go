package compare

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/vectorlint/vectorlint/internal/errwriter"
	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/scoring"
)

// DefaultTolerance is how far a score may fall before it is a regression.
const DefaultTolerance = 0.05

// DefaultAlpha is the significance level of FailIfWorse: a model is worse when its mean fell
// by more than the tolerance with a p-value below it.
const DefaultAlpha = 0.05

// ScoreSheet is what a comparison reads of a result document: the blueprint, the run, and each
// prompt × model's llm-coverage score (avgCoverageExtent).
type ScoreSheet struct {
	// Name names the document in messages (its file).
	Name string
	// ConfigID, RunLabel and Timestamp identify the blueprint and the run.
	ConfigID, RunLabel, Timestamp string
	// PromptIDs and Models are in the document's order.
	PromptIDs []string
	Models    []string
	// Scores holds each prompt × model's score; a nil score is a pair with no score (its
	// points could not be evaluated, or it failed).
	Scores map[string]map[string]*float64
	// Averages holds each model's average (perModelScores).
	Averages map[string]*float64
}

// InputError is a document that is not a blueprint result a comparison can read.
type InputError struct {
	Name, Field, Expected, Found string
}

// Error reads like "new.json: promptIds: expected a list of prompt ids, found nothing".
func (e *InputError) Error() string {
	where := e.Name
	if e.Field != "" {
		where += ": " + e.Field
	}
	return fmt.Sprintf("%s: expected %s, found %s", where, e.Expected, e.Found)
}

// ReadScoreSheet reads the scores of a result document written by `blueprint run` (or by
// Weval). name names it in errors.
func ReadScoreSheet(data []byte, name string) (*ScoreSheet, error) {
	bad := func(field, expected, found string) error {
		return &InputError{Name: name, Field: field, Expected: expected, Found: found}
	}
	if !utf8.Valid(data) {
		return nil, bad("", "a UTF-8 JSON result document", "invalid UTF-8")
	}
	var doc struct {
		ConfigID          *string   `json:"configId"`
		RunLabel          string    `json:"runLabel"`
		Timestamp         string    `json:"timestamp"`
		PromptIDs         *[]string `json:"promptIds"`
		EffectiveModels   *[]string `json:"effectiveModels"`
		EvaluationResults *struct {
			LLMCoverageScores *map[string]map[string]*struct {
				AvgCoverageExtent *float64 `json:"avgCoverageExtent"`
			} `json:"llmCoverageScores"`
			PerModelScores map[string]struct {
				Average *float64 `json:"average"`
			} `json:"perModelScores"`
		} `json:"evaluationResults"`
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		var te *json.UnmarshalTypeError
		var se *json.SyntaxError
		switch {
		case errors.As(err, &te):
			return nil, bad(te.Field, "a JSON "+jsonKindName(te.Type.Kind().String()), "a JSON "+te.Value)
		case errors.As(err, &se):
			return nil, bad("", "a JSON result document", fmt.Sprintf("a syntax error at byte %d (%v)", se.Offset, err))
		case errors.Is(err, io.EOF):
			return nil, bad("", "a JSON result document", "nothing")
		}
		return nil, bad("", "a JSON result document", err.Error())
	}
	if dec.More() {
		return nil, bad("", "one JSON document", "more after it")
	}
	switch {
	case doc.ConfigID == nil:
		return nil, bad("configId", "the blueprint's id (a result document of blueprint run)", "nothing")
	case doc.PromptIDs == nil:
		return nil, bad("promptIds", "the list of prompt ids", "nothing")
	case doc.EffectiveModels == nil:
		return nil, bad("effectiveModels", "the list of models", "nothing")
	case doc.EvaluationResults == nil || doc.EvaluationResults.LLMCoverageScores == nil:
		return nil, bad("evaluationResults.llmCoverageScores", "the llm-coverage scores (run with --eval-method llm-coverage)", "nothing")
	}
	s := &ScoreSheet{Name: name, ConfigID: *doc.ConfigID, RunLabel: doc.RunLabel, Timestamp: doc.Timestamp,
		PromptIDs: *doc.PromptIDs, Models: *doc.EffectiveModels,
		Scores: map[string]map[string]*float64{}, Averages: map[string]*float64{}}
	inRange := func(v *float64) bool { return v == nil || (*v >= 0 && *v <= 1) }
	for p, byModel := range *doc.EvaluationResults.LLMCoverageScores {
		if !slices.Contains(s.PromptIDs, p) {
			return nil, bad("evaluationResults.llmCoverageScores", "prompts listed in promptIds", strconv.Quote(p))
		}
		for m, c := range byModel {
			if !slices.Contains(s.Models, m) {
				return nil, bad("evaluationResults.llmCoverageScores."+p, "models listed in effectiveModels", strconv.Quote(m))
			}
			if c == nil {
				continue
			}
			if !inRange(c.AvgCoverageExtent) {
				return nil, bad("evaluationResults.llmCoverageScores."+p+"."+m+".avgCoverageExtent", "a score from 0 to 1", fmt.Sprint(*c.AvgCoverageExtent))
			}
			if s.Scores[p] == nil {
				s.Scores[p] = map[string]*float64{}
			}
			s.Scores[p][m] = c.AvgCoverageExtent
		}
	}
	for m, a := range doc.EvaluationResults.PerModelScores {
		if !inRange(a.Average) {
			return nil, bad("evaluationResults.perModelScores."+m+".average", "a score from 0 to 1", fmt.Sprint(*a.Average))
		}
		s.Averages[m] = a.Average
	}
	return s, nil
}

// jsonKindName names a Go kind the way JSON does.
func jsonKindName(k string) string {
	switch k {
	case "slice":
		return "array"
	case "struct", "map":
		return "object"
	case "float64", "int":
		return "number"
	}
	return k
}

// score returns the pair's score and whether the pair was run at all.
func (s *ScoreSheet) score(prompt, model string) (*float64, bool) {
	if !slices.Contains(s.PromptIDs, prompt) || !slices.Contains(s.Models, model) {
		return nil, false
	}
	return s.Scores[prompt][model], true
}

// Change is what happened to a score between two runs.
type Change string

// Changes of a score.
const (
	Regressed Change = "regressed" // fell by more than the tolerance
	Lost      Change = "no score"  // scored in the base run, not in the new one: a regression too
	Improved  Change = "improved"  // rose by more than the tolerance
	Unchanged Change = "unchanged" // within the tolerance
	Added     Change = "new"       // not in the base run
	Removed   Change = "removed"   // not in the new run (the prompt or model was dropped)
	NoScore   Change = "n/a"       // scored in neither run
)

// IsRegression reports whether the change fails the comparison.
func (c Change) IsRegression() bool { return c == Regressed || c == Lost }

// Delta is one score in two runs.
type Delta struct {
	// Prompt is "" for a model's average.
	Prompt string   `json:"promptId,omitempty"`
	Model  string   `json:"model"`
	Base   *float64 `json:"base"`
	New    *float64 `json:"new"`
	// Delta is New − Base, rounded to 2 decimals (nil unless both are scores).
	Delta  *float64 `json:"delta"`
	Change Change   `json:"change"`
}

// ModelChange is the paired change of one model's scores between two runs, over the prompts
// both runs scored (scoring.PairedTest on new − base).
type ModelChange struct {
	Model string
	// Prompts counts the prompts both runs scored for the model.
	Prompts int
	// Stats are the paired statistics; Stats.Enough is false with fewer than
	// scoring.MinPairs prompts ("not enough prompts").
	Stats scoring.PairedResult
	// Worse reports that the mean fell by more than the tolerance with a p-value below alpha:
	// what fails FailIfWorse.
	Worse bool
	// Notes say what limits the figures: "not enough prompts", or "p cannot fall below 0.05
	// with 5 prompts" when the test could never find a difference at alpha.
	Notes []string
}

// Settings adjust Runs.
type Settings struct {
	// Tolerance is how far a score (and, for FailIfWorse, a model's mean) may fall before it
	// counts (DefaultTolerance is the command's default; 0 is allowed).
	Tolerance float64
	// Alpha is the significance level of FailIfWorse, in (0, 1]; 0 means DefaultAlpha.
	Alpha float64
	// FailIfWorse makes the comparison fail only for a model that is Worse, instead of for
	// any regressed prompt × model (which is still listed).
	FailIfWorse bool
}

// Comparison is two runs of a blueprint, score by score.
type Comparison struct {
	ConfigID  string
	Base, New *ScoreSheet
	Tolerance float64
	// Alpha and FailIfWorse are the settings' (Alpha never 0).
	Alpha       float64
	FailIfWorse bool
	// Cells are the prompt × model scores: the new run's prompts and models in its order, then
	// those only in the base run.
	Cells []Delta
	// Averages are each model's average, in the same model order.
	Averages []Delta
	// Models are the paired changes of the models in both runs, in the new run's order.
	Models []ModelChange
	// Regressions counts the cells that regressed or lost their score; Worse the models that
	// are Worse.
	Regressions, Worse int
}

// Failed reports whether the comparison fails its gate: a worse model with FailIfWorse, else
// any regression.
func (c *Comparison) Failed() bool {
	if c.FailIfWorse {
		return c.Worse > 0
	}
	return c.Regressions > 0
}

// Runs compares two runs of the same blueprint. A score that falls by more than the
// tolerance, or that the base run had and the new run lacks (the pair failed or no point could
// be evaluated), is a regression. Prompts or models only in one run are listed, not failed.
// Each model in both runs gets its paired change over the prompts both scored.
func Runs(base, next *ScoreSheet, set Settings) (*Comparison, error) {
	tolerance := set.Tolerance
	if tolerance < 0 || math.IsNaN(tolerance) || math.IsInf(tolerance, 0) {
		return nil, fmt.Errorf("tolerance: expected a number of 0 or more, found %v", tolerance)
	}
	if set.Alpha == 0 {
		set.Alpha = DefaultAlpha
	}
	if !(set.Alpha > 0 && set.Alpha <= 1) {
		return nil, fmt.Errorf("alpha: expected a significance level above 0 and at most 1, found %v", set.Alpha)
	}
	if base.ConfigID != next.ConfigID {
		return nil, fmt.Errorf("%s is a run of blueprint %q and %s of %q: compare two runs of one blueprint", base.Name, base.ConfigID, next.Name, next.ConfigID)
	}
	c := &Comparison{ConfigID: next.ConfigID, Base: base, New: next, Tolerance: tolerance, Alpha: set.Alpha, FailIfWorse: set.FailIfWorse}
	prompts := append(slices.Clone(next.PromptIDs), without(base.PromptIDs, next.PromptIDs)...)
	models := append(slices.Clone(next.Models), without(base.Models, next.Models)...)
	for _, p := range prompts {
		for _, m := range models {
			b, inBase := base.score(p, m)
			n, inNew := next.score(p, m)
			if !inBase && !inNew {
				continue
			}
			d := delta(b, n, inBase, inNew, tolerance)
			d.Prompt, d.Model = p, m
			if d.Change.IsRegression() {
				c.Regressions++
			}
			c.Cells = append(c.Cells, d)
		}
	}
	for _, m := range models {
		d := delta(base.Averages[m], next.Averages[m], slices.Contains(base.Models, m), slices.Contains(next.Models, m), tolerance)
		d.Model = m
		c.Averages = append(c.Averages, d)
	}
	for _, m := range next.Models {
		if slices.Contains(base.Models, m) {
			mc := c.modelChange(m)
			if mc.Worse {
				c.Worse++
			}
			c.Models = append(c.Models, mc)
		}
	}
	return c, nil
}

// modelChange is the paired change of model m over the prompts both runs scored.
func (c *Comparison) modelChange(m string) ModelChange {
	var diffs []float64
	for _, p := range c.New.PromptIDs {
		b, _ := c.Base.score(p, m)
		n, _ := c.New.score(p, m)
		if b != nil && n != nil {
			diffs = append(diffs, *n-*b)
		}
	}
	mc := ModelChange{Model: m, Prompts: len(diffs), Stats: scoring.PairedTest(diffs)}
	st := mc.Stats
	switch {
	case !st.Enough:
		mc.Notes = append(mc.Notes, "not enough prompts")
	case st.MinPValue >= c.Alpha:
		mc.Notes = append(mc.Notes, fmt.Sprintf("p cannot fall below %s with %d prompts", formatGate(c.Alpha), st.N))
	}
	mc.Worse = st.Enough && -st.Mean > c.Tolerance+epsilon && st.PValue < c.Alpha
	return mc
}

// formatGate writes a setting as given: 0.05, 0.1, 1.
func formatGate(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// without returns the items of a that are not in b, in a's order.
func without(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// epsilon absorbs the rounding of scores written with two decimals: 0.80 → 0.75 is a fall of
// 0.05, not 0.05000000000000004.
const epsilon = 1e-9

// delta compares a score in two runs.
func delta(b, n *float64, inBase, inNew bool, tolerance float64) Delta {
	d := Delta{Base: b, New: n}
	switch {
	case !inBase:
		d.Change = Added
	case !inNew:
		d.Change = Removed
	case b == nil && n == nil:
		d.Change = NoScore
	case n == nil:
		d.Change = Lost
	case b == nil:
		d.Change = Added
	default:
		diff := math.Round((*n-*b)*100) / 100
		d.Delta = &diff
		switch {
		case *b-*n > tolerance+epsilon:
			d.Change = Regressed
		case *n-*b > tolerance+epsilon:
			d.Change = Improved
		default:
			d.Change = Unchanged
		}
	}
	return d
}

// Comparison output formats.
const (
	FormatLine   = "line"
	FormatJSON   = "json"
	FormatGitHub = "github"
	FormatHTML   = "html"
)

// Formats are the formats Write writes.
func Formats() []string { return []string{FormatLine, FormatJSON, FormatGitHub, FormatHTML} }

// WriteOptions adjust Write.
type WriteOptions struct {
	// GitHubActions makes the line format unable to hold a workflow command (as blueprint.TableOptions does).
	GitHubActions bool
	// StepSummary, for the github format, receives a Markdown table of the comparison (the
	// file $GITHUB_STEP_SUMMARY names); nil for none.
	StepSummary io.Writer
}

// Write writes c in a format of Formats. Every id and model name is untrusted
// text: the line format shows control characters escaped, json and html encode them, and the
// github format escapes its messages as the linter's annotations do.
func Write(w io.Writer, format string, c *Comparison, opts WriteOptions) error {
	switch format {
	case FormatLine:
		safe := safetext.NewHumanWriter(w, opts.GitHubActions)
		err := c.writeLine(safe, opts.GitHubActions)
		if ferr := safe.Flush(); err == nil {
			err = ferr
		}
		return err
	case FormatJSON:
		b, err := jsjson.MarshalIndent(c.jsonView())
		if err != nil {
			return err
		}
		_, err = w.Write(safetext.JSON(b))
		return err
	case FormatGitHub:
		return c.writeGitHub(w, opts.StepSummary)
	case FormatHTML:
		return c.writeHTML(w)
	}
	return fmt.Errorf("unknown output format %q: expected one of %s", format, strings.Join(Formats(), ", "))
}

// formatScore shows a score with two decimals, or "—" for none.
func formatScore(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// formatDelta shows a change with its sign ("+0.10", "-0.33", "0.00"), or "" for none.
func formatDelta(v *float64) string {
	switch {
	case v == nil:
		return ""
	case *v > 0:
		return "+" + strconv.FormatFloat(*v, 'f', 2, 64)
	case *v == 0:
		return "0.00"
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// formatSigned shows a mean difference or a bound with 3 decimals and its sign ("+0.117",
// "-0.252", "0.000").
func formatSigned(v float64) string {
	r := math.Round(v*1000) / 1000
	switch {
	case r > 0:
		return "+" + strconv.FormatFloat(r, 'f', 3, 64)
	case r == 0:
		return "0.000"
	}
	return strconv.FormatFloat(r, 'f', 3, 64)
}

// figures are a model change's statistics as the human formats show them: "—" where there is
// none.
type figures struct {
	Mean, Interval, P, Notes string
}

func (m ModelChange) figures() figures {
	st := m.Stats
	f := figures{Mean: "—", Interval: "—", P: "—"}
	if st.N > 0 {
		f.Mean = formatSigned(st.Mean)
	}
	if st.Enough {
		f.Interval = "[" + formatSigned(st.Low) + ", " + formatSigned(st.High) + "]"
		p := strconv.FormatFloat(st.PValue, 'f', 3, 64)
		if st.PValue < 0.001 {
			p = "<0.001"
		}
		method := "sampled"
		if st.Exact {
			method = "exact"
		}
		f.P = p + " (" + method + ")"
	}
	notes := m.Notes
	if m.Worse {
		notes = append([]string{"WORSE"}, notes...)
	}
	f.Notes = strings.Join(notes, "; ")
	return f
}

// verdict is the comparison's last line.
func (c *Comparison) verdict() string {
	tol := strconv.FormatFloat(c.Tolerance, 'f', -1, 64)
	if c.FailIfWorse {
		if c.Worse > 0 {
			var names []string
			for _, m := range c.Models {
				if m.Worse {
					names = append(names, m.Model)
				}
			}
			return fmt.Sprintf("✖ %d model%s worse: the mean fell by more than %s with p below %s (%s).", c.Worse, node.Plural(c.Worse), tol,
				formatGate(c.Alpha), strings.Join(names, ", "))
		}
		line := fmt.Sprintf("✓ No model worse: no mean fell by more than %s with p below %s.", tol, formatGate(c.Alpha))
		if c.Regressions > 0 {
			line += fmt.Sprintf(" %d prompt score%s regressed (listed above).", c.Regressions, node.Plural(c.Regressions))
		}
		return line
	}
	if c.Regressions == 0 {
		return fmt.Sprintf("✓ No regression: no score fell by more than %s.", tol)
	}
	return fmt.Sprintf("✖ %d regression%s: a score fell by more than %s, or was lost.", c.Regressions, node.Plural(c.Regressions), tol)
}

// runName is "label (timestamp)" of a run.
func runName(s *ScoreSheet) string {
	name := s.RunLabel
	if s.Timestamp != "" {
		name += " (" + s.Timestamp + ")"
	}
	if name == "" {
		return s.Name
	}
	return name
}

func (c *Comparison) writeLine(w io.Writer, workflow bool) error {
	cell := func(s string) string { return safetext.Human(strings.Join(strings.Fields(s), " "), workflow) }
	ew := errwriter.New(w)
	fmt.Fprintf(ew, "Blueprint %s: %s → %s, tolerance %s\n\n", cell(c.ConfigID), cell(runName(c.Base)), cell(runName(c.New)),
		strconv.FormatFloat(c.Tolerance, 'f', -1, 64))
	var table bytes.Buffer
	tw := tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PROMPT\tMODEL\tBASE\tNEW\tCHANGE\t")
	for _, d := range c.Cells {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", cell(d.Prompt), cell(d.Model), formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta), changeNote(d.Change))
	}
	for _, d := range c.Averages {
		fmt.Fprintf(tw, "AVERAGE\t%s\t%s\t%s\t%s\t\n", cell(d.Model), formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for line := range strings.Lines(table.String()) {
		fmt.Fprintln(ew, strings.TrimRight(line, " \n")) // no padding after the last column
	}
	if len(c.Models) > 0 {
		fmt.Fprintf(ew, "\nPaired change of each model over the prompts both runs scored:\n")
		table.Reset()
		tw = tabwriter.NewWriter(&table, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "MODEL\tPROMPTS\tMEAN\t95% INTERVAL\tP-VALUE\t")
		for _, m := range c.Models {
			f := m.figures()
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\n", cell(m.Model), m.Prompts, f.Mean, f.Interval, f.P, f.Notes)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		for line := range strings.Lines(table.String()) {
			fmt.Fprintln(ew, strings.TrimRight(line, " \n"))
		}
	}
	fmt.Fprintf(ew, "\n%s\n", c.verdict())
	return ew.Err()
}

// changeNote is the table's last column: the change when it matters.
func changeNote(c Change) string {
	switch c {
	case Unchanged:
		return ""
	case Regressed, Lost:
		return strings.ToUpper(string(c))
	}
	return string(c)
}

// comparisonJSON is the json format.
type comparisonJSON struct {
	ConfigID    string            `json:"configId"`
	Base        runJSON           `json:"base"`
	New         runJSON           `json:"new"`
	Tolerance   float64           `json:"tolerance"`
	Alpha       float64           `json:"alpha"`
	FailIfWorse bool              `json:"failIfWorse"`
	Cells       []Delta           `json:"cells"`
	Averages    []Delta           `json:"averages"`
	Models      []modelChangeJSON `json:"models"`
	Regressions int               `json:"regressions"`
	Worse       int               `json:"worse"`
	Verdict     string            `json:"verdict"`
}

// modelChangeJSON is a ModelChange in the json format: figures rounded to 4 decimals (the
// p-value to 4 significant digits), null where there is none.
type modelChangeJSON struct {
	Model          string        `json:"model"`
	Prompts        int           `json:"prompts"`
	MeanDifference *float64      `json:"meanDifference"`
	CI95           *intervalJSON `json:"ci95"`
	PValue         *float64      `json:"pValue"`
	// PValueMethod is "exact" (every sign pattern) or "sampled" (SignFlips random ones from
	// the fixed seed).
	PValueMethod string   `json:"pValueMethod,omitempty"`
	SignFlips    int      `json:"signFlips,omitempty"`
	Worse        bool     `json:"worse"`
	Notes        []string `json:"notes,omitempty"`
}

type intervalJSON struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

func (m ModelChange) jsonView() modelChangeJSON {
	st := m.Stats
	round4 := func(v float64) *float64 { r := math.Round(v*1e4) / 1e4; return &r }
	v := modelChangeJSON{Model: m.Model, Prompts: m.Prompts, Worse: m.Worse, Notes: m.Notes}
	if st.N > 0 {
		v.MeanDifference = round4(st.Mean)
	}
	if st.Enough {
		v.CI95 = &intervalJSON{Low: *round4(st.Low), High: *round4(st.High)}
		p, _ := strconv.ParseFloat(strconv.FormatFloat(st.PValue, 'g', 4, 64), 64)
		v.PValue = &p
		v.PValueMethod, v.SignFlips = "sampled", st.Flips
		if st.Exact {
			v.PValueMethod = "exact"
		}
	}
	return v
}

type runJSON struct {
	File      string `json:"file"`
	RunLabel  string `json:"runLabel"`
	Timestamp string `json:"timestamp"`
}

func (c *Comparison) jsonView() comparisonJSON {
	v := comparisonJSON{ConfigID: c.ConfigID, Tolerance: c.Tolerance, Alpha: c.Alpha, FailIfWorse: c.FailIfWorse, Cells: c.Cells, Averages: c.Averages,
		Models: []modelChangeJSON{}, Regressions: c.Regressions, Worse: c.Worse, Verdict: "pass",
		Base: runJSON{File: c.Base.Name, RunLabel: c.Base.RunLabel, Timestamp: c.Base.Timestamp},
		New:  runJSON{File: c.New.Name, RunLabel: c.New.RunLabel, Timestamp: c.New.Timestamp}}
	for _, m := range c.Models {
		v.Models = append(v.Models, m.jsonView())
	}
	if c.Failed() {
		v.Verdict = "fail"
	}
	if v.Cells == nil {
		v.Cells = []Delta{}
	}
	if v.Averages == nil {
		v.Averages = []Delta{}
	}
	return v
}

// githubEscapeData escapes a workflow command's message (escapeData of @actions/core); the
// text is made safe as human text first (no line-leading "::", no "##[", controls escaped).
func githubEscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(safetext.Human(s, true))
}

// githubEscapeProperty escapes a property value (escapeProperty of @actions/core).
func githubEscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(safetext.Human(s, true))
}

// writeGitHub writes an annotation per regression (::error, or ::warning when only a worse
// model fails the comparison), an ::error per worse model with FailIfWorse, a ::notice with the
// verdict, and the tables to the step summary.
func (c *Comparison) writeGitHub(w io.Writer, summary io.Writer) error {
	ew := errwriter.New(w)
	tol := strconv.FormatFloat(c.Tolerance, 'f', -1, 64)
	level := "error"
	if c.FailIfWorse {
		level = "warning"
	}
	for _, d := range c.Cells {
		if !d.Change.IsRegression() {
			continue
		}
		msg := fmt.Sprintf("%s × %s fell from %s to %s (%s; tolerance %s)", d.Prompt, d.Model, formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta), tol)
		if d.Change == Lost {
			msg = fmt.Sprintf("%s × %s had a score of %s and has none now (tolerance %s)", d.Prompt, d.Model, formatScore(d.Base), tol)
		}
		fmt.Fprintf(ew, "::%s title=%s::%s\n", level, githubEscapeProperty("blueprint "+c.ConfigID+" regressed"), githubEscapeData(msg))
	}
	for _, m := range c.Models {
		if !m.Worse || !c.FailIfWorse {
			continue
		}
		f := m.figures()
		msg := fmt.Sprintf("%s: mean change %s over %d prompts, 95%% interval %s, p = %s (tolerance %s, alpha %s)", m.Model, f.Mean, m.Prompts,
			f.Interval, f.P, tol, formatGate(c.Alpha))
		fmt.Fprintf(ew, "::error title=%s::%s\n", githubEscapeProperty("blueprint "+c.ConfigID+": a model is worse"), githubEscapeData(msg))
	}
	fmt.Fprintf(ew, "::notice title=%s::%s\n", githubEscapeProperty("blueprint "+c.ConfigID), githubEscapeData(c.verdict()))
	if ew.Err() != nil || summary == nil {
		return ew.Err()
	}
	sw := errwriter.New(summary)
	fmt.Fprintf(sw, "## Blueprint %s: %s → %s\n\n| Prompt | Model | Base | New | Change |\n| --- | --- | ---: | ---: | --- |\n",
		safetext.MarkdownCell(c.ConfigID), safetext.MarkdownCell(runName(c.Base)), safetext.MarkdownCell(runName(c.New)))
	for _, d := range c.Cells {
		fmt.Fprintf(sw, "| %s | %s | %s | %s | %s %s |\n", safetext.MarkdownCell(d.Prompt), safetext.MarkdownCell(d.Model), formatScore(d.Base), formatScore(d.New),
			formatDelta(d.Delta), changeNote(d.Change))
	}
	for _, d := range c.Averages {
		fmt.Fprintf(sw, "| **average** | %s | %s | %s | %s |\n", safetext.MarkdownCell(d.Model), formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta))
	}
	if len(c.Models) > 0 {
		fmt.Fprintf(sw, "\nPaired change of each model over the prompts both runs scored:\n\n| Model | Prompts | Mean | 95%% interval | p-value | |\n| --- | ---: | ---: | --- | --- | --- |\n")
		for _, m := range c.Models {
			f := m.figures()
			fmt.Fprintf(sw, "| %s | %d | %s | %s | %s | %s |\n", safetext.MarkdownCell(m.Model), m.Prompts, f.Mean, f.Interval, f.P, safetext.MarkdownCell(f.Notes))
		}
	}
	fmt.Fprintf(sw, "\n%s\n", safetext.MarkdownCell(c.verdict()))
	return sw.Err()
}

// compareTemplate is the html format: one self-contained page. html/template escapes every
// value; its own text holds no "##[" and no line starting "::".
const compareTemplate = `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Blueprint {{.ConfigID}}: comparison</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.7em; text-align: left; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.regressed td, tr.lost td { background: #fde8e8; }
tr.improved td { background: #e8f7e8; }
tfoot td { font-weight: bold; }
</style>
</head>
<body>
<h1>Blueprint {{.ConfigID}}</h1>
<p>Base: {{.Base}}<br>New: {{.New}}<br>Tolerance: {{.Tolerance}}<br>Alpha: {{.Alpha}}{{if .FailIfWorse}} (--fail-if-worse){{end}}</p>
<table>
<thead><tr><th>Prompt</th><th>Model</th><th>Base</th><th>New</th><th>Change</th><th></th></tr></thead>
<tbody>
{{- range .Cells}}
<tr class="{{.Class}}"><td>{{.Prompt}}</td><td>{{.Model}}</td><td class="num">{{.Base}}</td><td class="num">{{.New}}</td><td class="num">{{.Delta}}</td><td>{{.Note}}</td></tr>
{{- end}}
</tbody>
<tfoot>
{{- range .Averages}}
<tr><td>Average</td><td>{{.Model}}</td><td class="num">{{.Base}}</td><td class="num">{{.New}}</td><td class="num">{{.Delta}}</td><td></td></tr>
{{- end}}
</tfoot>
</table>
{{- if .Models}}
<h2>Paired change of each model</h2>
<p>Over the prompts both runs scored: the mean difference (new − base), its 95 % confidence interval (Student's t) and the two-sided p-value of the paired sign-flip permutation test.</p>
<table>
<thead><tr><th>Model</th><th>Prompts</th><th>Mean</th><th>95 % interval</th><th>p-value</th><th></th></tr></thead>
<tbody>
{{- range .Models}}
<tr{{if .Class}} class="{{.Class}}"{{end}}><td>{{.Model}}</td><td class="num">{{.Prompts}}</td><td class="num">{{.Mean}}</td><td class="num">{{.Interval}}</td><td class="num">{{.P}}</td><td>{{.Notes}}</td></tr>
{{- end}}
</tbody>
</table>
{{- end}}
<p>{{.Verdict}}</p>
</body>
</html>
`

type compareRow struct {
	Class, Prompt, Model, Base, New, Delta, Note string
}

func (c *Comparison) writeHTML(w io.Writer) error {
	t, err := template.New("compare").Parse(compareTemplate)
	if err != nil {
		return err
	}
	// html/template escapes markup; control and bidi characters are shown as escapes too, so
	// the page cannot reorder or hide what it shows.
	text := safetext.Terminal
	row := func(d Delta) compareRow {
		class := strings.ReplaceAll(string(d.Change), " ", "-")
		if d.Change == Lost {
			class = "lost"
		}
		return compareRow{Class: class, Prompt: text(d.Prompt), Model: text(d.Model), Base: formatScore(d.Base), New: formatScore(d.New),
			Delta: formatDelta(d.Delta), Note: changeNote(d.Change)}
	}
	type modelRow struct {
		Class, Model string
		Prompts      int
		figures
	}
	view := struct {
		ConfigID, Base, New, Tolerance, Alpha, Verdict string
		FailIfWorse                                    bool
		Cells, Averages                                []compareRow
		Models                                         []modelRow
	}{ConfigID: text(c.ConfigID), Base: text(runName(c.Base)), New: text(runName(c.New)), Tolerance: strconv.FormatFloat(c.Tolerance, 'f', -1, 64),
		Alpha: formatGate(c.Alpha), FailIfWorse: c.FailIfWorse, Verdict: c.verdict()}
	for _, m := range c.Models {
		class := ""
		if m.Worse {
			class = "regressed"
		}
		f := m.figures()
		f.Notes = text(f.Notes)
		view.Models = append(view.Models, modelRow{Class: class, Model: text(m.Model), Prompts: m.Prompts, figures: f})
	}
	for _, d := range c.Cells {
		view.Cells = append(view.Cells, row(d))
	}
	for _, d := range c.Averages {
		view.Averages = append(view.Averages, row(d))
	}
	var b bytes.Buffer
	if err := t.Execute(&b, view); err != nil {
		return err
	}
	_, err = w.Write(safetext.HTML(b.Bytes()))
	return err
}
