package lint

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/finding"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// progressLog is a Progress that records what it is told.
type progressLog struct {
	mu     sync.Mutex
	events []string
}

func (p *progressLog) Start(interval time.Duration) { p.add(fmt.Sprintf("start %v", interval)) }
func (p *progressLog) Advance(files int)            { p.add(fmt.Sprintf("advance %d", files)) }
func (p *progressLog) Stop()                        { p.add("stop") }

func (p *progressLog) add(e string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.events = append(p.events, e)
}

// runProject is a project with a semi-objective rule, a subjective rule with a required target,
// and a checklist of deterministic points; three documents are linted and one is skipped.
func runProject() map[string]string {
	return map[string]string{
		"vectorlint.ini":      "RulesPath = rules\n[docs/**]\nRunRules = Acme\n",
		"rules/Acme/words.md": "---\nid: Words\nname: Words\nseverity: error\n---\nFind wordy phrases.\n",
		"rules/Acme/title.md": "---\nid: Title\nname: Title\ntype: subjective\n" +
			"target: {regex: '^#\\s+(.+)$', flags: mu, group: 1, required: true}\n" +
			"criteria: [{id: Clear, name: Clear}]\n---\nRate the title.\n",
		"rules/Acme/plain.md": "---\nid: Plain\nname: Plain\nshould:\n  - $not_icontains: utilize\n---\nPlain words.\n",
		"docs/a.md":           "# Start here\n\nIn order to start, utilize the tool.\n",
		"docs/b.md":           "No title at all.\n",
		"docs/c.md":           "# Fine\n\nAll clear.\n",
		"notes/skip.md":       "Not in any section.\n",
	}
}

