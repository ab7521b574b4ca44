package main

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/vectorlint/vectorlint/llm"
	"github.com/vectorlint/vectorlint/llm/llmtest"
)

// Fault injection through the lint command: every fault the fake server offers, and replies
// that break the contract, against one rule of one file. For each the test asserts the retry
// (how many requests the faulty rule made), the exact error reported for that rule and file,
// that every other rule and file keeps its result, and the exit code (2 when the run could
// not do all its work).

// faultProject has two documents and three rules: Steady (never faulty), Probe (a
// semi-objective rule the faults hit) and Rated (a subjective rule for the criteria contract).
func faultProject() map[string]string {
	return map[string]string{
		"vectorlint.ini": "RulesPath = rules\n[**/*.md]\nRunRules = Acme\n",
		"rules/Acme/steady.md": "---\nid: Steady\nname: Steady\n---\n" +
			"Flag nothing.\n",
		"rules/Acme/probe.md": "---\nid: Probe\nname: Probe\nseverity: error\n---\n" +
			"Flag wordy phrases.\n",
		"rules/Acme/rated.md": "---\nid: Rated\nname: Rated\ntype: subjective\n" +
			"criteria:\n  - {id: Clarity, name: Clarity, weight: 3}\n  - {id: Tone, name: Tone, weight: 1}\n" +
			"---\nRate the text.\n",
		"docs/a.md": "In order to start, run the setup script.\nThen read the guide.\n",
		"docs/b.md": "In order to stop, press the red button twice.\n",
	}
}

// Matchers of the fault project's calls.
var (
	probeRule = llmtest.SystemContains(`<rule name="Probe">`)
	ratedRule = llmtest.SystemContains(`<rule name="Rated">`)
	onA       = llmtest.UserContains("start, run the setup")
	probeOnA  = llmtest.All(probeRule, onA)
	ratedOnA  = llmtest.All(ratedRule, onA)
)

