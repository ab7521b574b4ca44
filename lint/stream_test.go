package lint

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// streamProject is a project of n small documents (d/f000.md …) under one semi-objective rule.
func streamProject(n int) map[string]string {
	files := chunkProject("x")
	delete(files, "rules/Acme/tone.md")
	delete(files, "doc.md")
	for i := range n {
		files[fmt.Sprintf("d/f%03d.md", i)] = fmt.Sprintf("File %03d says hello.\n", i)
	}
	return files
}

// testClient is a client of srv without retry delays, with the options evaluate sets.
func testClient(t testing.TB, srv *llmtest.Server, opts EvalOptions) EvalOptions {
	t.Helper()
	client, err := llm.New(llm.Config{BaseDelay: time.Millisecond, Concurrency: opts.Concurrency})
	if err != nil {
		t.Fatal(err)
	}
	opts.Client = client
	opts.Endpoint = llm.Endpoint{BaseURL: srv.URL, Model: "test-model", APIKey: "sk-test"}
	return opts
}

// TestEvaluateWindow proves the bound on prepared files without timing: the first file's call
// is held until the calls of every other file in the window have reached the server, so the
// window fills; the producer must then wait for the first file instead of preparing more. At no
// time are more than window files prepared, a lazy file is read only when the pool reaches it,
// and its document is released as soon as its result is emitted.
func TestEvaluateWindow(t *testing.T) {
	const (
		n      = 40
		window = 4
	)
	dir, proj := loadTestProject(t, streamProject(n))
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"d"}, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(plan.Files) != n {
		t.Fatalf("%d files planned, want %d", len(plan.Files), n)
	}
	for _, f := range plan.Files {
		if f.Prepared() || f.Doc != nil || f.Rules != nil {
			t.Fatalf("%s: a lazy plan read the file up front", f.Path)
		}
	}

	var (
		mu      sync.Mutex
		others  int
		full    = make(chan struct{}) // closed when the window's other files have called
		maxLive int
	)
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Dynamic(func(r *llmtest.Request) llmtest.Reply {
		if strings.Contains(r.LastUser(), "File 000 ") {
			select {
			case <-full:
			case <-time.After(10 * time.Second): // a broken bound: fail below rather than hang
			}
			return violationsOf()
		}
		mu.Lock()
		if others++; others == window-1 {
			close(full)
		}
		mu.Unlock()
		return violationsOf()
	}))
	hooks := evalHooks{window: window, prepared: func(live int) {
		mu.Lock()
		maxLive = max(maxLive, live)
		mu.Unlock()
	}}
	var paths []string
	stats, err := evaluateWith(context.Background(), plan, testClient(t, srv, EvalOptions{Concurrency: 2}), hooks,
		func(fr finding.FileResult) error {
			i := len(paths)
			paths = append(paths, fr.Path)
			if !plan.Files[i].Prepared() || plan.Files[i].Doc == nil {
				t.Errorf("%s is emitted but not prepared", fr.Path)
			}
			if i > 0 && (plan.Files[i-1].Prepared() || plan.Files[i-1].Doc != nil || plan.Files[i-1].Rules != nil) {
				t.Errorf("%s is still prepared after its result was emitted", plan.Files[i-1].Path)
			}
			if len(fr.Scores) != 1 || fr.Scores[0].Score != 10 || len(fr.Errors) != 0 {
				t.Errorf("%s: %+v", fr.Path, fr)
			}
			return nil
		})
	if err != nil || stats.NotRun != 0 || len(stats.Incomplete) != 0 {
		t.Fatalf("err %v, stats %+v", err, stats)
	}
	if len(paths) != n || paths[0] != "d/f000.md" || paths[n-1] != fmt.Sprintf("d/f%03d.md", n-1) {
		t.Errorf("emitted %d files: %v", len(paths), paths)
	}
	if maxLive != window {
		t.Errorf("at most %d files were prepared at once, want the window's %d", maxLive, window)
	}
	if srv.Calls() != n {
		t.Errorf("%d calls, want %d", srv.Calls(), n)
	}
	for _, f := range plan.Files {
		if f.Prepared() || f.Doc != nil {
			t.Errorf("%s is still prepared after the run", f.Path)
		}
	}
}

// TestEvaluateLazySameResults: a lazy plan gives the results of the eager one, file for file
// (targets, criteria, a rule that cannot run, an unreadable file), and the eager plan is left as
// it was.
func TestEvaluateLazySameResults(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, planFiles)
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Headline">`),
		llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Tone", "score": 1, "summary": "Cold."}}}))
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Wordiness">`), llmtest.UserContains("All good")),
		violationsOf(map[string]any{"quoted_text": "All good", "line": 7, "message": "Vague."}))
	srv.SetDefault(violationsOf())
	render := func(lazy bool, srv *llmtest.Server, opts EvalOptions) (string, EvalStats, *Plan) {
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}, Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		got, stats, err := evaluate(t, srv, plan, opts)
		if err != nil {
			t.Fatal(err)
		}
		return renderResults(got), stats, plan
	}
	eager, eagerStats, eagerPlan := render(false, srv, EvalOptions{Concurrency: 2})
	lazy, lazyStats, lazyPlan := render(true, srv, EvalOptions{Concurrency: 2})
	if lazy != eager || fmt.Sprint(lazyStats) != fmt.Sprint(eagerStats) {
		t.Errorf("lazy plan:\n%s\n%+v\neager plan:\n%s\n%+v", lazy, lazyStats, eager, eagerStats)
	}
	if !strings.Contains(eager, "error vectorlint: 1:7: expected UTF-8 text") {
		t.Errorf("the unreadable file is not reported:\n%s", eager)
	}
	for i, f := range eagerPlan.Files {
		if !f.Prepared() || (f.Doc == nil) != (f.Err != nil) {
			t.Errorf("%s: Evaluate released a file of an eager plan", f.Path)
		}
		if lazyPlan.Files[i].Prepared() {
			t.Errorf("%s: Evaluate did not release a lazy file", f.Path)
		}
	}
	// Without a model, the calls not made are counted alike.
	_, eagerStats, _ = render(false, nil, EvalOptions{})
	_, lazyStats, _ = render(true, nil, EvalOptions{})
	if eagerStats.NotRun == 0 || lazyStats.NotRun != eagerStats.NotRun {
		t.Errorf("not run: lazy %d, eager %d", lazyStats.NotRun, eagerStats.NotRun)
	}
	// Plan.Prepare makes a lazy plan whole, as the dry run needs it.
	plan, _ := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}, Lazy: true})
	if plan.Calls() != 0 {
		t.Errorf("an unprepared plan counts %d calls", plan.Calls())
	}
	plan.Prepare()
	if plan.Calls() != eagerPlan.Calls() || fmt.Sprint(plan.OperationalErrors()) != fmt.Sprint(eagerPlan.OperationalErrors()) {
		t.Errorf("prepared lazy plan: %d calls, %v; eager: %d calls, %v", plan.Calls(), plan.OperationalErrors(),
			eagerPlan.Calls(), eagerPlan.OperationalErrors())
	}
}

