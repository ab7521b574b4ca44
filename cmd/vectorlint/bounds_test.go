package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// The attacks of issue 31 (spec/trust.md §8, bounds on what a file can ask for), performed
// through the command: numbers out of range in vectorlint.ini, a rule and a blueprint, and $js
// scripts that backtrack catastrophically in a lint run, a blueprint run and the editor server.
// Each attack has a positive control that must keep working.

// TestBoundsConcurrencyAttack: a repository's Concurrency of 9223372036854775807 panicked and
// 1000000000 started a billion workers; both are now refused before any call, naming the file,
// the line, the key, the range and the value. Concurrency = 256 runs.
func TestBoundsConcurrencyAttack(t *testing.T) {
	t.Parallel()
	for _, value := range []string{"9223372036854775807", "1000000000", "257", "0"} {
		srv := llmtest.Start(t)
		srv.SetDefault(llmtest.Dynamic(answerAll))
		dir := trustProject(t, map[string]string{"vectorlint.ini": "RulesPath = rules\nConcurrency = " + value + "\n[**/*.md]\nRunRules = Acme\n"})
		want := `vectorlint.ini:2: Concurrency: expected a whole number from 1 to 256, found "` + value + `"` + "\n"
		r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
		r.expect(t, exitFailure, "", want)
		if n := srv.Calls(); n != 0 {
			t.Errorf("Concurrency = %s: %d model calls", value, n)
		}
		v := runVectorlint(t, dir, nil, "", "validate")
		if v.code != exitFailure || v.stderr != want {
			t.Errorf("validate, Concurrency = %s: exit %d, stderr %q", value, v.code, v.stderr)
		}
	}
	// Control: the top of the range runs.
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Dynamic(answerAll))
	dir := trustProject(t, map[string]string{"vectorlint.ini": "RulesPath = rules\nConcurrency = 256\n[**/*.md]\nRunRules = Acme\n"})
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	if f := decodeJSON(t, r.stdout).Files; r.code != exitOK || len(f) != 1 || len(f[0].Findings) != 1 || srv.Calls() != 1 {
		t.Errorf("Concurrency = 256: exit %d, %+v, %d calls, stderr %q", r.code, f, srv.Calls(), r.stderr)
	}
}

// TestBoundsWeightsAttack: criteria weights of 1e308 made a NaN score, and --output json wrote
// nothing for any file. Such weights are now refused at load (validate and lint name them, no
// call is made); the same rule with ordinary weights scores and is written.
func TestBoundsWeightsAttack(t *testing.T) {
	t.Parallel()
	files := engineProject()
	files["rules/Acme/headline.md"] = strings.NewReplacer("weight: 12", "weight: 1e308", "weight: 2,", "weight: 1e308,").Replace(files["rules/Acme/headline.md"])
	srv, dir := startEngine(t, files)
	const want = "rules/Acme/headline.md:8: criteria[0].weight: expected a number greater than 0 and at most 1000000, found 1e308\n" +
		"rules/Acme/headline.md:9: criteria[1].weight: expected a number greater than 0 and at most 1000000, found 1e308\n"
	runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs").expect(t, exitFailure, "", want)
	if n := srv.Calls(); n != 0 {
		t.Errorf("%d model calls", n)
	}
	if v := runVectorlint(t, dir, nil, "", "validate"); v.code != exitFailure || v.stderr != want {
		t.Errorf("validate: exit %d, stderr %q", v.code, v.stderr)
	}

	// Control: weights 12/2/1 and ratings 1/2/4 score 2.0, written with the other rules' scores.
	srv, dir = startEngine(t, engineProject())
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "docs")
	res := decodeJSON(t, r.stdout)
	if r.code != exitFindings || len(res.Files) != 1 || len(res.Files[0].Scores) != 3 || len(res.Files[0].Errors) != 0 {
		t.Fatalf("control: exit %d, %+v, stderr %q", r.code, res.Files, r.stderr)
	}
	if s := res.Files[0].Scores[0]; s.Rule != "Acme.Headline" || s.Score != 2 {
		t.Errorf("control: headline score %+v", s)
	}
}

