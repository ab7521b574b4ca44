package blueprint

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/points"
)

const xssPayload = `<script>alert("xss")</script><img src=x onerror=alert(1)>`

// reportFixture is a run with every kind of cell: scored, partly judged, failed, multi-turn,
// with similarity, and a response carrying an XSS payload.
func reportFixture(t *testing.T) *Result {
	t.Helper()
	bp := parseTestBlueprint(t, `title: "Report <fixture> & co"
description: "Checks the HTML report."
models: [m:good, m:bad]
---
- id: capital
  prompt: "Capital of France? <b>bold?</b>"
  ideal: "Paris is the capital of France."
  should:
    - "Names Paris"
    - {$contains: "Paris", weight: 2}
  should_not:
    - "Is rude"
- id: trip
  messages:
    - user: Plan a trip.
    - assistant: null
    - user: In April.
  should:
    - $contains: "?"
    - - "Asks about the budget"
      - $word_count_between: [1, 50]
    - - $contains: "Kyoto"
`)
	resp, err := ParseResponses([]byte(`{"promptId": "capital", "model": "m:good", "response": "Paris is the capital of France."}
{"promptId": "capital", "model": "m:bad", "response": "`+strings.ReplaceAll(xssPayload, `"`, `\"`)+` Lyon."}
{"promptId": "trip", "model": "m:good", "turns": ["Where would you like to go?", "Kyoto in April is lovely."]}
`), "r.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	judge := &fakeJudge{scores: map[string]float64{"Names Paris": 1, "Is rude": 0.25}}
	res, err := Score(context.Background(), bp, resp, ScoreOptions{RunLabel: "html", Now: fixedClock, Env: points.Env{Judge: judge},
		Similarity: &Similarity{Metrics: []SimilarityMetric{{Name: "exact_match", Score: func(r, i string) float64 {
			if r == i {
				return 1
			}
			return 0
		}}}}})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestWriteHTML(t *testing.T) {
	t.Parallel()
	res := reportFixture(t)
	var b bytes.Buffer
	if err := res.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	golden(t, "report.html", b.Bytes())

	// Self-contained: no tag loads a resource or links outside the file, the style sheet
	// imports nothing. (Escaped content has no "<", so the tags found are the page's own.)
	var tags strings.Builder
	for _, tag := range regexp.MustCompile(`<[a-zA-Z][^>]*>`).FindAllString(html, -1) {
		tags.WriteString(tag + "\n")
	}
	style := html[strings.Index(html, "<style>"):strings.Index(html, "</style>")]
	for _, check := range []struct{ text, re string }{
		{tags.String(), `(?i)\bsrc\s*=`}, {tags.String(), `(?i)<(link|iframe|object|embed|img|base)\b`},
		{tags.String(), `(?i)href="[^#]`}, {tags.String(), `(?i)https?:`},
		{style, `(?i)@import|url\(|https?:`},
	} {
		if m := regexp.MustCompile(check.re).FindString(check.text); m != "" {
			t.Errorf("the report refers outside itself: %q matches %s", m, check.re)
		}
	}
	if n := strings.Count(html, "<script"); n != 1 || strings.Contains(html, "<script src") {
		t.Errorf("%d script elements", n)
	}
	// Everything from the blueprint and the models is escaped.
	if strings.Contains(html, xssPayload) || strings.Contains(html, "<b>bold?</b>") || strings.Contains(html, "<fixture>") {
		t.Error("unescaped content in the report")
	}
	for _, want := range []string{
		`&lt;script&gt;alert(&#34;xss&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt; Lyon.`,
		`<h1>Report &lt;fixture&gt; &amp; co</h1>`,
		// The heat-map: a scored cell, a failed one, and the averages.
		`<td class="s9" title="capital × m:good: 0.94 over 3 points"><a href="#cell-0-0">0.94</a></td>`,
		`<td class="err" title="trip × m:bad: no result"><a href="#cell-1-1">—</a></td>`,
		`<tfoot><tr><th scope="row">Average</th>`,
		// A cell's details: a judged point, a function point, the similarity and the conversation.
		`<details id="cell-1-0">`,
		`<span class="role">assistant · generated</span><pre>Where would you like to go?</pre>`,
		`<th>exact_match</th>`,
		`no response for this prompt and model in r.jsonl`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %s", want)
		}
	}
}

// TestWriteHTMLRendersInChromium opens the report in headless Chromium (Debian's chromium):
// the screenshot must not be blank and the DOM must hold the key content. It is skipped when
// chromium is not installed, unless VECTORLINT_REQUIRE_CHROMIUM=1 (CI, after
// .ci/install-chromium) makes that a failure.
func TestWriteHTMLRendersInChromium(t *testing.T) {
	t.Parallel()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("VECTORLINT_REQUIRE_CHROMIUM") == "1" {
			t.Fatal("chromium is not on PATH and VECTORLINT_REQUIRE_CHROMIUM=1: run .ci/install-chromium")
		}
		t.Skip("chromium is not on PATH (VECTORLINT_REQUIRE_CHROMIUM=1 makes this a failure)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := reportFixture(t).WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(dir, "report.png")
	chrome := func(extra ...string) []byte {
		t.Helper()
		args := append([]string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run",
			"--disable-component-update", "--disable-sync", "--user-data-dir=" + filepath.Join(dir, "profile"), "--window-size=1280,900"},
			extra...)
		args = append(args, "file://"+page)
		cmd := exec.Command(bin, args...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium %v: %v\n%s", extra, err, stderr.String())
		}
		return stdout.Bytes()
	}
	chrome("--screenshot=" + shot)
	f, err := os.Open(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if img.Bounds().Dx() != 1280 || img.Bounds().Dy() != 900 {
		t.Errorf("screenshot size %v", img.Bounds())
	}
	if colours := distinctColours(img, 64); colours < 8 {
		t.Errorf("the screenshot has %d colours: the page looks blank", colours)
	}
	dom := string(chrome("--dump-dom"))
	for _, want := range []string{`<h1>Report &lt;fixture&gt; &amp; co</h1>`, `<table class="heatmap">`, "capital", "m:good", "Names Paris",
		"Kyoto in April is lovely.", `&lt;script&gt;alert("xss")&lt;/script&gt;`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the rendered DOM lacks %s", want)
		}
	}
	if strings.Contains(dom, `<img src="x"`) {
		t.Error("the XSS payload became an element")
	}
}

// distinctColours counts the colours of an image (up to limit).
func distinctColours(img image.Image, limit int) int {
	seen := map[[4]uint32]bool{}
	bounds := img.Bounds()
	for y := bounds.Min.Y; y < bounds.Max.Y; y += 3 {
		for x := bounds.Min.X; x < bounds.Max.X; x += 3 {
			r, g, b, a := img.At(x, y).RGBA()
			seen[[4]uint32{r, g, b, a}] = true
			if len(seen) >= limit {
				return len(seen)
			}
		}
	}
	return len(seen)
}

// TestWriteHTMLKeyPointsAndAgreement: the report shows the key points extracted from an ideal
// response (escaped) and the judges' agreement for the run and for a cell, with the wording
// of the table. (α for the cell: units [1, 1] and [0.75, 0.625], 1 − 3 × 0.03125 / 0.84375 = 0.889.)
func TestWriteHTMLKeyPointsAndAgreement(t *testing.T) {
	t.Parallel()
	res := reportFixture(t)
	judges := map[string]JudgeSpec{"a(m:a)": {ID: "a", Model: "m:a"}, "b(m:b)": {ID: "b", Model: "m:b"}}
	worked := []points.PointAssessment{judged("a(m:a)", 1.0, "b(m:b)", 1.0), judged("a(m:a)", 0.75, "b(m:b)", 0.625), judged("a(m:a)", 0.5, "b(m:b)", 0.625)}
	res.EvaluationResults.JudgeAgreement = judgeAgreement([][]points.PointAssessment{worked}, judges)
	res.EvaluationResults.LLMCoverageScores["capital"]["m:good"].JudgeAgreement = judgeAgreement([][]points.PointAssessment{worked[:2]}, judges)
	res.ExtractedKeyPoints = map[string][]string{"capital": {"Names Paris", "Says <i>capital</i>"}}
	var b bytes.Buffer
	if err := res.WriteHTML(&b); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, want := range []string{
		"<p class=\"description\">Checks the HTML report.</p>\n<p class=\"meta\">Judge agreement: Krippendorff&#39;s α 0.881 (reliable) over 3 points scored by 2 judges.</p>\n</header>",
		"<h4>Key points extracted from the ideal response</h4>\n<ul class=\"keypoints\"><li>Names Paris</li><li>Says &lt;i&gt;capital&lt;/i&gt;</li></ul>\n<details id=\"cell-0-0\">",
		"<summary>m:good <span class=\"score s9\">0.94</span></summary>\n\n<p class=\"meta\">Judge agreement: Krippendorff&#39;s α 0.889 (reliable) over 2 points scored by 2 judges.</p>\n<table class=\"points\">",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if n := strings.Count(html, "Judge agreement"); n != 2 {
		t.Errorf("%d agreement lines, want 2 (the run and one cell)", n)
	}
}

// TestWriteHTMLSystemPrompt: the report shows the system prompt the header gives (escaped), each
// of a list with the [sp_idx:i] of its variant ("none" for a null entry), and a prompt's own
// system prompt in the prompt's section, where it replaces the header's (issue 32: the report
// did not show it).
func TestWriteHTMLSystemPrompt(t *testing.T) {
	t.Parallel()
	write := func(src, responses string) string {
		t.Helper()
		bp := parseTestBlueprint(t, src)
		resp, err := ParseResponses([]byte(responses), "r.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		res, err := Score(context.Background(), bp, resp, ScoreOptions{RunLabel: "sys", Now: fixedClock})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := res.WriteHTML(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	html := write("system: \"You are a <b>terse</b> & exact geographer.\"\nmodels: [m:a]\n---\n"+
		"- id: capital\n  prompt: Capital of France?\n  should: [{$contains: Paris}]\n"+
		"- id: own\n  prompt: Capital of Peru?\n  system: \"Answer in <i>Spanish</i>.\"\n  should: [{$contains: Lima}]\n",
		`{"promptId": "capital", "model": "m:a", "response": "Paris."}`+"\n"+`{"promptId": "own", "model": "m:a", "response": "Lima."}`+"\n")
	golden(t, "report-system.html", []byte(html))
	for _, want := range []string{
		"<h4>System prompt</h4>\n<pre>You are a &lt;b&gt;terse&lt;/b&gt; &amp; exact geographer.</pre>\n</header>",
		"<h3>own</h3>\n\n<h4>System prompt</h4><pre>Answer in &lt;i&gt;Spanish&lt;/i&gt;.</pre>\n<h4>Prompt</h4>",
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the report lacks %q", want)
		}
	}
	if n := strings.Count(html, "<h4>System prompt</h4>"); n != 2 {
		t.Errorf("%d system prompt headings, want 2 (the header's and the prompt's own)", n)
	}

	html = write("system: [null, \"Be <brief>.\"]\nmodels: [m:a]\n---\n- id: capital\n  prompt: Capital of France?\n  should: [{$contains: Paris}]\n",
		`{"promptId": "capital", "model": "m:a[temp:0][sp_idx:0]", "response": "Paris."}`+"\n"+
			`{"promptId": "capital", "model": "m:a[temp:0][sp_idx:1]", "response": "Paris."}`+"\n")
	want := "<h4>System prompts</h4>\n" +
		"<div class=\"turn\"><span class=\"role\">[sp_idx:0]</span><p class=\"meta\">none</p></div>\n" +
		"<div class=\"turn\"><span class=\"role\">[sp_idx:1]</span><pre>Be &lt;brief&gt;.</pre></div>\n</header>"
	if !strings.Contains(html, want) {
		t.Errorf("the report lacks %q:\n%s", want, html[:strings.Index(html, "</header>")+9])
	}

	html = write("models: [m:a]\n---\n- id: capital\n  prompt: Capital of France?\n  should: [{$contains: Paris}]\n",
		`{"promptId": "capital", "model": "m:a", "response": "Paris."}`+"\n")
	if strings.Contains(html, "System prompt") {
		t.Error("a blueprint without a system prompt gets a system prompt section")
	}
}
