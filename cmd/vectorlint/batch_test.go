package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// batchEnv is fakeEnv with prices, so that the batch price shows in the cost.
func batchEnv(srv *llmtest.Server) map[string]string {
	env := fakeEnv(srv)
	env["INPUT_PRICE_PER_MILLION"] = "2"
	env["OUTPUT_PRICE_PER_MILLION"] = "8"
	return env
}

// runBatchApp runs the command in-process with a short batch poll interval.
func runBatchApp(t *testing.T, dir string, env map[string]string, args ...string) cliResult {
	t.Helper()
	var stdout, stderr bytes.Buffer
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		batchPoll: time.Millisecond}
	code := a.run(context.Background(), args)
	return cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
}

// batchProject is the engine project over two documents.
func batchProject() map[string]string {
	files := engineProject()
	files["docs/guide.md"] = guideDoc
	files["docs/other.md"] = "# Other\n\nDue to the fact that it rains, we stay in order to read.\n"
	return files
}

// usageOf reads the usage of a JSON output, with its cost.
func usageOf(t *testing.T, out string) (calls, cached int, cost float64) {
	t.Helper()
	var res struct {
		Usage struct {
			Calls, CachedCalls int
			Cost               *float64
		} `json:"usage"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if res.Usage.Cost == nil {
		t.Fatalf("no cost in %s", out)
	}
	return res.Usage.Calls, res.Usage.CachedCalls, *res.Usage.Cost
}

// withoutUsage drops the usage object of a JSON output, to compare the findings and scores.
func withoutUsage(out string) string {
	return regexp.MustCompile(`(?s)"usage":\s*\{.*?\}`).ReplaceAllString(out, `"usage":{}`)
}

// TestBatchRoundTrip: submit sends every request of the plan as one OpenAI batch (a JSONL
// file, then the batch) and prints its id; collect --wait waits for it, stores the replies and
// lints from the cache: the same JSON output as a live run, no live call, and the cost at half
// the live price. A second collect changes nothing.
func TestBatchRoundTrip(t *testing.T) {
	t.Parallel()
	files := batchProject()
	// The live run, on its own server and cache.
	liveSrv, liveDir := startEngine(t, files)
	live := runBatchApp(t, liveDir, batchEnv(liveSrv), "--output", "json", "--cache-dir", t.TempDir(), "docs")
	if live.code != exitFindings {
		t.Fatalf("live run: exit %d\n%s", live.code, live.stderr)
	}
	liveCalls, _, liveCost := usageOf(t, live.stdout)

	srv, dir := startEngine(t, files)
	cache := t.TempDir()
	env := batchEnv(srv)
	sub := runBatchApp(t, dir, env, "batch", "submit", "--cache-dir", cache, "docs")
	id := strings.TrimSpace(sub.stdout)
	if sub.code != exitOK || id == "" || strings.Contains(id, "\n") {
		t.Fatalf("submit: exit %d, stdout %q\n%s", sub.code, sub.stdout, sub.stderr)
	}
	if srv.Calls() != 0 || len(srv.Batches()) != 1 || len(srv.BatchLines()) != liveCalls {
		t.Fatalf("submit: %d live calls, %d batches, %d lines; want 0, 1, %d", srv.Calls(), len(srv.Batches()), len(srv.BatchLines()), liveCalls)
	}
	wantSub := "Batch: " + strconv.Itoa(liveCalls) + " requests (~"
	if !strings.HasPrefix(sub.stderr, wantSub) || !strings.Contains(sub.stderr, "at 0.5 × the live price (BATCH_PRICE_FACTOR)\n") ||
		!strings.Contains(sub.stderr, "vectorlint batch submit: batch "+id+" submitted to openai (test-model), state in .vectorlint/batches/"+id+".json") {
		t.Errorf("submit stderr:\n%s", sub.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, ".vectorlint", "batches", id+".json")); err != nil {
		t.Errorf("state: %v", err)
	}

	st := runBatchApp(t, dir, env, "batch", "status", id, "--cache-dir", cache)
	if st.code != exitOK || !strings.HasPrefix(st.stdout, "Batch "+id+": ") || !strings.Contains(st.stdout, "openai test-model, "+strconv.Itoa(liveCalls)+" requests") {
		t.Errorf("status: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}

	col := runBatchApp(t, dir, env, "batch", "collect", id, "--wait", "--output", "json", "--cache-dir", cache, "docs")
	if col.code != exitFindings {
		t.Fatalf("collect: exit %d\n%s", col.code, col.stderr)
	}
	if srv.Calls() != 0 {
		t.Errorf("collect made %d live calls, want 0", srv.Calls())
	}
	if got, want := withoutUsage(col.stdout), withoutUsage(live.stdout); got != want {
		t.Errorf("collect's output differs from the live run's:\n%s\nwant\n%s", got, want)
	}
	calls, cached, cost := usageOf(t, col.stdout)
	if calls != liveCalls || cached != 0 || !near(cost, liveCost/2) {
		t.Errorf("collect usage: %d calls, %d cached, cost %g; want %d, 0, %g (half the live %g)", calls, cached, cost, liveCalls, liveCost/2, liveCost)
	}
	wantLog := "vectorlint: batch " + id + ": " + strconv.Itoa(liveCalls) + " replies stored in the reply cache at 0.5 × the live price\n"
	if col.stderr != wantLog {
		t.Errorf("collect stderr %q, want %q", col.stderr, wantLog)
	}

	// Again: everything comes from the cache, nothing is stored twice, nothing is sent.
	again := runBatchApp(t, dir, env, "batch", "collect", id, "--output", "json", "--cache-dir", cache, "docs")
	if again.code != exitFindings || srv.Calls() != 0 || withoutUsage(again.stdout) != withoutUsage(live.stdout) {
		t.Errorf("second collect: exit %d, %d calls\n%s", again.code, srv.Calls(), again.stderr)
	}
}

func near(a, b float64) bool { d := a - b; return d < 1e-12 && d > -1e-12 }

// TestBatchNotAnswered: a request that expires in the batch and one that fails in it (a line
// of OpenAI's error file) are made live by collect, which then gives the live run's output; with
// --no-live they are listed, not made, and the run fails them (exit 2).
func TestBatchNotAnswered(t *testing.T) {
	t.Parallel()
	files := batchProject()
	liveSrv, liveDir := startEngine(t, files)
	live := runBatchApp(t, liveDir, batchEnv(liveSrv), "--output", "json", "--cache-dir", t.TempDir(), "docs")

	for _, noLive := range []bool{false, true} {
		srv := llmtest.Start(t)
		srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("it rains")),
			llmtest.BatchExpired(), llmtest.JSON(wordinessReply()))
		srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Headline">`), llmtest.UserContains("Other")),
			llmtest.Status(500, ""), llmtest.JSON(headlineReply()))
		scriptEngine(srv)
		dir := t.TempDir()
		writeTestTree(t, dir, files)
		env, cache := batchEnv(srv), t.TempDir()
		sub := runBatchApp(t, dir, env, "batch", "submit", "--cache-dir", cache, "docs")
		id := strings.TrimSpace(sub.stdout)
		if sub.code != exitOK {
			t.Fatalf("submit: exit %d\n%s", sub.code, sub.stderr)
		}
		args := []string{"batch", "collect", id, "--wait", "--output", "json", "--cache-dir", cache, "docs"}
		if noLive {
			args = append(args, "--no-live")
		}
		col := runBatchApp(t, dir, env, args...)
		live1 := "made live"
		if noLive {
			live1 = "not made (--no-live)"
		}
		for _, want := range []string{
			"vectorlint: batch " + id + ": 4 replies stored in the reply cache at 0.5 × the live price\n",
			"vectorlint: batch " + id + ": docs/other.md Acme.Wordiness expired in the batch (",
			"vectorlint: batch " + id + ": docs/other.md Acme.Headline failed in the batch (",
			"): " + live1 + "\n",
		} {
			if !strings.Contains(col.stderr, want) {
				t.Errorf("no-live %v: stderr lacks %q:\n%s", noLive, want, col.stderr)
			}
		}
		if !noLive {
			if col.code != exitFindings || srv.Calls() != 2 || withoutUsage(col.stdout) != withoutUsage(live.stdout) {
				t.Errorf("collect: exit %d, %d live calls (want 2); output\n%s\nwant\n%s", col.code, srv.Calls(), col.stdout, live.stdout)
			}
			continue
		}
		if col.code != exitFailure || srv.Calls() != 0 {
			t.Errorf("collect --no-live: exit %d, %d live calls; want 2 and 0\n%s", col.code, srv.Calls(), col.stderr)
		}
		var res jsonResult
		if err := json.Unmarshal([]byte(col.stdout), &res); err != nil {
			t.Fatal(err)
		}
		var errs []string
		for _, f := range res.Files {
			for _, e := range f.Errors {
				errs = append(errs, f.Path+" "+e.Rule+": "+e.Message)
			}
		}
		if len(errs) != 2 || !strings.Contains(strings.Join(errs, "\n"), "no reply in the cache for this request, and this run makes no live call") {
			t.Errorf("collect --no-live: rule errors %q", errs)
		}
	}
}

