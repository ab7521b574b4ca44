package batch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/internal/tree"
	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// fixture is a project tree, a reply cache and a fake provider.
type fixture struct {
	dir, cache string
	root       *tree.Root
	srv        *llmtest.Server
	ep         llm.Endpoint
}

func newFixture(t *testing.T, provider llm.Provider, opts ...llmtest.Option) *fixture {
	t.Helper()
	dir := t.TempDir()
	root, err := tree.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	srv := llmtest.Start(t, append([]llmtest.Option{llmtest.RequireAPIKey("sk-batch-test-key")}, opts...)...)
	temp := 0.2
	ep := llm.Endpoint{Provider: provider, BaseURL: srv.URL, APIKey: "sk-batch-test-key", Model: "gpt-4o", Temperature: &temp}
	if provider == "anthropic" {
		ep.Model, ep.MaxTokens = "claude-sonnet-4-5", 4096
	}
	return &fixture{dir: dir, cache: t.TempDir(), root: root, srv: srv, ep: ep}
}

func (f *fixture) batcher(t *testing.T) *Batcher {
	t.Helper()
	b, err := New(Config{Client: llm.Config{CacheDir: f.cache, MaxAttempts: 1}, Root: f.root, PollInterval: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Close)
	return b
}

// requests are n rule checks of documents doc1…docn, with a reply schema.
func (f *fixture) requests(n int) []llm.Request {
	var out []llm.Request
	for i := 1; i <= n; i++ {
		out = append(out, llm.Request{Endpoint: f.ep, Schema: &llm.Schema{Name: "verdict", Strict: true,
			Schema: map[string]any{"type": "object", "properties": map[string]any{"ok": map[string]any{"type": "boolean"}}}},
			Messages: []llm.Message{{Role: llm.RoleSystem, Content: "Check the rule."},
				{Role: llm.RoleUser, Content: "doc" + string(rune('0'+i)) + " text"}}})
	}
	return out
}

// live runs reqs through a client on cacheDir ("" for none) and returns the replies' contents.
func live(t *testing.T, ep llm.Endpoint, cacheDir string, reqs []llm.Request) ([]string, llm.Usage) {
	t.Helper()
	c, err := llm.New(llm.Config{CacheDir: cacheDir, MaxAttempts: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var out []string
	for _, r := range reqs {
		r.Endpoint = ep
		res, err := c.Complete(context.Background(), r)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, res.Content)
	}
	return out, c.Usage()
}

func script(srv *llmtest.Server) {
	srv.On(llmtest.UserContains("doc1"), llmtest.Text(`{"ok":true}`))
	srv.On(llmtest.UserContains("doc2"), llmtest.Text(`{"ok":false}`))
	srv.On(llmtest.UserContains("doc3"), llmtest.Text(`{"ok":true,"note":"three"}`))
}

func TestOpenAICompletedBatch(t *testing.T) {
	t.Parallel()
	f := newFixture(t, "openai")
	script(f.srv)
	b := f.batcher(t)
	reqs := f.requests(3)
	ctx := context.Background()
	st, err := b.Submit(ctx, reqs, "plan-fingerprint")
	if err != nil {
		t.Fatal(err)
	}
	// Two requests: the upload and the batch.
	if f.srv.Calls() != 0 || f.srv.BatchRequests() != 2 {
		t.Fatalf("submit made %d live calls and %d batch API requests", f.srv.Calls(), f.srv.BatchRequests())
	}
	// Each line is the body a live call sends: a live run of the same requests on another
	// fake server records it.
	ref := llmtest.Start(t)
	script(ref)
	wantContents, _ := live(t, withBase(f.ep, ref.URL), "", reqs)
	lines := f.srv.BatchLines()
	if len(lines) != 3 {
		t.Fatalf("got %d batch lines, want 3", len(lines))
	}
	for i, l := range lines {
		if got, want := string(l.Body), string(ref.Requests()[i].Body); got != want {
			t.Errorf("line %d body:\n got %s\nwant %s", i+1, got, want)
		}
		if l.Path != "/v1/chat/completions" || l.Method != "POST" || l.CustomID != st.Parts[0].Requests[i].CustomID {
			t.Errorf("line %d: %s %s %s", i+1, l.Method, l.Path, l.CustomID)
		}
	}
	// The state file is in the tree and reads back equal.
	loaded, err := b.Load(st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(loaded, st) {
		t.Fatalf("loaded %+v, saved %+v", loaded, st)
	}
	data, err := os.ReadFile(filepath.Join(f.dir, ".vectorlint", "batches", st.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "sk-batch-test-key") || loaded.Fingerprint != "plan-fingerprint" || loaded.Provider != "openai" {
		t.Fatalf("state file: %s", data)
	}
	// Status moves validating → in_progress → finalizing → completed.
	var states []string
	for range 4 {
		s, err := b.Status(ctx, st, f.ep)
		if err != nil {
			t.Fatal(err)
		}
		states = append(states, s.State)
		if s.Done {
			if want := (Counts{Total: 3, Succeeded: 3}); s.Counts != want {
				t.Errorf("counts %+v, want %+v", s.Counts, want)
			}
		}
	}
	if want := []string{"validating", "in_progress", "finalizing", "completed"}; !reflect.DeepEqual(states, want) {
		t.Fatalf("states %v, want %v", states, want)
	}
	res, err := b.Collect(ctx, st, f.ep, reqs, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stored != 3 || len(res.Failed) != 0 || len(res.NotInBatch) != 0 || res.Stale != 0 {
		t.Fatalf("collect: %+v", res)
	}
	u := b.Usage()
	if u.Calls != 3 || u.InputTokens == 0 {
		t.Fatalf("batch usage %+v", u)
	}
	// A live run of the same requests is answered from the cache: 0 calls, the live replies.
	got, lu := live(t, f.ep, f.cache, reqs)
	if f.srv.Calls() != 0 || lu.CachedCalls != 3 {
		t.Fatalf("live run after collect: %d calls, usage %+v", f.srv.Calls(), lu)
	}
	if !reflect.DeepEqual(got, wantContents) {
		t.Fatalf("replies %q, want %q", got, wantContents)
	}
}

func withBase(ep llm.Endpoint, base string) llm.Endpoint {
	ep.BaseURL, ep.APIKey = base, ""
	return ep
}

// TestLinesKeepPromptCaching: with a shared prefix long enough to cache, the lines carry the
// live call's cache_control (Anthropic) or prompt_cache_key (OpenAI), byte for byte.
func TestLinesKeepPromptCaching(t *testing.T) {
	t.Parallel()
	for provider, mark := range map[llm.Provider]string{"openai": `"prompt_cache_key":"vectorlint-`, "anthropic": `"cache_control":{"type":"ephemeral"}`} {
		t.Run(string(provider), func(t *testing.T) {
			t.Parallel()
			f := newFixture(t, provider)
			b := f.batcher(t)
			reqs := f.requests(2)
			for i := range reqs {
				reqs[i].Messages[0].Content = strings.Repeat("The style guide says many things. ", 200)
			}
			if _, err := b.Submit(context.Background(), reqs, "fp"); err != nil {
				t.Fatal(err)
			}
			ref := llmtest.Start(t)
			live(t, withBase(f.ep, ref.URL), "", reqs)
			for i, l := range f.srv.BatchLines() {
				if string(l.Body) != string(ref.Requests()[i].Body) || !strings.Contains(string(l.Body), mark) {
					t.Errorf("line %d:\n got %s\nwant %s (with %s)", i+1, l.Body, ref.Requests()[i].Body, mark)
				}
			}
		})
	}
}
