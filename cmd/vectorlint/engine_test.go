package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// End-to-end tests of the lint command against the fake OpenAI-compatible server: real HTTP,
// the real client with its retries and cache, the real output formats.

// testAPIKey is the fake key; tests check it never reaches any output.
const testAPIKey = "sk-test-0123456789abcdef"

// fakeEnv is an environment that points the linter at srv.
func fakeEnv(srv *llmtest.Server) map[string]string {
	return map[string]string{
		"OPENAI_BASE_URL": srv.URL,
		"OPENAI_API_KEY":  testAPIKey,
		"OPENAI_MODEL":    "test-model",
	}
}

// guideDoc has 31 words in its body; line 6 holds "In order to" twice, and "é" (2 bytes) and
// "👋" (4 bytes, one code point) make code-point and byte columns differ.
const guideDoc = "---\ntitle: Guide\n---\n" +
	"# Héllo wörld 👋 guide\n" +
	"\n" +
	"In order to deploy the café app, you need access. In order to finish, run setup.\n" +
	"Due to the fact that it edits files, restart 👋.\n"

// engineProject is a project with two semi-objective rules (standard and strict) and a
// subjective rule on the H1 with weights 12/2/1.
func engineProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/wordiness.md": "---\nid: Wordiness\nname: Wordiness\nseverity: error\n---\n" +
			"Flag wordy phrases that have a shorter equivalent.\n",
		"rules/Acme/strict.md": "---\nid: StrictWordiness\nname: Strict Wordiness\nstrictness: strict\n---\n" +
			"Flag wordy phrases, strictly.\n",
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\nseverity: error\n" +
			"target: {regex: '^#\\s+(.+)$', group: 1, required: true, suggestion: Add a title.}\n" +
			"criteria:\n" +
			"  - {id: ValueCommunication, name: Value Communication, weight: 12}\n" +
			"  - {id: CuriosityGap, name: Curiosity Gap, weight: 2, severity: error}\n" +
			"  - {id: Tone, name: Tone, weight: 1}\n" +
			"---\nRate the headline.\n\n# Value Communication <weight=12>\n### Excellent <score=4>\nA clear benefit.\n",
		"docs/guide.md": guideDoc,
	}
}

// wordinessReply (its line hints numbered from 1 at the body, line 4, as the model is sent
// it) reports two real violations (one of two repeats, picked by context; one found
// ignoring case), one below the confidence threshold and one quote that is not in the text.
func wordinessReply() map[string]any {
	return map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to", "line": 3, "context_before": "need access. ", "context_after": " finish",
			"analysis": "Wordy.", "message": `Say "to".`, "suggestion": `Replace "in order to" with "to".`, "fix": "To", "confidence": 0.9},
		map[string]any{"quoted_text": "due to the fact that", "line": 4, "message": `Say "because".`, "fix": "Because", "confidence": 0.95},
		map[string]any{"quoted_text": "it edits files", "line": 4, "message": "Maybe wordy.", "confidence": 0.5},
		map[string]any{"quoted_text": "leverage synergies", "line": 3, "message": "Avoid jargon."},
	}}
}

// headlineReply rates the criteria 1/2/4; Tone is matched by its name in another case.
func headlineReply() map[string]any {
	return map[string]any{"criteria": []any{
		map[string]any{"id": "ValueCommunication", "name": "Value Communication", "score": 1, "summary": "No benefit stated.",
			"reasoning": "Only a greeting.", "violations": []any{
				map[string]any{"quoted_text": "wörld", "line": 1, "message": "Vague word.", "confidence": 1}}},
		map[string]any{"id": "CuriosityGap", "name": "Curiosity Gap", "score": 2, "summary": "Little reason to read on.",
			"reasoning": "Generic.", "violations": []any{}},
		map[string]any{"name": "tone", "score": 4, "summary": "Friendly.", "violations": []any{
			map[string]any{"quoted_text": "👋", "line": 1, "message": "Emoji in a headline.", "confidence": 0.8}}},
	}}
}

// scriptEngine makes srv answer the three rules of engineProject.
func scriptEngine(srv *llmtest.Server) {
	srv.On(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.JSON(wordinessReply()))
	srv.On(llmtest.SystemContains(`<rule name="Strict Wordiness">`), llmtest.Fenced(wordinessReply()))
	srv.On(llmtest.SystemContains(`<rule name="Headline">`), llmtest.JSON(headlineReply()))
}

// startEngine starts a fake server scripted by scriptEngine and writes files into a new
// project folder; it returns both.
func startEngine(t *testing.T, files map[string]string, opts ...llmtest.Option) (*llmtest.Server, string) {
	t.Helper()
	srv := llmtest.Start(t, opts...)
	scriptEngine(srv)
	dir := t.TempDir()
	writeTestTree(t, dir, files)
	return srv, dir
}

// jsonResult is the part of the native JSON output tests look into.
type jsonResult struct {
	Files []struct {
		Path     string `json:"path"`
		Findings []struct {
			Rule, Severity, Message, Match   string
			Line, Column, EndLine, EndColumn int
			Offset, EndOffset                int
		} `json:"findings"`
		Scores []struct {
			Rule       string   `json:"rule"`
			Score      float64  `json:"score"`
			Violations *int     `json:"violations"`
			Words      *int     `json:"words"`
			Strictness *float64 `json:"strictness"`
			Criteria   []struct {
				ID     string  `json:"id"`
				Rating int     `json:"rating"`
				Score  float64 `json:"score"`
			} `json:"criteria"`
		} `json:"scores"`
		Unverified []struct{ Rule, Message, Quote string } `json:"unverified"`
		Errors     []struct{ Rule, Message string }        `json:"errors"`
	} `json:"files"`
	Summary struct {
		Files, Errors, Warnings, Unverified, OperationalErrors int
	} `json:"summary"`
	Usage struct {
		Calls, CachedCalls        int
		InputTokens, OutputTokens int64
	} `json:"usage"`
}

