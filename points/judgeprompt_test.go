package points

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

func TestParseJudgeReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		reply        string
		experimental bool
		score        float64
		reflection   string
		err          string
	}{
		{"<reflection>Names Paris.</reflection><classification>CLASS_FULLY_PRESENT</classification>", false, 1, "Names Paris.", ""},
		{"<reflection>r</reflection>\n<classification>\n  class_mostly_present \n</classification>", false, 0.75, "r", ""},
		{"<classification>PARTIALLY_PRESENT</classification>", false, 0.5, "", ""},
		{"<classification>slightly present</classification>", false, 0.25, "", ""},
		{"<classification>`CLASS_ABSENT`.</classification>", false, 0, "", ""},
		{"<classification>**Fully-Present**</classification>", false, 1, "", ""},
		// The original Weval's 5-point labels.
		{"<classification>CLASS_UNMET</classification>", false, 0, "", ""},
		{"<classification>CLASS_PARTIALLY_MET</classification>", false, 0.25, "", ""},
		{"<classification>CLASS_MODERATELY_MET</classification>", false, 0.5, "", ""},
		{"<classification>CLASS_MAJORLY_MET</classification>", false, 0.75, "", ""},
		{"<classification>exactly_met</classification>", false, 1, "", ""},
		// The 9-point scale, and 5-point labels on it.
		{"<classification>CLASS_UTTERLY_UNMET</classification>", true, 0, "", ""},
		{"<classification>CLASS_TRACE</classification>", true, 0.125, "", ""},
		{"<classification>CLASS_SLIGHT</classification>", true, 0.25, "", ""},
		{"<classification>CLASS_PARTIAL</classification>", true, 0.375, "", ""},
		{"<classification>CLASS_MODERATE</classification>", true, 0.5, "", ""},
		{"<classification>CLASS_SUBSTANTIAL</classification>", true, 0.625, "", ""},
		{"<classification>CLASS_MAJOR</classification>", true, 0.75, "", ""},
		{"<classification>very nearly</classification>", true, 0.875, "", ""},
		{"<classification>CLASS_EXACT</classification>", true, 1, "", ""},
		{"<classification>CLASS_MOSTLY_PRESENT</classification>", true, 0.75, "", ""},
		// A reasoning model quoting the format before answering: the last tags count.
		{"I must reply <reflection>…</reflection><classification>ONE class</classification>.\n<reflection>Done.</reflection><CLASSIFICATION>CLASS_ABSENT</CLASSIFICATION>", false, 0, "Done.", ""},
		{"The criterion is met.", false, 0, "", `expected the reply to hold <classification>CLASS_…</classification>, found "The criterion is met."`},
		{"<classification>CLASS_VERY_NEARLY</classification>", false, 0, "", `expected the classification to be one of CLASS_ABSENT, CLASS_SLIGHTLY_PRESENT, CLASS_PARTIALLY_PRESENT, CLASS_MOSTLY_PRESENT, CLASS_FULLY_PRESENT, found "CLASS_VERY_NEARLY"`},
		{"<classification>maybe</classification>", true, 0, "", `expected the classification to be one of CLASS_UTTERLY_UNMET, CLASS_TRACE, CLASS_SLIGHT, CLASS_PARTIAL, CLASS_MODERATE, CLASS_SUBSTANTIAL, CLASS_MAJOR, CLASS_VERY_NEARLY, CLASS_EXACT, found "maybe"`},
	}
	for _, tt := range tests {
		score, refl, err := ParseJudgeReply(tt.reply, tt.experimental)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %s", tt.reply, err, tt.err)
			}
			continue
		}
		if err != nil || score != tt.score || refl != tt.reflection {
			t.Errorf("%q: %v %q %v, want %v %q", tt.reply, score, refl, err, tt.score, tt.reflection)
		}
	}
}

