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