func decodeJSON(t *testing.T, out string) jsonResult {
	t.Helper()
	var r jsonResult
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, out)
	}
	return r
}

// hostless replaces the fake server's address, which changes from run to run, by HOST.
func hostless(s string, srv *llmtest.Server) string {
	host := strings.TrimSuffix(strings.TrimPrefix(srv.URL, "http://"), "/v1")
	return strings.ReplaceAll(s, host, "HOST")
}

// noKey fails the test when the API key appears in any output.
func (r cliResult) noKey(t *testing.T) {
	t.Helper()
	if strings.Contains(r.stdout, testAPIKey) || strings.Contains(r.stderr, testAPIKey) {
		t.Errorf("the API key leaked into the output:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// TestLintScores checks exact scores and positions through the whole pipeline: density scores
// (2 violations in 31 words: 3.5 standard, 0.0 strict), the weighted subjective score (12/2/1
// with ratings 1/2/4: criteria 1.0/4.0/10.0, rule 2.0), located quotes in code points and bytes,
// the confidence threshold, unverified quotes and criterion severities.
func TestLintScores(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, engineProject())
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	r.noKey(t)
	if r.code != exitFindings || r.stderr != "" {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	checkCLIGolden(t, "engine-scores.golden", r.stdout)
	if srv.Calls() != 3 {
		t.Errorf("%d calls, want 3 (one per rule)", srv.Calls())
	}

	res := decodeJSON(t, r.stdout)
	if len(res.Files) != 1 {
		t.Fatalf("files: %+v", res.Files)
	}
	f := res.Files[0]
	scores := map[string]float64{}
	for _, s := range f.Scores {
		scores[s.Rule] = s.Score
	}
	wantScores := map[string]float64{"Acme.Headline": 2.0, "Acme.StrictWordiness": 0.0, "Acme.Wordiness": 3.5}
	if fmt.Sprint(scores) != fmt.Sprint(wantScores) {
		t.Errorf("scores %v, want %v", scores, wantScores)
	}
	if s := f.Scores[2]; s.Rule != "Acme.Wordiness" || *s.Violations != 2 || *s.Words != 31 || *s.Strictness != 10 {
		t.Errorf("Wordiness score %+v, want 2 violations in 31 words at strictness 10", s)
	}
	var crit []string
	for _, c := range f.Scores[0].Criteria {
		crit = append(crit, fmt.Sprintf("%s %d %.1f", c.ID, c.Rating, c.Score))
	}
	if got, want := strings.Join(crit, ", "), "ValueCommunication 1 1.0, CuriosityGap 2 4.0, Tone 4 10.0"; got != want {
		t.Errorf("criteria %s, want %s", got, want)
	}

	var got []string
	for _, fd := range f.Findings {
		got = append(got, fmt.Sprintf("%d:%d-%d:%d [%d,%d) %s %s %q", fd.Line, fd.Column, fd.EndLine, fd.EndColumn,
			fd.Offset, fd.EndOffset, fd.Severity, fd.Rule, fd.Match))
	}
	// Line 4 starts at byte 21, line 6 at byte 49 and line 7 at byte 131; "é" takes two bytes and
	// "👋" four, but one column each.
	want := []string{
		`4:3-4:22 [23,47) warning Acme.Headline.CuriosityGap "Héllo wörld 👋 guide"`,
		`4:9-4:14 [30,36) error Acme.Headline.ValueCommunication "wörld"`,
		`4:15-4:16 [37,41) warning Acme.Headline.Tone "👋"`,
		`6:51-6:62 [100,111) warning Acme.StrictWordiness "In order to"`,
		`6:51-6:62 [100,111) error Acme.Wordiness "In order to"`,
		`7:1-7:21 [131,151) warning Acme.StrictWordiness "Due to the fact that"`,
		`7:1-7:21 [131,151) error Acme.Wordiness "Due to the fact that"`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if src := []byte(guideDoc); string(src[100:111]) != "In order to" || string(src[131:151]) != "Due to the fact that" {
		t.Errorf("the expected offsets do not hold the matches: %q %q", src[100:111], src[131:151])
	}
	if len(f.Unverified) != 2 || f.Unverified[0].Quote != "leverage synergies" || res.Summary.Unverified != 2 {
		t.Errorf("unverified %+v (summary %d), want the jargon quote once per semi-objective rule", f.Unverified, res.Summary.Unverified)
	}
	if res.Summary.Errors != 3 || res.Summary.Warnings != 4 {
		t.Errorf("summary %+v, want 3 errors and 4 warnings", res.Summary)
	}

	// The requests: the line-numbered text, the rule in the system message, structured output.
	for _, req := range srv.Requests() {
		if req.ResponseFormatType() != "json_schema" {
			t.Errorf("response format %q, want json_schema", req.ResponseFormatType())
		}
		user := req.LastUser()
		if strings.Contains(req.System(), `<rule name="Headline">`) {
			if user != "1\tHéllo wörld 👋 guide" {
				t.Errorf("headline user message %q", user)
			}
			continue
		}
		if !strings.HasPrefix(user, "1\t# Héllo wörld 👋 guide\n2\t\n3\tIn order to deploy") || !strings.HasSuffix(user, "\n4\tDue to the fact that it edits files, restart 👋.") {
			t.Errorf("user message %q", user)
		}
		if h := req.Header.Get("Authorization"); h != "Bearer "+testAPIKey {
			t.Errorf("Authorization header %q", h)
		}
	}
}

// TestLintOutputFormats runs the same lint in every output format, each compared byte for byte
// with its golden file.
func TestLintOutputFormats(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, engineProject())
	summary := filepath.Join(dir, "step-summary.md")
	for _, format := range []string{"line", "vale-json", "rdjson", "rdjsonl", "github", "sarif", "junit"} {
		t.Run(format, func(t *testing.T) {
			env := fakeEnv(srv)
			env["GITHUB_STEP_SUMMARY"] = summary
			r := runVectorlint(t, dir, env, "", "--output", format, "docs")
			r.noKey(t)
			if r.code != exitFindings {
				t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
			}
			got := r.stdout
			if r.stderr != "" {
				got += "--- stderr\n" + r.stderr
			}
			checkCLIGolden(t, "engine-format-"+format+".golden", got)
		})
	}
	data, err := os.ReadFile(summary)
	if err != nil {
		t.Fatalf("--output github wrote no step summary: %v", err)
	}
	if !strings.Contains(string(data), "Acme.Headline.ValueCommunication") {
		t.Errorf("step summary:\n%s", data)
	}
}

// TestLintCache runs twice over unchanged files: the second run makes no call and prints the same
// results; --no-cache bypasses the cache; a changed file costs only its own calls.
func TestLintCache(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, engineProject())
	cache := filepath.Join(t.TempDir(), "cache")
	first := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "docs")
	if first.code != exitFindings || srv.Calls() != 3 {
		t.Fatalf("first run: exit %d, %d calls, stderr:\n%s", first.code, srv.Calls(), first.stderr)
	}
	second := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "docs")
	if second.code != exitFindings || srv.Calls() != 3 {
		t.Fatalf("warm cache: exit %d, %d calls in all (want still 3), stderr:\n%s", second.code, srv.Calls(), second.stderr)
	}
	u1, u2 := decodeJSON(t, first.stdout).Usage, decodeJSON(t, second.stdout).Usage
	if u1.Calls != 3 || u1.CachedCalls != 0 || u2.Calls != 0 || u2.CachedCalls != 3 || u2.InputTokens != 0 {
		t.Errorf("usage: first %+v, second %+v", u1, u2)
	}
	cut := func(s string) string { return s[:strings.Index(s, `"usage"`)] }
	if cut(first.stdout) != cut(second.stdout) {
		t.Errorf("a cached run printed other results:\n%s\nvs\n%s", first.stdout, second.stdout)
	}
	// Nothing in the cache holds the key.
	filepath.WalkDir(cache, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if data, _ := os.ReadFile(path); bytes.Contains(data, []byte(testAPIKey)) {
				t.Errorf("cache file %s holds the API key", path)
			}
		}
		return nil
	})

	runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--no-cache", "--cache-dir", cache, "docs")
	if srv.Calls() != 6 {
		t.Errorf("--no-cache: %d calls in all, want 6", srv.Calls())
	}
	// A second document that differs in its body only: two new calls; the headline rule
	// evaluates the same H1 text, so its reply comes from the cache (content-addressed).
	writeTestTree(t, dir, map[string]string{"docs/other.md": strings.Replace(guideDoc, "café", "bistro", 1)})
	runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "docs")
	if srv.Calls() != 8 {
		t.Errorf("one new file: %d calls in all, want 8", srv.Calls())
	}
	// The default cache folder comes from XDG_CACHE_HOME (then HOME).
	env := fakeEnv(srv)
	env["XDG_CACHE_HOME"] = filepath.Join(dir, "xdg")
	runVectorlint(t, dir, env, "", "--output", "json", "docs/guide.md")
	if _, err := os.Stat(filepath.Join(dir, "xdg", "vectorlint")); err != nil {
		t.Errorf("XDG_CACHE_HOME: no vectorlint cache folder: %v", err)
	}
}

