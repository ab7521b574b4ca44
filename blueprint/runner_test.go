package blueprint

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/envsource"
	"github.com/vectorlint/vectorlint/internal/trust"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
	"github.com/vectorlint/vectorlint/points"
)

// runEnv points the openai provider at a fake server (and holds a variable for ${VAR} tests).
func runEnv(srv *llmtest.Server) envsource.LookupFunc {
	return func(k string) (string, bool) {
		v, ok := map[string]string{"OPENAI_API_KEY": "sk-run-test", "OPENAI_BASE_URL": srv.URL, "PROXY_KEY": "proxy-secret"}[k]
		return v, ok
	}
}

func newRunClient(t *testing.T, trust *trust.Rule) *llm.Client {
	t.Helper()
	c, err := llm.New(llm.Config{BaseDelay: time.Millisecond, MaxDelay: time.Millisecond, Trust: trust})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRunStopsBeforeAnyCall: what would waste the run or send a variable where it may not go
// stops Run before the first model call, with a typed error.
func TestRunStopsBeforeAnyCall(t *testing.T) {
	t.Parallel()
	const plain = "models: [openai:m]\n---\n- {id: p, prompt: Q, should: [{$contains: x}]}\n"
	const custom = "models:\n  - id: proxy:m\n    url: http://attacker.test/v1/chat/completions\n    modelName: m\n    inherit: openai\n" +
		"    headers: {Authorization: \"Bearer ${PROXY_KEY}\"}\n---\n- {id: p, prompt: Q, should: [{$contains: x}]}\n"
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	trust, _ := trust.ParseHosts("")
	tests := []struct {
		name  string
		src   string
		opts  Options
		check func(error) bool
		want  string
	}{
		{name: "out dir is a file", src: plain, opts: Options{OutDir: "file/sub", Dir: dir},
			check: func(err error) bool { var e *OutDirError; return errors.As(err, &e) && e.Dir == "file/sub" },
			want:  "the results folder file/sub cannot hold the results: " + filepath.Join(dir, "file") + ": not a directory (no model was called)"},
		{name: "no model", src: "models: []\n---\n- {id: p, prompt: Q, should: [{$contains: x}]}\n",
			check: func(err error) bool { return err != nil }, want: "no model to run: the blueprint lists none (give --models)"},
		{name: "collection not resolved", src: "models: [CORE]\n---\n- {id: p, prompt: Q, should: [{$contains: x}]}\n",
			check: func(err error) bool { var e *UnresolvedError; return errors.As(err, &e) },
			want:  `model collection "CORE" not found (none are defined); pass --collections DIR with NAME.json files, or list model ids`},
		{name: "variable not allowed", src: custom,
			check: func(err error) bool { var e *EnvRefError; return errors.As(err, &e) && len(e.Problems) == 1 },
			want:  "gen.yml: 1 environment variable reference not allowed (--allow-env): no call made"},
		{name: "variable sent to an untrusted host", src: custom, opts: Options{AllowEnv: points.AllowEnv{"PROXY_KEY": true}},
			check: func(err error) bool {
				var e *EnvTrustError
				return errors.As(err, &e) && len(e.Errs) == 1 && strings.Contains(err.Error(), "attacker.test")
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			opts := tt.opts
			opts.Blueprint = parseTestBlueprint(t, tt.src)
			opts.Client, opts.Trust = newRunClient(t, trust), trust
			opts.LookupEnv = runEnv(srv)
			opts.Methods = Methods{Coverage: true}
			res, err := Run(context.Background(), opts)
			if res != nil || !tt.check(err) || (tt.want != "" && err.Error() != tt.want) {
				t.Errorf("result %v, error %T %v\nwant %s", res, err, err, tt.want)
			}
			if srv.Calls() != 0 {
				t.Errorf("%d calls before the run was stopped", srv.Calls())
			}
		})
	}
}

// recorder is a Progress that records what it is told.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) Phase(name string, total int) { r.add(fmt.Sprintf("phase %s %d", name, total)) }
func (r *recorder) Advance(n int)                { r.add(fmt.Sprintf("advance %d", n)) }
func (r *recorder) Stop()                        { r.add("stop") }
func (r *recorder) add(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

// TestRunProgressWarningsAndFiles runs two prompts on a working and an unconfigured model:
// the unconfigured one is warned about once before the run and fails its pairs; Progress is
// told of both phases and stopped once; the result document and the report are written.
func TestRunProgressWarningsAndFiles(t *testing.T) {
	t.Parallel()
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Text("Paris."))
	dir := t.TempDir()
	var rec recorder
	var warnings []string
	res, err := Run(context.Background(), Options{
		Blueprint: parseTestBlueprint(t, "models: [openai:m, mistral:m]\n---\n- {id: a, prompt: Q, should: [{$contains: Paris}]}\n- {id: b, prompt: R, should: [{$contains: Lyon}]}\n"),
		Client:    newRunClient(t, nil),
		LookupEnv: runEnv(srv),
		Methods:   Methods{Coverage: true},
		RunLabel:  "L",
		Now:       fixedClock,
		Dir:       dir,
		OutDir:    "out",
		HTML:      "report/r.html",
		Progress:  &rec,
		Warn:      func(s string) { warnings = append(warnings, s) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"model mistral:m cannot be called: LLM provider mistral is not fully configured: set MISTRAL_API_KEY"}; fmt.Sprint(warnings) != fmt.Sprint(want) {
		t.Errorf("warnings %q\nwant %q", warnings, want)
	}
	want := "phase generating responses 4, advance 1, advance 1, advance 1, advance 1, phase scoring 2, advance 1, advance 1, stop"
	if got := strings.Join(rec.events, ", "); got != want {
		t.Errorf("progress: %s\nwant      %s", got, want)
	}
	if res.Path != filepath.Join("out", "gen", "L_2025-07-05T10-20-30-123Z_comparison.json") || res.WriteErr != nil || res.HTMLErr != nil {
		t.Errorf("path %q, write error %v, report error %v", res.Path, res.WriteErr, res.HTMLErr)
	}
	for _, f := range []string{res.Path, "report/r.html"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	if srv.Calls() != 2 || res.Usage.Calls != 2 || res.Complete() || len(res.Errors) != 2 {
		t.Errorf("%d calls (usage %d), complete %v, errors %v", srv.Calls(), res.Usage.Calls, res.Complete(), res.Errors)
	}
}

// TestRunInterrupted: when ctx ends during generation, Run returns ctx's error, writes nothing
// and stops the progress display.
func TestRunInterrupted(t *testing.T) {
	srv := llmtest.Start(t)
	srv.SetDefault(llmtest.Hang())
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		for srv.Calls() == 0 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	var rec recorder
	res, err := Run(ctx, Options{
		Blueprint: parseTestBlueprint(t, "models: [openai:m]\n---\n- {id: a, prompt: Q, should: [{$contains: Paris}]}\n"),
		Client:    newRunClient(t, nil),
		LookupEnv: runEnv(srv),
		Methods:   Methods{Coverage: true},
		OutDir:    dir,
		Progress:  &rec,
	})
	if res != nil || !errors.Is(err, context.Canceled) {
		t.Errorf("result %v, error %v", res, err)
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*", "*")); len(files) != 0 {
		t.Errorf("files written: %v", files)
	}
	if rec.events[len(rec.events)-1] != "stop" {
		t.Errorf("progress: %v", rec.events)
	}
}

// TestParseMethods: --eval-method takes Weval's names (parseEvalMethods in
// src/cli/commands/run-config.ts: embedding, llm-coverage, all, none) and vectorlint's
// similarity; unlike Weval an unknown name is an error, not a warning.
func TestParseMethods(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   []string
		want Methods
		err  string
	}{
		{in: []string{"llm-coverage", "similarity"}, want: Methods{Coverage: true, Similarity: true}},
		{in: []string{" embedding ", "llm-coverage"}, want: Methods{Coverage: true, Embedding: true}},
		{in: []string{"all"}, want: Methods{Coverage: true, Similarity: true, Embedding: true}},
		{in: []string{"embedding", "all"}, want: Methods{Coverage: true, Similarity: true, Embedding: true}},
		{in: []string{"none"}, want: Methods{}},
		{in: nil, want: Methods{}},
		{in: []string{"none", "embedding"}, err: "expected none alone (no evaluation), found it with 1 other method"},
		{in: []string{"llm-coverage", "bogus"}, err: `expected llm-coverage, similarity, embedding, all or none, found "bogus"`},
		{in: []string{""}, err: `expected llm-coverage, similarity, embedding, all or none, found ""`},
	}
	for _, tt := range tests {
		got, err := ParseMethods(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseMethods(%q) error %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ParseMethods(%q) = %+v, %v; want %+v", tt.in, got, err, tt.want)
		}
	}
}

// TestRunFixtures: fixture responses stand for the models where they apply (Weval's
// --fixtures: pickFixtureValue in src/lib/fixtures-service.ts, used by generateAllResponses in
// src/cli/services/comparison-pipeline-service.non-stream.ts), and the other pairs are
// generated, or with FixturesStrict are errors (run-config's --fixtures-strict: "Error when a
// fixture for a prompt×model is missing instead of generating live"). The server counts the
// generations.
func TestRunFixtures(t *testing.T) {
	t.Parallel()
	const src = "models: [openai:a, openai:b]\ntemperatures: [0, 1]\n---\n" +
		"- {id: p1, prompt: Q1, should: [{$contains: x}]}\n" +
		"- {id: p2, prompt: Q2, should: [{$contains: x}]}\n" +
		"- {id: p3, prompt: Q3, should: [{$contains: x}]}\n" +
		"- {id: p4, messages: [{user: Hi}, {assistant: null}, {user: More}], should: [{$contains: x}]}\n"
	// Variant ids as modelVariants writes them (the temperature's form is Weval's).
	a0, a1 := "openai:a[temp:"+formatTemperature(0)+"]", "openai:a[temp:"+formatTemperature(1)+"]"
	b0, b1 := "openai:b[temp:"+formatTemperature(0)+"]", "openai:b[temp:"+formatTemperature(1)+"]"
	fixtures, err := ParseResponses([]byte(`{"version": 1, "responses": {
  "p1": {"default": "fixture x"},
  "p2": {"byModel": {"openai:a": "model a x", "`+b1+`": "variant b x"}},
  "p3": {"byModel": {"openai:*": "wildcard x", "openai:b": "model b x"}},
  "p4": {"byModel": {"openai:a": {"turns": ["one x"]}}},
  "gone": {"default": "x"}
}}`), "f.json")
	if err != nil {
		t.Fatal(err)
	}
	turns := "error: the fixture in f.json: the prompt asks for 2 generated turns (one per assistant: null, plus a final one after a user message), found 1; give \"turns\" with 2 strings"
	// What each pair holds: a fixture's text, "generated" (from the server), or an error.
	want := map[[2]string]string{
		{"p1", a0}: "fixture x", {"p1", a1}: "fixture x", {"p1", b0}: "fixture x", {"p1", b1}: "fixture x",
		{"p2", a0}: "model a x", {"p2", a1}: "model a x", {"p2", b0}: "generated", {"p2", b1}: "variant b x",
		{"p3", a0}: "wildcard x", {"p3", a1}: "wildcard x", {"p3", b0}: "model b x", {"p3", b1}: "model b x",
		{"p4", a0}: turns, {"p4", a1}: turns, {"p4", b0}: "generated", {"p4", b1}: "generated",
	}
	for _, strict := range []bool{false, true} {
		t.Run(fmt.Sprintf("strict %v", strict), func(t *testing.T) {
			srv := llmtest.Start(t)
			srv.SetDefault(llmtest.Text("generated"))
			res, err := Run(context.Background(), Options{Blueprint: parseTestBlueprint(t, src), Client: newRunClient(t, nil), LookupEnv: runEnv(srv),
				Fixtures: fixtures, FixturesStrict: strict, Methods: Methods{Coverage: true}})
			if err != nil {
				t.Fatal(err)
			}
			for key, w := range want {
				p, m := key[0], key[1]
				got := res.AllFinalAssistantResponses[p][m]
				if msg, failed := res.Errors[p][m]; failed {
					got = "error: " + msg
				}
				if w == "generated" {
					if strict {
						w = "error: no fixture response for this prompt and model in f.json (--fixtures-strict)"
					}
				}
				if got != w {
					t.Errorf("%s: %q, want %q", key, got, w)
				}
			}
			wantCalls := 1 + 2*2 // p2 × b at 0 once; p4 × b at 0 and 1, two turns each
			if strict {
				wantCalls = 0
			}
			if srv.Calls() != wantCalls {
				t.Errorf("%d generation requests, want %d", srv.Calls(), wantCalls)
			}
			if w := `f.json:6: responses for prompt "gone", which the blueprint does not have (ignored)`; len(res.Warnings) != 1 || res.Warnings[0] != w {
				t.Errorf("warnings %q", res.Warnings)
			}
		})
	}
}
