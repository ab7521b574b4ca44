package blueprint

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

	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/safetext"
)

// Comparing two runs of a blueprint (spec/linter.md §11, `blueprint compare BASE.json
// NEW.json`): the score of each prompt × model in the two result documents, its change, and
// whether it fell by more than a tolerance — a regression, which fails a CI gate.

// DefaultTolerance is how far a score may fall before it is a regression.
const DefaultTolerance = 0.05

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

// CompareInputError is a document that is not a blueprint result a comparison can read.
type CompareInputError struct {
	Name, Field, Expected, Found string
}

// Error reads like "new.json: promptIds: expected a list of prompt ids, found nothing".
func (e *CompareInputError) Error() string {
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
		return &CompareInputError{Name: name, Field: field, Expected: expected, Found: found}
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

// Comparison is two runs of a blueprint, score by score.
type Comparison struct {
	ConfigID  string
	Base, New *ScoreSheet
	Tolerance float64
	// Cells are the prompt × model scores: the new run's prompts and models in its order, then
	// those only in the base run.
	Cells []Delta
	// Averages are each model's average, in the same model order.
	Averages []Delta
	// Regressions counts the cells that regressed or lost their score.
	Regressions int
}

// Compare compares two runs of the same blueprint. A score that falls by more than tolerance,
// or that the base run had and the new run lacks (the pair failed or no point could be
// evaluated), is a regression. Prompts or models only in one run are listed, not failed.
func Compare(base, next *ScoreSheet, tolerance float64) (*Comparison, error) {
	if tolerance < 0 || math.IsNaN(tolerance) {
		return nil, fmt.Errorf("tolerance: expected a number of 0 or more, found %v", tolerance)
	}
	if base.ConfigID != next.ConfigID {
		return nil, fmt.Errorf("%s is a run of blueprint %q and %s of %q: compare two runs of one blueprint", base.Name, base.ConfigID, next.Name, next.ConfigID)
	}
	c := &Comparison{ConfigID: next.ConfigID, Base: base, New: next, Tolerance: tolerance}
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
	return c, nil
}

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
	CompareLine   = "line"
	CompareJSON   = "json"
	CompareGitHub = "github"
	CompareHTML   = "html"
)

// CompareFormats are the formats WriteComparison writes.
func CompareFormats() []string { return []string{CompareLine, CompareJSON, CompareGitHub, CompareHTML} }

// CompareOptions adjust WriteComparison.
type CompareOptions struct {
	// GitHubActions makes the line format unable to hold a workflow command (TableOptions).
	GitHubActions bool
	// StepSummary, for the github format, receives a Markdown table of the comparison (the
	// file $GITHUB_STEP_SUMMARY names); nil for none.
	StepSummary io.Writer
}