// scriptFaultDefaults answers every call of the fault project correctly: Probe finds "In
// order to", Rated gives 3 and 4, Steady finds nothing.
func scriptFaultDefaults(srv *llmtest.Server) {
	srv.On(probeRule, llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to", "line": 1, "message": `Say "to".`, "fix": "To"}}}))
	srv.On(ratedRule, llmtest.JSON(ratedReply(3, 4)))
	srv.SetDefault(llmtest.JSON(map[string]any{"violations": []any{}}))
}

func ratedReply(clarity, tone any) map[string]any {
	return map[string]any{"criteria": []any{
		map[string]any{"id": "Clarity", "name": "Clarity", "score": clarity, "summary": "ok", "violations": []any{}},
		map[string]any{"id": "Tone", "name": "Tone", "score": tone, "summary": "ok", "violations": []any{}},
	}}
}

// faultRun is the outcome of one lint run of the fault project, reduced to what the suite
// compares: scores per file and rule, errors per file and rule, unverified quotes.
type faultRun struct {
	code       int
	scores     map[string]string // "docs/a.md Acme.Probe" → "6.4"
	errors     map[string]string // "docs/a.md Acme.Probe" → message (host replaced)
	unverified []string          // "docs/a.md Acme.Probe: quote"
	warnings   string            // the warning lines of standard error
	calls      int
}

func runFaultProject(t *testing.T, srv *llmtest.Server, tune func(*llm.Config)) faultRun {
	t.Helper()
	dir := t.TempDir()
	writeTestTree(t, dir, faultProject())
	var stdout, stderr bytes.Buffer
	env := fakeEnv(srv)
	a := &app{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, dir: dir,
		lookupEnv: func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		tuneLLM: func(c *llm.Config) {
			c.BaseDelay, c.MaxDelay = time.Millisecond, 5*time.Millisecond
			if tune != nil {
				tune(c)
			}
		}}
	code := a.run(context.Background(), []string{"--output", "json", "--no-cache", "--verbose", "docs"})
	r := cliResult{stdout: stdout.String(), stderr: stderr.String(), code: code}
	r.noKey(t)
	res := decodeJSON(t, r.stdout)
	out := faultRun{code: code, scores: map[string]string{}, errors: map[string]string{}, calls: res.Usage.Calls}
	// --verbose logs every request and retry; the suite compares the warnings only.
	for _, line := range strings.SplitAfter(r.stderr, "\n") {
		if strings.HasPrefix(line, "vectorlint: warning: ") {
			out.warnings += line
		}
	}
	for _, f := range res.Files {
		for _, s := range f.Scores {
			out.scores[f.Path+" "+s.Rule] = fmt.Sprintf("%.1f", s.Score)
		}
		for _, e := range f.Errors {
			out.errors[f.Path+" "+e.Rule] = hostless(e.Message, srv)
		}
		for _, u := range f.Unverified {
			out.unverified = append(out.unverified, f.Path+" "+u.Rule+": "+u.Quote)
		}
	}
	return out
}

// faultBaseline is the result of the fault project when nothing goes wrong.
var faultBaseline = map[string]string{
	"docs/a.md Acme.Probe": "1.7", "docs/a.md Acme.Rated": "7.8", "docs/a.md Acme.Steady": "10.0",
	"docs/b.md Acme.Probe": "0.0", "docs/b.md Acme.Rated": "7.8", "docs/b.md Acme.Steady": "10.0",
}

// withoutKey returns the baseline scores without key (the one the fault made fail).
func withoutKey(key string) map[string]string {
	m := map[string]string{}
	for k, v := range faultBaseline {
		if k != key {
			m[k] = v
		}
	}
	return m
}

func TestLintFaultBaseline(t *testing.T) {
	srv := llmtest.Start(t)
	scriptFaultDefaults(srv)
	r := runFaultProject(t, srv, nil)
	if r.code != exitFindings || len(r.errors) != 0 || fmt.Sprint(r.scores) != fmt.Sprint(faultBaseline) || r.calls != 6 {
		t.Fatalf("baseline: exit %d, errors %v, scores %v, calls %d", r.code, r.errors, r.scores, r.calls)
	}
}

// TestLintFaults is the fault table of the lint command.
func TestLintFaults(t *testing.T) {
	const probeA, ratedA = "docs/a.md Acme.Probe", "docs/a.md Acme.Rated"
	huge := strings.Repeat("overloaded ", 100_000) // a 1.1 MB error body
	tests := []struct {
		name string
		// match selects the faulty calls (default probeOnA) and replies answers them.
		match   llmtest.Matcher
		replies []llmtest.Reply
		tune    func(*llm.Config)
		// hits is how many requests the faulty calls made.
		hits int
		// failed is the (file, rule) that failed and its error; "" when the fault was survived.
		failed, err string
		// minGap is a lower bound of the time between the first two faulty requests
		// (Retry-After honoured).
		minGap     time.Duration
		unverified []string
		warnings   string
	}{
		{name: "429 with Retry-After, then success", replies: []llmtest.Reply{llmtest.RateLimited("0.2"), okProbe()},
			hits: 2, minGap: 200 * time.Millisecond},
		{name: "429 with an HTTP-date Retry-After in the past, then success",
			replies: []llmtest.Reply{llmtest.RateLimited("Wed, 21 Oct 2015 07:28:00 GMT"), okProbe()}, hits: 2},
		{name: "429 with retry-after-ms, then success",
			replies: []llmtest.Reply{{Status: 429, Body: `{"error":{"message":"slow down"}}`, Header: map[string]string{"retry-after-ms": "150"}}, okProbe()},
			hits:    2, minGap: 150 * time.Millisecond},
		{name: "429 always", replies: []llmtest.Reply{llmtest.RateLimited("0")}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 429 Too Many Requests: Rate limit reached for requests (4 attempts)"},
		{name: "429 asking to wait longer than the limit", replies: []llmtest.Reply{llmtest.RateLimited("120")}, hits: 1, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 429 Too Many Requests: Rate limit reached for requests (the server asks to wait 2m0s, longer than the 1m0s limit)"},
		{name: "500, then success", replies: []llmtest.Reply{llmtest.ServerError(), okProbe()}, hits: 2},
		{name: "500 three times, then success", replies: []llmtest.Reply{llmtest.ServerError(), llmtest.ServerError(), llmtest.ServerError(), okProbe()}, hits: 4},
		{name: "500 always", replies: []llmtest.Reply{llmtest.ServerError()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 500 Internal Server Error: The server had an error while processing your request. (4 attempts)"},
		{name: "502 with an HTML body", replies: []llmtest.Reply{{Status: 502, Body: "<html><body>Bad gateway</body></html>", ContentType: "text/html"}}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: HTTP 502 Bad Gateway: the body began "<html><body>Bad gateway</body></html>" (4 attempts)`},
		{name: "500 with a 1 MB body is echoed only in part", replies: []llmtest.Reply{{Status: 500, Body: huge, ContentType: "text/plain"}}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: HTTP 500 Internal Server Error: the body began "` + strings.TrimSpace(strings.Repeat("overloaded ", 11)) + `…" (4 attempts)`},
		{name: "400 is not retried", replies: []llmtest.Reply{llmtest.Status(400, `{"error":{"message":"context too long"}}`)}, hits: 1, failed: probeA,
			err: "llm: chat completion with test-model at HOST: HTTP 400 Bad Request: context too long"},
		{name: "hang past the timeout, then success", replies: []llmtest.Reply{llmtest.Hang(), okProbe()},
			tune: func(c *llm.Config) { c.Timeout = time.Second }, hits: 2},
		// A call with its retries is bounded by 3 × the timeout: the third attempt is cut short.
		{name: "hang always", replies: []llmtest.Reply{llmtest.Hang()},
			tune: func(c *llm.Config) { c.Timeout = time.Second }, hits: 3, failed: probeA,
			err: "llm: chat completion with test-model at HOST: no complete reply within 1s per attempt, and the call gave up at its limit of 3s (3 × the timeout) (3 attempts)"},
		{name: "connection closed, then success", replies: []llmtest.Reply{llmtest.CloseConnection(), okProbe()}, hits: 2},
		{name: "connection closed always", replies: []llmtest.Reply{llmtest.CloseConnection()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: connection failed: the server closed the connection without replying (4 attempts)"},
		{name: "connection closed mid-response always", replies: []llmtest.Reply{llmtest.CloseMidResponse()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: connection failed: the server closed the connection in the middle of the reply (4 attempts)"},
		{name: "malformed JSON, then success", replies: []llmtest.Reply{llmtest.MalformedJSON(), okProbe()}, hits: 2},
		{name: "malformed JSON always", replies: []llmtest.Reply{llmtest.MalformedJSON()}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: the server's reply is not valid JSON (invalid character ']' looking for beginning of value); it began "{\"id\":\"chatcmpl-malformed\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\",\"…" (4 attempts)`},
		{name: "truncated JSON always", replies: []llmtest.Reply{llmtest.TruncatedJSON()}, hits: 4, failed: probeA,
			err: "llm: chat completion with test-model at HOST: the server's reply is cut off after 138 bytes (truncated JSON) (4 attempts)"},
		{name: "an HTML page with status 200", replies: []llmtest.Reply{llmtest.HTMLPage()}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: the server's reply is not valid JSON (invalid character '<' looking for beginning of value); it began "<!DOCTYPE html><html><body><h1>Welcome to nginx!</h1></body></html>" (4 attempts)`},
		{name: "a completion without choices", replies: []llmtest.Reply{llmtest.NoChoices()}, hits: 4, failed: probeA,
			err: `llm: chat completion with test-model at HOST: the reply has no choices; it began "{\"object\":\"list\",\"data\":[]}" (4 attempts)`},

		// Replies that break the contract: sent back once with the problem, then an error.
		{name: "text instead of JSON, then a good reply", replies: []llmtest.Reply{llmtest.Text("Looks fine to me."), okProbe()}, hits: 2},
		{name: "violation without a quote twice", replies: []llmtest.Reply{llmtest.JSON(map[string]any{"violations": []any{map[string]any{"line": 1, "message": "Wordy."}}})},
			hits: 2, failed: probeA, err: `llm: reply of test-model at HOST rejected after one retry: violations[0].quoted_text: expected the exact words of the text that break the rule, found no quoted_text (fields: "line", "message"); the reply began "{\"violations\":[{\"line\":1,\"message\":\"Wordy.\"}]}"`},
		{name: "wrong criterion ids", match: ratedOnA,
			replies: []llmtest.Reply{llmtest.JSON(map[string]any{"criteria": []any{
				map[string]any{"id": "Brevity", "score": 3}, map[string]any{"id": "Voice", "score": 2}}})},
			hits: 2, failed: ratedA, err: `llm: reply of test-model at HOST rejected after one retry: criteria: expected a rating for every criterion (Clarity, Tone), found none for "Clarity", "Tone"; the reply began "{\"criteria\":[{\"id\":\"Brevity\",\"score\":3},{\"id\":\"Voice\",\"score\":2}]}"`},
		{name: "an extra criterion is a warning", match: ratedOnA,
			replies: []llmtest.Reply{llmtest.JSON(map[string]any{"criteria": []any{
				map[string]any{"id": "Clarity", "score": 3}, map[string]any{"id": "Tone", "score": 4}, map[string]any{"id": "Voice", "score": 1}}})},
			hits: 1, warnings: "vectorlint: warning: docs/a.md: Acme.Rated (lines 1-2): the reply rates a criterion the rule does not have (\"Voice\"); ignored\n"},
		{name: "a rating out of range", match: ratedOnA, replies: []llmtest.Reply{llmtest.JSON(ratedReply(3, 7))},
			hits: 2, failed: ratedA, err: `llm: reply of test-model at HOST rejected after one retry: criteria[1].score: expected an integer from 1 to 4, found 7; the reply began "{\"criteria\":[{\"id\":\"Clarity\",\"name\":\"Clarity\",\"score\":3,\"summary\":\"ok\",\"violations\":[]},{\"id\":\"Tone\",\"name\":\"Tone\",\"scor…"`},
		{name: "a rating out of range, then a good reply", match: ratedOnA, replies: []llmtest.Reply{llmtest.JSON(ratedReply(0, 4)), llmtest.JSON(ratedReply(3, 4))},
			hits: 2},
		{name: "a quote that is not in the document", replies: []llmtest.Reply{llmtest.JSON(map[string]any{"violations": []any{
			map[string]any{"quoted_text": "In order to", "line": 1, "message": `Say "to".`, "fix": "To"},
			map[string]any{"quoted_text": "leverage synergies", "line": 2, "message": "Jargon."}}})},
			hits: 1, unverified: []string{"docs/a.md Acme.Probe: leverage synergies"}},
		{name: "a line number outside the document", replies: []llmtest.Reply{llmtest.JSON(map[string]any{"violations": []any{
			map[string]any{"quoted_text": "In order to", "line": 999, "message": `Say "to".`, "fix": "To"}}})},
			hits: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := llmtest.Start(t)
			match := tt.match
			if match == nil {
				match = probeOnA
			}
			faulty := srv.On(match, tt.replies...)
			scriptFaultDefaults(srv)
			r := runFaultProject(t, srv, tt.tune)
			if faulty.Hits() != tt.hits {
				t.Errorf("the faulty call made %d requests, want %d", faulty.Hits(), tt.hits)
			}
			wantCode, wantScores := exitFindings, faultBaseline
			if tt.failed != "" {
				wantCode, wantScores = exitFailure, withoutKey(tt.failed)
			}
			if r.code != wantCode {
				t.Errorf("exit %d, want %d", r.code, wantCode)
			}
			if fmt.Sprint(r.scores) != fmt.Sprint(wantScores) {
				t.Errorf("scores\n got %v\nwant %v", r.scores, wantScores)
			}
			var errs []string
			for k, v := range r.errors {
				errs = append(errs, k+": "+v)
			}
			sort.Strings(errs)
			var wantErrs []string
			if tt.failed != "" {
				wantErrs = []string{tt.failed + ": " + tt.err}
			}
			if fmt.Sprintf("%q", errs) != fmt.Sprintf("%q", wantErrs) {
				t.Errorf("errors\n got %q\nwant %q", errs, wantErrs)
			}
			if fmt.Sprint(r.unverified) != fmt.Sprint(tt.unverified) {
				t.Errorf("unverified %v, want %v", r.unverified, tt.unverified)
			}
			if r.warnings != tt.warnings {
				t.Errorf("warnings %q, want %q", r.warnings, tt.warnings)
			}
			if tt.minGap > 0 {
				var times []time.Time
				for _, req := range srv.Requests() {
					if match(&req) {
						times = append(times, req.Time)
					}
				}
				if len(times) < 2 || times[1].Sub(times[0]) < tt.minGap {
					t.Errorf("the retry came before the server's Retry-After (%v): requests at %v", tt.minGap, times)
				}
			}
		})
	}
}

// okProbe is the Probe rule's good reply.
func okProbe() llmtest.Reply {
	return llmtest.JSON(map[string]any{"violations": []any{
		map[string]any{"quoted_text": "In order to", "line": 1, "message": `Say "to".`, "fix": "To"}}})
}
