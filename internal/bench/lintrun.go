package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// bench holds what every scenario shares.
type bench struct {
	opts options
	root string // the repository
	work string // a temporary folder for the binary, projects and caches
	bin  string // the vectorlint binary
	self string // this program, for child runs
	log  io.Writer
	// closers release what scenarios share (the fake server of the cold and warm runs).
	closers []func()
}

// build builds the vectorlint binary and this program into the work folder.
func (b *bench) build() error {
	exe := ""
	if runtime.GOOS == "windows" {
		exe = ".exe"
	}
	b.bin = filepath.Join(b.work, "vectorlint"+exe)
	b.self = filepath.Join(b.work, "bench"+exe)
	// The program itself is behind the build tag bench (package doc).
	for _, t := range []struct{ out, pkg, tags string }{{b.bin, "./cmd/vectorlint", ""}, {b.self, "./internal/cmd/bench", "bench"}} {
		args := []string{"build", "-tags", t.tags, "-o", t.out, t.pkg}
		fmt.Fprintf(b.log, "bench: go %s\n", strings.Join(args, " "))
		cmd := exec.Command("go", args...)
		cmd.Dir = b.root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go build %s: %v\n%s", t.pkg, err, out)
		}
	}
	return nil
}

// lintRun is one run of the binary's lint command.
type lintRun struct {
	wall   time.Duration
	peakKB int64
	calls  int // requests the server received during the run
	out    lintOutput
	// firstResultCalls is the number of calls the server had received when the first file's
	// result reached standard output (-1 when no result came).
	firstResultCalls int
	firstResult      time.Duration
	// firstCall is when the server received the run's first request, after start-up,
	// configuration, discovery and planning.
	firstCall time.Duration
}

// lintOutput is the part of the JSON output the benchmark reads.
type lintOutput struct {
	Files []struct {
		Path   string            `json:"path"`
		Errors []json.RawMessage `json:"errors"`
		Scores []json.RawMessage `json:"scores"`
	} `json:"files"`
	Usage struct {
		Calls        int   `json:"calls"`
		CachedCalls  int   `json:"cachedCalls"`
		InputTokens  int64 `json:"inputTokens"`
		OutputTokens int64 `json:"outputTokens"`
		// CachedInputTokens and CacheWriteTokens are the input tokens the provider read from
		// its prompt cache and wrote to it.
		CachedInputTokens int64    `json:"cachedInputTokens"`
		CacheWriteTokens  int64    `json:"cacheWriteTokens"`
		Cost              *float64 `json:"cost"`
	} `json:"usage"`
}

// lint runs `vectorlint --output json --quiet ARGS docs` in project dir against srv and waits
// for it. Exit code 1 (findings) is a success; any other failure is an error.
func (b *bench) lint(dir string, srv *llmtest.Server, args ...string) (lintRun, error) {
	return b.lintEnv(dir, srv, nil, args...)
}

// lintEnv is lint with more environment variables ("KEY=value").
func (b *bench) lintEnv(dir string, srv *llmtest.Server, env []string, args ...string) (lintRun, error) {
	run := lintRun{firstResultCalls: -1}
	args = append(append([]string{"--output", "json", "--quiet", "--fail-on", "none"}, args...), "docs")
	cmd := exec.Command(b.bin, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"LLM_PROVIDER=openai",
		"OPENAI_API_KEY=sk-bench",
		"OPENAI_BASE_URL=" + srv.URL,
		"OPENAI_MODEL=bench-model",
	}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return run, err
	}
	before := srv.Calls()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return run, err
	}
	peak := watchPeak(cmd.Process.Pid)
	var out bytes.Buffer
	buf := make([]byte, 64<<10)
	for {
		n, err := stdout.Read(buf)
		// The JSON output starts with the first file's result: nothing is written before it.
		if n > 0 && run.firstResultCalls < 0 {
			run.firstResultCalls = srv.Calls() - before
			run.firstResult = time.Since(start)
		}
		out.Write(buf[:n])
		if err != nil {
			break
		}
	}
	run.peakKB = peak.done()
	err = cmd.Wait()
	run.wall = time.Since(start)
	run.calls = srv.Calls() - before
	if reqs := srv.Requests(); len(reqs) > 0 && run.calls > 0 {
		run.firstCall = reqs[len(reqs)-run.calls].Time.Sub(start)
	}
	if err != nil && cmd.ProcessState.ExitCode() != 1 {
		return run, fmt.Errorf("vectorlint %s: %v\n%s", strings.Join(args, " "), err, truncate(stderr.String(), 2000))
	}
	if err := decodeJSON("vectorlint --output json", out.Bytes(), &run.out); err != nil {
		return run, err
	}
	for _, f := range run.out.Files {
		if len(f.Errors) > 0 {
			return run, fmt.Errorf("vectorlint: %s: expected no rule errors, found %s", f.Path, f.Errors[0])
		}
	}
	return run, nil
}

// timeCommand runs the binary n times with args in dir and returns the median and the fastest
// wall time of n timed runs, and the peak memory of a warm-up run; a failed run is an error.
func (b *bench) timeCommand(dir string, n int, args ...string) (med, fastest time.Duration, peak int64, err error) {
	// Run 0 is a warm-up whose peak memory is watched; the n timed runs are not watched,
	// because the watcher's reads of /proc compete with a child that lives only milliseconds.
	// Earlier scenarios leave this process a large heap that the runtime would hand back to
	// the system in the background, competing with the children on a small machine; hand it
	// back now, before the clock starts.
	debug.FreeOSMemory()
	// The output goes to a file, as hyperfine sends it to /dev/null: a pipe would add the
	// parent's copying goroutine and its wake-ups to every measurement.
	out, err := os.CreateTemp(b.work, "startup-*.out")
	if err != nil {
		return 0, 0, 0, err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	var walls []time.Duration
	for i := range n + 1 {
		cmd := exec.Command(b.bin, args...)
		cmd.Dir = dir
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
		if err := out.Truncate(0); err != nil {
			return 0, 0, 0, err
		}
		if _, err := out.Seek(0, io.SeekStart); err != nil {
			return 0, 0, 0, err
		}
		cmd.Stdout, cmd.Stderr = out, out
		start := time.Now()
		if err = cmd.Start(); err != nil {
			return 0, 0, 0, err
		}
		var w *peakWatcher
		if i == 0 {
			w = watchPeak(cmd.Process.Pid)
		}
		err = cmd.Wait()
		wall := time.Since(start)
		if w != nil {
			peak = w.done()
		} else {
			walls = append(walls, wall)
		}
		if err != nil {
			text, _ := os.ReadFile(out.Name())
			return 0, 0, 0, fmt.Errorf("vectorlint %s: %v\n%s", strings.Join(args, " "), err, truncate(string(text), 2000))
		}
	}
	sort.Slice(walls, func(i, j int) bool { return walls[i] < walls[j] })
	return walls[len(walls)/2], walls[0], peak, nil
}

// child runs this program's child scenario name and decodes its report.
func (b *bench) child(name string, args ...string) (childReport, int64, error) {
	var rep childReport
	cmd := exec.Command(b.self, append([]string{childFlag, name}, args...)...)
	cmd.Dir = b.root
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return rep, 0, err
	}
	w := watchPeak(cmd.Process.Pid)
	err := cmd.Wait()
	peak := w.done()
	if err != nil {
		return rep, 0, fmt.Errorf("%s: %v\n%s", name, err, truncate(stderr.String(), 2000))
	}
	if err := decodeJSON(name, stdout.Bytes(), &rep); err != nil {
		return rep, 0, err
	}
	return rep, peak, nil
}