// TestBatchAnthropic: the round trip through Anthropic's Message Batches gives the live run's
// output with no live call.
func TestBatchAnthropic(t *testing.T) {
	t.Parallel()
	files := batchProject()
	anthropicEnv := func(srv *llmtest.Server) map[string]string {
		return map[string]string{"LLM_PROVIDER": "anthropic", "ANTHROPIC_API_KEY": testAPIKey, "ANTHROPIC_BASE_URL": srv.URL, "ANTHROPIC_MODEL": "claude-test"}
	}
	// Anthropic gets the rule as a user turn after the chunk (the cache breakpoint is after the
	// chunk, and its system blocks come first): match it in any message.
	start := func() (*llmtest.Server, string) {
		srv := llmtest.Start(t)
		srv.On(llmtest.MessageContains(`<rule name="Wordiness">`), llmtest.JSON(wordinessReply()))
		srv.On(llmtest.MessageContains(`<rule name="Strict Wordiness">`), llmtest.Fenced(wordinessReply()))
		srv.On(llmtest.MessageContains(`<rule name="Headline">`), llmtest.JSON(headlineReply()))
		dir := t.TempDir()
		writeTestTree(t, dir, files)
		return srv, dir
	}
	liveSrv, liveDir := start()
	live := runBatchApp(t, liveDir, anthropicEnv(liveSrv), "--output", "json", "--cache-dir", t.TempDir(), "docs")
	if live.code != exitFindings {
		t.Fatalf("live: exit %d\n%s\n%s", live.code, live.stderr, live.stdout)
	}
	srv, dir := start()
	cache := t.TempDir()
	sub := runBatchApp(t, dir, anthropicEnv(srv), "batch", "submit", "--cache-dir", cache, "docs")
	id := strings.TrimSpace(sub.stdout)
	col := runBatchApp(t, dir, anthropicEnv(srv), "batch", "collect", id, "--wait", "--output", "json", "--cache-dir", cache, "docs")
	if sub.code != exitOK || col.code != exitFindings || srv.Calls() != 0 || len(srv.Batches()) != 1 {
		t.Fatalf("submit exit %d, collect exit %d, %d live calls, %d batches\n%s%s", sub.code, col.code, srv.Calls(), len(srv.Batches()), sub.stderr, col.stderr)
	}
	if withoutUsage(col.stdout) != withoutUsage(live.stdout) {
		t.Errorf("collect's output:\n%s\nwant the live run's:\n%s", col.stdout, live.stdout)
	}
}