// runPlan builds the lazy plan of runProject over docs and notes.
func runPlan(t *testing.T) *Plan {
	t.Helper()
	dir, proj := loadTestProject(t, runProject())
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs", "notes"}, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// runServer answers the rules of runProject.
func runServer(t *testing.T) *llmtest.Server {
	srv := llmtest.Start(t)
	srv.On(llmtest.All(llmtest.SystemContains(`<rule name="Words">`), llmtest.UserContains("In order to start")),
		violationsOf(map[string]any{"quoted_text": "In order to", "line": 3, "message": "Say 'to'.", "fix": "To"}))
	srv.On(llmtest.SystemContains(`<rule name="Title">`),
		llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Clear", "score": 4, "summary": "Clear."}}}))
	srv.SetDefault(violationsOf())
	return srv
}

// TestRun calls Run as a Go program or an editor would, against the fake server: the results
// are collected, the totals are the command's, and progress is reported file by file.
func TestRun(t *testing.T) {
	t.Parallel()
	plan := runPlan(t)
	srv := runServer(t)
	var progress progressLog
	res, err := Run(context.Background(), plan, RunOptions{
		EvalOptions: testClient(t, srv, EvalOptions{ConfidenceThreshold: 0.75, Concurrency: 2}),
		Progress:    &progress,
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `docs/a.md
  3:1-3:12 error Acme.Words "In order to" "Say 'to'."
  3:20-3:27 warning Acme.Plain "utilize" "Avoid \"utilize\"."
  score Acme.Plain semi-objective 0.0
  score Acme.Title subjective 10.0 Clear=4/10.0×1
  score Acme.Words semi-objective 0.0 (1 in 10 words, strictness 10)
docs/b.md
  1:1-1:1 warning Acme.Title "" "target not found"
  score Acme.Plain semi-objective 10.0
  score Acme.Title subjective 0.0
  score Acme.Words semi-objective 10.0 (0 in 4 words, strictness 10)
docs/c.md
  score Acme.Plain semi-objective 10.0
  score Acme.Title subjective 10.0 Clear=4/10.0×1
  score Acme.Words semi-objective 10.0 (0 in 4 words, strictness 10)`
	if got := renderResults(res.Files); got != want {
		t.Errorf("files:\n%s\nwant:\n%s", got, want)
	}
	if fix, _ := res.Files[0].Findings[0].Replacement(); fix != "To" {
		t.Errorf("fix %q", fix)
	}
	wantSummary := finding.Summary{Files: 3, Errors: 1, Warnings: 2}
	wantSkipped := []finding.Skipped{{Path: "notes/skip.md", Reason: "no section of vectorlint.ini matches"}}
	if res.Summary != wantSummary || !reflect.DeepEqual(res.Skipped, wantSkipped) || res.RunErrors != nil ||
		res.Interrupted != nil || !res.Complete() {
		t.Errorf("summary %+v, skipped %+v, run errors %+v, interrupted %v, complete %v",
			res.Summary, res.Skipped, res.RunErrors, res.Interrupted, res.Complete())
	}
	// Five model calls (Words on three files, Title on two), each reply's tokens counted.
	if res.Usage.Calls != 5 || srv.Calls() != 5 || res.Usage.CachedCalls != 0 || res.Usage.InputTokens == 0 || res.Usage.Cost != nil {
		t.Errorf("usage %+v, server calls %d", res.Usage, srv.Calls())
	}
	wantProgress := []string{"start 100ms", "advance 1", "advance 1", "advance 1", "stop"}
	if !reflect.DeepEqual(progress.events, wantProgress) {
		t.Errorf("progress %q, want %q", progress.events, wantProgress)
	}
}

// TestRunStreams: with File set, each result goes there in path order and none is kept; an
// error from File stops the run and is Run's.
func TestRunStreams(t *testing.T) {
	t.Parallel()
	srv := runServer(t)
	var paths []string
	res, err := Run(context.Background(), runPlan(t), RunOptions{
		EvalOptions: testClient(t, srv, EvalOptions{Concurrency: 3}),
		File: func(fr finding.FileResult) error {
			paths = append(paths, fr.Path)
			return nil
		},
	})
	if err != nil || res.Files != nil || strings.Join(paths, " ") != "docs/a.md docs/b.md docs/c.md" || res.Summary.Files != 3 {
		t.Errorf("err %v, kept %d files, streamed %q, summary %+v", err, len(res.Files), paths, res.Summary)
	}

	full := errors.New("disk full")
	paths = nil
	res, err = Run(context.Background(), runPlan(t), RunOptions{
		EvalOptions: testClient(t, srv, EvalOptions{Concurrency: 1}),
		File: func(fr finding.FileResult) error {
			paths = append(paths, fr.Path)
			return full
		},
	})
	if !errors.Is(err, full) || res != nil || strings.Join(paths, " ") != "docs/a.md" {
		t.Errorf("err %v, result %+v, streamed %q", err, res, paths)
	}
}

// TestRunNotConfigured: without a model, what needs none still runs; the rule runs that needed
// one are counted under one run error, and the run is not complete.
func TestRunNotConfigured(t *testing.T) {
	t.Parallel()
	res, err := Run(context.Background(), runPlan(t), RunOptions{EvalOptions: EvalOptions{
		NotConfigured: &llm.NotConfiguredError{Provider: "openai", Missing: []string{"OPENAI_API_KEY"}}}})
	if err != nil {
		t.Fatal(err)
	}
	wantErrs := []finding.RunError{{Cause: "LLM provider openai is not fully configured",
		Message: "LLM provider openai is not fully configured: set OPENAI_API_KEY", NotRun: 5}}
	if !reflect.DeepEqual(res.RunErrors, wantErrs) || res.Summary.NotRun != 5 || res.Complete() ||
		res.Usage != (finding.Usage{}) || len(res.Files) != 3 || res.Summary.Warnings != 2 {
		t.Errorf("run errors %+v, summary %+v, complete %v, usage %+v, %d files", res.RunErrors, res.Summary, res.Complete(), res.Usage, len(res.Files))
	}
	if f := res.Files[1].Findings; len(f) != 1 || f[0].Severity != finding.SeverityWarning || f[0].Message != TargetNotFound {
		t.Errorf("b.md findings %+v", f)
	}
}

// TestRunInterrupted: when the context ends, the files done are kept, the others listed as
// interrupted, the error is the context's, and progress is stopped.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv.SetDefault(llmtest.Dynamic(func(*llmtest.Request) llmtest.Reply {
		cancel() // Ctrl-C as the first call arrives; every call hangs until it is stopped
		return llmtest.Hang()
	}))
	var progress progressLog
	res, err := Run(ctx, runPlan(t), RunOptions{EvalOptions: testClient(t, srv, EvalOptions{Concurrency: 1}), Progress: &progress})
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("err %v, result %v", err, res)
	}
	if len(res.Files) != 0 || strings.Join(res.Interrupted, " ") != "docs/a.md docs/b.md docs/c.md" || res.Complete() {
		t.Errorf("files %d, interrupted %v, complete %v", len(res.Files), res.Interrupted, res.Complete())
	}
	if want := []string{"start 100ms", "stop"}; !reflect.DeepEqual(progress.events, want) {
		t.Errorf("progress %q, want %q", progress.events, want)
	}
}