func FuzzParseJudgeReply(f *testing.F) {
	for _, s := range []string{"<classification>CLASS_EXACT</classification>", "<reflection>x</reflection><classification>absent</classification>",
		"<classification></classification>", "<classification>", "", "CLASS_FULLY_PRESENT"} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, reply string, experimental bool) {
		score, _, err := ParseJudgeReply(reply, experimental)
		if err == nil && (score < 0 || score > 1) {
			t.Fatalf("score %v outside [0, 1]", score)
		}
	})
}

// judgeSubject is a multi-turn conversation: a system prompt, an authored exchange, a
// generated turn, a user turn and a final generated turn.
func judgeSubject() *Subject {
	s := func(v string) *string { return &v }
	return &Subject{Text: "Which dates?\n\nKyoto in spring.", PromptID: "trip", ModelID: "m:x",
		Messages: []Message{{Role: "system", Content: s("Be helpful.")}, {Role: "user", Content: s("Plan a trip.")},
			{Role: "assistant", Content: s("Which dates?")}, {Role: "user", Content: s("April.")},
			{Role: "assistant", Content: s("Kyoto in spring.")}},
		Generated: []bool{false, false, true, false, true}}
}

func TestJudgePrompt(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	single := &Subject{Text: "Paris is the capital.", Messages: []Message{{Role: "user", Content: s("Capital of France?")}, {Role: "assistant", Content: s("Paris is the capital.")}},
		Generated: []bool{false, true}}
	req := JudgeRequest{Criterion: "Names Paris", Criteria: []string{"[should] Names Paris", "[should not] Is rude"}, Description: "Geography."}
	var out strings.Builder
	for _, tc := range []struct {
		approach     string
		subject      *Subject
		experimental bool
	}{
		{ApproachStandard, single, false},
		{ApproachPromptAware, single, false},
		{ApproachHolistic, single, true},
		{ApproachHolistic, judgeSubject(), false},
	} {
		r := req
		r.Subject = tc.subject
		system, user := JudgePrompt(tc.approach, r, tc.experimental)
		fmt.Fprintf(&out, "===== %s (experimental %v, %d messages)\n--- system\n%s\n--- user\n%s", tc.approach, tc.experimental, len(tc.subject.Messages), system, user)
	}
	testutil.Golden(t, filepath.Join("testdata", "judge-prompts.txt"), []byte(out.String()))
}

// TestJudgeTranscriptLabels: in a multi-turn transcript an authored assistant turn is labelled
// "(given in the prompt)" and a generated one "(generated)", so the judge scores only what the
// model wrote; when it is unknown which turns were generated, no turn is labelled either way.
func TestJudgeTranscriptLabels(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	msgs := []Message{{Role: "system", Content: s("Be brief.")}, {Role: "user", Content: s("Plan a trip.")},
		{Role: "assistant", Content: s("Where to?")}, {Role: "user", Content: s("Japan.")},
		{Role: "assistant", Content: s("Kyoto in spring.")}}
	tests := []struct {
		generated []bool
		want      string
	}{
		{[]bool{false, false, false, false, true},
			"[USER]\nPlan a trip.\n\n[ASSISTANT (given in the prompt)]\nWhere to?\n\n[USER]\nJapan.\n\n[ASSISTANT (generated)]\nKyoto in spring."},
		{nil, "[USER]\nPlan a trip.\n\n[ASSISTANT]\nWhere to?\n\n[USER]\nJapan.\n\n[ASSISTANT]\nKyoto in spring."},
	}
	for _, tt := range tests {
		subject := &Subject{Text: "Kyoto in spring.", Messages: msgs, Generated: tt.generated}
		_, user := JudgePrompt(ApproachStandard, JudgeRequest{Criterion: "Names a city", Subject: subject}, false)
		if !strings.Contains(user, "<TEXT>\n"+tt.want+"\n</TEXT>") {
			t.Errorf("generated %v: user message\n%s\nwant the transcript\n%s", tt.generated, user, tt.want)
		}
	}
}