// TestBatchCommandErrors: what cannot be done is said, naming what to do, with exit 2.
func TestBatchCommandErrors(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, batchProject(), llmtest.HoldBatches())
	env, cache := batchEnv(srv), t.TempDir()
	sub := runBatchApp(t, dir, env, "batch", "submit", "--cache-dir", cache, "docs")
	id := strings.TrimSpace(sub.stdout)
	if sub.code != exitOK {
		t.Fatalf("submit: %d\n%s", sub.code, sub.stderr)
	}
	gemini := map[string]string{"LLM_PROVIDER": "gemini", "GEMINI_API_KEY": testAPIKey, "GEMINI_BASE_URL": srv.URL, "GEMINI_MODEL": "g"}
	tests := []struct {
		name string
		env  map[string]string
		args []string
		code int
		want string // stderr
	}{
		{"still running", env, []string{"batch", "collect", id, "--cache-dir", cache, "docs"}, exitFailure,
			"vectorlint batch collect: batch " + id + " is not done yet: validating, 6 of 6 requests pending: run it again later, or add --wait\n"},
		{"unknown id", env, []string{"batch", "collect", "vl-0000", "--cache-dir", cache, "docs"}, exitFailure,
			"vectorlint batch collect: no batch vl-0000 in this project: .vectorlint/batches/vl-0000.json does not exist\n"},
		{"no batch API", gemini, []string{"batch", "submit", "--cache-dir", cache, "docs"}, exitFailure,
			"vectorlint batch submit: provider gemini has no batch API vectorlint can use (batches work with openai and anthropic): run the lint live instead\n"},
		{"no cache", env, []string{"batch", "submit", "--no-cache", "docs"}, exitFailure,
			"vectorlint batch submit: provider batches deliver their replies through the reply cache: leave out --no-cache, or give --cache-dir when HOME and XDG_CACHE_HOME are unset\n"},
		{"no id", env, []string{"batch", "status"}, exitFailure,
			"vectorlint batch status: expected the batch's ID (printed by vectorlint batch submit) after status\n"},
		{"unknown subcommand", env, []string{"batch", "send"}, exitFailure,
			"vectorlint batch send: unknown command \"send\" (expected submit, status or collect)\n"},
	}
	for _, tt := range tests {
		r := runBatchApp(t, dir, tt.env, tt.args...)
		if r.code != tt.code || !strings.HasPrefix(r.stderr, tt.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d, %q", tt.name, r.code, r.stderr, tt.code, tt.want)
		}
	}
	// The first collect's poll moved the held batch from validating to in_progress.
	st := runBatchApp(t, dir, env, "batch", "status", id, "--cache-dir", cache)
	if st.code != exitOK || !strings.Contains(st.stdout, ": in_progress, openai test-model, 6 requests, submitted ") ||
		!strings.Contains(st.stdout, "  0 succeeded, 0 failed, 0 expired, 0 canceled, 6 pending\n") || strings.Contains(st.stdout, "Done") {
		t.Errorf("status: exit %d\n%s%s", st.code, st.stdout, st.stderr)
	}
}