// TestLintRetries checks the retry behaviour end to end: a 500 then success, a 429 whose
// Retry-After is honoured, and a rule whose calls always fail, which is reported with file, rule
// and cause while the other rules' results are kept (exit 2).
func TestLintRetries(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.ServerError(), llmtest.JSON(wordinessReply()))
	srv.On(llmtest.SystemContains(`<rule name="Strict Wordiness">`), llmtest.RateLimited("0.3"), llmtest.JSON(wordinessReply()))
	failing := srv.On(llmtest.SystemContains(`<rule name="Headline">`),
		llmtest.Reply{Status: 503, Body: `{"error":{"message":"overloaded, key sk-test-0123456789abcdef"}}`, Header: map[string]string{"Retry-After": "0"}})
	// A connection dropped mid-reply, then truncated JSON: both retried.
	srv.On(llmtest.SystemContains(`<rule name="Dropped">`), llmtest.CloseMidResponse(), llmtest.TruncatedJSON(), llmtest.JSON(map[string]any{"violations": []any{}}))
	dir := t.TempDir()
	files := engineProject()
	files["rules/Acme/dropped.md"] = "---\nid: Dropped\nname: Dropped\n---\nFind nothing.\n"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	r.noKey(t)
	if r.code != exitFailure {
		t.Errorf("exit %d, want 2 (a rule could not run)", r.code)
	}
	if failing.Hits() != 4 {
		t.Errorf("the failing rule was tried %d times, want 4", failing.Hits())
	}
	res := decodeJSON(t, r.stdout)
	f := res.Files[0]
	if len(f.Errors) != 1 || f.Errors[0].Rule != "Acme.Headline" {
		t.Fatalf("errors %+v", f.Errors)
	}
	if got, want := hostless(f.Errors[0].Message, srv), "llm: chat completion with test-model at HOST: HTTP 503 Service Unavailable: overloaded, key [redacted] (4 attempts)"; got != want {
		t.Errorf("error message\n%s\nwant\n%s", got, want)
	}
	var rules []string
	for _, s := range f.Scores {
		rules = append(rules, fmt.Sprintf("%s %.1f", s.Rule, s.Score))
	}
	if got := strings.Join(rules, ", "); got != "Acme.Dropped 10.0, Acme.StrictWordiness 0.0, Acme.Wordiness 3.5" {
		t.Errorf("scores of the other rules: %s", got)
	}
	if res.Summary.OperationalErrors != 1 || res.Usage.Calls != 3 {
		t.Errorf("summary %+v, usage %+v", res.Summary, res.Usage)
	}
	// The 429's Retry-After (0.3 s) was waited for before the retry.
	var limited []time.Time
	for _, req := range srv.Requests() {
		if strings.Contains(req.System(), `<rule name="Strict Wordiness">`) {
			limited = append(limited, req.Time)
		}
	}
	if len(limited) != 2 || limited[1].Sub(limited[0]) < 300*time.Millisecond {
		t.Errorf("429 then retry: requests at %v", limited)
	}

	// The line output names the file, the rule and the cause.
	srv.Reset()
	r = runVectorlint(t, dir, fakeEnv(srv), "", "docs")
	if r.code != exitFailure || !strings.Contains(hostless(r.stdout, srv), "  Could not run:\n    Acme.Headline  llm: chat completion with test-model at HOST: HTTP 503") ||
		!strings.HasPrefix(r.stdout, "docs/guide.md\n") {
		t.Errorf("line output:\n%s", r.stdout)
	}
}

