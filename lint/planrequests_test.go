package lint

import (
	"context"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// TestPlanRequestsAreTheRunsRequests: the requests planned ahead of a run (for the cache
// lookups of --max-calls and the dry run, and for a provider batch) are byte for byte the ones
// the run sends, also for a document whose code is left out and with a directive naming the
// file type; a checklist's judged point is deferred to the run (one call per document), and the files with no prose
// make no request.
func TestPlanRequestsAreTheRunsRequests(t *testing.T) {
	t.Parallel()
	files := noProseProject()
	files["docs/mixed.md"] = "# Deploy\n\nRun the `acme deploy` command in order to ship.\n\n```sh\nacme deploy --prod\n```\n\nThen utilize the status page.\n"
	files["rules/Acme/judged.md"] = "---\nid: Judged\nname: Judged\nshould:\n  - says how to deploy\n---\nJudge it.\n"
	dir, proj := loadTestProject(t, files)
	plan, err := BuildPlan(proj.Config, proj.Packs, PlanInput{Dir: dir, Paths: []string{"docs"}, Lazy: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.Start(t)
	srv.On(llmtest.SystemContains(`<rule name="Tone">`),
		llmtest.JSON(map[string]any{"criteria": []any{map[string]any{"id": "Warmth", "score": 4, "summary": "Warm."}}}))
	srv.On(llmtest.SystemContains("You are an expert examiner."),
		llmtest.Text("<reflection>It says so.</reflection><classification>CLASS_FULLY_PRESENT</classification>"))
	srv.SetDefault(violationsOf())
	opts := testClient(t, srv, EvalOptions{Directive: "Files of type {{file_type}} are user guides."})
	opts.Judge = ModelJudge{Client: opts.Client, Endpoint: opts.Endpoint}

	reqs, deferred := PlanRequests(plan, opts)
	if len(reqs) != 4 || deferred != 6 {
		t.Fatalf("%d requests, %d deferred; want 4 (Tone and Words on prose.md and mixed.md) and 6 (Judged's point on each document linted)", len(reqs), deferred)
	}
	var planned []string
	for _, r := range reqs {
		if r.Endpoint.Model != "test-model" {
			t.Errorf("request to %q", r.Endpoint.Model)
		}
		planned = append(planned, joinMessages(r.Messages))
		if j := joinMessages(r.Messages); strings.Contains(j, "--prod") {
			t.Errorf("the code block was sent:\n%s", j)
		}
	}
	if _, err := Run(context.Background(), plan, RunOptions{EvalOptions: opts}); err != nil {
		t.Fatal(err)
	}
	var sent []string
	judged := 0
	for _, r := range srv.Requests() {
		if strings.HasPrefix(r.Messages[0].Content, "You are an expert examiner.") { // a judged point
			judged++
			continue
		}
		sent = append(sent, joinSent(r.Messages))
	}
	if judged != deferred {
		t.Errorf("%d judge calls made, %d deferred", judged, deferred)
	}
	sort.Strings(planned)
	sort.Strings(sent)
	if !reflect.DeepEqual(planned, sent) {
		t.Errorf("planned requests differ from the requests sent (%d planned, %d sent)", len(planned), len(sent))
		for i := range min(len(planned), len(sent)) {
			if planned[i] != sent[i] {
				t.Errorf("first difference:\nplanned %q\nsent    %q", planned[i], sent[i])
				break
			}
		}
	}
	if !strings.Contains(planned[0]+planned[1], "Files of type .md are user guides.") {
		t.Errorf("the directive is not the file's:\n%q", planned)
	}
}

// joinMessages and joinSent are a request's messages as one string, role by role.
func joinMessages(ms []llm.Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(string(m.Role) + "\x00" + m.Content + "\x00")
	}
	return b.String()
}

func joinSent(ms []llmtest.Message) string {
	var b strings.Builder
	for _, m := range ms {
		b.WriteString(m.Role + "\x00" + m.Content + "\x00")
	}
	return b.String()
}