// TestBatchDryRunAndChanges: --dry-run estimates the batch and sends nothing; a document
// changed after the submit is said and linted live at collect, the rest from the batch.
func TestBatchDryRunAndChanges(t *testing.T) {
	t.Parallel()
	srv, dir := startEngine(t, batchProject())
	env, cache := batchEnv(srv), t.TempDir()
	dry := runBatchApp(t, dir, env, "batch", "submit", "--dry-run", "--cache-dir", cache, "docs")
	if dry.code != exitOK || srv.BatchRequests() != 0 || !regexp.MustCompile(`^Batch: 6 requests \(~[0-9,]+ input and ~1,800 output tokens\)\nEstimated cost: \$0\.0[0-9]{3} at 0\.5 × the live price \(BATCH_PRICE_FACTOR\)\n$`).MatchString(dry.stdout) {
		t.Errorf("dry run: exit %d, %d batch requests\n%s%s", dry.code, srv.BatchRequests(), dry.stdout, dry.stderr)
	}
	sub := runBatchApp(t, dir, env, "batch", "submit", "--cache-dir", cache, "docs")
	id := strings.TrimSpace(sub.stdout)
	if err := os.WriteFile(filepath.Join(dir, "docs", "other.md"), []byte("# Other\n\nIn order to read, we stay.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	col := runBatchApp(t, dir, env, "batch", "collect", id, "--wait", "--output", "json", "--cache-dir", cache, "docs")
	// The headline's text (the H1) did not change: the batch answered it.
	want := "vectorlint: batch " + id + ": 2 requests changed since the submit (documents, rules or settings): made live\n" +
		"vectorlint:   docs/other.md Acme.StrictWordiness\nvectorlint:   docs/other.md Acme.Wordiness\n"
	if col.code != exitFindings || srv.Calls() != 2 || !strings.Contains(col.stderr, want) {
		t.Errorf("collect: exit %d, %d live calls (want 2)\n%s", col.code, srv.Calls(), col.stderr)
	}
}
