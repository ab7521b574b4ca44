package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Tests that run vectorlint as a real process: the test binary re-executes itself as the
// command (TestMain), so signals and concurrent processes are real without a separate build.

// beMain is the environment variable that makes the test binary run main instead of tests.
const beMain = "VECTORLINT_TEST_BE_MAIN"

// reportTerminals is the environment variable that makes the test binary write, to the file
// it names, what isTerminal says of its standard streams, and exit.
const reportTerminals = "VECTORLINT_TEST_REPORT_TERMINALS"

func TestMain(m *testing.M) {
	if os.Getenv(beMain) == "1" {
		main()
		os.Exit(exitOK) // main exits itself; this is not reached
	}
	if path := os.Getenv(reportTerminals); path != "" {
		report := fmt.Sprintf("stdin %v, stdout %v, stderr %v", isTerminal(os.Stdin), isTerminal(os.Stdout), isTerminal(os.Stderr))
		if err := os.WriteFile(path, []byte(report), 0o600); err != nil {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestTerminalDetection runs a process with /dev/null and a pipe as its standard streams:
// neither is a terminal (/dev/null is a character device, which the old test took for one,
// drawing progress bars into nowhere and hiding the stall lines meant for CI logs).
func TestTerminalDetection(t *testing.T) {
	t.Parallel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	devNull, err := os.OpenFile(os.DevNull, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer devNull.Close()
	report := filepath.Join(t.TempDir(), "terminals")
	for _, streams := range []struct {
		name           string
		stdout, stderr bool // true: /dev/null, false: a pipe
	}{{"stdout /dev/null, stderr a pipe", true, false}, {"stdout a pipe, stderr /dev/null", false, true}} {
		cmd := exec.Command(exe)
		cmd.Env = []string{reportTerminals + "=" + report}
		cmd.Stdin = devNull
		var pipe bytes.Buffer // exec connects a buffer through a pipe
		cmd.Stdout, cmd.Stderr = io.Writer(&pipe), io.Writer(&pipe)
		if streams.stdout {
			cmd.Stdout = devNull
		}
		if streams.stderr {
			cmd.Stderr = devNull
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v", streams.name, err)
		}
		got, err := os.ReadFile(report)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "stdin false, stdout false, stderr false" {
			t.Errorf("%s: %s", streams.name, got)
		}
	}
}

// vectorlintProcess prepares a vectorlint process in dir against srv.
func vectorlintProcess(t *testing.T, dir string, srv *llmtest.Server, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Dir = dir
	cmd.Env = []string{beMain + "=1", "PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	for k, v := range fakeEnv(srv) {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return cmd, &stdout, &stderr
}

// waitExit waits for cmd and returns its exit code; a process still running after a long
// grace is killed and the test fails (it would otherwise hang the suite).
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatal(err)
		}
		return 0
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		<-done
		t.Fatal("vectorlint did not stop")
		return -1
	}
}

// checkCacheEntries fails the test unless every file under the cache is a complete entry
// stored under its own key, with no temporary file left; it returns the number of entries.
func checkCacheEntries(t *testing.T, cache string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		name := d.Name()
		if strings.HasPrefix(name, ".tmp") || !strings.HasSuffix(name, ".json") {
			t.Errorf("cache holds %s, which is not an entry", path)
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var e struct {
			Key     string `json:"key"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(data, &e); err != nil || e.Key != strings.TrimSuffix(name, ".json") || e.Content == "" {
			t.Errorf("cache entry %s is incomplete (%v): %.80q", path, err, data)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// processProject is engineProject with more documents, so that runs overlap.
func processProject() map[string]string {
	files := engineProject()
	for _, name := range []string{"a", "b", "c", "d", "e", "f"} {
		files["docs/"+name+".md"] = strings.Replace(guideDoc, "café", "café "+name, 1)
	}
	return files
}

// TestCacheSharedByTwoProcesses runs two vectorlint processes on the same files with the same
// cache folder at once: both succeed with the same results, the cache holds only complete
// entries, and a third run is answered from it entirely.
func TestCacheSharedByTwoProcesses(t *testing.T) {
	t.Parallel()
	// Slow replies and two requests at a time keep both processes busy together.
	srv := llmtest.Start(t, llmtest.WithLatency(50*time.Millisecond))
	scriptEngine(srv)
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
	dir := t.TempDir()
	writeTestTree(t, dir, processProject())
	cache := filepath.Join(dir, "cache")
	var cmds []*exec.Cmd
	var outs []*bytes.Buffer
	for range 2 {
		cmd, stdout, stderr := vectorlintProcess(t, dir, srv, "--output", "json", "--concurrency", "2", "--cache-dir", cache, "docs")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("stderr:\n%s", stderr)
			}
		})
		cmds, outs = append(cmds, cmd), append(outs, stdout)
	}
	for i, cmd := range cmds {
		if code := waitExit(t, cmd); code != exitFindings {
			t.Errorf("process %d: exit %d, want 1", i, code)
		}
	}
	var results [2]string
	for i, out := range outs {
		res := decodeJSON(t, out.String())
		// Both processes called the server, so both wrote to the cache.
		if len(res.Files) != 7 || res.Usage.Calls+res.Usage.CachedCalls != 21 || res.Usage.Calls == 0 {
			t.Errorf("process %d: %d files, usage %+v", i, len(res.Files), res.Usage)
		}
		b, _ := json.Marshal(res.Files)
		results[i] = string(b)
	}
	if results[0] != results[1] {
		t.Errorf("the two processes disagree:\n%s\n%s", results[0], results[1])
	}
	// Seven bodies × two rules, and one headline all seven share.
	if n := checkCacheEntries(t, cache); n != 15 {
		t.Errorf("%d cache entries, want 15", n)
	}
	before := srv.Calls()
	r := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "docs")
	if res := decodeJSON(t, r.stdout); srv.Calls() != before || res.Usage.CachedCalls != 21 {
		t.Errorf("third run: %d new calls, usage %+v", srv.Calls()-before, res.Usage)
	}
}

// TestInterruptProcess sends SIGINT to a vectorlint process while a call hangs: it stops,
// prints the files it finished, says which it did not, exits 2, and leaves only complete
// entries in the cache.
func TestInterruptProcess(t *testing.T) {
	t.Parallel()
	srv, dir := startHangingProject(t)
	cache := filepath.Join(dir, "cache")
	cmd, stdout, stderr := vectorlintProcess(t, dir, srv, "--output", "json", "--concurrency", "1", "--cache-dir", cache, "docs")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		hung := false
		for _, req := range srv.Requests() {
			hung = hung || strings.Contains(req.LastUser(), "Hang here")
		}
		if hung {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the hanging request never arrived; stderr:\n%s", stderr)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != exitFailure {
		t.Errorf("exit %d, want 2", code)
	}
	res := decodeJSON(t, stdout.String())
	if len(res.Files) != 1 || res.Files[0].Path != "docs/a.md" {
		t.Errorf("files %+v, want only docs/a.md", res.Files)
	}
	if want := "vectorlint: interrupted: 3 files not finished and not reported: docs/b.md, docs/c.md, docs/guide.md\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	if n := checkCacheEntries(t, cache); n != 1 {
		t.Errorf("%d cache entries, want 1 (docs/a.md's call)", n)
	}
}

// TestLintCorruptCache damages every cache entry in a different way (truncated, garbage,
// empty, another entry's content): the next run treats each as a miss, calls the model again,
// gives the same results, and replaces the entries so the run after is answered from the
// cache.
func TestLintCorruptCache(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	scriptEngine(srv)
	dir := t.TempDir()
	writeTestTree(t, dir, engineProject())
	cache := filepath.Join(dir, "cache")
	first := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "docs")
	var entries []string
	_ = filepath.WalkDir(cache, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			entries = append(entries, path)
		}
		return nil
	})
	if len(entries) != 3 {
		t.Fatalf("%d cache entries, want 3", len(entries))
	}
	valid, _ := os.ReadFile(entries[0])
	for i, data := range [][]byte{
		valid[:len(valid)/2],      // truncated
		[]byte("\x00\x01garbage"), // not JSON
		valid,                     // another entry's content under this name
	} {
		if err := os.WriteFile(entries[i], data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	before := srv.Calls()
	second := runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "docs")
	if srv.Calls()-before != 3 || second.code != first.code {
		t.Errorf("after damage: %d calls, exit %d; want 3 calls, exit %d\n%s", srv.Calls()-before, second.code, first.code, second.stderr)
	}
	a, b := decodeJSON(t, first.stdout), decodeJSON(t, second.stdout)
	ja, _ := json.Marshal(a.Files)
	jb, _ := json.Marshal(b.Files)
	if string(ja) != string(jb) {
		t.Errorf("results differ after the cache was damaged:\n%s\n%s", ja, jb)
	}
	if n := checkCacheEntries(t, cache); n != 3 {
		t.Errorf("%d entries after the rewrite, want 3", n)
	}
	before = srv.Calls()
	runVectorlint(t, dir, fakeEnv(srv), "", "--output", "json", "--cache-dir", cache, "docs")
	if srv.Calls() != before {
		t.Errorf("the damaged entries were not replaced: %d new calls", srv.Calls()-before)
	}
}

// interruptBlueprint has function points only, so a run needs no judge.
const interruptBlueprint = `title: Interrupt
models: [openai:steady, openai:probe]
---
- id: capital
  prompt: What is the capital of France?
  should:
    - $contains: Paris
- id: river
  prompt: Which river flows through Paris?
  should:
    - $icontains: seine
`

// TestInterruptBlueprintRun sends SIGINT to a real blueprint run while one generation call
// hangs: it stops, says that no result was written, keeps only complete cache entries, and
// the same command run again makes only the call that was cut off.
func TestInterruptBlueprintRun(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	var hanging atomic.Bool
	hanging.Store(true)
	hang := srv.On(llmtest.All(llmtest.ModelIs("probe"), llmtest.LastUserContains("river")), llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if hanging.Load() {
			return llmtest.Hang()
		}
		return faultGenerate(r)
	}))
	srv.SetDefault(llmtest.Dynamic(faultGenerate))
	dir := t.TempDir()
	writeTestTree(t, dir, map[string]string{"bp.yml": interruptBlueprint})
	cache := filepath.Join(dir, "cache")
	args := []string{"blueprint", "run", "bp.yml", "--cache-dir", cache, "--run-label", "I"}
	cmd, stdout, stderr := vectorlintProcess(t, dir, srv, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait until the three other replies are cached and the fourth call hangs.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		entries := 0
		_ = filepath.WalkDir(cache, func(_ string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), ".") {
				entries++
			}
			return nil
		})
		if hang.Hits() == 1 && entries == 3 {
			break
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("the run never reached 3 cached replies and a hanging call (%d entries, %d hangs); stderr:\n%s", entries, hang.Hits(), stderr)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != exitFailure {
		t.Errorf("exit %d, want 2", code)
	}
	want := "vectorlint blueprint run: interrupted: no result written; the replies received so far are cached, so running the same command again continues from there\n"
	if got := stderr.String(); !strings.HasSuffix(got, want) {
		t.Errorf("stderr %q, want it to end with %q", got, want)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout)
	}
	if results, _ := filepath.Glob(filepath.Join(dir, ".results", "*", "*")); len(results) != 0 {
		t.Errorf("result files %v after an interrupted run, want none", results)
	}
	if n := checkCacheEntries(t, cache); n != 3 {
		t.Errorf("%d cache entries, want 3", n)
	}

	// Run again: only the call that was cut off is made.
	hanging.Store(false)
	before := len(srv.Requests())
	cmd, _, stderr = vectorlintProcess(t, dir, srv, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd); code != exitOK {
		t.Errorf("second run: exit %d, want 0; stderr:\n%s", code, stderr)
	}
	if n := len(srv.Requests()) - before; n != 1 {
		t.Errorf("second run made %d calls, want 1", n)
	}
}