// TestLintReplyContract checks that a reply breaking the contract is sent back once with the
// problem quoted, and that a second bad reply is an operational error for that rule only.
func TestLintReplyContract(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	bad := map[string]any{"violations": []any{map[string]any{"line": 6, "message": "No quote."}}}
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.LastUserContains("could not be used")),
		llmtest.JSON(wordinessReply()))
	srv.On(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.JSON(bad))
	srv.On(llmtest.SystemContains(`<rule name="Strict Wordiness">`), llmtest.Text("I think it is fine."))
	missing := map[string]any{"criteria": []any{map[string]any{"id": "Tone", "name": "Tone", "score": 3}}}
	srv.On(llmtest.SystemContains(`<rule name="Headline">`), llmtest.JSON(missing))
	dir := t.TempDir()
	writeTestTree(t, dir, engineProject())
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	if r.code != exitFailure {
		t.Errorf("exit %d, want 2", r.code)
	}
	res := decodeJSON(t, r.stdout)
	f := res.Files[0]
	var errs []string
	for _, e := range f.Errors {
		errs = append(errs, e.Rule+": "+hostless(e.Message, srv))
	}
	want := []string{
		`Acme.Headline: llm: reply of test-model at HOST rejected after one retry: criteria: expected a rating for every criterion (ValueCommunication, CuriosityGap, Tone), found none for "ValueCommunication", "CuriosityGap"; the reply began`,
		`Acme.StrictWordiness: llm: reply of test-model at HOST rejected after one retry: expected a JSON object, found text without JSON: "I think it is fine."; the reply began "I think it is fine."`,
	}
	for i := range errs {
		if i >= len(want) || !strings.HasPrefix(errs[i], want[i]) {
			t.Errorf("errors:\n%s\nwant (prefixes):\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
			break
		}
	}
	if len(f.Scores) != 1 || f.Scores[0].Rule != "Acme.Wordiness" || f.Scores[0].Score != 3.5 {
		t.Errorf("scores %+v, want Wordiness's 3.5 after its retry", f.Scores)
	}
	// The retry quoted the problem to the model.
	var quoted bool
	for _, req := range srv.Requests() {
		if strings.Contains(req.LastUser(), `violations[0].quoted_text: expected the exact words of the text that break the rule, found no quoted_text`) {
			quoted = true
		}
	}
	if !quoted {
		t.Error("no retry quoted the contract error")
	}
	if srv.Calls() != 6 {
		t.Errorf("%d calls, want 6 (each rule asked twice)", srv.Calls())
	}
}