// TestBoundsValidateReportsEveryRange: validate and blueprint check report each number out of
// its range with the file, the line, the key, the range and the value found.
func TestBoundsValidateReportsEveryRange(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{
		"vectorlint.ini": "RulesPath = rules\nConcurrency = 1000000000\nTimeout = 25h\nCacheMaxSize = 10B\nTemperature = 1e308\nConfidenceThreshold = NaN\n" +
			"[**/*.md]\nRunRules = Acme\nAcme.Headline.strictness = 1001\n",
		"rules/Acme/headline.md": "---\nid: Headline\nname: Headline\ntype: subjective\nstrictness: .inf\ncriteria:\n" +
			"  - {id: Value, name: Value, weight: 2000000}\n  - {id: Clear, name: Clear, weight: 0}\n---\nJudge.\n",
		"bp.yml": "concurrency: 9999\ntemperature: -1\ntoolUse: {maxSteps: 0}\nmodels:\n" +
			"  - {id: 'c:m', url: 'http://127.0.0.1:1/v1', modelName: m, inherit: anthropic, thinkingBudget: 2.5}\n" +
			"---\n- id: p\n  prompt: Q\n  temperature: 3\n  maxCalls: -1\n  weight: 11\n  should:\n    - {text: t, weight: 0}\n",
	})
	v := runVectorlint(t, dir, nil, "", "validate")
	const strictness = `expected a number greater than 0 and at most 1000, or "lenient", "standard" or "strict"`
	want := "rules/Acme/headline.md:5: strictness: " + strictness + ", found .inf\n" +
		"rules/Acme/headline.md:7: criteria[0].weight: expected a number greater than 0 and at most 1000000, found 2000000\n" +
		"rules/Acme/headline.md:8: criteria[1].weight: expected a number greater than 0 and at most 1000000, found 0\n" +
		`vectorlint.ini:2: Concurrency: expected a whole number from 1 to 256, found "1000000000"` + "\n" +
		`vectorlint.ini:3: Timeout: expected a duration such as 30s, 90s or 2m (a bare number is seconds), more than 0 and at most 24h, found "25h"` + "\n" +
		`vectorlint.ini:4: CacheMaxSize: expected 0 (no cap) or a size from 1MB to 100TB, such as 500MB, 2GB or 1GiB, found "10B"` + "\n" +
		`vectorlint.ini:5: Temperature: expected a number from 0 to 2, found "1e308"` + "\n" +
		`vectorlint.ini:6: ConfidenceThreshold: expected a number from 0 to 1, found "NaN"` + "\n" +
		`vectorlint.ini:9: Acme.Headline.strictness: ` + strictness + `, found "1001"` + "\n"
	if v.code != exitFailure || v.stderr != want {
		t.Errorf("validate: exit %d, stderr:\n%s\nwant:\n%s", v.code, v.stderr, want)
	}
	code, stdout, stderr := runBlueprintApp(t, dir, nil, "blueprint", "check", "bp.yml")
	wantBP := "bp.yml:1: error: expected concurrency to be a whole number from 1 to 256, found the number 9999\n" +
		"bp.yml:2: error: expected temperature to be a number from 0 to 2, found the number -1\n" +
		"bp.yml:3: error: expected toolUse.maxSteps to be a whole number from 1 to 1000, found the number 0\n" +
		"bp.yml:5: error: expected thinkingBudget to be a whole number from 0 to 1000000, found the number 2.5\n" +
		"bp.yml:9: error: prompt \"p\": expected temperature to be a number from 0 to 2, found the number 3\n" +
		"bp.yml:10: error: prompt \"p\": expected maxCalls to be a whole number from 0 to 1000000, found the number -1\n" +
		"bp.yml:11: error: prompt \"p\": expected weight to be a number between 0.1 and 10, found the number 11\n" +
		"bp.yml:13: error: prompt \"p\": expected point weight to be a number between 0.1 and 10, found the number 0\n"
	if code != exitFailure || stdout+stderr != wantBP+"checked 1 blueprint: 1 invalid, 0 warnings\n" {
		t.Errorf("blueprint check: exit %d, output:\n%s%s\nwant:\n%s", code, stdout, stderr, wantBP)
	}
}

