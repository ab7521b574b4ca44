package blueprint

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/internal/jsjson"
	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/internal/safetext"
	"github.com/vectorlint/vectorlint/points"
)

//go:embed report.html.tmpl
var reportTemplateText string

// reportTemplate is parsed on first use. (A parsed template is immutable; building it per call
// keeps the package free of mutable state.)
func reportTemplate() (*template.Template, error) {
	return template.New("report").Parse(reportTemplateText)
}

// WriteHTML writes the run as one self-contained HTML page (inline CSS and a few lines of
// inline JavaScript, no external resource, so it opens offline and can be attached to a CI
// run): the header's system prompts, a heat-map of prompts × models with each cell's score, the per-model averages, the
// failures and warnings, and for each cell its point assessments with reflections and judges,
// the similarity to the ideal response and the response (or the whole conversation of a
// multi-turn prompt). Everything from the blueprint and the models is HTML-escaped, and, since
// the page may be printed in a CI log, written so that no line of it is a GitHub workflow
// command: the "[" of "##[" as &#91; and a line-leading ":" as &#58; (safetext.HTML; the
// template's own script and style hold neither pattern, which TestWriteHTMLStaticText checks).
func (r *Result) WriteHTML(w io.Writer) error {
	t, err := reportTemplate()
	if err != nil {
		return fmt.Errorf("blueprint: the report template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, r.reportView()); err != nil {
		return err
	}
	_, err = w.Write(safetext.HTML(b.Bytes()))
	return err
}

type reportView struct {
	Title, ConfigID, RunLabel, Timestamp, Methods, Description string
	// Agreement is the judges' agreement over the whole run, when two judges or more scored.
	Agreement string
	// Systems are the header's system prompts: one, or one per run variant of a list.
	Systems            []reportSystem
	Models             []string
	Prompts            []reportPrompt
	Averages           []reportCell
	Failures, Warnings []string
}

// reportSystem is one of the header's system prompts: Label is the variant's [sp_idx:i] when
// the header lists several; None marks a null (or empty) entry, run without a system prompt.
type reportSystem struct {
	Label, Text string
	None        bool
}

type reportPrompt struct {
	Index       int
	ID          string
	Description string
	// System is the prompt's own system prompt, which replaces the header's.
	System         string
	PromptText     string
	PromptMessages []reportTurn
	Ideal          string
	// KeyPoints are the points extracted from the ideal response of a prompt that had none.
	KeyPoints []string
	Cells     []reportCell
}

type reportCell struct {
	Index        int
	Model        string
	Text, Class  string
	Title        string
	Error        string
	Points       []reportPoint
	Similarity   []reportMetric
	HasResponse  bool
	Response     string
	Conversation []reportTurn
	Agreement    string
}

type reportPoint struct {
	Text, Citation, Path, Multiplier string
	Function, Inverted               bool
	Score, Class                     string
	Reflection, Error, Judge         string
	Judgements                       []reportJudgement
}

type reportJudgement struct{ Name, Score, Reflection string }

type reportMetric struct{ Name, Score string }

type reportTurn struct {
	Role, Text string
	Generated  bool
}

// heatClass is the colour class of a score: s0 (0, red) to s10 (1, green).
func heatClass(score float64) string {
	return "s" + strconv.Itoa(int(math.Round(min(max(score, 0), 1)*10)))
}

func (r *Result) reportView() reportView {
	v := reportView{Title: r.ConfigTitle, ConfigID: r.ConfigID, RunLabel: r.RunLabel, Timestamp: r.Timestamp,
		Description: r.Description, Models: r.EffectiveModels, Failures: r.Failures(), Warnings: r.Notes()}
	for _, s := range r.Stops() { // one line per unusable endpoint, as in the table
		v.Failures = append(v.Failures, "model endpoint could not be used: "+s.String())
	}
	if v.Title == "" {
		v.Title = r.ConfigID
	}
	if ag := r.EvaluationResults.JudgeAgreement; ag != nil {
		v.Agreement = agreementSentence(ag)
	}
	v.Methods = strings.Join(r.EvalMethodsUsed, ", ")
	if v.Methods == "" {
		v.Methods = "no evaluation method"
	}
	prompts := map[string]*Prompt{}
	if r.Config != nil {
		for _, p := range r.Config.Prompts {
			prompts[p.ID] = p
		}
		v.Systems = reportSystems(r.Config)
	}
	for pi, id := range r.PromptIDs {
		rp := reportPrompt{Index: pi, ID: id, KeyPoints: r.ExtractedKeyPoints[id]}
		if p := prompts[id]; p != nil {
			rp.Description = p.Description
			if p.System != nil {
				rp.System = *p.System
			}
			if p.Ideal != nil {
				rp.Ideal = *p.Ideal
			}
		}
		switch ctx := r.PromptContexts[id].(type) {
		case string:
			rp.PromptText = ctx
		case []points.Message:
			for _, m := range ctx {
				text := m.Text()
				if m.Content == nil {
					text = "(to be generated)"
				}
				rp.PromptMessages = append(rp.PromptMessages, reportTurn{Role: m.Role, Text: text})
			}
		}
		for mi, m := range r.EffectiveModels {
			rp.Cells = append(rp.Cells, r.reportCell(id, m, mi))
		}
		v.Prompts = append(v.Prompts, rp)
	}
	for _, m := range r.EffectiveModels {
		c := reportCell{Text: "n/a", Class: "none", Title: m + ": no prompt has a score"}
		s := r.EvaluationResults.PerModelScores[m]
		if avg := s.Rounded(); avg != nil {
			c.Text = strconv.FormatFloat(*avg, 'f', 2, 64)
			c.Class = heatClass(*avg)
			c.Title = fmt.Sprintf("%s: average %s over %d prompt%s", m, c.Text, s.PromptCount, node.Plural(s.PromptCount))
		}
		v.Averages = append(v.Averages, c)
	}
	return v
}

// reportSystems lists the header's system prompts (generate.go's systemPrompt sends them): its
// system, or each of its list, labelled with the [sp_idx:i] of the variants it runs when there
// are several (a list of one gives no suffix, as in Weval).
func reportSystems(bp *Blueprint) []reportSystem {
	var out []reportSystem
	switch {
	case len(bp.Systems) > 0:
		for i, s := range bp.Systems {
			rs := reportSystem{Label: "system", None: s == nil || *s == ""}
			if len(bp.Systems) > 1 {
				rs.Label = "[sp_idx:" + strconv.Itoa(i) + "]"
			}
			if !rs.None {
				rs.Text = *s
			}
			out = append(out, rs)
		}
	case bp.System != nil && *bp.System != "":
		out = append(out, reportSystem{Label: "system", Text: *bp.System})
	}
	return out
}

func (r *Result) reportCell(p, m string, index int) reportCell {
	c := reportCell{Index: index, Model: m, Text: "—", Class: "err"}
	if msg, ok := r.Errors[p][m]; ok {
		c.Error = msg
		c.Title = p + " × " + m + ": no result"
	}
	if resp, ok := r.AllFinalAssistantResponses[p][m]; ok {
		c.HasResponse, c.Response = true, resp
	}
	if hist := r.FullConversationHistories[p][m]; countTurns(hist) > 2 {
		gen := generatedTurns(hist, r.Config, p)
		for i, msg := range hist {
			c.Conversation = append(c.Conversation, reportTurn{Role: msg.Role, Text: msg.Text(), Generated: gen[i]})
		}
	}
	if sims := r.EvaluationResults.Similarity[p][m]; len(sims) > 0 {
		names := make([]string, 0, len(sims))
		for name := range sims {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			c.Similarity = append(c.Similarity, reportMetric{Name: name, Score: jsjson.FormatNumber(sims[name])})
		}
	}
	cov := r.EvaluationResults.LLMCoverageScores[p][m]
	if cov == nil {
		if c.Error == "" && c.HasResponse {
			c.Text, c.Class, c.Title = "", "none", p+" × "+m
		}
		return c
	}
	if cov.JudgeAgreement != nil {
		c.Agreement = agreementSentence(cov.JudgeAgreement)
	}
	c.Text, c.Class = "n/a", "none"
	c.Title = fmt.Sprintf("%s × %s: no point could be evaluated", p, m)
	if cov.AvgCoverageExtent != nil {
		c.Text = strconv.FormatFloat(*cov.AvgCoverageExtent, 'f', 2, 64)
		c.Class = heatClass(*cov.AvgCoverageExtent)
		c.Title = fmt.Sprintf("%s × %s: %s over %d point%s", p, m, c.Text, cov.KeyPointsCount, node.Plural(cov.KeyPointsCount))
	}
	if cov.NotEvaluatedCount > 0 {
		c.Text += "*"
		c.Title += fmt.Sprintf(" (%d not evaluated)", cov.NotEvaluatedCount)
	}
	for _, a := range cov.PointAssessments {
		pt := reportPoint{Text: a.KeyPointText, Path: a.PathID, Multiplier: jsjson.FormatNumber(a.Multiplier), Function: a.IsFunction,
			Inverted: a.IsInverted, Reflection: a.Reflection, Error: a.Error, Score: "not evaluated", Class: "none"}
		if a.Error != "" && strings.HasSuffix(a.Reflection, a.Error) {
			pt.Reflection = ""
		}
		if a.Warning != "" {
			pt.Reflection = strings.TrimSuffix(pt.Reflection, "\n\nWARNING: "+a.Warning)
			if pt.Error == "" {
				pt.Error = "Warning: " + a.Warning
			}
		}
		if a.Citation != nil {
			pt.Citation = citationText(a.Citation)
		}
		if a.CoverageExtent != nil {
			pt.Score = jsjson.FormatNumber(*a.CoverageExtent)
			pt.Class = heatClass(*a.CoverageExtent)
		}
		if len(a.IndividualJudgements) > 1 || a.JudgeModelID != "" && len(a.IndividualJudgements) == 0 {
			pt.Judge = a.JudgeModelID
		}
		for _, j := range a.IndividualJudgements {
			pt.Judgements = append(pt.Judgements, reportJudgement{Name: j.JudgeModelID, Score: jsjson.FormatNumber(j.CoverageExtent), Reflection: j.Reflection})
		}
		if len(a.IndividualJudgements) == 1 {
			// One judge: its reflection is the point's; name the judge only.
			pt.Judgements = nil
			pt.Judge = a.IndividualJudgements[0].JudgeModelID
		}
		c.Points = append(c.Points, pt)
	}
	return c
}

// countTurns counts the non-system messages of a conversation.
func countTurns(hist []points.Message) int {
	n := 0
	for _, m := range hist {
		if m.Role != "system" {
			n++
		}
	}
	return n
}

// generatedTurns marks the messages of a stored conversation that were generated: the last
// len(authored assistant: null + final) assistant turns that fill the prompt's gaps. It
// rebuilds the conversation's shape from the prompt, since a result file stores only messages.
func generatedTurns(hist []points.Message, bp *Blueprint, promptID string) []bool {
	out := make([]bool, len(hist))
	var p *Prompt
	if bp != nil {
		for _, q := range bp.Prompts {
			if q.ID == promptID {
				p = q
			}
		}
	}
	if p == nil {
		return out
	}
	offset := len(hist) - len(p.Messages)
	if len(p.Messages) > 0 && p.Messages[len(p.Messages)-1].Role == "user" {
		offset--
		if len(hist) > 0 {
			out[len(hist)-1] = true
		}
	}
	for i, m := range p.Messages {
		if j := offset + i; m.Role == "assistant" && m.Content == nil && j >= 0 && j < len(hist) {
			out[j] = true
		}
	}
	return out
}

// citationText shows a citation: a string, or an object's title/name and url.
func citationText(c any) string {
	switch v := c.(type) {
	case string:
		return v
	case map[string]any:
		var parts []string
		for _, k := range []string{"title", "name", "url"} {
			if s, ok := v[k].(string); ok && s != "" {
				parts = append(parts, s)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, " — ")
		}
	}
	b, _ := json.Marshal(c)
	return string(b)
}
