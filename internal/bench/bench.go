// Package bench is the benchmark program: it measures vectorlint against the performance
// targets of spec/quality.md and prints, for each scenario, wall time, model calls, tokens, peak
// memory and the ratio to the physical bound ceil(N/C) × L of N calls of latency L with
// concurrency C.
//
//	go run -tags bench ./internal/cmd/bench           # every scenario, as recorded in docs/benchmarks.md
//	go run -tags bench ./internal/cmd/bench -quick    # the CI smoke run (.ci/bench-smoke)
//
// The command itself (internal/cmd/bench) is a few lines behind the build tag bench, so that
// `go install ./...` — what pre-commit runs to install the hook — builds only vectorlint, while
// this package stays in `go vet ./...`, `go test ./...` and staticcheck (docs/benchmarks.md).
//
// The model is the local fake OpenAI-compatible server llm/llmtest with a fixed latency, run in
// this process. The lint scenarios run the real binary (built once into a temporary folder) as
// a child process with --output json, so their wall time is what a user waits, their peak
// memory is the child's own (its maximum resident set size), and their calls, tokens and
// streaming are observed from outside: calls at the server, tokens in the JSON usage, and each
// file's result as it arrives on the child's standard output. The pure scenarios (blueprint
// parsing and point-function scoring over the shared corpus) run in a child copy of this
// program for the same reason.
//
// The program exits 1 when a scenario misses its target, 2 when it cannot run.
package bench

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// options are the command-line settings of a run.
type options struct {
	quick   bool
	serial  bool
	shared  string
	only    string
	tries   int
	verbose bool
	// streamDocs overrides the document count of the memory scenario (0: 10,000).
	streamDocs int
	// knownMiss names (by a substring) a scenario whose miss is known and recorded in
	// docs/benchmarks.md: it is still measured and shown as missed, but does not fail the run.
	knownMiss string
}