// TestEvaluateLazyInterrupted: on Ctrl-C every call in flight stops and the files not finished
// are incomplete, in path order. Of the files the pool had not reached, an eager plan (which has
// read them) still emits the ones that need no model call (an unreadable one here); a lazy plan
// does not read them, so that the run stops at once however many files remain.
func TestEvaluateLazyInterrupted(t *testing.T) {
	t.Parallel()
	files := streamProject(10)
	files["d/f005.md"] = "bad \xff byte\n"
	dir, proj := loadTestProject(t, files)
	run := func(lazy bool) (paths []string, stats EvalStats, err error) {
		plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"d"}, Lazy: lazy})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		srv := llmtest.Start(t)
		srv.SetDefault(llmtest.Dynamic(func(*llmtest.Request) llmtest.Reply {
			cancel() // Ctrl-C as the first call arrives; every call hangs until it is stopped
			return llmtest.Hang()
		}))
		stats, err = evaluateWith(ctx, plan, testClient(t, srv, EvalOptions{Concurrency: 1}), evalHooks{window: 3},
			func(fr finding.FileResult) error {
				paths = append(paths, fr.Path+": "+renderResults([]finding.FileResult{fr}))
				return nil
			})
		return paths, stats, err
	}
	eagerPaths, eagerStats, eagerErr := run(false)
	lazyPaths, lazyStats, lazyErr := run(true)
	if !errors.Is(lazyErr, context.Canceled) || !errors.Is(eagerErr, context.Canceled) {
		t.Errorf("errors: lazy %v, eager %v", lazyErr, eagerErr)
	}
	want := []string{"d/f005.md: d/f005.md\n  error vectorlint: 1:5: expected UTF-8 text, found a byte that is not UTF-8 (offset 4)"}
	if len(lazyPaths) != 0 || fmt.Sprint(eagerPaths) != fmt.Sprint(want) {
		t.Errorf("emitted: lazy %q (want none), eager %q", lazyPaths, eagerPaths)
	}
	var all, allBut5 []string
	for i := range 10 {
		p := fmt.Sprintf("d/f%03d.md", i)
		all = append(all, p)
		if i != 5 {
			allBut5 = append(allBut5, p)
		}
	}
	if fmt.Sprint(lazyStats.Incomplete) != fmt.Sprint(all) || fmt.Sprint(eagerStats.Incomplete) != fmt.Sprint(allBut5) {
		t.Errorf("incomplete: lazy %v, eager %v", lazyStats.Incomplete, eagerStats.Incomplete)
	}
}

// TestEvaluateLazyStdin: the document on standard input is read once, when the pool reaches it.
func TestEvaluateLazyStdin(t *testing.T) {
	t.Parallel()
	dir, proj := loadTestProject(t, streamProject(2))
	stdin := &countingReader{r: strings.NewReader("File from the buffer.\n")}
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"d", "-"},
		Stdin: stdin, StdinFilename: "d/f001.md", Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	if stdin.reads != 0 {
		t.Fatal("a lazy plan read standard input up front")
	}
	srv := llmtest.Start(t)
	srv.SetDefault(violationsOf())
	got, _, err := evaluate(t, srv, plan, EvalOptions{Concurrency: 2})
	if err != nil || len(got) != 2 || got[1].Path != "d/f001.md" || len(got[1].Errors) != 0 {
		t.Fatalf("err %v, results %+v", err, got)
	}
	if !strings.Contains(srv.Requests()[0].LastUser()+srv.Requests()[1].LastUser(), "File from the buffer.") {
		t.Error("the buffer was not sent")
	}
	if stdin.eof != 1 {
		t.Errorf("standard input read to its end %d times, want 1", stdin.eof)
	}
	// Standard input cannot be read again: preparing the released file says so.
	plan.Files[1].Prepare()
	if plan.Files[1].Err == nil || !strings.Contains(plan.Files[1].Err.Error(), "d/f001.md: cannot read the file: standard input was read already") {
		t.Errorf("preparing standard input again: %v", plan.Files[1].Err)
	}
}

type countingReader struct {
	r          io.Reader
	reads, eof int
}

func (c *countingReader) Read(p []byte) (int, error) {
	c.reads++
	n, err := c.r.Read(p)
	if err == io.EOF {
		c.eof++
	}
	return n, err
}