// hostileRules are ten checklist rules whose $js backtracks catastrophically on a run of a,
// each a little different, plus two legitimate rules that use a regular expression: Good
// passes, NoForbidden fails (a finding), so the deterministic checks are seen to run.
func hostileRules(hostile bool) map[string]string {
	files := map[string]string{
		"vectorlint.ini":          "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/good.md":      "---\nid: Good\nname: Good\nshould:\n  - $js: \"/^# \\\\w+/m.test(r)\"\n---\nA title.\n",
		"rules/Acme/forbidden.md": "---\nid: NoForbidden\nname: No forbidden\nshould:\n  - $js: \"!/forbidden/i.test(r)\"\n---\nNo forbidden word.\n",
		"docs/a.md":               backtrackDoc,
	}
	if hostile {
		for i := range 10 {
			files[fmt.Sprintf("rules/Acme/slow%d.md", i)] = fmt.Sprintf("---\nid: Slow%d\nname: Slow %d\nshould:\n  - $js: \"%s\"\n---\nCheck.\n", i, i, hostileScript(i))
		}
	}
	return files
}

// backtrackDoc has a title, the word the NoForbidden rule looks for, and 40 a on which the
// hostile patterns backtrack 2^40 ways.
const backtrackDoc = "# Title\n\nForbidden aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n"

// hostileScript is the i-th catastrophic script: a nested quantifier under a lookahead, which
// only a backtracking engine can run, with a different tail each, scanned again and again. A
// single scan ends at the regular expression's own time limit with "no match", and on a starved
// machine the coarse clock behind that limit can end it before the script's limit: the script
// then returned false instead of being stopped. The loop makes the script reach any time limit
// however the machine runs it; at the limit it is inside a scan, as before.
func hostileScript(i int) string {
	return fmt.Sprintf(`for (;;) /(?=(a+)+b%d)/.test(r)`, i)
}

// TestHostileScriptsLint: ten catastrophic checklist scripts hung the lint run once more than
// the number of CPUs were stuck; each is now its rule's error (stopped at its limit), the
// legitimate rules still score, and the run ends. The limit is attackJSLimit, which the
// legitimate scripts cannot reach however loaded the machine.
func TestHostileScriptsLint(t *testing.T) {
	// Not parallel: its catastrophic scripts keep every CPU busy for seconds, which would only
	// slow the other tests down (parallel tests run after this one).
	dir := t.TempDir()
	writeTestTree(t, dir, hostileRules(true))
	r := runVectorlintJS(t, dir, nil, "", attackJSLimit, "--output", "json", "docs")
	res := decodeJSON(t, r.stdout)
	if r.code != exitFailure || len(res.Files) != 1 || len(res.Files[0].Errors) != 10 {
		t.Fatalf("exit %d, %+v, stderr %q", r.code, res.Files, r.stderr)
	}
	for i, e := range res.Files[0].Errors {
		want := fmt.Sprintf(`checklist points could not be evaluated: $js: "%s": JavaScript ran longer than %v and was stopped`, hostileScript(i), attackJSLimit)
		if e.Rule != fmt.Sprintf("Acme.Slow%d", i) || e.Message != want {
			t.Errorf("error %d: %+v, want %q", i, e, want)
		}
	}
	scores := map[string]float64{}
	for _, s := range res.Files[0].Scores {
		scores[s.Rule] = s.Score
	}
	if scores["Acme.Good"] != 10 || scores["Acme.NoForbidden"] != 0 || len(res.Files[0].Findings) != 1 || res.Files[0].Findings[0].Rule != "Acme.NoForbidden" {
		t.Errorf("legitimate rules: scores %v, findings %+v", scores, res.Files[0].Findings)
	}

	// Control: without the hostile rules, the legitimate ones give the same results (a
	// warning: exit 0).
	dir = t.TempDir()
	writeTestTree(t, dir, hostileRules(false))
	r = runVectorlintJS(t, dir, nil, "", attackJSLimit, "--output", "json", "docs")
	res = decodeJSON(t, r.stdout)
	if r.code != exitOK || len(res.Files) != 1 || len(res.Files[0].Errors) != 0 || len(res.Files[0].Findings) != 1 || len(res.Files[0].Scores) != 2 {
		t.Errorf("control: exit %d, %+v, stderr %q", r.code, res.Files, r.stderr)
	}
}

