package bench

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/lint"
	"github.com/vectorlint/vectorlint/lint/document"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

func TestBound(t *testing.T) {
	for _, tt := range []struct {
		calls, c int
		want     time.Duration
	}{
		{600, 16, 3800 * time.Millisecond}, // 38 rounds of 100 ms
		{92, 16, 600 * time.Millisecond},
		{600, 1, 60 * time.Second},
		{0, 16, 0},
	} {
		if got := bound(tt.calls, tt.c, 100*time.Millisecond); got != tt.want {
			t.Errorf("bound(%d, %d, 100ms) = %v, want %v", tt.calls, tt.c, got, tt.want)
		}
	}
}

// TestDocuments checks the generated documents have the sizes the scenarios claim: the long
// one exactly its word count and over the chunking threshold, the small ones about 130 words
// and under it.
func TestDocuments(t *testing.T) {
	long := longDocument(20000)
	if got := document.CountWords(long); got != 20000 {
		t.Errorf("longDocument(20000) has %d words", got)
	}
	if n := len(document.SplitChunks(long, 0, 1, 0)); n < 14 {
		t.Errorf("longDocument(20000) splits into %d chunks, want at least 14", n)
	}
	for i := range 20 {
		if w := document.CountWords(sampleDocument(i)); w < 100 || w > 160 || w > document.DefaultChunkWords {
			t.Errorf("sampleDocument(%d) has %d words", i, w)
		}
	}
}

// TestModelReply checks the fake model's answers: violations quote a wordy phrase with the
// number of its line, and a subjective prompt gets one rating per criterion it lists.
func TestModelReply(t *testing.T) {
	user := lint.NumberLines("Fine.\nWe act in order to ship.\nDue to the fact that it rains.\n", 7)
	semi := &llmtest.Request{Messages: []llmtest.Message{{Role: "system", Content: `<rule name="Wordiness">`}, {Role: "user", Content: user}}}
	var got struct {
		Violations []struct {
			QuotedText string `json:"quoted_text"`
			Line       int    `json:"line"`
		} `json:"violations"`
	}
	if err := json.Unmarshal([]byte(modelReply(semi).Content), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Violations) != 1 || got.Violations[0].QuotedText != "in order to" || got.Violations[0].Line != 8 {
		t.Errorf("violations = %+v, want in order to on line 8 (the capitalised phrase is not quoted)", got.Violations)
	}
	sys := `Give one entry in "criteria" per criterion` + "\n\nCriteria:\n- id: Warmth; name: Warmth; weight: 2\n- id: Directness; name: Directness; weight: 1"
	subj := &llmtest.Request{Messages: []llmtest.Message{{Role: "system", Content: sys}, {Role: "user", Content: user}}}
	var rated struct {
		Criteria []struct {
			ID    string `json:"id"`
			Score int    `json:"score"`
		} `json:"criteria"`
	}
	if err := json.Unmarshal([]byte(modelReply(subj).Content), &rated); err != nil {
		t.Fatal(err)
	}
	if len(rated.Criteria) != 2 || rated.Criteria[0].ID != "Warmth" || rated.Criteria[1].ID != "Directness" || rated.Criteria[0].Score != 3 {
		t.Errorf("criteria = %+v", rated.Criteria)
	}
}

func TestReadHWM(t *testing.T) {
	path := filepath.Join(t.TempDir(), "status")
	status := "Name:\tvectorlint\nVmPeak:\t 1300000 kB\nVmHWM:\t   88776 kB\nVmRSS:\t   80000 kB\n"
	if err := os.WriteFile(path, []byte(status), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readHWM(path); got != 88776 {
		t.Errorf("readHWM = %d, want 88776", got)
	}
	if got := readHWM(filepath.Join(t.TempDir(), "gone")); got != 0 {
		t.Errorf("readHWM of a missing file = %d, want 0", got)
	}
}

func TestVerdict(t *testing.T) {
	r := result{wall: 4 * time.Second, bound: 3800 * time.Millisecond}
	if !r.met() || r.verdict() != "ok" {
		t.Errorf("verdict = %q", r.verdict())
	}
	r.fail("ratio %.3f > 1.15", 1.2)
	if r.met() || !strings.HasPrefix(r.verdict(), "MISSED: ratio 1.200") {
		t.Errorf("verdict = %q", r.verdict())
	}
	if better(r, result{wall: time.Hour}) {
		t.Error("a run that missed its target is better than one that met it")
	}
}

// TestTolerated: only a named scenario that ran and missed is tolerated; one that met its
// target, another that missed, or one that could not run are not.
func TestTolerated(t *testing.T) {
	missed := func(name string) result {
		r := result{name: name}
		r.fail("too slow")
		return r
	}
	results := []result{
		missed("start-up: vectorlint version"),
		missed("start-up: vectorlint validate, 8-rule pack"),
		{name: "start-up: vectorlint version again"},
		{name: "start-up: vectorlint version broken", err: errors.New("no binary")},
	}
	got := tolerated(results, "vectorlint version")
	if len(got) != 1 || got[0].name != "start-up: vectorlint version" {
		t.Errorf("tolerated %+v, want only the missed version scenario", got)
	}
	if got := tolerated(results, ""); len(got) != 0 {
		t.Errorf("tolerated %+v with no known miss", got)
	}
}

// TestCostDocument checks the cost scenarios' documents: costWords words in three chunks, and
// the edited version different on one line only, in the first chunk.
func TestCostDocument(t *testing.T) {
	doc, edited := costDocument(7, false), costDocument(7, true)
	if got := document.CountWords(doc); got != costWords {
		t.Errorf("%d words, want %d", got, costWords)
	}
	chunks := document.SplitChunks(doc, 0, 1, costChunkWords)
	if len(chunks) < 3 || len(chunks) > 4 {
		t.Fatalf("%d chunks, want 3 or 4", len(chunks))
	}
	a, b := strings.Split(doc, "\n"), strings.Split(edited, "\n")
	if len(a) != len(b) {
		t.Fatalf("the edit changed the line count: %d → %d", len(a), len(b))
	}
	var changed []int
	for i := range a {
		if a[i] != b[i] {
			changed = append(changed, i+1)
		}
	}
	second := chunks[1].Line
	if len(changed) != 1 || changed[0] >= second {
		t.Errorf("changed lines %v; want one line before the second chunk (line %d)", changed, second)
	}
}