// TestLintNoProvider: without a provider, deterministic findings are still reported; the model
// rules that could not run are not listed per file but counted under one run error, which
// every output format names once, and one message on standard error names every way to
// configure a provider; the exit code is 2 and no format shows a green tick.
func TestLintNoProvider(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, lintProject())
	const message = "no LLM provider is configured: set OPENAI_API_KEY for OpenAI, " +
		"or LLM_PROVIDER=azure-openai with AZURE_OPENAI_API_KEY, AZURE_OPENAI_ENDPOINT and AZURE_OPENAI_DEPLOYMENT_NAME, " +
		"or LLM_PROVIDER=anthropic with ANTHROPIC_API_KEY, or LLM_PROVIDER=gemini with GEMINI_API_KEY, " +
		"or LLM_PROVIDER=openai-compatible with OPENAI_BASE_URL and OPENAI_MODEL (or --base-url and --model); in the environment or a .env file"
	notConfigured := "vectorlint: " + message + " (1 rule run not done)\n"
	runVectorlint(t, dir, nil, "", "docs").expect(t, exitFailure, `docs/lenient/untitled.md
  1:1  warning  target not found  Acme.Headline
                suggestion: Add a title.
  Scores below 10.0:
    Acme.Headline   0.0

docs/untitled.md
  1:1  error  target not found  Acme.Headline
              suggestion: Add a title.
  Scores below 10.0:
    Acme.Headline   0.0

LLM usage: 0 calls, 0 input and 0 output tokens
✖ 1 error and 1 warning in 3 files; 1 rule run could not complete (no LLM provider is configured).
`, notConfigured)
	// Every format names the cause once, where it has a place for it (the others leave it to
	// standard error, which always has it).
	js := runVectorlint(t, dir, nil, "", "--output", "json", "docs/titled.md")
	var res struct {
		Files []struct {
			Path   string
			Errors []struct{ Rule, Message string }
			NotRun int
		}
		RunErrors []finding.RunError
		Summary   struct{ OperationalErrors, NotRun int }
	}
	if err := json.Unmarshal([]byte(js.stdout), &res); err != nil || js.code != exitFailure || js.stderr != notConfigured ||
		len(res.Files) != 1 || len(res.Files[0].Errors) != 0 || res.Files[0].NotRun != 1 || res.Summary.OperationalErrors != 0 ||
		res.Summary.NotRun != 1 || fmt.Sprint(res.RunErrors) != fmt.Sprint([]finding.RunError{{Cause: "no LLM provider is configured", Message: message, NotRun: 1}}) {
		t.Errorf("json: exit %d, %v, %+v\n%s", js.code, err, res, js.stderr)
	}
	for _, tc := range []struct{ format, stdout string }{
		{"github", "::error title=vectorlint could not run::" + message + " (1 rule run not done)\n" +
			"::notice title=vectorlint::✖ 0 errors and 0 warnings in 1 file; 1 rule run could not complete (no LLM provider is configured).\n"},
		{"sarif", `"text": "` + message + ` (1 rule run not done)"`},
		{"junit", `<testcase name="no LLM provider is configured" classname="vectorlint">` + "\n" + `      <error message="` + message + `" type="RunError">`},
		{"rdjson", `"diagnostics": []`},
		{"rdjsonl", ""},
		{"vale-json", "{}\n"},
	} {
		r := runVectorlint(t, dir, nil, "", "--output", tc.format, "docs/titled.md")
		if r.code != exitFailure || !strings.Contains(r.stdout, tc.stdout) || r.stderr != notConfigured {
			t.Errorf("%s: exit %d, stdout:\n%s\nstderr:\n%s\nwant stdout containing %q", tc.format, r.code, r.stdout, r.stderr, tc.stdout)
		}
	}
	// A provider chosen but incomplete is named with what it lacks.
	partial := runVectorlint(t, dir, map[string]string{"LLM_PROVIDER": "azure-openai", "AZURE_OPENAI_API_KEY": "k",
		"AZURE_OPENAI_ENDPOINT": "https://x.openai.azure.com"}, "", "docs/titled.md")
	if partial.code != exitFailure || !strings.HasSuffix(partial.stdout, "; 1 rule run could not complete (LLM provider azure-openai is not fully configured).\n") ||
		partial.stderr != "vectorlint: LLM provider azure-openai is not fully configured: set AZURE_OPENAI_DEPLOYMENT_NAME (or --model, or Model in vectorlint.ini) (1 rule run not done)\n" {
		t.Errorf("partial configuration: exit %d\n%s%s", partial.code, partial.stdout, partial.stderr)
	}
	// Nothing needs the model: the exit code follows the findings and --fail-on.
	runVectorlint(t, dir, nil, "", "--output", "vale-json", "docs/untitled.md").expect(t, exitFindings, `{
  "docs/untitled.md": [
    {
      "Action": {
        "Name": "",
        "Params": null
      },
      "Span": [
        1,
        1
      ],
      "Check": "Acme.Headline",
      "Description": "Add a title.",
      "Link": "",
      "Message": "target not found",
      "Severity": "error",
      "Match": "",
      "Line": 1
    }
  ]
}
`, "")
	if r := runVectorlint(t, dir, nil, "", "--fail-on", "none", "docs/untitled.md", "docs/lenient"); r.code != exitOK {
		t.Errorf("--fail-on none: exit %d", r.code)
	}
	if r := runVectorlint(t, dir, nil, "", "--fail-on", "warning", "docs/lenient"); r.code != exitFindings {
		t.Errorf("--fail-on warning: exit %d", r.code)
	}
	if r := runVectorlint(t, dir, nil, "", "docs/lenient"); r.code != exitOK {
		t.Errorf("warnings only: exit %d", r.code)
	}
	writeTestTree(t, dir, map[string]string{"notes.txt": "x"})
	runVectorlint(t, dir, nil, "", "--verbose", "--output", "rdjsonl", "notes.txt").expect(t, exitOK, "",
		"vectorlint: skipped notes.txt: no section of vectorlint.ini matches\n")
}

// TestLintFailOn checks --fail-on over real findings.
func TestLintFailOn(t *testing.T) {
	t.Parallel()
	files := engineProject()
	// Only the warning-level strict rule runs on docs/warn/.
	files["vectorlint.ini"] = "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n[warn/**]\nAcme.Wordiness = disabled\nAcme.Headline = disabled\n"
	files["warn/guide.md"] = guideDoc
	srv, dir := startEngine(t, files)
	cache := t.TempDir()
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"docs"}, exitFindings},
		{[]string{"--fail-on", "warning", "docs"}, exitFindings},
		{[]string{"--fail-on", "none", "docs"}, exitOK},
		{[]string{"warn"}, exitOK},
		{[]string{"--fail-on=warning", "warn"}, exitFindings},
		{[]string{"--fail-on", "none", "warn"}, exitOK},
	}
	for _, tt := range tests {
		args := append([]string{"--cache-dir", cache}, tt.args...)
		if r := runVectorlint(t, dir, fakeEnv(srv), "", args...); r.code != tt.code {
			t.Errorf("%v: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", tt.args, r.code, tt.code, r.stdout, r.stderr)
		}
	}
}