// Main runs the benchmark program with its command-line arguments (without the program name)
// and returns its exit code: 0 when every scenario met its target, 1 when one missed it, 2 when
// it could not run.
func Main(args []string, stdout, stderr io.Writer) int {
	// A child run of a pure scenario: print its measurement as JSON and exit.
	if len(args) > 1 && args[0] == childFlag {
		return runChild(args[1], args[2:], stdout, stderr)
	}
	var o options
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.BoolVar(&o.quick, "quick", false, "the CI smoke run: fewer documents, L = 500 ms (scheduling noise on a busy 2-core box is small beside it), no concurrency-1 comparison")
	fs.BoolVar(&o.serial, "serial", true, "also run the 200 × 3 scenario with concurrency 1, the one-call-at-a-time approach (about N × L = 60 s); ignored with -quick")
	fs.StringVar(&o.shared, "shared", "", "the shared reference folder with corpus/ (default: $VECTORLINT_SHARED, else ../shared beside the repository)")
	fs.StringVar(&o.only, "run", "", "run only the scenarios whose name contains this text")
	fs.IntVar(&o.tries, "tries", 1, "runs of a timed scenario before it counts as missing its target (the best run is kept)")
	fs.BoolVar(&o.verbose, "v", false, "log each step to standard error")
	fs.StringVar(&o.knownMiss, "known-miss", "", "a scenario (name substring) whose missed target is known and recorded in docs/benchmarks.md: shown, but not counted as a failure")
	fs.IntVar(&o.streamDocs, "stream-docs", 0, "documents of the memory scenario (default 10000), to see how peak memory grows with them")
	fs.SetOutput(stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	return run(o, stdout, stderr)
}

func run(o options, stdout, stderr io.Writer) int {
	root, err := repoRoot()
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	if o.shared == "" {
		o.shared = os.Getenv("VECTORLINT_SHARED")
	}
	if o.shared == "" {
		o.shared = filepath.Join(root, "..", "shared")
	}
	if _, err := os.Stat(filepath.Join(o.shared, "corpus")); err != nil {
		fmt.Fprintf(stderr, "bench: the shared corpus is not at %s: pass -shared DIR or set VECTORLINT_SHARED\n", o.shared)
		return 2
	}
	work, err := os.MkdirTemp("", "vectorlint-bench-")
	if err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	defer os.RemoveAll(work)
	b := &bench{opts: o, root: root, work: work, log: io.Discard}
	defer func() {
		for _, c := range b.closers {
			c()
		}
	}()
	if o.verbose {
		b.log = stderr
	}
	if err := b.build(); err != nil {
		fmt.Fprintf(stderr, "bench: %v\n", err)
		return 2
	}
	mode := "full"
	if o.quick {
		mode = "quick"
	}
	fmt.Fprintf(stdout, "vectorlint benchmarks (%s): %s/%s, %d CPUs, %s%s\n\n", mode, runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version(), loadAverage())
	var results []result
	for _, s := range b.scenarios() {
		if o.only != "" && !strings.Contains(s.name, o.only) {
			continue
		}
		fmt.Fprintf(b.log, "bench: %s\n", s.name)
		var best result
		for try := 1; try <= max(1, o.tries); try++ {
			r := s.run()
			r.name = s.name
			if try == 1 || better(r, best) {
				best = r
			}
			if r.err != nil || r.met() || !s.timed {
				break
			}
			fmt.Fprintf(b.log, "bench: %s missed its target (%s), try %d of %d\n", s.name, r.verdict(), try, o.tries)
		}
		results = append(results, best)
	}
	if len(results) == 0 {
		fmt.Fprintf(stderr, "bench: no scenario's name contains %q\n", o.only)
		return 2
	}
	printTable(stdout, results)
	failed, known := 0, tolerated(results, o.knownMiss)
	for _, r := range results {
		if !r.met() {
			failed++
		}
	}
	failed -= len(known)
	for _, r := range known {
		fmt.Fprintf(stdout, "\nknown miss, not counted (docs/benchmarks.md): %s: %s\n", r.name, r.verdict())
	}
	if failed > 0 {
		fmt.Fprintf(stdout, "\n%d of %d scenarios missed their target\n", failed, len(results))
		return 1
	}
	if len(known) > 0 {
		fmt.Fprintf(stdout, "\nevery other target met\n")
		return 0
	}
	fmt.Fprintf(stdout, "\nevery target met\n")
	return 0
}

// tolerated returns the results that missed their target but whose name contains knownMiss
// (never an error: a scenario that could not run always fails).
func tolerated(results []result, knownMiss string) []result {
	var out []result
	for _, r := range results {
		if knownMiss != "" && r.err == nil && !r.met() && strings.Contains(r.name, knownMiss) {
			out = append(out, r)
		}
	}
	return out
}

// result is one scenario's measurement and its verdict against the target.
type result struct {
	name   string
	wall   time.Duration
	calls  int
	tokens int64 // input + output tokens
	// perCall is the input tokens of one call (tokens per document per rule), 0 when unknown.
	perCall float64
	peakKB  int64
	// bound is ceil(N/C) × L, 0 when the scenario makes no calls.
	bound  time.Duration
	target string
	// failures are the target's clauses that were missed; note adds what was observed.
	failures []string
	note     string
	err      error
}

func (r result) met() bool { return r.err == nil && len(r.failures) == 0 }

// better prefers a run that met its target, then the faster one.
func better(r, than result) bool {
	if r.met() != than.met() {
		return r.met()
	}
	return r.err == nil && r.wall < than.wall
}

func (r *result) fail(format string, args ...any) {
	r.failures = append(r.failures, fmt.Sprintf(format, args...))
}

func (r result) ratio() float64 {
	if r.bound == 0 {
		return 0
	}
	return r.wall.Seconds() / r.bound.Seconds()
}

func (r result) verdict() string {
	switch {
	case r.err != nil:
		return "ERROR: " + r.err.Error()
	case len(r.failures) > 0:
		return "MISSED: " + strings.Join(r.failures, "; ")
	}
	return "ok"
}

func printTable(w io.Writer, results []result) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "scenario\twall\tcalls\ttokens\ttokens/call\tpeak memory\tbound\tratio\ttarget\tresult")
	for _, r := range results {
		cols := []string{r.name, fmtDuration(r.wall), "-", "-", "-", "-", "-", "-", r.target, r.verdict()}
		if r.err == nil {
			if r.calls >= 0 {
				cols[2] = fmt.Sprint(r.calls)
			}
			if r.tokens > 0 {
				cols[3] = fmt.Sprint(r.tokens)
			}
			if r.perCall > 0 {
				cols[4] = fmt.Sprintf("%.0f", r.perCall)
			}
			if r.peakKB > 0 {
				cols[5] = fmt.Sprintf("%.1f MB", float64(r.peakKB)/1024)
			}
			if r.bound > 0 {
				cols[6] = fmtDuration(r.bound)
				cols[7] = fmt.Sprintf("%.3f", r.ratio())
			}
		}
		fmt.Fprintln(tw, strings.Join(cols, "\t"))
	}
	tw.Flush()
	for _, r := range results {
		if r.note != "" {
			fmt.Fprintf(w, "  %s: %s\n", r.name, r.note)
		}
	}
}

func fmtDuration(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000)
	}
	return fmt.Sprintf("%d µs", d.Microseconds())
}

// repoRoot is the nearest parent of the working directory holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("go.mod not found above %s: run the program from the repository", dir)
		}
		dir = parent
	}
}

// decodeJSON decodes one JSON value from data into v, naming what it was.
func decodeJSON(what string, data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("%s: expected a JSON document, found %q: %w", what, truncate(string(data), 200), err)
	}
	return nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// loadAverage is ", load average A B C" where the system tells it (Linux), else "": timings on a
// busy machine are slower than on an idle one.
func loadAverage() string {
	data, err := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(data))
	if err != nil || len(f) < 3 {
		return ""
	}
	return ", load average " + strings.Join(f[:3], " ")
}
