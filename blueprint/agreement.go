package blueprint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/vectorlint/vectorlint/internal/node"
	"github.com/vectorlint/vectorlint/points"
	"github.com/vectorlint/vectorlint/scoring"
)

// judgeAgreement measures how far the judges agreed on the text points of the given
// assessments (one prompt × model's, or every one of a run): Krippendorff's alpha with the interval
// metric (scoring.KrippendorffAlphaInterval), each point a unit and each judge's raw score a
// value, as Weval's calculateJudgeAgreement does (src/cli/evaluators/llm-coverage-evaluator.ts)
// but with the coefficient's own formula: Weval averages squared differences over pairs, which
// drops alpha's correction for the number of values. Nil when no point was scored by two judges.
// judges maps each judge's name in results (judgeName) to its configuration.
func judgeAgreement(assessments [][]points.PointAssessment, judges map[string]JudgeSpec) *points.JudgeAgreement {
	var units [][]float64
	counts := map[string]int{}
	models := map[string]string{}
	for _, list := range assessments {
		for i := range list {
			a := &list[i]
			if len(a.IndividualJudgements) < 2 {
				continue // one judge: nothing to compare
			}
			var unit []float64
			var ids []string
			for _, j := range a.IndividualJudgements {
				if math.IsNaN(j.CoverageExtent) {
					continue
				}
				unit = append(unit, j.CoverageExtent)
				id, model := splitJudgeName(j.JudgeModelID)
				ids = append(ids, id)
				if models[id] == "" {
					models[id] = model
				}
				if spec, ok := judges[j.JudgeModelID]; ok {
					models[id] = spec.Model
				}
			}
			if len(unit) < 2 {
				continue
			}
			units = append(units, unit)
			for _, id := range ids {
				counts[id]++
			}
		}
	}
	alpha := scoring.KrippendorffAlphaInterval(units)
	if alpha.Units == 0 {
		return nil
	}
	value := 1.0 // every judge gave every point the same score: 0/0, reported as agreement
	if alpha.Defined {
		value = alpha.Value
	}
	ag := &points.JudgeAgreement{
		KrippendorffsAlpha: scoring.Round(value, 3),
		NumItems:           alpha.Units,
		NumJudges:          len(counts),
		NumComparisons:     alpha.Pairs,
		Interpretation:     interpretAlpha(value, alpha.Variance),
	}
	approaches := map[string]string{}
	for name, spec := range judges {
		id, _ := splitJudgeName(name)
		approaches[id] = spec.Approach
	}
	ids := make([]string, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	sum := sha256.Sum256([]byte(strings.Join(ids, ",")))
	ag.JudgeSetFingerprint = hex.EncodeToString(sum[:])[:12]
	for _, id := range ids {
		approach := approaches[id]
		if approach == "" {
			approach = "unknown"
		}
		ag.JudgesUsed = append(ag.JudgesUsed, points.JudgeUsed{JudgeID: id, Model: models[id], Approach: approach, AssessmentCount: counts[id]})
	}
	sort.SliceStable(ag.JudgesUsed, func(i, j int) bool { return ag.JudgesUsed[i].AssessmentCount > ag.JudgesUsed[j].AssessmentCount })
	return ag
}

// splitJudgeName splits a judge's name in results, "id(model)", into its id and model.
func splitJudgeName(name string) (id, model string) {
	id, rest, ok := strings.Cut(name, "(")
	if !ok {
		return name, ""
	}
	return id, strings.TrimSuffix(rest, ")")
}

// interpretAlpha reads alpha by Krippendorff's thresholds (α ≥ 0.800 reliable, ≥ 0.667 enough
// for tentative conclusions), and labels "unstable" an alpha near 0 over scores that hardly
// vary, where a tiny expected disagreement makes the coefficient meaningless (Weval's rule).
func interpretAlpha(alpha, variance float64) string {
	switch {
	case alpha >= 0.8:
		return "reliable"
	case alpha >= 0.667:
		return "tentative"
	case math.Abs(alpha) < 0.1 && variance < 0.02:
		return "unstable"
	}
	return "unreliable"
}

// judgeSpecs returns the judges of a run by their names in results (judgeName), backup
// included, when the judge is an *LLMJudge; nil otherwise.
func judgeSpecs(j points.Judge) map[string]JudgeSpec {
	lj, ok := j.(*LLMJudge)
	if !ok {
		return nil
	}
	out := map[string]JudgeSpec{}
	for _, s := range lj.judgeSpecs() {
		out[judgeName(s)] = s
	}
	if b := lj.backupSpec(); b != nil {
		out[judgeName(*b)] = *b
	}
	return out
}

// agreementSentence says how far the judges agreed, for the table and the HTML report.
func agreementSentence(ag *points.JudgeAgreement) string {
	return fmt.Sprintf("Judge agreement: Krippendorff's α %s (%s) over %d point%s scored by %d judges.",
		strconv.FormatFloat(ag.KrippendorffsAlpha, 'f', -1, 64), ag.Interpretation, ag.NumItems, node.Plural(ag.NumItems), ag.NumJudges)
}
