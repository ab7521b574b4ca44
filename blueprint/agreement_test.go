package blueprint

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/vectorlint/vectorlint/points"
)

// judged is a text point's assessment with the given judges' raw scores (name → score).
func judged(scores ...any) points.PointAssessment {
	var a points.PointAssessment
	for i := 0; i < len(scores); i += 2 {
		a.IndividualJudgements = append(a.IndividualJudgements, points.IndividualJudgement{JudgeModelID: scores[i].(string), CoverageExtent: scores[i+1].(float64)})
	}
	return a
}

// TestJudgeAgreement checks judgeAgreement's document (Weval's JudgeAgreementMetrics shape,
// src/types/shared.ts, computed as in calculateJudgeAgreement of
// src/cli/evaluators/llm-coverage-evaluator.ts, with Krippendorff's own formula).
func TestJudgeAgreement(t *testing.T) {
	t.Parallel()
	const a, b, backup = "judge-a(openrouter:a)", "holistic(xai:b)", "backup-claude-3-5-haiku(anthropic:claude-3.5-haiku)"
	judges := map[string]JudgeSpec{
		a:      {ID: "judge-a", Model: "openrouter:a", Approach: "standard"},
		b:      {Model: "xai:b", Approach: "holistic"},
		backup: backupJudge(),
	}
	tests := []struct {
		name string
		in   []points.PointAssessment
		want string // the JSON of the agreement, "null" for none
	}{
		{name: "one judge: nothing to compare", in: []points.PointAssessment{judged(a, 1.0), judged(a, 0.5), {}}, want: "null"},
		{name: "two judges agreeing on varied scores", in: []points.PointAssessment{judged(a, 1.0, b, 1.0), judged(a, 0.25, b, 0.25), judged(a, 0.5)},
			want: `{"krippendorffsAlpha":1,"numItems":2,"numJudges":2,"numComparisons":2,"interpretation":"reliable","judgeSetFingerprint":"887b4822b9ca",` +
				`"judgesUsed":[{"judgeId":"holistic","model":"xai:b","approach":"holistic","assessmentCount":2},{"judgeId":"judge-a","model":"openrouter:a","approach":"standard","assessmentCount":2}]}`},
		{name: "every score the same: alpha is 0/0, reported as 1", in: []points.PointAssessment{judged(a, 0.0, b, 0.0), judged(a, 0.0, b, 0.0)},
			want: `{"krippendorffsAlpha":1,"numItems":2,"numJudges":2,"numComparisons":2,"interpretation":"reliable","judgeSetFingerprint":"887b4822b9ca",` +
				`"judgesUsed":[{"judgeId":"holistic","model":"xai:b","approach":"holistic","assessmentCount":2},{"judgeId":"judge-a","model":"openrouter:a","approach":"standard","assessmentCount":2}]}`},
		{
			// The example of Weval's docs/INTER_AGREEMENT_PLAN.md (3 points, 2 judges: 1 and 1,
			// 0.75 and 0.625, 0.5 and 0.625); it estimates α ≈ 0.913 with a rounded D_e, the
			// exact value is 0.881 (with complete data from two judges Weval's formula and
			// Krippendorff's coincide).
			name: "Weval's worked example",
			in:   []points.PointAssessment{judged(a, 1.0, b, 1.0), judged(a, 0.75, b, 0.625), judged(a, 0.5, b, 0.625)},
			want: `{"krippendorffsAlpha":0.881,"numItems":3,"numJudges":2,"numComparisons":3,"interpretation":"reliable","judgeSetFingerprint":"887b4822b9ca",` +
				`"judgesUsed":[{"judgeId":"holistic","model":"xai:b","approach":"holistic","assessmentCount":3},{"judgeId":"judge-a","model":"openrouter:a","approach":"standard","assessmentCount":3}]}`},
		{
			// Units [1, 0.75], [0.75, 0.625], [0.5, 0.625]: the backup judge scored the first
			// point; a NaN judgement is left out. α = 0.464 (checked with the pairwise formula).
			name: "backup judge and disagreement",
			in:   []points.PointAssessment{judged(a, 1.0, backup, 0.75), judged(a, 0.75, b, 0.625), judged(a, 0.5, b, 0.625), judged(b, math.NaN(), a, 1.0)},
			want: `{"krippendorffsAlpha":0.464,"numItems":3,"numJudges":3,"numComparisons":3,"interpretation":"unreliable","judgeSetFingerprint":"322ac7be0ae9",` +
				`"judgesUsed":[{"judgeId":"judge-a","model":"openrouter:a","approach":"standard","assessmentCount":3},{"judgeId":"holistic","model":"xai:b","approach":"holistic","assessmentCount":2},` +
				`{"judgeId":"backup-claude-3-5-haiku","model":"anthropic:claude-3.5-haiku","approach":"holistic","assessmentCount":1}]}`},
		{
			// Near-unanimous zeros: alpha is 0 only because the scores hardly vary.
			name: "unstable",
			in:   []points.PointAssessment{judged(a, 0.0, b, 0.0), judged(a, 0.0, b, 0.0), judged(a, 0.0, b, 0.125)},
			want: `{"krippendorffsAlpha":0,"numItems":3,"numJudges":2,"numComparisons":3,"interpretation":"unstable","judgeSetFingerprint":"887b4822b9ca",` +
				`"judgesUsed":[{"judgeId":"holistic","model":"xai:b","approach":"holistic","assessmentCount":3},{"judgeId":"judge-a","model":"openrouter:a","approach":"standard","assessmentCount":3}]}`},
		{name: "a judge Run does not know", in: []points.PointAssessment{judged("x(m:1)", 1.0, "y(m:2)", 0.0), judged("x(m:1)", 0.0, "y(m:2)", 1.0)},
			want: `{"krippendorffsAlpha":-0.5,"numItems":2,"numJudges":2,"numComparisons":2,"interpretation":"unreliable","judgeSetFingerprint":"968e772cf168",` +
				`"judgesUsed":[{"judgeId":"x","model":"m:1","approach":"unknown","assessmentCount":2},{"judgeId":"y","model":"m:2","approach":"unknown","assessmentCount":2}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(judgeAgreement([][]points.PointAssessment{tt.in}, judges))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}
