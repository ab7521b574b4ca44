package points

// JudgeAgreement is the agreement of the judges of a response's text points (or of a whole
// run's), in Weval's judgeAgreement shape: Krippendorff's alpha with the interval metric over
// the points at least two judges scored, each judge's raw score a value.
type JudgeAgreement struct {
	// KrippendorffsAlpha is alpha rounded to 3 decimals (1 when every judge gave every point the
	// same score, where the coefficient itself is 0/0, as Weval reports it).
	KrippendorffsAlpha float64 `json:"krippendorffsAlpha"`
	// NumItems counts the points scored by two judges or more, NumJudges the judges who scored
	// them, NumComparisons the pairs of judgements of one point.
	NumItems       int `json:"numItems"`
	NumJudges      int `json:"numJudges"`
	NumComparisons int `json:"numComparisons"`
	// Interpretation reads alpha by Krippendorff's thresholds: "reliable" (≥ 0.800),
	// "tentative" (≥ 0.667), "unreliable", or "unstable" when alpha is near 0 only because the
	// scores hardly vary (|α| < 0.1 and their variance < 0.02), as Weval labels it.
	Interpretation string `json:"interpretation"`
	// JudgeSetFingerprint identifies the set of judges (the first 12 hex digits of SHA-256 over
	// their ids, sorted and comma-separated), so runs by different judges are not compared
	// unknowingly.
	JudgeSetFingerprint string `json:"judgeSetFingerprint"`
	// JudgesUsed lists the judges, most assessments first.
	JudgesUsed []JudgeUsed `json:"judgesUsed"`
}

// JudgeUsed is one judge of a JudgeAgreement.
type JudgeUsed struct {
	// JudgeID is the judge's id, or its approach when it has none.
	JudgeID  string `json:"judgeId"`
	Model    string `json:"model"`
	Approach string `json:"approach"`
	// AssessmentCount counts the points it scored among those compared.
	AssessmentCount int `json:"assessmentCount"`
}