// TestHostileScriptsBlueprint: ten catastrophic $js points in a blueprint run are each a
// failure naming its point (stopped at its limit); the legitimate regex point scores, and the
// run ends. The control, the legitimate point alone, scores 1. The limit is attackJSLimit: at
// the production 100 ms, the legitimate point was stopped too when the machine was loaded.
func TestHostileScriptsBlueprint(t *testing.T) {
	// Not parallel: its catastrophic scripts keep every CPU busy for seconds, which would only
	// slow the other tests down (parallel tests run after this one).
	var points strings.Builder
	for i := range 10 {
		fmt.Fprintf(&points, "    - $js: \"%s\"\n", hostileScript(i))
	}
	const legit = "    - $js: \"/^(\\\\w+)@example\\\\.com$/m.test(r) && r.replace(/a+/g, 'x').includes('x')\"\n"
	responses := `{"promptId": "p", "model": "m:a", "response": "me@example.com\naaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"}`
	dir := writeBlueprintFiles(t, map[string]string{
		"hostile.yml": "- id: p\n  prompt: Q\n  should:\n" + legit + points.String(),
		"good.yml":    "- id: p\n  prompt: Q\n  should:\n" + legit,
		"r.jsonl":     responses,
	})
	code, stdout, stderr := runBlueprintJS(t, dir, nil, attackJSLimit, "blueprint", "run", "hostile.yml", "--responses", "r.jsonl", "--run-label", "L")
	if code != exitFailure || stderr != "" || !strings.Contains(stdout, "10 failures:\n") {
		t.Fatalf("exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
	for i := range 10 {
		want := fmt.Sprintf("  p × m:a: Function: js(%q): JavaScript ran longer than %v and was stopped\n", hostileScript(i), attackJSLimit)
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, "p        0.09\n") { // 1 of 11 points met
		t.Errorf("the legitimate point did not score:\n%s", stdout)
	}
	code, stdout, stderr = runBlueprintJS(t, dir, nil, attackJSLimit, "blueprint", "run", "good.yml", "--responses", "r.jsonl", "--run-label", "L")
	if code != exitOK || stderr != "" || !strings.Contains(stdout, "p        1.00\n") {
		t.Errorf("control: exit %d, stderr %q:\n%s", code, stderr, stdout)
	}
}

// lspSession speaks the Language Server Protocol to `vectorlint lsp` running in-process.
type lspSession struct {
	t        *testing.T
	in       *io.PipeWriter
	messages chan map[string]any
	done     chan int
}

// startLSP starts the server in dir under attackJSLimit.
func startLSP(t *testing.T, dir string) *lspSession {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	s := &lspSession{t: t, in: inW, messages: make(chan map[string]any, 100), done: make(chan int, 1)}
	a := &app{stdin: inR, stdout: outW, stderr: &syncWriterBuffer{}, dir: dir, jsTimeout: attackJSLimit,
		lookupEnv: func(string) (string, bool) { return "", false }}
	go func() {
		s.done <- a.run(context.Background(), []string{"lsp"})
		outW.Close()
	}()
	go func() {
		defer close(s.messages)
		rd := textproto.NewReader(bufio.NewReader(outR))
		for {
			h, err := rd.ReadMIMEHeader()
			if err != nil {
				return
			}
			n, _ := strconv.Atoi(h.Get("Content-Length"))
			body := make([]byte, n)
			if _, err := io.ReadFull(rd.R, body); err != nil {
				return
			}
			var m map[string]any
			if json.Unmarshal(body, &m) == nil {
				s.messages <- m
			}
		}
	}()
	t.Cleanup(func() { inW.Close(); outR.Close() })
	return s
}

func (s *lspSession) send(msg map[string]any) {
	msg["jsonrpc"] = "2.0"
	b, err := json.Marshal(msg)
	if err != nil {
		s.t.Fatal(err)
	}
	if _, err := fmt.Fprintf(s.in, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		s.t.Fatal(err)
	}
}

// await returns the first message for which ok is true. The deadline only keeps a regression
// (a hung server) from hanging the test.
func (s *lspSession) await(what string, ok func(map[string]any) bool) map[string]any {
	s.t.Helper()
	deadline := time.After(2 * time.Minute)
	for {
		select {
		case m, open := <-s.messages:
			if !open {
				s.t.Fatalf("the server closed its output before %s", what)
			}
			if ok(m) {
				return m
			}
		case <-deadline:
			s.t.Fatalf("no %s: the server hangs", what)
		}
	}
}

// TestHostileScriptsLSP: the editor server hung on a document whose rules ran ten catastrophic
// scripts. It now publishes, for the document, each hostile rule as a rule that could not run
// and the legitimate rule's finding, and shuts down cleanly when asked.
func TestHostileScriptsLSP(t *testing.T) {
	// Not parallel: its catastrophic scripts keep every CPU busy for seconds, which would only
	// slow the other tests down (parallel tests run after this one).
	dir := t.TempDir()
	writeTestTree(t, dir, hostileRules(true))
	uri := "file://" + filepath.ToSlash(filepath.Join(dir, "docs", "a.md"))
	s := startLSP(t, dir)
	s.send(map[string]any{"id": 1, "method": "initialize", "params": map[string]any{"processId": nil, "capabilities": map[string]any{}}})
	s.await("initialize reply", func(m map[string]any) bool { return m["id"] == float64(1) })
	s.send(map[string]any{"method": "initialized", "params": map[string]any{}})
	s.send(map[string]any{"method": "textDocument/didOpen", "params": map[string]any{"textDocument": map[string]any{
		"uri": uri, "languageId": "markdown", "version": 1, "text": backtrackDoc}}})
	var diags []any
	s.await("the document's diagnostics", func(m map[string]any) bool {
		p, _ := m["params"].(map[string]any)
		if m["method"] != "textDocument/publishDiagnostics" || p["uri"] != uri {
			return false
		}
		diags, _ = p["diagnostics"].([]any)
		return len(diags) > 0
	})
	var got []string
	for _, d := range diags {
		got = append(got, d.(map[string]any)["message"].(string))
	}
	want := []string{`Not met: $js: "!/forbidden/i.test(r)"`}
	for i := range 10 {
		want = append(want, fmt.Sprintf(`Acme.Slow%d could not run: checklist points could not be evaluated: $js: "%s": JavaScript ran longer than %v and was stopped`, i, hostileScript(i), attackJSLimit))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("diagnostics:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	s.send(map[string]any{"id": 2, "method": "shutdown"})
	s.await("shutdown reply", func(m map[string]any) bool { return m["id"] == float64(2) })
	s.send(map[string]any{"method": "exit"})
	select {
	case code := <-s.done:
		if code != exitOK {
			t.Errorf("exit %d", code)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the server did not exit")
	}
}