// TestLintStdin lints a document read from standard input, reported under --stdin-filename.
func TestLintStdin(t *testing.T) {
	t.Parallel()
	files := engineProject()
	delete(files, "docs/guide.md")
	srv, dir := startEngine(t, files)
	r := runVectorlint(t, dir, fakeEnv(srv), guideDoc, "--output", "json", "--stdin-filename", "docs/buffer.md", "-")
	if r.code != exitFindings {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	res := decodeJSON(t, r.stdout)
	if len(res.Files) != 1 || res.Files[0].Path != "docs/buffer.md" || len(res.Files[0].Findings) != 7 {
		t.Errorf("stdin result: %+v", res.Files)
	}
	want, _ := os.ReadFile(filepath.Join("testdata", "lint", "engine-scores.golden"))
	if got := strings.ReplaceAll(r.stdout, "docs/buffer.md", "docs/guide.md"); got != string(want) {
		t.Errorf("stdin output differs from the same file's:\n%s", r.stdout)
	}
}

// TestLintSuppressions checks inline controls end to end: suppressed findings are not reported
// and do not lower a semi-objective score.
func TestLintSuppressions(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "in order to", "line": 1, "message": "Wordy (1)."},
		map[string]any{"quoted_text": "in order to", "line": 3, "message": "Wordy (3)."},
		map[string]any{"quoted_text": "in order to", "line": 5, "message": "Wordy (5)."},
		map[string]any{"quoted_text": "in order to", "line": 7, "message": "Wordy (7)."},
		map[string]any{"quoted_text": "in order to", "line": 10, "message": "Wordy (10)."},
	}}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "in order to", "line": 5, "message": "Strictly wordy (5)."}}}))
	dir := t.TempDir()
	files := engineProject()
	delete(files, "rules/Acme/headline.md")
	files["docs/guide.md"] = "Go in order to win.\n" +
		"<!-- vectorlint-disable-next-line -->\n" +
		"Go in order to win.\n" +
		"<!-- vectorlint-disable Acme.Wordiness -->\n" +
		"Go in order to win.\n" +
		"<!-- vectorlint-enable Acme.Wordiness -->\n" +
		"Go in order to win.\n" +
		"```md\n<!-- vectorlint-disable -->\n```\n" +
		"Go in order to win.\n"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	res := decodeJSON(t, r.stdout)
	var got []string
	for _, f := range res.Files[0].Findings {
		got = append(got, fmt.Sprintf("%d %s %s", f.Line, f.Rule, f.Message))
	}
	want := "1 Acme.Wordiness Wordy (1).\n5 Acme.StrictWordiness Strictly wordy (5).\n7 Acme.Wordiness Wordy (7).\n11 Acme.Wordiness Wordy (10)."
	if strings.Join(got, "\n") != want {
		t.Errorf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}
	for _, s := range res.Files[0].Scores {
		if s.Rule == "Acme.Wordiness" && *s.Violations != 3 {
			t.Errorf("Wordiness counts %d violations, want 3 (suppressed ones do not count)", *s.Violations)
		}
	}
	_ = r
}

// TestLintConcurrency checks that the run never has more requests in flight than
// --concurrency, and uses all of them.
func TestLintConcurrency(t *testing.T) {
	t.Parallel()
	files := engineProject()
	for i := range 8 {
		files[fmt.Sprintf("docs/g%02d.md", i)] = guideDoc
	}
	srv, dir := startEngine(t, files, llmtest.WithLatency(40*time.Millisecond))
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--concurrency", "3", "docs")
	if r.code != exitFindings {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if srv.Calls() != 27 || srv.MaxInFlight() != 3 {
		t.Errorf("%d calls with at most %d in flight, want 27 with 3", srv.Calls(), srv.MaxInFlight())
	}
	res := decodeJSON(t, r.stdout)
	var paths []string
	for _, f := range res.Files {
		paths = append(paths, f.Path)
	}
	if got := strings.Join(paths, " "); got != "docs/g00.md docs/g01.md docs/g02.md docs/g03.md docs/g04.md docs/g05.md docs/g06.md docs/g07.md docs/guide.md" {
		t.Errorf("files out of order: %s", got)
	}
	// Concurrency from the configuration.
	srv.Reset()
	writeTestTree(t, dir, map[string]string{"vectorlint.ini": "RulesPath = rules\nConcurrency = 2\n[**/*.md]\nRunRules = Acme\n"})
	runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	if srv.MaxInFlight() != 2 {
		t.Errorf("Concurrency = 2: %d in flight", srv.MaxInFlight())
	}
}

// TestLintChunks lints a document of more than 600 words: every chunk is sent with its original
// line numbers, violations in every chunk are found, and the score counts the whole text.
func TestLintChunks(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.Dynamic(func(req *llmtest.Request) llmtest.Reply {
		// Report "in order to" on the first line of the chunk, whatever its number.
		first, _, _ := strings.Cut(req.LastUser(), "\t")
		var line int
		fmt.Sscan(first, &line)
		return llmtest.JSON(map[string]any{"violations": []any{
			map[string]any{"quoted_text": "in order to", "line": line, "message": "Wordy."}}})
	}))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	dir := t.TempDir()
	files := engineProject()
	delete(files, "rules/Acme/headline.md")
	var doc strings.Builder
	for i := range 30 { // 30 paragraphs of 40 words: 1,200 words, 3 chunks of at most ChunkWords = 500
		fmt.Fprintf(&doc, "Paragraph %d: we act in order to ship%s.\n\n", i+1, strings.Repeat(" word", 32))
	}
	files["docs/guide.md"] = doc.String()
	files["vectorlint.ini"] = "RulesPath = rules\nChunkWords = 500\n[**/*.md]\nRunRules = Acme\n"
	writeTestTree(t, dir, files)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	res := decodeJSON(t, r.stdout)
	var lines []string
	for _, req := range srv.Requests() {
		if strings.Contains(req.System(), `<rule name="Wordiness">`) {
			first, _, _ := strings.Cut(req.LastUser(), "\t")
			lines = append(lines, first)
		}
	}
	if got := strings.Join(lines, ","); len(lines) != 3 {
		t.Fatalf("chunks starting on lines %s, want 3 chunks", got)
	}
	var found []string
	for _, f := range res.Files[0].Findings {
		if f.Rule == "Acme.Wordiness" {
			found = append(found, fmt.Sprintf("%d:%d", f.Line, f.Column))
		}
	}
	// The chunks start at lines 1, 17 and 41: content-defined boundaries (spec/linter.md §13).
	if got := strings.Join(found, " "); got != "1:21 17:21 41:22" {
		t.Errorf("findings at %s", got)
	}
	for _, s := range res.Files[0].Scores {
		// 3 violations in 1200 words: 100 − 0.25 × 10 = 97.5, shown as 9.8 (ties away from zero).
		if s.Rule == "Acme.Wordiness" && (*s.Violations != 3 || *s.Words != 1200 || s.Score != 9.8) {
			t.Errorf("score %+v, want 3 violations in 1200 words: 9.8", *s.Violations)
		}
	}
}