// WriteComparison writes c in a format of CompareFormats. Every id and model name is untrusted
// text: the line format shows control characters escaped, json and html encode them, and the
// github format escapes its messages as the linter's annotations do.
func WriteComparison(w io.Writer, format string, c *Comparison, opts CompareOptions) error {
	switch format {
	case CompareLine:
		safe := safetext.NewHumanWriter(w, opts.GitHubActions)
		err := c.writeLine(safe, opts.GitHubActions)
		if ferr := safe.Flush(); err == nil {
			err = ferr
		}
		return err
	case CompareJSON:
		b, err := marshalIndent(c.jsonView())
		if err != nil {
			return err
		}
		_, err = w.Write(safetext.JSON(b))
		return err
	case CompareGitHub:
		return c.writeGitHub(w, opts.StepSummary)
	case CompareHTML:
		return c.writeHTML(w)
	}
	return fmt.Errorf("unknown output format %q: expected one of %s", format, strings.Join(CompareFormats(), ", "))
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

// verdict is the comparison's last line.
func (c *Comparison) verdict() string {
	tol := strconv.FormatFloat(c.Tolerance, 'f', -1, 64)
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
	ew := &errWriter{w: w}
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
	fmt.Fprintf(ew, "\n%s\n", c.verdict())
	return ew.err
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
	ConfigID    string  `json:"configId"`
	Base        runJSON `json:"base"`
	New         runJSON `json:"new"`
	Tolerance   float64 `json:"tolerance"`
	Cells       []Delta `json:"cells"`
	Averages    []Delta `json:"averages"`
	Regressions int     `json:"regressions"`
	Verdict     string  `json:"verdict"`
}

type runJSON struct {
	File      string `json:"file"`
	RunLabel  string `json:"runLabel"`
	Timestamp string `json:"timestamp"`
}

func (c *Comparison) jsonView() comparisonJSON {
	v := comparisonJSON{ConfigID: c.ConfigID, Tolerance: c.Tolerance, Cells: c.Cells, Averages: c.Averages,
		Regressions: c.Regressions, Verdict: "pass",
		Base: runJSON{File: c.Base.Name, RunLabel: c.Base.RunLabel, Timestamp: c.Base.Timestamp},
		New:  runJSON{File: c.New.Name, RunLabel: c.New.RunLabel, Timestamp: c.New.Timestamp}}
	if c.Regressions > 0 {
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

// writeGitHub writes an ::error annotation per regression and a ::notice with the verdict, and
// the table to the step summary.
func (c *Comparison) writeGitHub(w io.Writer, summary io.Writer) error {
	ew := &errWriter{w: w}
	tol := strconv.FormatFloat(c.Tolerance, 'f', -1, 64)
	for _, d := range c.Cells {
		if !d.Change.IsRegression() {
			continue
		}
		msg := fmt.Sprintf("%s × %s fell from %s to %s (%s; tolerance %s)", d.Prompt, d.Model, formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta), tol)
		if d.Change == Lost {
			msg = fmt.Sprintf("%s × %s had a score of %s and has none now (tolerance %s)", d.Prompt, d.Model, formatScore(d.Base), tol)
		}
		fmt.Fprintf(ew, "::error title=%s::%s\n", githubEscapeProperty("blueprint "+c.ConfigID+" regressed"), githubEscapeData(msg))
	}
	fmt.Fprintf(ew, "::notice title=%s::%s\n", githubEscapeProperty("blueprint "+c.ConfigID), githubEscapeData(c.verdict()))
	if ew.err != nil || summary == nil {
		return ew.err
	}
	sw := &errWriter{w: summary}
	fmt.Fprintf(sw, "## Blueprint %s: %s → %s\n\n| Prompt | Model | Base | New | Change |\n| --- | --- | ---: | ---: | --- |\n",
		safetext.MarkdownCell(c.ConfigID), safetext.MarkdownCell(runName(c.Base)), safetext.MarkdownCell(runName(c.New)))
	for _, d := range c.Cells {
		fmt.Fprintf(sw, "| %s | %s | %s | %s | %s %s |\n", safetext.MarkdownCell(d.Prompt), safetext.MarkdownCell(d.Model), formatScore(d.Base), formatScore(d.New),
			formatDelta(d.Delta), changeNote(d.Change))
	}
	for _, d := range c.Averages {
		fmt.Fprintf(sw, "| **average** | %s | %s | %s | %s |\n", safetext.MarkdownCell(d.Model), formatScore(d.Base), formatScore(d.New), formatDelta(d.Delta))
	}
	fmt.Fprintf(sw, "\n%s\n", safetext.MarkdownCell(c.verdict()))
	return sw.err
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
<p>Base: {{.Base}}<br>New: {{.New}}<br>Tolerance: {{.Tolerance}}</p>
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
	view := struct {
		ConfigID, Base, New, Tolerance, Verdict string
		Cells, Averages                         []compareRow
	}{ConfigID: text(c.ConfigID), Base: text(runName(c.Base)), New: text(runName(c.New)), Tolerance: strconv.FormatFloat(c.Tolerance, 'f', -1, 64),
		Verdict: c.verdict()}
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
