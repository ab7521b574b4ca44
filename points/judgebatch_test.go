package points

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/internal/testutil"
)

// TestJudgeBatchPrompt: the messages of a batched judge request, per approach, against a golden
// file (points/testdata/judge-batch-prompts.txt shows them whole).
func TestJudgeBatchPrompt(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	single := &Subject{Text: "Paris is the capital.", Messages: []Message{{Role: "user", Content: s("Capital of France?")}, {Role: "assistant", Content: s("Paris is the capital.")}},
		Generated: []bool{false, true}}
	criteria := []string{"[should] Names Paris", "[should] Is concise", "[should not] Is rude"}
	var reqs []JudgeRequest
	for _, c := range []string{"Names Paris", "Is concise", "Is rude"} {
		reqs = append(reqs, JudgeRequest{Criterion: c, Criteria: criteria, Description: "Geography.", Subject: single})
	}
	var out strings.Builder
	for _, tc := range []struct {
		approach     string
		reqs         []JudgeRequest
		experimental bool
	}{
		{ApproachStandard, reqs, false},
		{ApproachHolistic, reqs, true},
		{ApproachPromptAware, reqs[:2], false},
	} {
		system, user := JudgeBatchPrompt(tc.approach, tc.reqs, tc.experimental)
		fmt.Fprintf(&out, "===== %s (experimental %v, %d criteria)\n--- system\n%s\n--- user\n%s", tc.approach, tc.experimental, len(tc.reqs), system, user)
	}
	testutil.Golden(t, filepath.Join("testdata", "judge-batch-prompts.txt"), []byte(out.String()))
}

// TestParseJudgeBatchReply: each criterion's verdict, read leniently; a criterion missing or
// garbled in the reply gets an error saying so (its point is then judged alone).
func TestParseJudgeBatchReply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reply string
		n     int
		want  []string
	}{
		{"all three, in order", `<judgement index="1"><reflection>a</reflection><classification>CLASS_FULLY_PRESENT</classification></judgement>
<judgement index="2"><reflection>b</reflection><classification>CLASS_ABSENT</classification></judgement>
<judgement index="3"><reflection>c</reflection><classification>CLASS_MOSTLY_PRESENT</classification></judgement>`, 3,
			[]string{"1 a", "0 b", "0.75 c"}},
		{"out of order, lenient attributes and labels", `<Judgement INDEX = '2' ><classification>partially present</classification></JUDGEMENT>
<judgement index=1><reflection> fine </reflection><classification>**fully_present**</classification></judgement >`, 2,
			[]string{"1 fine", "0.5 "}},
		{"a point missing", `<judgement index="1"><classification>CLASS_ABSENT</classification></judgement>`, 2,
			[]string{"0 ", `error: expected <judgement index="2"> in the reply, found none`}},
		{"a point garbled", `<judgement index="1"><classification>CLASS_HUGE</classification></judgement><judgement index="2">yes</judgement>`, 2,
			[]string{`error: judgement 1: expected the classification to be one of CLASS_ABSENT, CLASS_SLIGHTLY_PRESENT, CLASS_PARTIALLY_PRESENT, CLASS_MOSTLY_PRESENT, CLASS_FULLY_PRESENT, found "CLASS_HUGE"`,
				`error: judgement 2: expected the reply to hold <classification>CLASS_…</classification>, found "yes"`}},
		{"the format quoted first: the last judgement of an index counts", `<judgement index="1"><reflection>One or two sentences.</reflection><classification>One class name from the list</classification></judgement>
Now my answer: <judgement index="1"><reflection>real</reflection><classification>CLASS_SLIGHTLY_PRESENT</classification></judgement>`, 1,
			[]string{"0.25 real"}},
		{"indices out of range are ignored", `<judgement index="0"><classification>CLASS_ABSENT</classification></judgement><judgement index="3"><classification>CLASS_ABSENT</classification></judgement>`, 2,
			[]string{`error: expected <judgement index="1"> in the reply, found none`, `error: expected <judgement index="2"> in the reply, found none`}},
		{"no criteria", "anything", 0, nil},
		{"plain text", "I cannot judge this.", 1, []string{`error: expected <judgement index="1"> in the reply, found none`}},
	}
	for _, tt := range tests {
		var got []string
		for _, v := range ParseJudgeBatchReply(tt.reply, tt.n, false) {
			if v.Err != nil {
				got = append(got, "error: "+v.Err.Error())
				continue
			}
			got = append(got, fmt.Sprintf("%v %s", v.Score, v.Reflection))
		}
		if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
		}
	}
	// The 9-point scale reads its own labels.
	if v := ParseJudgeBatchReply(`<judgement index="1"><classification>CLASS_TRACE</classification></judgement>`, 1, true); v[0].Err != nil || v[0].Score != 0.125 {
		t.Errorf("experimental: %+v", v)
	}
}

// FuzzParseJudgeBatchReply: any reply gives exactly n verdicts, each a score in [0, 1] or an
// error, never both; a verdict agrees with ParseJudgeReply on the text of its judgement; and a
// reply written in the format of JudgeBatchPrompt reads back.
func FuzzParseJudgeBatchReply(f *testing.F) {
	f.Add(`<judgement index="1"><reflection>a</reflection><classification>CLASS_FULLY_PRESENT</classification></judgement>`, 2, false)
	f.Add(`<judgement index='2'><classification>exact</classification></judgement><judgement index=1>`, 3, true)
	f.Add(`<judgement index="99999999999"><classification>CLASS_ABSENT</classification></judgement>`, 1, false)
	f.Add("", 0, false)
	f.Add("<judgement index=\"1\"></judgement>", -1, false)
	f.Fuzz(func(t *testing.T, reply string, n int, experimental bool) {
		if n > 1000 {
			n %= 1000
		}
		vs := ParseJudgeBatchReply(reply, n, experimental)
		if want := max(n, 0); len(vs) != want {
			t.Fatalf("%d verdicts for %d criteria", len(vs), want)
		}
		for i, v := range vs {
			if v.Err == nil && (v.Score < 0 || v.Score > 1) {
				t.Fatalf("verdict %d: score %v outside [0, 1]", i+1, v.Score)
			}
			if v.Err != nil && (v.Score != 0 || v.Reflection != "") {
				t.Fatalf("verdict %d: an error with a score: %+v", i+1, v)
			}
		}
		// Written back in the format, the verdicts read the same.
		var b strings.Builder
		scale := JudgeScale(experimental)
		for i, v := range vs {
			if v.Err != nil {
				continue
			}
			name := ""
			for _, c := range scale {
				if c.Score == v.Score {
					name = c.Name
				}
			}
			if name == "" {
				continue // a 5-point score between the 9-point classes cannot occur; skip safely
			}
			fmt.Fprintf(&b, "<judgement index=\"%d\"><reflection>%s</reflection><classification>%s</classification></judgement>\n", i+1,
				strings.NewReplacer("<", "", ">", "").Replace(v.Reflection), name)
		}
		again := ParseJudgeBatchReply(b.String(), n, experimental)
		for i, v := range vs {
			if v.Err == nil && (again[i].Err != nil || again[i].Score != v.Score) {
				t.Fatalf("verdict %d: %+v read back as %+v from\n%s", i+1, v, again[i], b.String())
			}
		}
	})
}