// TestLintShowPromptAndVerbose checks that --show-prompt prints the exact messages of each call
// (labelled with file and rule) and --verbose the request log, never the key.
func TestLintShowPromptAndVerbose(t *testing.T) {
	t.Parallel()
	files := engineProject()
	delete(files, "rules/Acme/strict.md")
	delete(files, "rules/Acme/headline.md")
	srv, dir := startEngine(t, files)
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--show-prompt", "docs")
	r.noKey(t)
	req := srv.Requests()[0]
	want := fmt.Sprintf("── prompt: docs/guide.md Acme.Wordiness (test-model at %s, sent, response format json_schema)\n",
		strings.TrimPrefix(strings.TrimSuffix(srv.URL, "/v1"), "http://"))
	for _, m := range req.Messages { // instructions, the chunk, the rule (spec/linter.md §13)
		want += "── " + m.Role + "\n" + m.Content + "\n"
	}
	want += "── end of prompt\n"
	if len(req.Messages) != 3 {
		t.Errorf("%d messages, want 3", len(req.Messages))
	}
	if r.stderr != want {
		t.Errorf("--show-prompt:\n%s\nwant:\n%s", r.stderr, want)
	}
	r = runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--verbose", "--cache-dir", t.TempDir(), "docs")
	r.noKey(t)
	lines := strings.Split(strings.TrimSpace(hostless(r.stderr, srv)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "vectorlint: llm: request chat completion test-model@HOST [docs/guide.md Acme.Wordiness] attempt 1: 3 messages, format json_schema") ||
		!strings.HasPrefix(lines[1], "vectorlint: llm: response chat completion test-model@HOST [docs/guide.md Acme.Wordiness] attempt 1: 200 in ") {
		t.Errorf("--verbose:\n%s", r.stderr)
	}
}

// TestLintTechnicalAccuracy runs a technical-accuracy rule: claims are extracted, each is checked
// by the search model (a second fake server), and the rule runs with the evidence.
func TestLintTechnicalAccuracy(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	search := llmtest.Start(t, llmtest.RequireAPIKey("pplx-test-key"))
	srv.On(llmtest.SystemContains("You extract factual claims"), llmtest.JSON(map[string]any{"claims": []any{
		map[string]any{"claim": "Go 1.0 was released in 2009.", "quoted_text": "Go 1.0 shipped in 2009", "line": 1},
		map[string]any{"claim": "Go has generics since 1.18.", "quoted_text": "generics arrived in 1.18", "line": 1},
	}}))
	srv.On(llmtest.SystemContains(`<rule name="Facts">`), llmtest.JSON(map[string]any{"criteria": []any{
		map[string]any{"id": "Accuracy", "name": "Accuracy", "score": 2, "summary": "1 of 2 claims accurate.", "violations": []any{
			map[string]any{"quoted_text": "Go 1.0 shipped in 2009", "line": 1, "message": "Go 1.0 was released in 2012.", "fix": "Go 1.0 shipped in 2012"}}}}}))
	search.On(llmtest.UserContains("2009"), llmtest.Text("Contradicted: Go 1.0 was released in March 2012 (go.dev/doc/devel/release)."))
	search.On(llmtest.UserContains("generics"), llmtest.Text("Supported: Go 1.18 added generics (go.dev/blog/go1.18)."))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/facts.md": "---\nid: Facts\nname: Facts\nevaluator: technical-accuracy\ntype: subjective\n" +
			"criteria: [{id: Accuracy, name: Accuracy}]\n---\nCheck the claims against the evidence.\n",
		"docs/go.md": "Go 1.0 shipped in 2009 and generics arrived in 1.18.\n",
	})
	env := fakeEnv(srv)
	// Without a search model the rule cannot run: exit 2, naming what to set, once.
	r := runVectorlint(t, dir, env, "", "--output", "json", "docs")
	res := decodeJSON(t, r.stdout)
	const noSearch = "evaluator technical-accuracy needs a search model: set PERPLEXITY_API_KEY, or SEARCH_MODEL with PERPLEXITY_BASE_URL"
	if r.code != exitFailure || len(res.Files[0].Errors) != 0 || r.stderr != "vectorlint: "+noSearch+" (1 rule run not done)\n" ||
		!strings.Contains(r.stdout, `"runErrors": [
    {
      "cause": "no search model is configured",
      "message": "`+noSearch+`",
      "notRun": 1
    }
  ]`) {
		t.Errorf("no search model: exit %d, %+v\n%s", r.code, res.Files, r.stderr)
	}
	env["PERPLEXITY_BASE_URL"] = search.URL
	env["PERPLEXITY_API_KEY"] = "pplx-test-key"
	r = runVectorlint(t, dir, env, "", "--output", "json", "docs")
	if r.code != exitOK { // the only finding is a warning
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	res = decodeJSON(t, r.stdout)
	f := res.Files[0]
	if len(f.Findings) != 1 || f.Findings[0].Match != "Go 1.0 shipped in 2009" || f.Findings[0].Severity != "warning" ||
		len(f.Scores) != 1 || f.Scores[0].Score != 4.0 {
		t.Errorf("result %+v", f)
	}
	if search.Calls() != 2 || srv.Calls() != 2 {
		t.Errorf("%d search calls and %d model calls, want 2 and 2", search.Calls(), srv.Calls())
	}
	for _, req := range search.Requests() {
		if req.Model != "sonar-pro" {
			t.Errorf("search model %q, want sonar-pro", req.Model)
		}
	}
	var evaluated string
	for _, req := range srv.Requests() {
		if strings.Contains(req.System(), `<rule name="Facts">`) {
			evaluated = req.System()
		}
	}
	for _, want := range []string{
		"1. Go 1.0 was released in 2009. (line 1: \"Go 1.0 shipped in 2009\")\nEvidence: Contradicted: Go 1.0 was released in March 2012",
		"2. Go has generics since 1.18. (line 1: \"generics arrived in 1.18\")\nEvidence: Supported: Go 1.18 added generics",
	} {
		if !strings.Contains(evaluated, want) {
			t.Errorf("the rule's prompt lacks %q:\n%s", want, evaluated)
		}
	}
}

// runVectorlintContext is runVectorlint with a context the test controls.
func runVectorlintContext(ctx context.Context, dir string, env map[string]string, args ...string) cliResult {
	var stdout, stderr bytes.Buffer
	a := &app{
		stdin:     strings.NewReader(""),
		stdout:    &stdout,
		stderr:    &stderr,
		dir:       dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
	}
	code := a.run(ctx, args)
	return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// startHangingProject starts a fake server on which every call answers no violation except
// the one for docs/b.md ("Hang here."), which hangs until the client gives up, and writes the
// engine project with only its Wordiness rule and docs/a.md, b.md and c.md added. It returns
// both.
func startHangingProject(t *testing.T) (*llmtest.Server, string) {
	t.Helper()
	srv := llmtest.Start(t)
	srv.On(llmtest.UserContains("Hang here"), llmtest.Hang())
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	dir := t.TempDir()
	files := engineProject()
	delete(files, "rules/Acme/strict.md")
	delete(files, "rules/Acme/headline.md")
	files["docs/a.md"] = "Fine.\n"
	files["docs/b.md"] = "Hang here.\n"
	files["docs/c.md"] = "Fine too.\n"
	writeTestTree(t, dir, files)
	return srv, dir
}

// TestLintInterrupt cancels a run while a call hangs: the files already finished are printed,
// the others are reported as not finished, and the exit code is 2.
func TestLintInterrupt(t *testing.T) {
	t.Parallel()
	srv, dir := startHangingProject(t)
	ctx, cancel := context.WithCancel(context.Background())
	var (
		wg sync.WaitGroup
		r  cliResult
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		r = runVectorlintContext(ctx, dir, fakeEnv(srv), "--output", "json", "--concurrency", "1", "docs")
	}()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		hung := false
		for _, req := range srv.Requests() {
			hung = hung || strings.Contains(req.LastUser(), "Hang here")
		}
		if hung {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the hanging request never arrived")
		}
	}
	cancel()
	wg.Wait()
	if r.code != exitFailure {
		t.Errorf("exit %d, want 2", r.code)
	}
	res := decodeJSON(t, r.stdout)
	if len(res.Files) != 1 || res.Files[0].Path != "docs/a.md" {
		t.Errorf("files %+v, want only docs/a.md", res.Files)
	}
	if want := "vectorlint: interrupted: 3 files not finished and not reported: docs/b.md, docs/c.md, docs/guide.md\n"; r.stderr != want {
		t.Errorf("stderr %q, want %q", r.stderr, want)
	}
}

// TestLintProgress checks that a progress bar is drawn on standard error only when it is a
// terminal and --quiet is not given, that it is cleared at the end, and that results never
// carry terminal codes when standard output is not a terminal.
func TestLintProgress(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, engineProject())
	run := func(args ...string) cliResult {
		var stdout, stderr bytes.Buffer
		env := fakeEnv(srv)
		a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
			lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, stderrIsTerminal: true}
		code := a.run(context.Background(), args)
		return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	}
	r := run("--no-cache", "docs")
	if !strings.Contains(r.stderr, "\r[========================] 1/1 files  3 calls") || !strings.HasSuffix(r.stderr, "\r") {
		t.Errorf("stderr on a terminal: %q", r.stderr)
	}
	if strings.ContainsAny(r.stdout, "\r\x1b") {
		t.Errorf("stdout (not a terminal) holds terminal codes: %q", r.stdout)
	}
	if r = run("--no-cache", "--quiet", "docs"); r.stderr != "" {
		t.Errorf("--quiet: stderr %q", r.stderr)
	}
}
